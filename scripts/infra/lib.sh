# shellcheck shell=bash
# Shared helpers for scripts/infra/*.sh. Source it; never run it.
#
# Conventions: quiet on success, loud (stderr, non-zero exit) on failure. Every server binds
# 127.0.0.1 only. State (data dirs, pid files, logs) lives under <repo>/.data, tools we build
# under <repo>/.tools.

set -euo pipefail

INFRA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$INFRA_DIR/../.." && pwd)"
DATA_DIR="${RDM_DATA_DIR:-$REPO_ROOT/.data}"
TOOLS_DIR="${RDM_TOOLS_DIR:-$REPO_ROOT/.tools}"
mkdir -p "$DATA_DIR"

# Print to stderr and exit non-zero.
die() { printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }

# Print progress only when INFRA_VERBOSE=1 (scripts are quiet on success).
note() { if [ "${INFRA_VERBOSE:-0}" = 1 ]; then printf '%s: %s\n' "$(basename "$0")" "$*" >&2; fi; }

# Always-visible notice on stderr (slow steps such as installs and builds).
say() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }

# Run a command as root (directly, or through sudo when we are not root).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@";
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@";
  else die "need root (or passwordless sudo) to run: $*"; fi
}

# apt-get install quietly; the whole log is printed only when it fails.
apt_install() {
  local log="$DATA_DIR/apt-install.log"
  say "installing $* via apt (log: $log)"
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >"$log" 2>&1 ||
     ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >>"$log" 2>&1; then
    cat "$log" >&2
    die "apt-get install $* failed"
  fi
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") >/dev/null 2>&1; }

# True when GET $1 answers 2xx.
http_ok() { curl -fsS -o /dev/null --max-time 2 "$1" >/dev/null 2>&1; }

# wait_until <seconds> <description> <command...>: poll every 0.25 s.
wait_until() {
  local secs="$1" what="$2"; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then return 1; fi
    sleep 0.25
  done
  note "$what ready"
}

# pid from a pid file when that process is alive and its command line contains $2.
live_pid() {
  local file="$1" needle="$2" pid
  [ -f "$file" ] || return 1
  pid="$(cat "$file" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$needle" || return 1
  printf '%s\n' "$pid"
}

# stop_pidfile <pidfile> <needle> <name>: SIGTERM the process we started, SIGKILL after 10 s.
stop_pidfile() {
  local file="$1" needle="$2" name="$3" pid i
  if ! pid="$(live_pid "$file" "$needle")"; then
    rm -f "$file"
    note "$name: not started by this script (nothing to stop)"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    say "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

# start_bg <pidfile> <logfile> <command...>: start detached (own session), record the pid, and
# which run started it: INFRA_RUN_ID (set by `make test`) goes to <pidfile minus .pid>.run, so
# that `stop-run <id>` stops the server only when that run started it (see stop_run).
start_bg() {
  local pidfile="$1" logfile="$2"; shift 2
  # setsid: the server gets its own session, so Ctrl-C in the calling terminal (make up) does not
  # kill it; it is stopped explicitly with `<script> stop` (or `stop-run`).
  setsid "$@" >>"$logfile" 2>&1 </dev/null &
  printf '%s\n' "$!" >"$pidfile"
  if [ -n "${INFRA_RUN_ID:-}" ]; then printf '%s\n' "$INFRA_RUN_ID" >"${pidfile%.pid}.run"; else rm -f "${pidfile%.pid}.run"; fi
}

# stop_run <pidfile> <needle> <name> <run id>: stop the server only when the run <run id> started
# it (its .run file says so and its pid file names a live process of ours); anything else — a
# server this run reused, started by `make minio`/`make opensearch`, by another run or from another
# checkout — is left running. Prints what it did.
stop_run() {
  local file="$1" needle="$2" name="$3" run="$4" runfile pid
  runfile="${file%.pid}.run"
  if [ -z "$run" ] || [ "$(cat "$runfile" 2>/dev/null || true)" != "$run" ]; then
    note "$name: not started by this run; left as it is"
    return 0
  fi
  if pid="$(live_pid "$file" "$needle")"; then
    stop_pidfile "$file" "$needle" "$name"
    say "$name (pid $pid) stopped: this run started it"
  fi
  rm -f "$runfile"
}

# pid of the process listening on 127.0.0.1:$1 (empty when none or not visible to us).
port_pid() { ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2; }

# reuse_check <name> <port> <pidfile> <needle> <data dir of a command line (a function name)>:
# a server already serves <port> and `start` is about to reuse it. Quiet when this checkout's
# script started it (its pid file); otherwise says loudly whose it is (its command line), and
# refuses it when the data directory it serves from is gone — a server of a removed or cleaned
# checkout, whose files no longer exist (`make stop` in that checkout, or kill its pid).
reuse_check() {
  local name="$1" port="$2" pidfile="$3" needle="$4" datadir_of="$5" pid cmd dir
  if live_pid "$pidfile" "$needle" >/dev/null; then note "$name: reusing the server this checkout started"; return 0; fi
  pid="$(port_pid "$port")"
  if [ -z "$pid" ] || [ ! -r "/proc/$pid/cmdline" ]; then
    say "reusing the $name on 127.0.0.1:$port, which this checkout did not start (owner unknown); it is left running afterwards"
    return 0
  fi
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
  dir="$("$datadir_of" "$pid")"
  if [ -n "$dir" ] && [ ! -d "$dir" ]; then
    die "127.0.0.1:$port is served by a $name (pid $pid) whose data directory $dir no longer exists; stop it (kill $pid) or use another port"
  fi
  say "reusing the $name on 127.0.0.1:$port started elsewhere (pid $pid: ${cmd% }); it is left running afterwards"
}

# The last argument of a process's command line (MinIO's data directory).
last_arg_of() { tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed '/^$/d' | tail -n 1; }

# The argument after <needle> in a process's command line (OpenSearch runner: rdm.Main <data dir> …).
arg_after_of() { tr '\0' '\n' <"/proc/$2/cmdline" 2>/dev/null | sed -n "/^$1\$/{n;p;q}"; }

# Print the last lines of a log on failure.
show_log() { if [ -f "$1" ]; then printf -- '--- last lines of %s ---\n' "$1" >&2; tail -n 40 "$1" >&2; fi; }
