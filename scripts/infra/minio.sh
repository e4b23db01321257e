#!/usr/bin/env bash
# MinIO (real S3) built from source with the Go toolchain; used by the `files` service's S3
# storage backend and its tests. No fallback server is needed: the source build works here.
#
#   bash scripts/infra/minio.sh install   # go install github.com/minio/minio@$MINIO_VERSION -> .tools/bin
#   bash scripts/infra/minio.sh start     # install + start on 127.0.0.1:9000 (console :9001)
#   bash scripts/infra/minio.sh stop      # stop the server THIS script started (pid file)
#   bash scripts/infra/minio.sh stop-run <id>  # stop it only if the run <id> started it (INFRA_RUN_ID)
#   bash scripts/infra/minio.sh status
#
# `start` reuses a MinIO that already answers on MINIO_PORT: quietly when this checkout started it,
# loudly (naming its command line) when it was started elsewhere, and never when the data folder
# it serves from is gone. `make test` starts it with INFRA_RUN_ID and stops it at its end only when
# that run started it (`stop-run`): a server it reused, or one `make minio` started, keeps running.
#
# Version. MinIO tags are `RELEASE.<date>` (not semver), so the Go proxy serves them only as
# pseudo-versions, and only those someone fetched before: of the 2025 tags, RELEASE.2025-04-22 and
# RELEASE.2025-09-07T16-13-09Z resolve; RELEASE.2025-10-15 (the last one) answers 403 "not
# available". Pinned: RELEASE.2025-09-07T16-13-09Z = commit 07c3a429bfed. (checked on
# proxy.golang.org; `go list -m -versions github.com/minio/minio` lists nothing.)
#
# Build time (measured on the 2-core dev machine, go1.26.8, CGO_ENABLED=0, with other
# jobs loading the CPUs, load average ~3):
#   cold build cache: 215 s (3 min 35 s) including the module download (~900 MB in ~/go/pkg/mod;
#     about 25 s of it had been fetched by an aborted attempt just before);
#   warm (caches kept, binary rebuilt): 2 s. Binary: ~150 MB.
# The module cache is the default GOMODCACHE (~/go/pkg/mod) and build cache (~/.cache/go-build):
# keep them between CI runs. The binary is rebuilt only when .tools/bin/minio.version differs.
#
# Go: uses `go` from PATH or /usr/local/go/bin when it is >= 1.24 (minio's go.mod); otherwise it
# fetches the official toolchain module golang.org/toolchain@v0.0.1-go$GO_TOOLCHAIN.linux-<arch>
# from the Go module proxy into .tools/go (Debian 12's golang is 1.19, too old).
#
# Credentials: MINIO_ROOT_USER=rdmminio MINIO_ROOT_PASSWORD=rdmminiosecret (dev only).
# Data: <repo>/.data/minio, pid: .data/minio.pid, log: .data/minio.log.
# Env: MINIO_PORT (9000), MINIO_CONSOLE_PORT (9001), MINIO_VERSION, GO_TOOLCHAIN.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MINIO_VERSION="${MINIO_VERSION:-v0.0.0-20250907161309-07c3a429bfed}" # RELEASE.2025-09-07T16-13-09Z
GO_TOOLCHAIN="${GO_TOOLCHAIN:-1.24.6}"
MINIO_PORT="${MINIO_PORT:-9000}"
MINIO_CONSOLE_PORT="${MINIO_CONSOLE_PORT:-9001}"
MINIO_DATA_DIR="${MINIO_DATA_DIR:-$DATA_DIR/minio}"
BIN_DIR="$TOOLS_DIR/bin"
MINIO_BIN="$BIN_DIR/minio"
STAMP="$BIN_DIR/minio.version"
PID_FILE="$DATA_DIR/minio.pid"
LOG_FILE="$DATA_DIR/minio.log"
BUILD_LOG="$DATA_DIR/minio-build.log"

# go minor version >= 24?
go_ok() { local v; v="$("$1" env GOVERSION 2>/dev/null || true)"; v="${v#go}"; [ "${v%%.*}" = 1 ] && [ "$(echo "$v" | cut -d. -f2)" -ge 24 ]; }

find_go() {
  local g
  for g in "$(command -v go || true)" /usr/local/go/bin/go "$TOOLS_DIR/go/bin/go"; do
    if [ -n "$g" ] && [ -x "$g" ] && go_ok "$g"; then echo "$g"; return 0; fi
  done
  return 1
}

# Download the Go toolchain as a module zip from the Go proxy (no other network is reachable).
fetch_go() {
  local arch zip url prefix
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) die "unsupported arch $(uname -m)" ;; esac
  command -v unzip >/dev/null 2>&1 || apt_install unzip
  url="${GOPROXY_URL:-https://proxy.golang.org}/golang.org/toolchain/@v/v0.0.1-go$GO_TOOLCHAIN.linux-$arch.zip"
  zip="$TOOLS_DIR/go-toolchain.zip"
  say "no Go >= 1.24 found; fetching $url"
  mkdir -p "$TOOLS_DIR"
  curl -fsSL -o "$zip" "$url" || die "could not download the Go toolchain from $url"
  rm -rf "$TOOLS_DIR/go" "$TOOLS_DIR/go-unpack"
  unzip -q "$zip" -d "$TOOLS_DIR/go-unpack" || die "unzip $zip failed"
  prefix="$TOOLS_DIR/go-unpack/golang.org/toolchain@v0.0.1-go$GO_TOOLCHAIN.linux-$arch"
  mv "$prefix" "$TOOLS_DIR/go"
  rm -rf "$TOOLS_DIR/go-unpack" "$zip"
  # Module zips carry no file modes.
  chmod +x "$TOOLS_DIR"/go/bin/* "$TOOLS_DIR"/go/pkg/tool/*/*
}

cmd_install() {
  if [ -x "$MINIO_BIN" ] && [ "$(cat "$STAMP" 2>/dev/null || true)" = "$MINIO_VERSION" ]; then return 0; fi
  local go start secs
  go="$(find_go)" || { fetch_go; go="$(find_go)" || die "Go toolchain unusable after download"; }
  mkdir -p "$BIN_DIR"
  say "building minio@$MINIO_VERSION with $("$go" env GOVERSION) (several minutes on a cold cache; log: $BUILD_LOG)"
  start="$(date +%s)"
  # GOTOOLCHAIN=local: never switch toolchains behind our back; GOFLAGS=-mod=mod is the default for
  # `go install pkg@version`. cd /: outside any module, so no go.work/go.mod interferes.
  if ! (cd / && GOBIN="$BIN_DIR" CGO_ENABLED=0 GOTOOLCHAIN=local "$go" install "github.com/minio/minio@$MINIO_VERSION") >"$BUILD_LOG" 2>&1; then
    show_log "$BUILD_LOG"
    die "go install github.com/minio/minio@$MINIO_VERSION failed"
  fi
  secs=$(( $(date +%s) - start ))
  printf '%s\n' "$MINIO_VERSION" >"$STAMP"
  say "minio built in ${secs}s -> $MINIO_BIN"
}

live() { http_ok "http://127.0.0.1:$MINIO_PORT/minio/health/live"; }

cmd_start() {
  if live; then reuse_check minio "$MINIO_PORT" "$PID_FILE" "minio server" last_arg_of; return 0; fi
  if port_open "$MINIO_PORT"; then die "127.0.0.1:$MINIO_PORT is taken by something that is not MinIO"; fi
  cmd_install
  mkdir -p "$MINIO_DATA_DIR"
  MINIO_ROOT_USER="${MINIO_ROOT_USER:-rdmminio}" MINIO_ROOT_PASSWORD="${MINIO_ROOT_PASSWORD:-rdmminiosecret}" \
    MINIO_UPDATE=off MINIO_BROWSER="${MINIO_BROWSER:-on}" \
    start_bg "$PID_FILE" "$LOG_FILE" "$MINIO_BIN" server --quiet \
      --address "127.0.0.1:$MINIO_PORT" --console-address "127.0.0.1:$MINIO_CONSOLE_PORT" "$MINIO_DATA_DIR"
  if ! wait_until 60 minio live; then
    show_log "$LOG_FILE"
    die "minio did not answer /minio/health/live on 127.0.0.1:$MINIO_PORT within 60 s"
  fi
}

cmd_stop() { stop_pidfile "$PID_FILE" "minio server" minio; }

cmd_stop_run() { stop_run "$PID_FILE" "minio server" minio "${1:-}"; }

cmd_status() {
  local pid owner="not started by this script"
  if pid="$(live_pid "$PID_FILE" "minio server")"; then owner="pid $pid, started by this script"; fi
  if live; then echo "minio: live on 127.0.0.1:$MINIO_PORT ($owner)"; return 0; fi
  echo "minio: not running"; return 1
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  stop-run) cmd_stop_run "${2:-}" ;;
  status) cmd_status ;;
  *) echo "usage: $0 {install|start|stop|stop-run <run id>|status}" >&2; exit 2 ;;
esac
