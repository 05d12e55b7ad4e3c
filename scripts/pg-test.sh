#!/usr/bin/env bash
# Runs a command (by default the PostgreSQL store's tests) beside a throwaway PostgreSQL server:
# a cluster made with initdb in a temporary folder (--locale=C.UTF-8 -E UTF8, as a non-root user:
# nobody when this runs as root), listening only on a unix socket in that folder, with pg_trgm
# checked; CAIRN_TEST_POSTGRES holds its DSN while the command runs, and the server is stopped and
# its folder removed afterwards, whatever the command did. CAIRN_TEST_POSTGRES_CTL is a script
# that runs pg_ctl on that server as its owner ("$CAIRN_TEST_POSTGRES_CTL restart -m fast", "stop
# -m fast", "start"), for the tests that stop or restart the database under a running server.
#
#   scripts/pg-test.sh                          go test -count=1 ./core/spaces/pgstore/
#   scripts/pg-test.sh go test -run Equiv ./core/spaces/pgstore/
#   scripts/pg-test.sh --print                  start it, print the DSN and wait (Ctrl-C stops it)
#
# Without initdb (Debian: apt-get install postgresql postgresql-contrib) the command runs without
# the DSN and the tests that need it skip, saying so on one line; with CI=true that is an error.
set -euo pipefail
cd "$(dirname "$0")/.."

bindir=""
if command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(readlink -f "$(command -v initdb)")")
else
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ]; then bindir=$d; break; fi
  done
fi
if [ $# -eq 0 ]; then set -- go test -count=1 ./core/spaces/pgstore/; fi
if [ -z "$bindir" ]; then
  if [ "${CI:-}" = true ]; then
    echo "pg-test: no initdb found (apt-get install postgresql postgresql-contrib); CI runs the PostgreSQL tests" >&2
    exit 1
  fi
  echo "pg-test: PostgreSQL not installed (no initdb): its tests skip" >&2
  exec "$@"
fi

dir=$(mktemp -d /tmp/cairn-pg.XXXXXX)
# PostgreSQL refuses to run as root: as root, the cluster belongs to nobody and every server
# command runs as nobody (setpriv, from util-linux); otherwise as this user.
as=()
if [ "$(id -u)" = 0 ]; then
  chown 65534:65534 "$dir"
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi
chmod 700 "$dir"
log="$dir/server.log"
stop() {
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT
start=$(date +%s.%N)
(cd "$dir" && "${as[@]}" "$bindir/initdb" -D "$dir/data" -U cairn --auth=trust --locale=C.UTF-8 -E UTF8 >"$dir/initdb.log" 2>&1) || {
  cat "$dir/initdb.log" >&2
  exit 1
}
# fsync off: a test cluster that dies is thrown away anyway
opts="-k $dir -c listen_addresses= -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
# $dir/ctl ARGS... is pg_ctl for this cluster, as its owner: the fault tests run
# "$CAIRN_TEST_POSTGRES_CTL restart -m fast", "... stop -m fast" and "... start"
{
  echo '#!/usr/bin/env bash'
  printf 'cd %q || exit 1
' "$dir"
  printf 'exec' ; printf ' %q' "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$log" -w -t 60 -o "$opts"; echo ' "$@"'
} >"$dir/ctl"
chmod 755 "$dir/ctl"
"$dir/ctl" start >/dev/null || {
  cat "$log" >&2
  exit 1
}
dsn="host=$dir port=5432 user=cairn dbname=postgres sslmode=disable"
psql=$bindir/psql
[ -x "$psql" ] || psql=psql
"$psql" "$dsn" -qAtX -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS pg_trgm" -c "SELECT show_trgm('認証フロー') <> '{}'" >"$dir/check.log" 2>&1 || {
  cat "$dir/check.log" >&2
  echo "pg-test: pg_trgm is missing (apt-get install postgresql-contrib)" >&2
  exit 1
}
printf 'pg-test: PostgreSQL %s on %s, started in %.1fs\n' "$("$bindir/postgres" --version | awk '{print $3}')" "$dir" "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" >&2
export CAIRN_TEST_POSTGRES="$dsn" CAIRN_TEST_POSTGRES_CTL="$dir/ctl"
if [ "$1" = --print ]; then
  echo "CAIRN_TEST_POSTGRES='$dsn'"
  echo "CAIRN_TEST_POSTGRES_CTL='$dir/ctl'"
  trap 'exit 0' INT TERM
  while :; do sleep 3600 & wait $!; done # wait, unlike sleep, lets the trap run at once
fi
set +e
"$@"
rc=$?
exit $rc
