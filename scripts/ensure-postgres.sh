#!/usr/bin/env bash
# Prints a PostgreSQL URL for the tests: TEST_DATABASE_URL when given, else the server on 127.0.0.1:5432, else a
# throwaway cluster started here (installing Debian's postgresql when needed). Exits non-zero when none can be had:
# the PostgreSQL tests must fail, not skip.
set -euo pipefail
if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "$TEST_DATABASE_URL"; exit 0; fi

probe() { node -e "
const s = require('net').connect({ host: '127.0.0.1', port: $1 }, () => { s.end(); process.exit(0); });
s.on('error', () => process.exit(1)); setTimeout(() => process.exit(1), 2000);"; }

if probe 5432; then echo "postgres://postgres@127.0.0.1:5432/postgres"; exit 0; fi

PORT=55432
DIR=/tmp/lectern-pg
if probe $PORT; then echo "postgres://postgres@127.0.0.1:$PORT/postgres"; exit 0; fi
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$BIN" ]; then
  echo "[setup] installing Debian's postgresql…" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && apt-get -o DPkg::Lock::Timeout=600 install -y -qq postgresql >/dev/null 2>&1
  BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
id postgres >/dev/null 2>&1 || useradd --system --home "$DIR" postgres
rm -rf "$DIR" && mkdir -p "$DIR" && chown postgres "$DIR"
echo "[setup] starting a throwaway PostgreSQL cluster on 127.0.0.1:$PORT" >&2
su postgres -s /bin/sh -c "'$BIN/initdb' -D '$DIR/data' --auth=trust -U postgres >'$DIR/initdb.log' 2>&1"
su postgres -s /bin/sh -c "'$BIN/pg_ctl' -D '$DIR/data' -l '$DIR/server.log' -o \"-p $PORT -c listen_addresses=127.0.0.1 -k '$DIR'\" -w start >&2"
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
