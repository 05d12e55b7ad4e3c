# Memory and knowledge search over a query distribution (issue 27): terms sampled from generated
# Markdown by how many lines hold them (scripts/gen-terms -md: bands 0, 1-10, ..., 10k+ matching
# lines; ASCII and CJK of 1 to 6 characters; single terms and two-word phrases, memory search
# taking one literal string). Corpora: $MDIST_KNOW knowledge files of about 8 KB (as memory.sh)
# and $MDIST_DECISIONS decisions and $MDIST_REQUESTS requests, from gen-knowledge -vocab 20000
# (its sentences, and four lines in ten of Zipf-drawn words so every band has terms). Warm: one
# `cairn mcp` answering KnowledgeSearch and MemorySearch, each call followed by GNU grep (`grep -r
# -i -F -n`) and ripgrep (`rg -i -F -n`) over the same folders; fresh: `cairn knowledge search`
# and `cairn memory search` against the same peers (memory_dist.py). Writes the memory-dist
# section of docs/benchmarks.md. MDIST_RUNS calls per query warm (3); MDIST_FRESH queries per
# band fresh (8; 0 for none); MDIST_PER_CELL queries per band x script x shape (55: about 1,100
# queries per corpus).
need python3 python3 || return 0
need rg ripgrep || true
MDIST_KNOW=${MDIST_KNOW:-10000}
MDIST_DECISIONS=${MDIST_DECISIONS:-2000}
MDIST_REQUESTS=${MDIST_REQUESTS:-1000}
md_ws="$BENCH_DIR/memory-dist-ws"
md_tag="$MDIST_KNOW-$MDIST_DECISIONS-$MDIST_REQUESTS"
if [ ! -f "$md_ws/.generated-$md_tag" ]; then
  rm -rf "$md_ws"; "$CAIRN" init "$md_ws" >/dev/null
  go run ./scripts/gen-knowledge -dir "$md_ws/knowledge" -n "$MDIST_KNOW" -vocab 20000
  go run ./scripts/gen-knowledge -dir "$md_ws/memory/decisions" -n "$MDIST_DECISIONS" -vocab 20000 -seed 2
  go run ./scripts/gen-knowledge -dir "$md_ws/memory/requests" -n "$MDIST_REQUESTS" -vocab 20000 -seed 3
  rm -f "$BENCH_DIR"/memory-dist-*-terms.tsv
  touch "$md_ws/.generated-$md_tag"
fi
know_terms="$BENCH_DIR/memory-dist-knowledge-terms.tsv"
mem_terms="$BENCH_DIR/memory-dist-memory-terms.tsv"
[ -f "$know_terms" ] || go run ./scripts/gen-terms -md "$md_ws/knowledge" -per-cell "${MDIST_PER_CELL:-55}" -out "$know_terms"
[ -f "$mem_terms" ] || go run ./scripts/gen-terms -md "$md_ws/memory/decisions,$md_ws/memory/requests" -per-cell "${MDIST_PER_CELL:-55}" -out "$mem_terms"
md_md="$BENCH_DIR/memory-dist.md"
{
  echo "## Memory and knowledge search over a query distribution"
  echo
  echo "Written by \`scripts/bench.sh memory-dist\` on $(date -u +%F): $MDIST_KNOW knowledge files ($(du -sm "$md_ws/knowledge" | cut -f1) MB) and $MDIST_DECISIONS decisions and $MDIST_REQUESTS requests ($(du -sm "$md_ws/memory" | cut -f1) MB) from \`gen-knowledge -vocab 20000\`, $(nproc) cores shared with other work (load average $(cut -d" " -f1-3 /proc/loadavg) at the start; each table gives the median 1-minute load while its band ran); $(grep --version | head -1)$(command -v rg >/dev/null && echo ", $(rg --version | head -1)")."
  echo "Queries sampled from each corpus by how many lines hold them (\`scripts/gen-terms -md\`; a multi-term query is a two-word"
  echo "phrase, one literal string as memory search takes it). A figure per query is the median of its calls, and the percentiles"
  echo "are over the queries of a band. The peers are the naive plans, a process each over every file: GNU grep and ripgrep,"
  echo "printing every matching line; cairn is timed through a real MCP round trip, and reads every file on every call too (no"
  echo "index), but stops after its 20 hits. CPU tables: cairn mcp's CPU time per call (its threads' schedstat) against the peers'"
  echo "user + system time. \"Slower than\": by more than 10% and 0.05 ms."
  echo
  python3 scripts/bench.d/memory_dist.py run --cairn "$CAIRN" --ws "$md_ws" \
    --corpus "knowledge:KnowledgeSearch:knowledge:$know_terms:knowledge" \
    --corpus "memory:MemorySearch:memory:$mem_terms:memory/decisions,memory/requests" \
    --label "gen-knowledge" --runs "${MDIST_RUNS:-3}" --fresh "${MDIST_FRESH:-8}" --fresh-runs 3 --json "$BENCH_DIR/memory-dist" --md "$BENCH_DIR/memory-dist-tables.md" >/dev/null
  cat "$BENCH_DIR/memory-dist-tables.md"
  [ -f scripts/bench.d/memory-dist.notes.md ] && { echo; cat scripts/bench.d/memory-dist.notes.md; }
} >"$md_md"
go run ./scripts/benchreport -dist "$md_md" -dist-name memory-dist -md docs/benchmarks.md
echo "  wrote the memory-dist section of docs/benchmarks.md"
