#!/usr/bin/env bash
# Runs every test: type-check, unit, API (SQLite and PostgreSQL), import, web and the browser end-to-end suite.
# Sets up what it needs first: dependencies, Debian's chromium, ffmpeg and espeak-ng, a PostgreSQL server.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/ensure-chromium.sh
bash scripts/ensure-media-tools.sh
TEST_DATABASE_URL=$(bash scripts/ensure-postgres.sh)
export TEST_DATABASE_URL
echo "[test] PostgreSQL: $TEST_DATABASE_URL"
echo "[test] type-check"
npx tsc -p packages/core && npx tsc -p packages/server && npx tsc -p packages/web && npx tsc -p tsconfig.tools.json
echo "[test] lint"
npm run lint --silent
echo "[test] building the web app"
npm run build --silent
echo "[test] vitest: core, server, web, e2e"
mkdir -p .tmp
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest-report.json || status=$?
# One plain closing line for CI: "N passed, N failed".
node -e '
const r = JSON.parse(require("fs").readFileSync(".tmp/vitest-report.json", "utf8"));
console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' || true
exit $status
