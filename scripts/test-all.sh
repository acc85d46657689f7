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
mkdir -p .tmp
status=0
echo "[test] vitest: core, server, web"
npx vitest run --project core --project server --project web --reporter=default --reporter=json --outputFile.json=.tmp/vitest-units-report.json || status=$?
# LECTERN_ALONGSIDE_E2E (CI sets it to the Node 24 tier): a command run while the browser suite runs, at the
# scheduler's idle priority (SCHED_IDLE, inherited by its children), so it takes only the CPU the browser suite
# leaves (about a third of two cores) and the suite's waits keep the timing they have alone. Its output is printed
# after the suite's, and its failure fails this command.
alongside_pid=""
if [ -n "${LECTERN_ALONGSIDE_E2E:-}" ]; then
  echo "[test] alongside the browser suite, at idle priority: $LECTERN_ALONGSIDE_E2E"
  chrt --idle 0 bash -c "$LECTERN_ALONGSIDE_E2E" > .tmp/alongside-e2e.log 2>&1 &
  alongside_pid=$!
fi
echo "[test] vitest: e2e"
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json=.tmp/vitest-e2e-report.json || status=$?
if [ -n "$alongside_pid" ]; then
  alongside_status=0
  wait "$alongside_pid" || alongside_status=$?
  echo "[test] what ran alongside the browser suite (exit $alongside_status):"
  cat .tmp/alongside-e2e.log
  [ "$alongside_status" -eq 0 ] || status=$alongside_status
fi
# One report for both runs (.ci/run counts it), and one plain closing line for CI: "N passed, N failed".
node -e '
const fs = require("fs");
const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, testResults: [] }; } };
const runs = [".tmp/vitest-units-report.json", ".tmp/vitest-e2e-report.json"].map(read);
const sum = (k) => runs.reduce((n, r) => n + (r[k] || 0), 0);
const merged = { numPassedTests: sum("numPassedTests"), numFailedTests: sum("numFailedTests"), numPendingTests: sum("numPendingTests"), testResults: runs.flatMap((r) => r.testResults || []) };
fs.writeFileSync(".tmp/vitest-report.json", JSON.stringify(merged));
console.log(`vitest: ${merged.numPassedTests} passed, ${merged.numFailedTests} failed` + (merged.numPendingTests ? `, ${merged.numPendingTests} skipped` : ""));
' || true
exit $status
