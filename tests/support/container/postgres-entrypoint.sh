#!/bin/sh
# The entrypoint of the container test's PostgreSQL image (script/container-images makes it from
# Debian's postgresql package, as no image registry is reachable here). It does what the official
# postgres image's entrypoint does for the environment compose.yaml gives it: on an empty PGDATA,
# initdb with POSTGRES_USER as the superuser and POSTGRES_PASSWORD as its password (required),
# password logins (scram-sha-256) from any address, POSTGRES_DB created; then PostgreSQL runs as
# the postgres user, listening on all addresses.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
PATH="$bin:$PATH"
: "${PGDATA:=/var/lib/postgresql/data}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi

mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "Database is uninitialized and superuser password is not specified: set POSTGRES_PASSWORD" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /run/postgresql" -w start >/dev/null
    as_postgres psql -v ON_ERROR_STOP=1 -h /run/postgresql -U "$user" -d postgres -q -c "CREATE DATABASE \"$db\""
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "PostgreSQL init process complete; ready for start up."
fi
if [ $# -gt 0 ]; then shift; fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*' "$@"
