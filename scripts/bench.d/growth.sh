# How cost grows: each family at 0.1x, 1x and 10x of its bench size, cairn next to its peer on the
# same data, with time and peak memory. Slow (the 10x points generate and import gigabytes), so a
# full `scripts/bench.sh` runs it only with GROWTH=1; `scripts/bench.sh growth` runs it alone.
# Rows go to $GROWTH_RESULTS (growth_record in bench.sh); scripts/benchreport -growth turns them into
# the "How cost grows" section of docs/benchmarks.md and docs/benchmarks-growth.svg.
#   space      20,000 / 200,000 / 2,000,000 comments (gen-space): rare-term and common-term search
#              as a fresh process vs the sqlite3 shell on a plain trigram table of the same index
#              texts; the import vs space_peer.py (Python's sqlite3, one insert per row + FTS5).
#   board      scale 1 / 10 / 100 (gen-board): search as a fresh process, snapshot warm, vs the same
#              search with the snapshot removed before each run (the plain load of rows and files).
#   knowledge  1,000 / 10,000 / 100,000 files (gen-knowledge): a no-hit full scan vs rg -i -n -C3.
#   task log   100,000 / 1,000,000 / 10,000,000 lines (gen-tasklog): task list vs grep -c TaskCreate.
# The 10x points run GROWTH_BIG_RUNS times (3), the others $RUNS times; the space import runs
# GROWTH_IMPORT_RUNS times (1 at 10x). Every row carries the 1-minute load average when it was taken.
# GROWTH_SPACE, GROWTH_BOARD, GROWTH_KNOW and GROWTH_LOG replace a family's three sizes (a quick
# check of the script: GROWTH_SPACE="200 2000 20000" ...).
need sqlite3 sqlite3 || return 0
need rg ripgrep || return 0
need python3 python3 || return 0
GROWTH_BIG_RUNS=${GROWTH_BIG_RUNS:-3}
GROWTH_IMPORT_RUNS=${GROWTH_IMPORT_RUNS:-3}

# growth_runs POINT: the number of runs for point 0.1x, 1x or 10x.
growth_runs() { if [ "$1" = 10x ]; then echo "$GROWTH_BIG_RUNS"; else echo "$RUNS"; fi; }

# growth_time N CMD...: runs CMD N times (stdout to a file: grep and rg stop early on /dev/null),
# each under /usr/bin/time for its peak RSS; sets G_MS to the median wall time in ms from a
# nanosecond clock (measure's %e has 10 ms steps, too coarse for searches of a few ms) and G_MIB to
# the largest peak RSS in MiB. Runs $G_PRE (a function name) before each run when it is set.
growth_time() {
  local n=$1 times=() rss=0 s e m; shift
  for _ in $(seq "$n"); do
    if [ -n "${G_PRE:-}" ]; then "$G_PRE"; fi
    s=$(date +%s%N)
    /usr/bin/time -o "$BENCH_DIR/.time" -f "%M" "$@" >"$BENCH_DIR/.out" 2>&1 || true
    e=$(date +%s%N)
    times+=("$(( (e - s) / 1000 ))")
    m=$(tail -1 "$BENCH_DIR/.time")
    (( m > rss )) && rss=$m
  done
  G_MS=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
  G_MIB=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
}

# growth_load: the 1-minute load average now.
growth_load() { cut -d' ' -f1 /proc/loadavg; }

# growth_pair FAMILY SIZE SIZE_LABEL POINT CAIRN_LABEL PEER_LABEL: times the arrays G_CAIRN and
# G_PEER (a warm-up run each first, then $(growth_runs POINT) runs of cairn, then of the peer; the
# peer runs after G_PEER_PRE when set), prints the point and records it.
growth_pair() {
  local family=$1 size=$2 sizelabel=$3 point=$4 clabel=$5 plabel=$6 runs load c_ms c_mib
  runs=$(growth_runs "$point")
  load=$(growth_load)
  G_PRE="" growth_time 1 "${G_CAIRN[@]}"
  G_PRE="" growth_time "$runs" "${G_CAIRN[@]}"; c_ms=$G_MS c_mib=$G_MIB
  G_PRE=${G_PEER_PRE:-} growth_time 1 "${G_PEER[@]}"
  G_PRE=${G_PEER_PRE:-} growth_time "$runs" "${G_PEER[@]}"
  printf '  %-34s %-14s %10s ms %10s ms  ratio %6s  peak %7s / %7s MiB  (%d runs, load %s)\n' \
    "$family" "$sizelabel" "$c_ms" "$G_MS" "$(ratio "$c_ms" "$G_MS")" "$c_mib" "$G_MIB" "$runs" "$load"
  growth_record "$family" "$size" "$sizelabel" "$point" "$clabel" "$c_ms" "$plabel" "$G_MS" "$c_mib" "$G_MIB" "$load" "$runs"
}

gpoints=(0.1x 1x 10x)

# --- space -----------------------------------------------------------------------------------------
read -r -a gspace_sizes <<<"${GROWTH_SPACE:-20000 200000 2000000}"
for i in 0 1 2; do
  n=${gspace_sizes[$i]} point=${gpoints[$i]}
  src="$BENCH_DIR/space-$n.jsonl"
  [ -f "$src" ] || go run ./scripts/gen-space -comments "$n" -out "$src"
  ws="$BENCH_DIR/growth-space-$n"
  peer_db="$BENCH_DIR/growth-space-peer.db"
  iruns=$GROWTH_IMPORT_RUNS; [ "$point" = 10x ] && iruns=1
  load=$(growth_load)
  c_t=() p_t=() c_rss=0 p_rss=0
  for _ in $(seq "$iruns"); do # interleaved; the last cairn import stays for the searches
    rm -rf "$ws"; "$CAIRN" init "$ws" >/dev/null
    growth_time 1 "$CAIRN" -C "$ws" space import "$src"; c_t+=("$G_MS")
    c_rss=$(awk -v a="$c_rss" -v b="$G_MIB" 'BEGIN { print (b > a ? b : a) }')
    rm -f "$peer_db" "$peer_db-wal" "$peer_db-shm"
    growth_time 1 python3 scripts/bench.d/space_peer.py "$src" "$peer_db"; p_t+=("$G_MS")
    p_rss=$(awk -v a="$p_rss" -v b="$G_MIB" 'BEGIN { print (b > a ? b : a) }')
  done
  rm -f "$peer_db" "$peer_db-wal" "$peer_db-shm"
  c_ms=$(printf '%s\n' "${c_t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}')
  p_ms=$(printf '%s\n' "${p_t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]}')
  printf '  %-34s %-14s %10s ms %10s ms  ratio %6s  peak %7s / %7s MiB  (%d runs, load %s)\n' \
    "space import" "$n comments" "$c_ms" "$p_ms" "$(ratio "$c_ms" "$p_ms")" "$c_rss" "$p_rss" "$iruns" "$load"
  growth_record "space import" "$n" "$n comments" "$point" "cairn space import" "$c_ms" \
    "python3 sqlite3, one insert per row + FTS5 trigram" "$p_ms" "$c_rss" "$p_rss" "$load" "$iruns"

  plain="$BENCH_DIR/growth-space-plain.db"
  rm -f "$plain"
  sqlite3 "$plain" "ATTACH '$ws/spaces.db' AS s;
    CREATE VIRTUAL TABLE t USING fts5(itext, tokenize='trigram');
    INSERT INTO t(rowid, itext) SELECT rid, itext FROM s.comments WHERE itext IS NOT NULL;"
  while IFS='|' read -r family q; do
    G_CAIRN=("$CAIRN" -C "$ws" --user bench --task 0 space search "$q" --json)
    G_PEER=(sqlite3 "$plain" "SELECT rowid, itext FROM t WHERE t MATCH '\"$q\"' ORDER BY rowid DESC LIMIT 11;")
    growth_pair "$family" "$n" "$n comments" "$point" "cairn space search" "sqlite3 shell, plain trigram table"
  done <<'QUERIES'
space search, rare term (kumquat)|kumquat
space search, common term (ログイン)|ログイン
QUERIES
  rm -f "$plain"
  [ "$point" = 10x ] && rm -rf "$ws" # 2 GB of index: keep the disk for the next family
done

# --- board -----------------------------------------------------------------------------------------
read -r -a gboard_scales <<<"${GROWTH_BOARD:-1 10 100}"
for i in 0 1 2; do
  s=${gboard_scales[$i]} point=${gpoints[$i]}
  src="$BENCH_DIR/board-$s.json"
  [ -f "$src" ] || go run ./scripts/gen-board -scale "$s" -o "$src"
  ws="$BENCH_DIR/growth-board-$s"
  if [ ! -f "$ws/.imported" ]; then
    rm -rf "$ws"; "$CAIRN" init "$ws" >/dev/null
    "$CAIRN" -C "$ws" board import "$src" >/dev/null
    touch "$ws/.imported"
  fi
  gboard_cold() { rm -f "$ws/.cairn/board.snapshot"; }
  G_CAIRN=("$CAIRN" -C "$ws" board search 迁移 --json)
  G_PEER=("${G_CAIRN[@]}")
  G_PEER_PRE=gboard_cold growth_pair "board search (迁移)" "$s" "scale $s" "$point" \
    "cairn board search (snapshot warm)" "same, snapshot removed (plain load)"
  "$CAIRN" -C "$ws" board search 迁移 --json >/dev/null # leave the snapshot in place
done

# --- knowledge -------------------------------------------------------------------------------------
read -r -a gknow_sizes <<<"${GROWTH_KNOW:-1000 10000 100000}"
for i in 0 1 2; do
  n=${gknow_sizes[$i]} point=${gpoints[$i]}
  ws="$BENCH_DIR/growth-know-$n"
  if [ ! -f "$ws/.generated-$n" ]; then
    rm -rf "$ws"; mkdir -p "$ws"
    go run ./scripts/gen-knowledge -dir "$ws/knowledge" -n "$n" >/dev/null
    touch "$ws/.generated-$n"
  fi
  [ -f "$ws/cairn.toml" ] || "$CAIRN" init "$ws" >/dev/null
  G_CAIRN=("$CAIRN" -C "$ws" knowledge search zzqqxx)
  G_PEER=(rg -i -n -C3 zzqqxx "$ws/knowledge")
  growth_pair "knowledge search, no hits" "$n" "$n files" "$point" "cairn knowledge search" "rg -i -n -C3"
done

# --- task log --------------------------------------------------------------------------------------
read -r -a glog_sizes <<<"${GROWTH_LOG:-100000 1000000 10000000}"
ws="$BENCH_DIR/growth-tasks-ws"
[ -f "$ws/cairn.toml" ] || "$CAIRN" init "$ws" >/dev/null
for i in 0 1 2; do
  n=${glog_sizes[$i]} point=${gpoints[$i]}
  log="$BENCH_DIR/session-$n.jsonl"
  [ -f "$log" ] || go run ./scripts/gen-tasklog -lines "$n" -out "$log"
  G_CAIRN=("$CAIRN" -C "$ws" --session "$log" task list)
  G_PEER=(grep -c TaskCreate "$log")
  growth_pair "task list (replay)" "$n" "$n lines" "$point" "cairn task list" "grep -c TaskCreate"
done
unset G_CAIRN G_PEER G_PEER_PRE
