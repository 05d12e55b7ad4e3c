# Space conversation search (SPEC §9, issue 4): a generated space of 200,000 comments (0.1% carry
# the rare term "kumquat", about 20% the common four-character term "ログイン"); import throughput;
# `cairn space search` as a fresh process vs the sqlite3 shell running the equivalent FTS5 query on
# a plain trigram table of the same index texts, and cairn's own SQL on the same spaces.db.
need sqlite3 sqlite3 || return 0
SPACE_N=${SPACE_N:-200000}
space_src="$BENCH_DIR/space-$SPACE_N.jsonl"
[ -f "$space_src" ] || go run ./scripts/gen-space -comments "$SPACE_N" -out "$space_src"
space_ws="$BENCH_DIR/space-ws"
rm -rf "$space_ws"
"$CAIRN" init "$space_ws" >/dev/null

# space_ms CMD...: median wall time of $RUNS runs in milliseconds (nanosecond clock), into SPACE_MS.
space_ms() {
  local times=() s e
  for _ in $(seq "$RUNS"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    times+=("$(( (e - s) / 1000 ))")
  done
  SPACE_MS=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
}

s=$(date +%s%N)
"$CAIRN" -C "$space_ws" space import "$space_src" >/dev/null
e=$(date +%s%N)
import_ms=$(( (e - s) / 1000000 ))
import_rate=$(awk -v n="$SPACE_N" -v ms="$import_ms" 'BEGIN { printf "%.0f", n / (ms / 1000) }')
space_record() { if type record >/dev/null 2>&1; then record "$@"; fi; }
space_record "space import, $SPACE_N comments ($import_rate comments/s)" "cairn space import" "$import_ms" "-" "-" "-" ">= 10,000 comments/s"
echo "  import $SPACE_N comments: $import_ms ms = $(awk -v n="$SPACE_N" -v ms="$import_ms" 'BEGIN { printf "%.0f", n / (ms / 1000) }') comments/s  (target: >= 10000/s); spaces.db $(du -m "$space_ws/spaces.db" | cut -f1) MB"

plain="$BENCH_DIR/space-plain.db"
rm -f "$plain"
sqlite3 "$plain" "ATTACH '$space_ws/spaces.db' AS s;
  CREATE VIRTUAL TABLE t USING fts5(itext, tokenize='trigram');
  INSERT INTO t(rowid, itext) SELECT rid, itext FROM s.comments WHERE itext IS NOT NULL;"

search() { "$CAIRN" -C "$space_ws" --user bench --task 0 space search "$@" --json; }
printf '  %-34s %10s %14s %14s %8s\n' "query (hits shown)" "cairn ms" "shell plain ms" "shell same ms" "ratio"
for q in kumquat ログイン 認証 ka; do
  hits=$(search "$q" | grep -c '"ref"' || true)
  space_ms search "$q"; cairn_ms=$SPACE_MS
  if [ "$(printf '%s' "$q" | wc -m)" -ge 3 ]; then
    plain_sql="SELECT rowid, itext FROM t WHERE t MATCH '\"$q\"' ORDER BY rowid DESC LIMIT 11;"
    # cairn's own SQL for the plan it picks: few matches are sorted, many are walked newest first
    n=$(sqlite3 "$space_ws/spaces.db" "SELECT count(*) FROM (SELECT rowid FROM comments_fts WHERE comments_fts MATCH '\"$q\"' LIMIT 2001)")
    if [ "$n" -le 2000 ]; then
      same_sql="SELECT c.id, c.itext FROM (SELECT rowid AS r FROM comments_fts WHERE comments_fts MATCH '\"$q\"') f
        CROSS JOIN comments c ON c.rid = f.r JOIN tasks t ON t.id = c.task
        WHERE c.space = 'sp1' AND t.space = 'sp1' AND c.task <> '0' AND c.itext IS NOT NULL
        ORDER BY c.at_ns DESC, c.idkey DESC LIMIT 11;"
      label="$q (MATCH, sorted, $hits)"
    else
      same_sql="SELECT c.id, c.itext FROM comments c JOIN tasks t ON t.id = c.task
        WHERE c.space = 'sp1' AND t.space = 'sp1' AND c.task <> '0' AND c.itext LIKE '%$q%'
        ORDER BY c.at_ns DESC, c.idkey DESC LIMIT 11;"
      label="$q (common: walk, $hits)"
    fi
  else
    plain_sql="SELECT rowid, itext FROM t WHERE itext LIKE '%$q%' ORDER BY rowid DESC LIMIT 11;"
    same_sql="SELECT c.id, c.itext FROM comments c JOIN tasks t ON t.id = c.task
      WHERE c.space = 'sp1' AND t.space = 'sp1' AND c.task <> '0' AND c.itext LIKE '%$q%'
      ORDER BY c.at_ns DESC, c.idkey DESC LIMIT 11;"
    label="$q (short: LIKE, $hits)"
  fi
  space_ms sqlite3 "$plain" "$plain_sql"; plain_ms=$SPACE_MS
  space_ms sqlite3 "$space_ws/spaces.db" "$same_sql"; same_ms=$SPACE_MS
  printf '  %-34s %10s %14s %14s %8s\n' "$label" "$cairn_ms" "$plain_ms" "$same_ms" "$(ratio "$cairn_ms" "$plain_ms")"
  peak=$( { /usr/bin/time -f "%M" "$CAIRN" -C "$space_ws" --user bench --task 0 space search "$q" --json >/dev/null; } 2>&1 | tail -1)
  space_record "space search $label, $SPACE_N comments" "cairn space search" "$cairn_ms" "sqlite3 shell, plain trigram table" "$plain_ms" \
    "$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')" "<= 30 ms for 3+ characters, <= 2x the shell"
done
space_ms "$CAIRN" --version; start_cairn=$SPACE_MS
space_ms sqlite3 "$plain" "SELECT 1;"; start_shell=$SPACE_MS
echo "  process start alone: cairn --version $start_cairn ms, sqlite3 'SELECT 1' $start_shell ms"
echo "  ratio = cairn / shell on the plain table; targets: rare term <= 30 ms, <= 2x the shell"

# Claude Code transcripts: 200 generated sessions (≈ 50 MB) imported, then imported again with
# nothing new (only size and time are compared: target <= 2 s even for a 1 GB folder).
cc_src="$BENCH_DIR/claude-projects"
[ -d "$cc_src" ] || go run ./scripts/gen-claude -sessions 200 -out "$cc_src"
cc_ws="$BENCH_DIR/claude-ws"
rm -rf "$cc_ws"
"$CAIRN" init "$cc_ws" >/dev/null
s=$(date +%s%N)
"$CAIRN" -C "$cc_ws" space import --from claude-code "$cc_src" >/dev/null
e=$(date +%s%N)
cc_ms=$(( (e - s) / 1000000 ))
cc_mb=$(du -sm "$cc_src" | cut -f1)
space_ms "$CAIRN" -C "$cc_ws" space import --from claude-code "$cc_src"; cc_again=$SPACE_MS
echo "  import --from claude-code, 200 sessions ($cc_mb MB): $cc_ms ms; again with nothing new: $cc_again ms (target: <= 2000 ms)"
space_record "space import --from claude-code, 200 sessions ($cc_mb MB)" "cairn space import --from claude-code" "$cc_ms" "-" "-" "-" "-"
space_record "space import --from claude-code again, nothing new" "cairn space import --from claude-code" "$cc_again" "-" "-" "-" "<= 2 s for 1 GB"
