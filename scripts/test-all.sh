#!/usr/bin/env bash
# Runs every test: type-check, unit, API (SQLite and PostgreSQL), import, web and the browser end-to-end suite.
# Sets up what it needs first: dependencies, Debian's chromium, a PostgreSQL server.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/ensure-chromium.sh
TEST_DATABASE_URL=$(bash scripts/ensure-postgres.sh)
export TEST_DATABASE_URL
echo "[test] PostgreSQL: $TEST_DATABASE_URL"
echo "[test] type-check"
npx tsc -p packages/core && npx tsc -p packages/server && npx tsc -p packages/web
echo "[test] building the web app"
npm run build --silent
echo "[test] vitest: core, server, web, e2e"
npx vitest run
