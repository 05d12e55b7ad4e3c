# Space search over a query distribution (issue 27): terms sampled from the corpus by how many
# comments hold them (scripts/gen-terms: bands 0, 1-10, 11-100, 101-1k, 1k-10k, 10k+ matches;
# ASCII and CJK of 1 to 6 characters; single terms and pairs), on two generators of different
# shapes: gen-space (short comments, a small vocabulary) and gen-longspace (long mixed-language
# comments, Zipf vocabularies, topics clustered in old and in new comments, 2% dated late). Warm:
# one `cairn mcp` answering SearchWorkspaceTasks, each call followed by the naive peer (Python's
# sqlite3 on a plain FTS5 trigram table, detail=full, ORDER BY created DESC LIMIT 10); fresh:
# `cairn space search` against the sqlite3 shell running the same statement (search_dist.py).
# Writes the search-dist section of docs/benchmarks.md. DIST_N comments (200,000); DIST_RUNS
# calls per query warm (5); DIST_FRESH queries per band fresh (8; 0 for none); DIST_PER_CELL
# queries per band x script x shape (80 on gen-space, 45 on gen-longspace); DIST_REIMPORT=1 imports the spaces again;
# DIST_GENS the generators measured (both), the other's last figures in $BENCH_DIR kept.
need sqlite3 sqlite3 || return 0
need python3 python3 || return 0
DIST_N=${DIST_N:-200000}
dist_md="$BENCH_DIR/search-dist.md"
{
  echo "## Space search over a query distribution"
  echo
  echo "Written by \`DIST_RUNS=${DIST_RUNS:-5} DIST_FRESH=${DIST_FRESH:-8} scripts/bench.sh search-dist\` on $(date -u +%F), $DIST_N comments per space, $(nproc) cores (load average $(cut -d" " -f1-3 /proc/loadavg) at the start)."
  echo "Queries sampled from each corpus by how many comments hold them (\`scripts/gen-terms\`); a figure per"
  echo "query is the median of its calls, and the percentiles are over the queries of a band. The peer is the"
  echo "naive plan: Python's sqlite3 on a plain FTS5 trigram table (\`detail=full\`), \`ORDER BY created DESC"
  echo "LIMIT 10\`, timed in its own process around execute and fetchall; cairn is timed through a real MCP"
  echo "round trip (the ping's round trip is its floor). \"Slower than the peer\": by more than 10% and 0.05 ms."
  echo "The CPU tables time the same calls in CPU time, which a shared machine's load distorts far less than"
  echo "a round trip's wall time (each call wakes two processes): the time on a CPU of the server's threads"
  echo "across the call (\`/proc/PID/task/*/schedstat\`), and the peer's thread CPU time around execute and fetchall."
  echo
} >"$dist_md"
for gen in space longspace; do
  if [[ " ${DIST_GENS:-space longspace} " != *" $gen "* ]]; then
    [ -f "$BENCH_DIR/dist-$gen.md" ] && { cat "$BENCH_DIR/dist-$gen.md"; echo; } >>"$dist_md"
    continue
  fi
  src="$BENCH_DIR/dist-$gen-$DIST_N.jsonl"
  ws="$BENCH_DIR/dist-$gen-ws"
  peer="$BENCH_DIR/dist-$gen-peer.db"
  terms="$BENCH_DIR/dist-$gen-terms.tsv"
  [ -f "$src" ] || go run "./scripts/gen-$gen" -comments "$DIST_N" -out "$src"
  if [ "${DIST_REIMPORT:-0}" = 1 ] || [ ! -f "$ws/spaces.db" ]; then
    rm -rf "$ws"; "$CAIRN" init "$ws" >/dev/null
    "$CAIRN" -C "$ws" space import "$src" >/dev/null
    rm -f "$peer" "$terms"
  fi
  [ -s "$peer" ] || python3 scripts/bench.d/search_dist.py peer "$ws/spaces.db" "$peer"
  per_cell=80; [ "$gen" = longspace ] && per_cell=45  # about 1,100 and 1,200 queries
  [ -f "$terms" ] || go run ./scripts/gen-terms -db "$ws/spaces.db" -per-cell "${DIST_PER_CELL:-$per_cell}" -out "$terms"
  python3 scripts/bench.d/search_dist.py run --cairn "$CAIRN" --ws "$ws" --peer "$peer" --terms "$terms" --label "gen-$gen" \
    --runs "${DIST_RUNS:-5}" --fresh "${DIST_FRESH:-8}" --fresh-runs 3 --json "$BENCH_DIR/dist-$gen.json" --md "$BENCH_DIR/dist-$gen.md"
  { cat "$BENCH_DIR/dist-$gen.md"; echo; } >>"$dist_md"
done
go run ./scripts/benchreport -dist "$dist_md" -md docs/benchmarks.md
echo "  wrote the search-dist section of docs/benchmarks.md"
