#!/usr/bin/env bash
# Debian's HAProxy and PostgreSQL server binaries for the multi-server scenario (bench/multi-server.ts): the proxy in
# front of the Lectern servers, and a PostgreSQL cluster of the scenario's own that it may restart. Idempotent.
set -euo pipefail
need=()
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "[setup] installing Debian's ${need[*]}…"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >/dev/null
