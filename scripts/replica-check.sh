#!/usr/bin/env bash
# Makes a streaming replica of the local PostgreSQL with its own binaries (pg_basebackup into a
# temporary data directory, pg_ctl on a free port), runs test/db/replica.test.ts with
# DATABASE_REPLICA_URL pointing at it, then stops the replica and removes its directory.
# Run from the repository after npm ci, as root or as the postgres user:
#
#   scripts/replica-check.sh          (PostgreSQL on 127.0.0.1:5432, Redis on :6379)
#
# The primary must accept replication connections from 127.0.0.1: when its pg_hba.conf has no
# `replication` line, one trusting 127.0.0.1 is added for the run and removed again at exit
# (pg_hba.conf is reloaded both times), so the machine is left as it was.
set -euo pipefail
cd "$(dirname "$0")/.."

PRIMARY_URL=${REPLICA_CHECK_PRIMARY_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REDIS=${REPLICA_CHECK_REDIS_URL:-redis://127.0.0.1:6379}

fail() { printf '\nreplica check FAILED: %s\n' "$*" >&2; exit 1; }

primary_host=$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$PRIMARY_URL")
primary_port=$(node -e 'console.log(new URL(process.argv[1]).port || 5432)' "$PRIMARY_URL")
user=$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).username) || "postgres")' "$PRIMARY_URL")
psql_primary() { psql -X -q -At -h "$primary_host" -p "$primary_port" -U "$user" -d postgres "$@"; }

version=$(psql_primary -c 'show server_version_num' | cut -c1-2) || fail "the primary at $primary_host:$primary_port does not answer"
bin=/usr/lib/postgresql/$version/bin
[ -x "$bin/pg_basebackup" ] && [ -x "$bin/pg_ctl" ] || fail "PostgreSQL $version binaries not found in $bin"
[ "$(psql_primary -c 'show wal_level')" != minimal ] || fail "the primary runs with wal_level=minimal: no replica can follow it"

hba=$(psql_primary -c 'show hba_file')
hba_marker='# replica-check.sh: for this run only'
hba_added=""
forget_hba() {
  [ -n "$hba_added" ] || return 0
  sed -i "/^$hba_marker\$/,+1d" "$hba" && psql_primary -c 'select pg_reload_conf()' >/dev/null || true
}
if ! grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]' "$hba"; then
  echo "allowing replication connections from 127.0.0.1 in $hba for this run"
  printf '%s\nhost replication all 127.0.0.1/32 trust\n' "$hba_marker" >>"$hba"
  hba_added=1
  trap forget_hba EXIT
  psql_primary -c 'select pg_reload_conf()' >/dev/null
fi

# As root, PostgreSQL's tools run as the postgres user (the server refuses root).
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
dir=$(mktemp -d "${TMPDIR:-/tmp}/replica-check.XXXXXX")
[ "$(id -u)" != 0 ] || chown postgres "$dir"
data=$dir/data
started=""
cleanup() {
  if [ -n "$started" ]; then as_postgres "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  forget_hba
}
trap cleanup EXIT

echo "pg_basebackup of $primary_host:$primary_port into $data"
as_postgres "$bin/pg_basebackup" -h "$primary_host" -p "$primary_port" -U "$user" -D "$data" -X stream -R -c fast \
  || fail "pg_basebackup failed"
# The hot-standby limits must be at least the primary's, or the replica refuses to start.
limits=$(psql_primary -c "select string_agg(name || ' = ' || setting, E'\n') from pg_settings where name in ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')")
# Debian keeps postgresql.conf and pg_hba.conf outside the data directory: the replica gets its own.
cat >"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
hot_standby = on
shared_buffers = 32MB
fsync = off
$limits
CONF
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$data/pg_hba.conf"
[ "$(id -u)" != 0 ] || chown postgres "$data/postgresql.conf" "$data/pg_hba.conf"

as_postgres "$bin/pg_ctl" -D "$data" -l "$dir/replica.log" -w -t 60 start >/dev/null || fail "the replica did not start: $(tail -n 20 "$dir/replica.log")"
started=1
recovery=$(psql -X -At -h 127.0.0.1 -p "$port" -U "$user" -d postgres -c 'select pg_is_in_recovery()')
[ "$recovery" = t ] || fail "the server on port $port is not a replica"
echo "streaming replica of PostgreSQL $version on 127.0.0.1:$port"

replica_url=$(node -e 'const u=new URL(process.argv[1]);u.hostname="127.0.0.1";u.port=process.argv[2];console.log(u.toString())' "$PRIMARY_URL" "$port")
DATABASE_URL=$PRIMARY_URL DATABASE_REPLICA_URL=$replica_url REDIS_URL=$REDIS TEST_LOG_LEVEL=${TEST_LOG_LEVEL:-error} \
  npx vitest run test/db/replica.test.ts || fail "test/db/replica.test.ts failed against the replica"
echo "replica check passed (${SECONDS}s)"
