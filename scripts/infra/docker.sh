#!/usr/bin/env bash
# A Docker engine for `make images`, the container e2e runtime and `make kind-up`.
#
#   bash scripts/infra/docker.sh start    # use a working engine, or install docker.io and start ours
#   bash scripts/infra/docker.sh stop     # stop the engine THIS script started (pid file), nothing else
#   bash scripts/infra/docker.sh host     # print the DOCKER_HOST to use (starts nothing)
#   bash scripts/infra/docker.sh status
#
# Which engine: $DOCKER_HOST when it answers; else /var/run/docker.sock when it answers (someone's
# engine: used, never stopped); else the project's own dockerd, started here when we are root
# (installing Debian's docker.io when absent). Not root and no engine: a message, exit 1.
#
# The project's engine is private, so it disturbs neither a system engine nor other engineers on
# the machine:
#   - its own data root, exec root, pid file and socket under $RDM_DOCKER_DIR
#     (default /var/lib/rdm-docker: OUTSIDE the clone, so the image cache outlives a fresh clone
#     on the same machine; a new machine simply builds cold);
#   - no default bridge (`--bridge=none`: no docker0 to collide with another engine), networks
#     made by the e2e runtime come from 10.213.0.0/16;
#   - `--iptables=false --ip-masq=false`: it never touches the host's firewall rules. Published
#     ports go through docker-proxy and bind 127.0.0.1 only (`--ip=127.0.0.1`); containers reach
#     each other on their user-defined network; builds use `--network=host` for the apt mirror.
# Its log: $RDM_DOCKER_DIR/dockerd.log. Env: RDM_DOCKER_DIR, RDM_DOCKER_START_TIMEOUT (60 s).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RDM_DOCKER_DIR="${RDM_DOCKER_DIR:-/var/lib/rdm-docker}"
RUN_DIR="$RDM_DOCKER_DIR/run"
SOCK="$RUN_DIR/docker.sock"
PID_FILE="$RUN_DIR/dockerd.pid"
LOG="$RDM_DOCKER_DIR/dockerd.log"
OWN_HOST="unix://$SOCK"
START_TIMEOUT="${RDM_DOCKER_START_TIMEOUT:-60}"

answers() { DOCKER_HOST="$1" timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# The DOCKER_HOST of a working engine, or nothing (exit 1).
working_host() {
  command -v docker >/dev/null 2>&1 || return 1
  if [ -n "${DOCKER_HOST:-}" ] && answers "$DOCKER_HOST"; then echo "$DOCKER_HOST"; return 0; fi
  if [ -S "$SOCK" ] && answers "$OWN_HOST"; then echo "$OWN_HOST"; return 0; fi
  if [ -S /var/run/docker.sock ] && answers unix:///var/run/docker.sock; then echo unix:///var/run/docker.sock; return 0; fi
  return 1
}

cmd_host() {
  if working_host; then return 0; fi
  # Not running (yet): the project's own engine is where `start` will put it.
  echo "$OWN_HOST"
}

install_engine() {
  command -v dockerd >/dev/null 2>&1 && command -v docker >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "no working Docker engine (tried \$DOCKER_HOST, $SOCK, /var/run/docker.sock) and not root: start Docker or Podman (podman system service) and set DOCKER_HOST, or run as root so that this script installs docker.io and starts its own engine"
  # docker.io's maintainer scripts must not start a system dockerd (no systemd here; and we want
  # only our private one): a policy-rc.d that denies service starts, when none is present.
  local policy=/usr/sbin/policy-rc.d added=0
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; added=1; fi
  apt_install docker.io
  if [ "$added" = 1 ]; then rm -f "$policy"; fi
}

cmd_start() {
  if host="$(working_host)"; then note "engine at $host"; return 0; fi
  install_engine
  [ "$(id -u)" = 0 ] || die "no working Docker engine and not root: cannot start dockerd (start Docker or Podman yourself and set DOCKER_HOST)"
  if pid="$(live_pid "$PID_FILE" dockerd)"; then
    # Ours, but not answering (yet): give it the start timeout, then report.
    wait_until "$START_TIMEOUT" dockerd answers "$OWN_HOST" && return 0
    show_log "$LOG"; die "the project's dockerd (pid $pid) does not answer on $SOCK"
  fi
  mkdir -p "$RUN_DIR" "$RDM_DOCKER_DIR/data"
  rm -f "$SOCK" "$PID_FILE"
  say "starting the project's dockerd (data root $RDM_DOCKER_DIR/data, socket $SOCK, log $LOG)"
  # start_bg records the pid of setsid's child = dockerd (setsid execs when not a group leader).
  start_bg "$RUN_DIR/dockerd.started" "$LOG" dockerd \
    --data-root "$RDM_DOCKER_DIR/data" --exec-root "$RUN_DIR/exec" --pidfile "$PID_FILE" \
    -H "$OWN_HOST" --bridge=none --iptables=false --ip-masq=false --ip=127.0.0.1 \
    --default-address-pool base=10.213.0.0/16,size=24 --storage-driver=overlay2 --log-level=warn
  if ! wait_until "$START_TIMEOUT" dockerd answers "$OWN_HOST"; then
    show_log "$LOG"
    cmd_stop || true
    die "dockerd did not answer on $SOCK within ${START_TIMEOUT}s (log above)"
  fi
}

cmd_stop() {
  local f
  for f in "$PID_FILE" "$RUN_DIR/dockerd.started"; do
    if pid="$(live_pid "$f" dockerd)"; then
      # dockerd stops its containers (10 s each at most) and its containerd, then exits.
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      if kill -0 "$pid" 2>/dev/null; then say "dockerd (pid $pid) still running after 30 s; SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
      break
    fi
  done
  rm -f "$PID_FILE" "$RUN_DIR/dockerd.started"
}

cmd_status() {
  if host="$(working_host)"; then
    echo "engine: $host ($(DOCKER_HOST="$host" docker version --format '{{.Server.Version}}' 2>/dev/null))"
    if pid="$(live_pid "$PID_FILE" dockerd)"; then echo "started by this project: pid $pid"; fi
  else
    echo "engine: none"; return 1
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  host) cmd_host ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|host|status" >&2; exit 2 ;;
esac
