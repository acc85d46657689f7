#!/usr/bin/env bash
# Debian's ffmpeg (ffprobe with it) and espeak-ng: media import probes and converts with them, the media tests make
# their inputs with them, and the sample library narrates its audiobook and video course with them.
# Idempotent: does nothing when both are there. A lock keeps two callers from running apt at once.
set -euo pipefail
have() { command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null && command -v espeak-ng >/dev/null; }
if have; then exit 0; fi
echo "[setup] installing Debian's ffmpeg and espeak-ng…"
export DEBIAN_FRONTEND=noninteractive
exec 9>/tmp/lectern-ensure-media-tools.lock
flock 9
if have; then exit 0; fi
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends ffmpeg espeak-ng >/dev/null
