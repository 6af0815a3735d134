#!/usr/bin/env bash
# Runs a representative part of the suite through PgBouncer in transaction mode: tokens, lists,
# a booking race, live timeline events and concurrent starts. DATABASE_URL goes through the
# pooler (with DB_PREPARE=0), DATABASE_DIRECT_URL to PostgreSQL for LISTEN and the migration lock.
# Installs Debian's pgbouncer when missing; starts it on a free port in a temporary directory and
# stops it on exit. Run from the repository after npm ci:
#
#   scripts/pgbouncer-check.sh        (PostgreSQL on 127.0.0.1:5432, Redis on :6379)
set -euo pipefail
cd "$(dirname "$0")/.."

DIRECT_URL=${PGBOUNCER_CHECK_DIRECT_URL:-postgres://postgres@127.0.0.1:5432/postgres}
REDIS=${PGBOUNCER_CHECK_REDIS_URL:-redis://127.0.0.1:6379}
TESTS=(
  test/auth/oauth.happy.test.ts
  test/analytics/messages.happy.test.ts
  test/scheduling/concurrency.test.ts
  test/realtime/timeline.happy.test.ts
  test/realtime/timeline.security.test.ts
  test/db/concurrent-start.test.ts
)

fail() { printf '\npgbouncer check FAILED: %s\n' "$*" >&2; exit 1; }

# vitest runs what matches and says nothing of a name that matches no file: a renamed test would
# silently drop out of the check.
for file in "${TESTS[@]}"; do [ -f "$file" ] || fail "$file does not exist (renamed? update TESTS)"; done

if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "installing pgbouncer"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null; } || fail "pgbouncer is not installed and apt-get could not install it"
fi
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)

direct_host=$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$DIRECT_URL")
direct_port=$(node -e 'console.log(new URL(process.argv[1]).port || 5432)' "$DIRECT_URL")
user=$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).username) || "postgres")' "$DIRECT_URL")
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')

dir=$(mktemp -d "${TMPDIR:-/tmp}/pgbouncer-check.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; sleep 0.5; fi
  rm -rf "$dir"
}
trap cleanup EXIT

# Every database name maps to the server (each test server makes its own database). The local
# server trusts 127.0.0.1, so the pooler does too; a password would go in userlist.txt.
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$direct_host port=$direct_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
server_reset_query =
INI
printf '"%s" ""\n' "$user" >"$dir/userlist.txt"

# PgBouncer refuses to run as root: as root it drops to the postgres user (-u).
if [ "$(id -u)" = 0 ]; then
  chown -R postgres "$dir"
  "$PGBOUNCER" -d -u postgres "$dir/pgbouncer.ini"
else
  "$PGBOUNCER" -d "$dir/pgbouncer.ini"
fi
for _ in $(seq 1 50); do [ -s "$dir/pgbouncer.pid" ] && break; sleep 0.1; done
pid=$(cat "$dir/pgbouncer.pid" 2>/dev/null || true)
[ -n "$pid" ] || fail "pgbouncer did not start: $(cat "$dir/pgbouncer.log" 2>/dev/null)"
echo "pgbouncer $("$PGBOUNCER" --version | head -n 1 | awk '{print $2}') in transaction mode on 127.0.0.1:$port (pid $pid)"

pooled_url=$(node -e 'const u=new URL(process.argv[1]);u.hostname="127.0.0.1";u.port=process.argv[2];console.log(u.toString())' "$DIRECT_URL" "$port")

# The pooler's own counters, from its admin console: proof that the suite went through it.
transactions() {
  node --input-type=module -e '
    import postgres from "postgres";
    const sql = postgres(process.argv[1], { max: 1, prepare: false, fetch_types: false, onnotice: () => {} });
    const rows = await sql.unsafe("show stats").simple();
    console.log(rows.filter((r) => r.database.startsWith("sb_test_")).reduce((n, r) => n + Number(r.total_xact_count), 0));
    await sql.end();' "$(node -e 'const u=new URL(process.argv[1]);u.pathname="/pgbouncer";console.log(u.toString())' "$pooled_url")"
}

status=0
DATABASE_URL=$pooled_url DATABASE_DIRECT_URL=$DIRECT_URL DB_PREPARE=0 REDIS_URL=$REDIS TEST_LOG_LEVEL=${TEST_LOG_LEVEL:-error} \
  npx vitest run "${TESTS[@]}" || status=$?
count=$(transactions) || fail "could not read the pooler's statistics"
echo "transactions through pgbouncer: $count"
[ "$status" = 0 ] || fail "tests failed through pgbouncer (log: $(tail -n 5 "$dir/pgbouncer.log"))"
[ "$count" -gt 100 ] || fail "only $count transactions went through pgbouncer: the tests did not use it"
echo "pgbouncer check passed (${SECONDS}s)"
