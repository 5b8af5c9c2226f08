#!/usr/bin/env bash
# Prepares a machine for kgate: npm dependencies, host packages (Docker engine, debootstrap,
# busybox-static, chromium and docker-registry for tests), and a running Docker daemon. Safe to run again; used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund
fi

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
[ -x /bin/busybox ] || missing+=(busybox-static)
command -v chromium >/dev/null || missing+=(chromium)
# The image registry the training export's test pushes to (it starts its own on 127.0.0.1 and stops it).
command -v docker-registry >/dev/null || missing+=(docker-registry)
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

bash scripts/docker-up.sh
