# Task replay of a 1,000,000-line session log vs grep -c on the same file.
log="$BENCH_DIR/session-1m.jsonl"
[ -f "$log" ] || go run ./scripts/gen-tasklog -lines 1000000 -out "$log"
ws="$BENCH_DIR/tasks-ws"
[ -f "$ws/cairn.toml" ] || "$CAIRN" init "$ws" >/dev/null
echo "  log: $(wc -l <"$log") lines, $(du -m "$log" | cut -f1) MB, $(grep -c '"TaskCreate"' "$log") TaskCreate calls"
measure "cairn task list (replay)" "$CAIRN" -C "$ws" --session "$log" task list
cairn_ms=$MEDIAN_MS cairn_peak=$PEAK_MIB
measure "grep -c TaskCreate" grep -c TaskCreate "$log"
grep_ms=$MEDIAN_MS
echo "  ratio cairn/grep: $(ratio "$cairn_ms" "$grep_ms")  (target: cairn under 500 ms and 64 MiB)"
record "task replay, 1,000,000-line log" "cairn task list" "$cairn_ms" "grep -c TaskCreate" "$grep_ms" "$cairn_peak" "< 500 ms, < 64 MiB"
