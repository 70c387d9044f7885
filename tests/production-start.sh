#!/usr/bin/env bash
# The production install, proved (README, "Production"). The console and the storefront are built
# here (vite is a dev dependency, so on a full install, as a CI or build machine has); then a clean
# clone of HEAD gets the two dist folders and the production install,
# `npm ci --omit=dev --workspace api --workspace db`, and runs what an operator runs:
# `npm run user:create-admin` and `NODE_ENV=production APP_KEY=... npm run serve` on SQLite.
# Checked: no dev dependency and none of the browser apps' libraries on disk; the health check, the
# console's page and its script, a storefront page with its dealer written in, its share card
# (sharp), the API reference (swagger-ui-dist), a sign-in (argon2); SIGTERM sent to npm (as a
# process manager does) stops the server gracefully: exit 0, nothing left listening.
#
#   bash tests/production-start.sh     (run by .ci/run after the test suite; 2 to 4 minutes, most of
#                                       it compiling better-sqlite3 in the clean install)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PRODUCTION_TEST_PORT:-3994}"
BASE="http://127.0.0.1:$PORT"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/production-start.XXXXXX")"
SERVER_PID=''

cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
    sleep 2
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "production start: FAILED: $*" >&2
  if [ -f "$WORK/server.log" ]; then
    echo '--- server log (last 40 lines) ---' >&2
    tail -n 40 "$WORK/server.log" >&2
  fi
  exit 1
}
started=$SECONDS
passed=0
ok() { passed=$((passed + 1)); echo "   ok: $*"; }
step() { echo "== [$((SECONDS - started)) s] $*"; }

step 'build the console and the storefront (full install)'
(cd "$ROOT" && npm run build --silent >"$WORK/build.log" 2>&1) || { tail -n 40 "$WORK/build.log" >&2; fail 'npm run build'; }

step 'clean clone of HEAD with the built assets'
git clone --quiet "$ROOT" "$WORK/app"
cp -a "$ROOT/admin/dist" "$WORK/app/admin/dist"
cp -a "$ROOT/storefront/dist" "$WORK/app/storefront/dist"
cd "$WORK/app"

step 'npm ci --omit=dev --workspace api --workspace db'
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

step 'SIGTERM to npm'
kill -TERM "$SERVER_PID"
status=0
wait "$SERVER_PID" || status=$?
[ "$status" = 0 ] || fail "npm run serve exited $status on SIGTERM"
sleep 1
! curl -s -o /dev/null "$BASE/api/v1/health" || fail 'the server still answers after npm run serve exited'
SERVER_PID=''
ok 'npm run serve exited 0, nothing left listening'

echo "production start took $((SECONDS - started)) s"
echo "production-start: $passed passed, 0 failed"
