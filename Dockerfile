# syntax=docker/dockerfile:1
# The server image (docs/deploy.md): the console and the storefront built on a full install, then
# the server on its production dependencies alone, run as the unprivileged `node` user. Every
# command below is one tests/production-start.sh runs on the project's machine (README, "Production").
#
#   docker build -t databundles .
#   docker run -e APP_KEY=... -e DATABASE_URL=mysql://... -p 3000:3000 databundles
#
# The same image runs an API process (RECHARGE_WORKER=false) or a process that also fulfils sales
# (the default); compose.yaml runs both.

ARG NODE_IMAGE=node:20-bookworm-slim

# Installs compile better-sqlite3 (and argon2) where no prebuilt binary can be downloaded.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The package files alone first: the dependency layers are rebuilt only when they change.
COPY package.json package-lock.json ./
COPY contracts/package.json contracts/
COPY api/package.json api/
COPY db/package.json db/
COPY admin/package.json admin/
COPY storefront/package.json storefront/

# 1. The console and the storefront, built by vite (a dev dependency): a full install.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund --loglevel=error
COPY . .
RUN npm run build

# 2. The production dependencies of the server's workspaces only, in a clean stage, then the
# sources beside them (a workspace may hold node_modules of its own, e.g. api/node_modules).
FROM toolchain AS production-dependencies
RUN npm ci --omit=dev --workspace api --workspace db --no-audit --no-fund --loglevel=error
COPY . .

# 3. What runs: node, the production node_modules, the sources (TypeScript run by tsx, nothing is
# compiled ahead) and the two built apps. Owned by root and read-only to the server; it writes
# only under DATA_DIR (uploads; the SQLite file when DATABASE_URL is unset).
FROM ${NODE_IMAGE}
# mysqldump and mysql for `npm run backup` and `npm run restore` (docs/deploy.md, "Backups and restore").
RUN apt-get update \
  && apt-get install -y --no-install-recommends mariadb-client \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  PORT=3000 \
  DATA_DIR=/data \
  NPM_CONFIG_UPDATE_NOTIFIER=false \
  NPM_CONFIG_FUND=false
WORKDIR /app
COPY --from=production-dependencies /app ./
COPY --from=build /app/admin/dist ./admin/dist
COPY --from=build /app/storefront/dist ./storefront/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness: the process answers (no database). compose.yaml asks for readiness instead.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "/api/v1/health/live"]
# `npm run serve` puts node in its place (exec), and npm passes SIGTERM on: `docker stop` drains
# the process (DRAIN_TIMEOUT_SECONDS, default 25 s: give docker stop a longer grace, e.g. -t 40).
CMD ["npm", "run", "--silent", "serve"]
