# Process start-up (issue "Performance, round two"): `cairn --version` against the sqlite3 shell
# answering 'select 1' on an in-memory database, each a fresh process, START_RUNS runs of each
# interleaved (runs.py): median and 90th percentile of wall and CPU (user + system) time.
# Target: cairn --version <= 4 ms wall.
need sqlite3 sqlite3 || return 0
need python3 python3 || return 0
START_RUNS=${START_RUNS:-300}
# shellcheck disable=SC2207
t=($(python3 scripts/bench.d/runs.py "$START_RUNS" -- "$CAIRN" --version -- sqlite3 :memory: 'select 1' -- true))
cw=${t[0]} cw90=${t[1]} cc=${t[2]} cc90=${t[3]} sw=${t[4]} sw90=${t[5]} sc=${t[6]} sc90=${t[7]} tw=${t[8]}
printf '  %-38s %9s %9s %9s %9s   (ms, %d runs each)\n' "" "wall p50" "wall p90" "cpu p50" "cpu p90" "$START_RUNS"
printf '  %-38s %9s %9s %9s %9s\n' "cairn --version" "$cw" "$cw90" "$cc" "$cc90"
printf '  %-38s %9s %9s %9s %9s\n' "sqlite3 :memory: 'select 1'" "$sw" "$sw90" "$sc" "$sc90"
# What the harness itself costs: a process that does nothing, started, run and waited for the
# same way (a fork of the harness, then exec), as a shell starts a command. Every fresh-process
# figure in the table carries it, cairn's and its peer's alike.
printf '  %-38s %9s\n' "true (the harness's own cost)" "$tw"
record "start-up: a process that does nothing (true), the harness's own cost in every fresh-process figure" "true" "$tw" "-" "-" "-" "-"
record "start-up, wall (median of $START_RUNS)" "cairn --version" "$cw" "sqlite3 :memory: 'select 1'" "$sw" "-" "<= 4 ms"
record "start-up, CPU time (median of $START_RUNS)" "cairn --version" "$cc" "sqlite3 :memory: 'select 1'" "$sc" "-" "-"
