#!/usr/bin/env bash
# Starts the Docker daemon in the background when none answers, then waits for its socket.
set -euo pipefail

log() { printf '[docker-up] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if docker info >/dev/null 2>&1; then
  log "Docker daemon is running"
  exit 0
fi
command -v dockerd >/dev/null || { log "dockerd is not installed (apt-get install docker.io)"; exit 1; }

logfile="${KGATE_DOCKERD_LOG:-/tmp/kgate-dockerd.log}"
log "starting dockerd in the background (log: $logfile)"
as_root sh -c "nohup dockerd >'$logfile' 2>&1 &"
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    log "Docker daemon is ready"
    exit 0
  fi
  sleep 1
done
log "Docker daemon did not come up within 60 s; last lines of $logfile:"
tail -n 20 "$logfile" >&2 || true
exit 1
