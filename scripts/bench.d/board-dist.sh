# Board search over a query distribution (issue 27): terms sampled from a generated board by how
# many cards hold them (scripts/gen-terms -board: bands 0, 1-10, 11-100, 101-1k, 1k-10k matches;
# ASCII and CJK of 1 to 6 characters; single terms and pairs), on the board of board.sh
# (gen-board, scale $BDIST_SCALE: 10 is 5,000 cards, 50,000 events). Warm: one `cairn serve`
# answering POST /api search over every project and one `cairn mcp` answering flowly_search
# for card $BDIST_CARD, each call followed by the naive peer (a Python scan of every card's
# folded fields, then the rank of each match) for the same scope; fresh: `cairn board search`
# (snapshot warm) against the peer as a process that loads its copy of the board
# (board_dist.py). Writes the board-dist section of docs/benchmarks.md. BDIST_RUNS calls per
# query warm (3); BDIST_FRESH queries per band fresh (8; 0 for none); BDIST_PER_CELL queries per
# band x script x shape (50: about 1,100 queries).
need python3 python3 || return 0
BDIST_SCALE=${BDIST_SCALE:-10}
BDIST_CARD=${BDIST_CARD:-c1}
bd_src="$BENCH_DIR/board-$BDIST_SCALE.json"
bd_ws="$BENCH_DIR/board-dist-ws"
bd_peer="$BENCH_DIR/board-dist-peer"
bd_terms="$BENCH_DIR/board-dist-terms.tsv"
[ -f "$bd_src" ] || go run ./scripts/gen-board -scale "$BDIST_SCALE" -o "$bd_src"
if [ ! -f "$bd_ws/.imported-$BDIST_SCALE" ]; then
  rm -rf "$bd_ws"; "$CAIRN" init "$bd_ws" >/dev/null
  "$CAIRN" -C "$bd_ws" board import "$bd_src" >/dev/null
  touch "$bd_ws/.imported-$BDIST_SCALE"
  rm -f "$bd_peer.jsonl" "$bd_peer.marshal" "$bd_terms"
fi
[ -f "$bd_terms" ] || go run ./scripts/gen-terms -board "$bd_src" -peer-out "$bd_peer.jsonl" -per-cell "${BDIST_PER_CELL:-50}" -out "$bd_terms"
[ -f "$bd_peer.marshal" ] || python3 scripts/bench.d/board_dist.py prepare "$bd_peer.jsonl" "$bd_peer.marshal"
"$CAIRN" -C "$bd_ws" board search 迁移 --json >/dev/null  # the snapshot the fresh runs use
bd_md="$BENCH_DIR/board-dist.md"
{
  echo "## Board search over a query distribution"
  echo
  echo "Written by \`scripts/bench.sh board-dist\` on $(date -u +%F), \`gen-board -scale $BDIST_SCALE\` ($(grep -c . "$bd_peer.jsonl") cards and memory entries searched), $(nproc) cores shared with other work (load average $(cut -d" " -f1-3 /proc/loadavg) at the start; each table gives the median 1-minute load while its band ran)."
  echo "Queries sampled from the board by how many cards hold them (\`scripts/gen-terms -board\`): a card matches when every term"
  echo "occurs in one of its searched fields, folded. A figure per query is the median of its calls, and the percentiles are over the"
  echo "queries of a band. The peer is the naive plan, in Python (\`scripts/bench.d/board_dist.py\`): every card's folded fields"
  echo "joined, \`all(term in text)\` over the cards of the scope, then each match's fields read again for its rank, the first"
  echo "\`limit\` kept (and the memory entries matched the same way); it gives cairn's answers, which the run checks card by card."
  echo "cairn is timed through a real round trip (HTTP on loopback, or MCP over stdio), the peer in this process around the call."
  echo "CPU tables: the server's CPU time per call (its threads' schedstat) against the peer's. \"Slower than the peer\": by more"
  echo "than 10% and 0.05 ms."
  echo
  python3 scripts/bench.d/board_dist.py run --cairn "$CAIRN" --ws "$bd_ws" --peer "$bd_peer.marshal" --terms "$bd_terms" --card "$BDIST_CARD" \
    --label "gen-board -scale $BDIST_SCALE" --runs "${BDIST_RUNS:-3}" --fresh "${BDIST_FRESH:-8}" --fresh-runs 3 --json "$BENCH_DIR/board-dist.json" --md "$BENCH_DIR/board-dist-tables.md" >/dev/null
  cat "$BENCH_DIR/board-dist-tables.md"
  [ -f scripts/bench.d/board-dist.notes.md ] && { echo; cat scripts/bench.d/board-dist.notes.md; }
} >"$bd_md"
go run ./scripts/benchreport -dist "$bd_md" -dist-name board-dist -md docs/benchmarks.md
echo "  wrote the board-dist section of docs/benchmarks.md"
