#!/usr/bin/env bash
# The production install, proven: a fresh clone of this checkout is installed, built and pruned
# to production dependencies exactly as the Dockerfile does it, then the server and the CLI run
# from dist/ on PostgreSQL + Redis and answer over HTTP (scripts/release-smoke.mjs).
# Works in a temporary copy: the developer's own node_modules is never pruned.
#
#   scripts/release-smoke.sh
#   SMOKE_DATABASE_URL=postgres://... SMOKE_REDIS_URL=redis://... scripts/release-smoke.sh
#
# Clones the committed HEAD (uncommitted changes are not part of it). Exits non-zero with the
# failing step named on any failure; removes its processes, database and directory.
set -euo pipefail

checkout=$(cd "$(dirname "$0")/.." && pwd)
export SMOKE_DATABASE_URL=${SMOKE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export SMOKE_REDIS_URL=${SMOKE_REDIS_URL:-redis://127.0.0.1:6379}
work=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { printf '\n== release smoke: %s ==\n' "$*"; }
fail() { printf '\nrelease smoke FAILED: %s\n' "$*" >&2; exit 1; }

step "clone $(git -C "$checkout" rev-parse --short HEAD) into $work/app"
git clone --quiet --no-hardlinks "$checkout" "$work/app" || fail "git clone"
cd "$work/app"

# The same commands as the Dockerfile's build stage (test/release/dockerfile.test.ts compares them).
step "install, build, prune"
# BEGIN production install
npm ci --no-audit --no-fund --loglevel=error
npm run build
npm prune --omit=dev --no-audit --no-fund --loglevel=error
# END production install

for dev in typescript tsx vitest; do
  [ ! -e "node_modules/$dev" ] || fail "node_modules/$dev is still installed after npm prune --omit=dev"
done
node scripts/build-if-stale.mjs || fail "npm start / npm run cli would try to rebuild a fresh dist/"

step "run from dist/ on PostgreSQL + Redis"
node scripts/release-smoke.mjs || fail "see the step above"
printf '\nrelease smoke passed (%ss)\n' "$SECONDS"
