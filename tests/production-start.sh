#!/usr/bin/env bash
# The production install, proved (README, "Production"; docs/deploy.md), and every command the
# Dockerfile, compose.yaml and the systemd units in deploy/ run, run here (no container runtime runs
# on the project's machine). The console and the storefront are built here (`npm run build`, the
# Dockerfile's build stage; vite is a dev dependency, so on a full install, as a CI or build machine
# has); then the build context (the files git would commit, less .dockerignore's top-level names:
# no tests, docs or .git) gets the two dist folders and the production install,
# `npm ci --omit=dev --workspace api --workspace db` (the Dockerfile's clean stage), and runs what an
# operator runs:
# - on SQLite: `npm run user:create-admin` and `NODE_ENV=production APP_KEY=... npm run serve`.
#   Checked: no dev dependency and none of the browser apps' libraries on disk; the health checks
#   (the image's `node deploy/healthcheck.mjs`, live and ready), the console's page and its script, a
#   storefront page with its dealer written in, its share card (sharp), the API reference
#   (swagger-ui-dist), a sign-in (argon2), `npm run backup`; SIGTERM sent to npm (as a process
#   manager does) stops the server gracefully: exit 0, nothing left listening.
# - on MariaDB with compose.yaml's settings: its migrate service's command, then an API process
#   (RECHARGE_WORKER=false) and a worker process started together; both ready by compose's health
#   check, metrics on METRICS_PORT, `npm run backup` and `npm run restore` (mysqldump, mysql) into a
#   fresh database; SIGTERM: ready turns 503 while live still answers (the proxy stops sending),
#   then both exit 0.
# - the systemd units pass `systemd-analyze verify` (where systemd is installed).
#
#   bash tests/production-start.sh     (run by .ci/run after the test suite, with MariaDB started;
#                                       3 to 8 minutes, most of it compiling better-sqlite3 in the clean
#                                       install; the MariaDB part about 50 s)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PRODUCTION_TEST_PORT:-3994}"
BASE="http://127.0.0.1:$PORT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/production-start.XXXXXX")"
SERVER_PID=''
API_PID=''
WORKER_PID=''
MYSQL_URL="${TEST_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
MYSQL_DATABASES=()

stop_group() {
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
    kill -TERM -- "-$1" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$1" 2>/dev/null || true
  fi
}
cleanup() {
  stop_group "$SERVER_PID"
  stop_group "$API_PID"
  stop_group "$WORKER_PID"
  for db in "${MYSQL_DATABASES[@]}"; do mysql_root -e "DROP DATABASE IF EXISTS \`$db\`" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "production start: FAILED: $*" >&2
  for log in "$WORK"/*.log; do
    [ -f "$log" ] || continue
    echo "--- $(basename "$log") (last 40 lines) ---" >&2
    tail -n 40 "$log" >&2
  done
  exit 1
}
started=$SECONDS
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
step() { echo "== [$((SECONDS - started)) s] $*"; }

# runs FILE TEXT: the deploy file still runs this command (the two stay the same by this check).
runs() {
  grep -qF -- "$2" "$ROOT/$1" || fail "$1 no longer has \"$2\": update tests/production-start.sh with it"
}
runs Dockerfile 'RUN npm run build'
runs Dockerfile 'RUN npm ci --omit=dev --workspace api --workspace db --no-audit --no-fund --loglevel=error'
runs Dockerfile 'CMD ["npm", "run", "--silent", "serve"]'
runs Dockerfile 'CMD ["node", "deploy/healthcheck.mjs", "/api/v1/health/live"]'
runs compose.yaml "command: ['sh', '-c', 'npm run --silent db:migrate && npm run --silent db:seed']"
runs compose.yaml "test: ['CMD', 'node', 'deploy/healthcheck.mjs', '/api/v1/health/ready']"
for unit in databundles.service databundles-worker.service; do runs "deploy/$unit" 'ExecStart=/usr/bin/npm run --silent serve'; done
runs deploy/databundles-migrate.service 'ExecStart=/usr/bin/npm run --silent db:migrate'
runs deploy/databundles-migrate.service 'ExecStart=/usr/bin/npm run --silent db:seed'

step 'npm run build: the console and the storefront (full install)'
(cd "$ROOT" && npm run build --silent >"$WORK/build.log" 2>&1) || fail 'npm run build'

step 'the build context: the files git would commit, less .dockerignore, with the built apps'
mkdir "$WORK/app"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf -) | tar -C "$WORK/app" -xf -
# .dockerignore's plain top-level names (the ** patterns are what git ignores already).
while IFS= read -r entry; do
  case "$entry" in '' | '#'* | '!'* | *'*'* | */*) continue ;; esac
  rm -rf "${WORK:?}/app/$entry"
done <"$ROOT/.dockerignore"
[ ! -e "$WORK/app/tests" ] && [ ! -e "$WORK/app/docs" ] || fail '.dockerignore left tests/ or docs/ in the build context'
cp -a "$ROOT/admin/dist" "$WORK/app/admin/dist"
cp -a "$ROOT/storefront/dist" "$WORK/app/storefront/dist"
cd "$WORK/app"

step "npm ci --omit=dev --workspace api --workspace db (the Dockerfile's clean stage)"
npm ci --omit=dev --workspace api --workspace db --no-audit --no-fund --loglevel=error
for dev in vite vitest typescript @vitejs/plugin-react playwright-core supertest smtp-server autocannon fast-check lighthouse react @mui/material; do
  [ ! -e "node_modules/$dev" ] || fail "$dev installed by the production install"
done
ok 'no dev dependency, no browser-app library installed'

export NODE_ENV=production
export APP_KEY="production-start-test-$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
export DATA_DIR="$WORK/data"
export PORT LOG_LEVEL=warn

step 'npm run user:create-admin (migrates the new database)'
ADMIN_PASSWORD='Prod-Start-9431!' npm run --silent user:create-admin -- --email ops@example.com --name 'Ops Lead' \
  || fail 'npm run user:create-admin'
ok 'user:create-admin'

step "NODE_ENV=production npm run serve (port $PORT)"
# The demo dealer is asked for explicitly (production seeds no demo data), to have a storefront page.
SEED_DEMO=true SEED_DEMO_HISTORY=false setsid npm run --silent serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 240); do
  curl -fsS -o /dev/null "$BASE/api/v1/health" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || fail 'the server exited while starting'
  sleep 0.5
done

# get PATH EXPECTED-STATUS [TEXT-IN-BODY] [TEXT-IN-CONTENT-TYPE]
get() {
  local out="$WORK/body" code type
  read -r code type < <(curl -sS -o "$out" -w '%{http_code} %{content_type}\n' "$BASE$1") || fail "GET $1: no answer"
  [ "$code" = "$2" ] || fail "GET $1: HTTP $code, expected $2"
  [ -z "${3:-}" ] || grep -qF -- "$3" "$out" || fail "GET $1: the body has no \"$3\""
  [ -z "${4:-}" ] || [[ "$type" == *"$4"* ]] || fail "GET $1: content type $type, expected $4"
  ok "GET $1: $code $type"
}

step 'checks'
get /api/v1/health 200 '"status":"ok"' application/json
get / 200 '<div id="root">' text/html
script="$(grep -o 'src="/assets/[^"]*\.js"' "$WORK/body" | head -n 1 | sed 's/^src="//; s/"$//')"
[ -n "$script" ] || fail "the console's index.html names no /assets/*.js"
get "$script" 200 '' javascript
get /dealer/DEMO 200 'Demo Telecom Dealer' text/html
get /dealer/DEMO/og.png 200 '' image/png
get /customer-sw.js 200 '' javascript
get /api/v1/docs 200 'swagger-ui' text/html
get /api/v1/docs/assets/swagger-ui-bundle.js 200 '' javascript
code="$(curl -sS -o "$WORK/login" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"email":"ops@example.com","password":"Prod-Start-9431!"}' "$BASE/api/v1/auth/admin/login")"
[ "$code" = 200 ] && grep -q '"token"' "$WORK/login" || fail "POST /api/v1/auth/admin/login: HTTP $code $(head -c 300 "$WORK/login")"
ok 'POST /api/v1/auth/admin/login (the admin made by user:create-admin): 200'
for path in /api/v1/health/live /api/v1/health/ready; do
  node deploy/healthcheck.mjs "$path" || fail "node deploy/healthcheck.mjs $path"
  ok "node deploy/healthcheck.mjs $path (the image's and compose's health checks)"
done

step 'npm run backup (SQLite online backup while the server runs)'
npm run --silent backup -- --to "$WORK/sqlite.backup" >"$WORK/backup.txt" || fail "npm run backup -- --to: $(cat "$WORK/backup.txt")"
[ -s "$WORK/sqlite.backup" ] || fail 'npm run backup wrote nothing'
npm run --silent backup >"$WORK/backup.txt" || fail "npm run backup: $(cat "$WORK/backup.txt")"
ls "$DATA_DIR"/backups/sqlite-app-*Z.sqlite >/dev/null 2>&1 || fail "npm run backup without --to left no timestamped file in $DATA_DIR/backups"
ok 'npm run backup -- --to FILE, and npm run backup (DATA_DIR/backups/<name>-<time>.sqlite)'

step 'SIGTERM to npm'
kill -TERM "$SERVER_PID"
status=0
wait "$SERVER_PID" || status=$?
[ "$status" = 0 ] || fail "npm run serve exited $status on SIGTERM"
sleep 1
! curl -s -o /dev/null "$BASE/api/v1/health" || fail 'the server still answers after npm run serve exited'
SERVER_PID=''
ok 'npm run serve exited 0, nothing left listening'

# The processes of compose.yaml, with its settings, on MariaDB (.ci/run starts it).
mysql_root() {
  local host port user pass
  read -r host port user pass < <(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname, u.port || 3306, decodeURIComponent(u.username), decodeURIComponent(u.password))' "$MYSQL_URL")
  MYSQL_PWD="$pass" mysql -h "$host" -P "$port" -u "$user" "$@"
}
db_url() { node -e 'const u = new URL(process.argv[1]); u.pathname = `/${process.argv[2]}`; console.log(u.toString())' "$MYSQL_URL" "$1"; }
wait_ready() { # PORT PID NAME
  for _ in $(seq 1 240); do
    PORT="$1" node deploy/healthcheck.mjs /api/v1/health/ready 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || fail "the $3 process exited while starting"
    sleep 0.5
  done
  fail "the $3 process was not ready within 2 minutes"
}

step "compose.yaml's processes on MariaDB ($MYSQL_URL)"
mysql_root -e 'SELECT 1' >/dev/null || fail "MariaDB does not answer at $MYSQL_URL (TEST_MYSQL_URL)"
db="prodstart_$$_${RANDOM}"
MYSQL_DATABASES=("$db" "${db}_restored")
for name in "${MYSQL_DATABASES[@]}"; do mysql_root -e "CREATE DATABASE \`$name\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"; done
unset PORT
export DATABASE_URL="$(db_url "$db")" DATA_DIR="$WORK/uploads" TRUST_PROXY=1 DB_POOL_MAX=10 METRICS_HOST=0.0.0.0 \
  DRAIN_TIMEOUT_SECONDS=25 DRAIN_NOT_READY_SECONDS=6
if redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  export REDIS_URL=redis://127.0.0.1:6379 REDIS_KEY_PREFIX="production-start-$$:"
  echo '   (REDIS_URL: the Redis on 127.0.0.1:6379)'
else
  echo '   (no Redis on 127.0.0.1:6379: REDIS_URL left unset)'
fi
sh -c 'npm run --silent db:migrate && npm run --silent db:seed' >"$WORK/migrate.log" 2>&1 || fail "the migrate service's command"
ok "compose's migrate: npm run --silent db:migrate && npm run --silent db:seed"

api_port=$((${PRODUCTION_TEST_PORT:-3994} + 1))
worker_port=$((api_port + 1))
api_metrics=$((api_port + 2))
worker_metrics=$((api_port + 3))
PORT=$api_port METRICS_PORT=$api_metrics RECHARGE_WORKER=false setsid npm run --silent serve >"$WORK/api.log" 2>&1 &
API_PID=$!
PORT=$worker_port METRICS_PORT=$worker_metrics RECHARGE_WORKER=true setsid npm run --silent serve >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
wait_ready "$api_port" "$API_PID" API
wait_ready "$worker_port" "$WORKER_PID" worker
ok "an API process (RECHARGE_WORKER=false) and a worker process started together: ready (node deploy/healthcheck.mjs /api/v1/health/ready)"
for port in "$api_metrics" "$worker_metrics"; do
  curl -fsS "http://127.0.0.1:$port/metrics" | grep -q '^# TYPE databundles_' || fail "no databundles_ metrics on METRICS_PORT $port"
done
code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$api_port/metrics")"
[ "$code" = 404 ] || fail "/metrics on the API port without METRICS_TOKEN: HTTP $code, expected 404"
ok 'metrics on each METRICS_PORT, none on the API port without METRICS_TOKEN'

npm run --silent backup -- --to "$WORK/mysql.sql" >"$WORK/backup.txt" 2>&1 || fail "npm run backup (mysqldump): $(cat "$WORK/backup.txt")"
DATABASE_URL="$(db_url "${db}_restored")" npm run --silent restore -- --from "$WORK/mysql.sql" >"$WORK/restore.txt" 2>&1 \
  || fail "npm run restore (mysql): $(cat "$WORK/restore.txt")"
grep -q 'equal to their ledger' "$WORK/restore.txt" || fail "npm run restore: $(cat "$WORK/restore.txt")"
[ "$(mysql_root -N -e "SELECT count(*) FROM information_schema.triggers WHERE trigger_schema = '${db}_restored'")" -gt 0 ] \
  || fail 'the restored database has no triggers'
ok 'npm run backup (mysqldump) while both run, npm run restore (mysql) into a fresh database, triggers and all'

step 'SIGTERM to both (docker stop, systemctl stop): the drain'
kill -TERM "$API_PID" "$WORKER_PID"
sleep 1
! PORT=$api_port node deploy/healthcheck.mjs /api/v1/health/ready 2>/dev/null || fail 'ready still answers 200 while the API process drains'
PORT=$api_port node deploy/healthcheck.mjs /api/v1/health/live || fail 'live stopped answering at the start of the drain'
ok 'draining: ready 503 (the proxy stops sending), live 200'
for pid in "$API_PID" "$WORKER_PID"; do
  status=0
  wait "$pid" || status=$?
  [ "$status" = 0 ] || fail "a process exited $status on SIGTERM"
done
API_PID=''
WORKER_PID=''
ok 'both exited 0'

if command -v systemd-analyze >/dev/null; then
  (cd deploy && systemd-analyze verify databundles.service databundles-worker.service databundles-migrate.service) \
    || fail 'systemd-analyze verify deploy/*.service'
  ok 'systemd-analyze verify: the units in deploy/'
fi

echo "production start took $((SECONDS - started)) s"
echo "production-start: $passed passed, 0 failed"
