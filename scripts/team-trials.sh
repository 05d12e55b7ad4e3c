#!/usr/bin/env bash
# Runs the team server's fault trials N times (default 5, or TRIALS) and prints their totals:
# trials, comments lost, comments duplicated, by store, and how long STORAGE_BUSY took with
# PostgreSQL stopped against the --wait it was given.
#
#   scripts/team-trials.sh [N]
#
# One run of TestTeamPushPostgresFaults is three trials (8 clients pushing to cairn serve on
# PostgreSQL: the server SIGKILLed mid-push, PostgreSQL restarted mid-push, PostgreSQL stopped
# then started); one of TestTeamPushServerKilled is one (4 clients, the SQLite store, the server
# SIGKILLed). Both run beside a throwaway PostgreSQL (scripts/pg-test.sh); without PostgreSQL
# installed only the SQLite trials run. Each test logs "trials=N lost=N duplicated=N"; this sums
# those lines. The exit status is go test's.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-${TRIALS:-5}}
case $n in '' | *[!0-9]* | 0)
  echo "team-trials: N must be a positive number, not '$n'" >&2
  exit 2
  ;;
esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "team-trials: $n runs of TestTeamPushPostgresFaults and TestTeamPushServerKilled (under a minute a run)..." >&2
set +e
scripts/pg-test.sh go test -count="$n" -timeout "$((n * 5 + 5))m" -v \
  -run '^(TestTeamPushPostgresFaults|TestTeamPushServerKilled)$' ./commands >"$log" 2>&1
rc=$?
set -e
awk '
  function secs(d) { return d ~ /ms$/ ? substr(d, 1, length(d) - 2) / 1000 : substr(d, 1, length(d) - 1) + 0 }
  match($0, /trials=[0-9]+ lost=[0-9]+ duplicated=[0-9]+/) {
    split(substr($0, RSTART, RLENGTH), f, /[ =]/)
    store = $0 ~ /PostgreSQL store/ ? "postgres" : "sqlite"
    trials[store] += f[2]; lost[store] += f[4]; dup[store] += f[6]
  }
  / with PostgreSQL stopped: exit 4 STORAGE_BUSY after / {
    line = $0
    sub(/^.*_test\.go:[0-9]+: /, "", line)
    what = line; sub(/ with PostgreSQL stopped.*/, "", what)
    d = line; sub(/^.* STORAGE_BUSY after /, "", d); sub(/ .*/, "", d)
    w = line; sub(/^.*\(--wait /, "", w); sub(/\).*/, "", w)
    s = secs(d)
    busy[what]++; wait[what] = w
    if (!(what in max) || s > max[what]) max[what] = s
    if (!(what in min) || s < min[what]) min[what] = s
  }
  END {
    printf "%-9s %7s %5s %11s\n", "store", "trials", "lost", "duplicated"
    for (st in trials) {
      printf "%-9s %7d %5d %11d\n", st, trials[st], lost[st], dup[st]
      T += trials[st]; L += lost[st]; D += dup[st]
    }
    printf "%-9s %7d %5d %11d\n", "total", T, L, D
    for (what in busy)
      printf "STORAGE_BUSY with PostgreSQL stopped, %s: %d times, %.3fs..%.3fs (--wait %s)\n", what, busy[what], min[what], max[what], wait[what]
  }' "$log"
grep -E '^pg-test: ' "$log" >&2 || true
if [ "$rc" -ne 0 ]; then
  grep -E -B5 -A30 '^\s*--- FAIL|^FAIL|^panic' "$log" | head -200 >&2
fi
exit "$rc"
