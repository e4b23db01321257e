#!/usr/bin/env bash
# NATS with JetStream for local development, integration tests and CI (Debian's `nats-server`,
# 2.9.x: use one filter subject per consumer).
#
#   bash scripts/infra/nats.sh install   # apt-get install nats-server when absent
#   bash scripts/infra/nats.sh start     # start on 127.0.0.1:4222 (monitoring :8222), JetStream on
#   bash scripts/infra/nats.sh stop      # stop the server THIS script started (pid file), nothing else
#   bash scripts/infra/nats.sh status
#
# `start` is idempotent: when something already serves 127.0.0.1:$NATS_PORT it is reused as is
# (e.g. a server started by hand) and `stop` will leave it alone.
# Store: <repo>/.data/nats, pid: <repo>/.data/nats.pid, log: <repo>/.data/nats.log.
# Env: NATS_PORT (4222), NATS_MONITOR_PORT (8222), NATS_STORE_DIR.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NATS_PORT="${NATS_PORT:-4222}"
NATS_MONITOR_PORT="${NATS_MONITOR_PORT:-8222}"
NATS_STORE_DIR="${NATS_STORE_DIR:-$DATA_DIR/nats}"
PID_FILE="$DATA_DIR/nats.pid"
LOG_FILE="$DATA_DIR/nats.log"

nats_bin() { command -v nats-server || { [ -x /usr/sbin/nats-server ] && echo /usr/sbin/nats-server; } || { [ -x /usr/bin/nats-server ] && echo /usr/bin/nats-server; } || true; }

cmd_install() {
  if [ -z "$(nats_bin)" ]; then apt_install nats-server; fi
  [ -n "$(nats_bin)" ] || die "nats-server not found after install"
}

ready() { port_open "$NATS_PORT" && http_ok "http://127.0.0.1:$NATS_MONITOR_PORT/healthz"; }

cmd_start() {
  if port_open "$NATS_PORT"; then
    note "something already serves 127.0.0.1:$NATS_PORT; reusing it"
    return 0
  fi
  cmd_install
  mkdir -p "$NATS_STORE_DIR"
  start_bg "$PID_FILE" "$LOG_FILE" "$(nats_bin)" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$NATS_STORE_DIR" -m "$NATS_MONITOR_PORT"
  if ! wait_until 30 nats ready; then
    show_log "$LOG_FILE"
    die "nats-server did not become ready on 127.0.0.1:$NATS_PORT (monitor :$NATS_MONITOR_PORT/healthz) within 30 s"
  fi
}

cmd_stop() { stop_pidfile "$PID_FILE" nats-server nats-server; }

cmd_status() {
  local pid owner="not started by this script"
  if pid="$(live_pid "$PID_FILE" nats-server)"; then owner="pid $pid, started by this script"; fi
  if port_open "$NATS_PORT"; then echo "nats: serving 127.0.0.1:$NATS_PORT ($owner)"; return 0; fi
  echo "nats: not running"; return 1
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 {install|start|stop|status}" >&2; exit 2 ;;
esac
