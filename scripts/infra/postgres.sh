#!/usr/bin/env bash
# PostgreSQL for local development, integration tests and CI (Debian's `postgresql` package).
#
#   bash scripts/infra/postgres.sh install   # apt-get install postgresql when no server is present
#   bash scripts/infra/postgres.sh start     # install + start the Debian cluster + role/db rdm
#   bash scripts/infra/postgres.sh stop      # stop the cluster
#   bash scripts/infra/postgres.sh status    # exit 0 when it accepts connections
#   bash scripts/infra/postgres.sh private-start DIR PORT   # a private cluster (fault trials)
#   bash scripts/infra/postgres.sh private-stop DIR [fast|immediate]
#
# `start` is idempotent: it starts the newest installed major's `main` cluster (pg_ctlcluster),
# waits until it accepts connections, ensures superuser role `rdm`/`rdm` and database `rdm`, and
# raises max_connections to >= 300 (ALTER SYSTEM + one restart, only when it is lower: the e2e
# stack and the dev stack each open a pool per service). Connection string:
#   postgres://rdm:rdm@127.0.0.1:5432/rdm
# Env: PG_PORT (default 5432, only used for the readiness check), PG_MIN_CONNECTIONS (300).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_PORT="${PG_PORT:-5432}"
PG_MIN_CONNECTIONS="${PG_MIN_CONNECTIONS:-300}"
PG_CLUSTER="${PG_CLUSTER:-main}"

# Newest installed major version (e.g. 15), empty when none.
pg_version() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$bin" ] || return 0
  basename "$(dirname "$(dirname "$bin")")"
}

# psql as the postgres OS user, unaligned/quiet, stopping on the first error.
pg_psql() {
  # cd /: the postgres user cannot read /root, and psql warns about the current directory.
  ( cd / && if [ "$(id -u)" = 0 ]; then runuser -u postgres -- psql -X -q -At -v ON_ERROR_STOP=1 "$@";
    else sudo -n -u postgres psql -X -q -At -v ON_ERROR_STOP=1 "$@"; fi )
}

cmd_install() {
  if [ -z "$(pg_version)" ]; then apt_install postgresql; fi
  [ -n "$(pg_version)" ] || die "postgresql installed but no /usr/lib/postgresql/*/bin/postgres found"
  local v; v="$(pg_version)"
  # The package's postinst normally creates <v>/main; create it when it did not (e.g. purged).
  if [ ! -d "/etc/postgresql/$v/$PG_CLUSTER" ]; then
    say "creating cluster $v/$PG_CLUSTER"
    as_root pg_createcluster "$v" "$PG_CLUSTER" >/dev/null || die "pg_createcluster $v $PG_CLUSTER failed"
  fi
}

pg_ready() { pg_isready -q -h 127.0.0.1 -p "$PG_PORT" -t 1 >/dev/null 2>&1; }

cluster_running() { pg_ctlcluster "$1" "$PG_CLUSTER" status >/dev/null 2>&1; }

wait_ready() {
  local v="$1"
  if ! wait_until 60 postgres pg_ready; then
    show_log "/var/log/postgresql/postgresql-$v-$PG_CLUSTER.log"
    die "postgres $v/$PG_CLUSTER did not accept connections on 127.0.0.1:$PG_PORT within 60 s"
  fi
}

cmd_start() {
  cmd_install
  local v; v="$(pg_version)"
  if ! cluster_running "$v"; then
    note "starting cluster $v/$PG_CLUSTER"
    if ! as_root pg_ctlcluster "$v" "$PG_CLUSTER" start; then
      show_log "/var/log/postgresql/postgresql-$v-$PG_CLUSTER.log"
      die "pg_ctlcluster $v $PG_CLUSTER start failed"
    fi
  fi
  wait_ready "$v"

  # Role and database, idempotent (the password is reset so a drifted install heals).
  pg_psql -d postgres <<'SQL' || die "could not create role/database rdm"
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rdm') THEN
    CREATE ROLE rdm LOGIN SUPERUSER PASSWORD 'rdm';
  ELSE
    ALTER ROLE rdm LOGIN SUPERUSER PASSWORD 'rdm';
  END IF;
END
$$;
SELECT 'CREATE DATABASE rdm OWNER rdm' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'rdm')
\gexec
SQL

  local current
  current="$(pg_psql -d postgres -c 'SHOW max_connections')" || die "SHOW max_connections failed"
  if [ "$current" -lt "$PG_MIN_CONNECTIONS" ]; then
    say "raising max_connections $current -> $PG_MIN_CONNECTIONS (restarting postgres once)"
    pg_psql -d postgres -c "ALTER SYSTEM SET max_connections = $PG_MIN_CONNECTIONS" || die "ALTER SYSTEM failed"
    as_root pg_ctlcluster "$v" "$PG_CLUSTER" restart || die "pg_ctlcluster $v $PG_CLUSTER restart failed"
    wait_ready "$v"
  fi
}

cmd_stop() {
  local v; v="$(pg_version)"
  [ -n "$v" ] || return 0
  if cluster_running "$v"; then as_root pg_ctlcluster "$v" "$PG_CLUSTER" stop || die "pg_ctlcluster stop failed"; fi
}

cmd_status() {
  local v; v="$(pg_version)"
  if [ -z "$v" ]; then echo "postgres: not installed"; return 1; fi
  if pg_ready; then echo "postgres $v/$PG_CLUSTER: accepting connections on 127.0.0.1:$PG_PORT"; return 0; fi
  echo "postgres $v/$PG_CLUSTER: not running"; return 1
}

# --- A private cluster (fault trials restart it; the shared cluster above is never touched) ---
# Same binaries as the shared cluster (/usr/lib/postgresql/<newest>/bin). `private-start DIR PORT`
# runs initdb into DIR when it holds no cluster yet (owned by the postgres OS user when we are
# root: initdb refuses root), listens on 127.0.0.1:PORT only with its socket in DIR, trusts local
# connections (test data only), fsync off (the trials kill processes, not the machine), creates
# role rdm/rdm and database rdm, and waits until it accepts connections; idempotent. Its log is
# DIR/server.log. `private-stop DIR [fast|immediate]` stops it (immediate = a crash: recovery on
# the next start). Connection string: postgres://rdm:rdm@127.0.0.1:PORT/rdm

# Run as the cluster's OS owner: postgres when we are root, else ourselves.
as_pg_owner() {
  if [ "$(id -u)" = 0 ]; then ( cd / && runuser -u postgres -- "$@" ); else "$@"; fi
}

private_bin() {
  local v; v="$(pg_version)"
  [ -n "$v" ] || die "no PostgreSQL binaries (/usr/lib/postgresql/*/bin): bash $0 install"
  echo "/usr/lib/postgresql/$v/bin"
}

cmd_private_start() {
  local dir="${1:?usage: private-start DIR PORT}" port="${2:?usage: private-start DIR PORT}" bin
  bin="$(private_bin)"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  chmod 700 "$dir"
  if [ ! -f "$dir/PG_VERSION" ]; then
    note "initdb $dir"
    as_pg_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >"$DATA_DIR/faults-pg-initdb.log" 2>&1 ||
      { cat "$DATA_DIR/faults-pg-initdb.log" >&2; die "initdb $dir failed"; }
    cat >>"$dir/postgresql.conf" <<CONF
# fault trials (scripts/infra/postgres.sh private-start)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
fsync = off
CONF
  fi
  if ! as_pg_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    # Why -p as well: the port written at initdb is only the default; a later PORT wins.
    as_pg_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -o "-p $port" -w -t 60 start >/dev/null ||
      { show_log "$dir/server.log"; die "private cluster $dir did not start on port $port"; }
  fi
  as_pg_owner "$bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres <<'SQL' >/dev/null || die "could not create role/database rdm in $dir"
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rdm') THEN CREATE ROLE rdm LOGIN SUPERUSER PASSWORD 'rdm'; END IF;
END
$$;
SELECT 'CREATE DATABASE rdm OWNER rdm' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'rdm')
\gexec
SQL
}

cmd_private_stop() {
  local dir="${1:?usage: private-stop DIR [fast|immediate]}" mode="${2:-fast}" bin
  bin="$(private_bin)"
  [ -f "$dir/PG_VERSION" ] || return 0
  if as_pg_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_pg_owner "$bin/pg_ctl" -D "$dir" -m "$mode" -w -t 60 stop >/dev/null || die "pg_ctl stop -m $mode ($dir) failed"
  fi
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  private-start) shift; cmd_private_start "$@" ;;
  private-stop) shift; cmd_private_stop "$@" ;;
  *) echo "usage: $0 {install|start|stop|status|private-start DIR PORT|private-stop DIR [fast|immediate]}" >&2; exit 2 ;;
esac
