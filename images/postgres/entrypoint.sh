#!/bin/sh
# initdb on an empty $PGDATA (POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, like the public
# image), then run the server in the foreground on every address of the container.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "rdm-postgres: POSTGRES_PASSWORD is required" >&2; exit 1; }
  mkdir -p "$PGDATA"; chmod 0700 "$PGDATA"
  pwfile="$(mktemp)"; printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    postgres --single -D "$PGDATA" -j postgres >/dev/null <<SQL
CREATE DATABASE "$POSTGRES_DB";
SQL
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql "$@"
