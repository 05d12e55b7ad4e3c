# Every runtime's past sessions (issue 24): `cairn space import --all` over about 1 GB of sessions
# of the four runtimes under a throwaway HOME (Claude Code transcripts from gen-claude, Codex
# rollouts, Gemini CLI session files and an OpenCode database from gen-sessions), the first import,
# then again with nothing new: each runtime's files are only listed and stat'ed (the database's
# size and time with its -wal), nothing is opened. Target: <= 50 ms for the no-op.
SESS_MB=${SESS_MB:-250} # per runtime
sess_home="$BENCH_DIR/sessions-home-$SESS_MB"
if [ ! -d "$sess_home" ]; then
  go run ./scripts/gen-claude -sessions $((SESS_MB * 4)) -kb 210 -out "$sess_home/.claude/projects" >/dev/null
  go run ./scripts/gen-sessions -home "$sess_home" -mb "$SESS_MB"
fi
sess_mb=$(du -sm "$sess_home" | cut -f1)
sess_ws="$BENCH_DIR/sessions-ws"
rm -rf "$sess_ws"
"$CAIRN" init "$sess_ws" >/dev/null
sess_env=(env HOME="$sess_home" XDG_DATA_HOME= CLAUDE_CONFIG_DIR= CODEX_HOME= CAIRN_OPENCODE_DB=)
s=$(date +%s%N)
"${sess_env[@]}" "$CAIRN" -C "$sess_ws" space import --all >/dev/null
e=$(date +%s%N)
sess_first=$(( (e - s) / 1000000 ))
measure "space import --all again, nothing new" "${sess_env[@]}" "$CAIRN" -C "$sess_ws" space import --all
sess_again=$MEDIAN_MS
# the same with a finer clock: measure's /usr/bin/time rounds to 10 ms
sess_ms() {
  local times=() s e
  for _ in $(seq "$RUNS"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    times+=("$(( (e - s) / 1000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}
sess_again=$(sess_ms "${sess_env[@]}" "$CAIRN" -C "$sess_ws" space import --all)
echo "  import --all, $sess_mb MB of sessions of four runtimes: first $sess_first ms; again with nothing new: $sess_again ms (target: <= 50 ms)"
record "space import --all, four runtimes ($sess_mb MB)" "cairn space import --all" "$sess_first" "-" "-" "-" "-"
record "space import --all again, nothing new, four runtimes ($sess_mb MB)" "cairn space import --all" "$sess_again" "-" "-" "$PEAK_MIB" "<= 50 ms"
