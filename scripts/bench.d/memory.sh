# Memory/knowledge search: 10,000 generated knowledge files (about 80 MB of
# English, Japanese and Chinese Markdown with frontmatter), searched by `cairn knowledge search`
# as a fresh process (no index: every file is read on every call) against `rg -i -n -C3` over the
# same files in the same run. Target: no slower than ripgrep on a full scan (a query with no hits).
need rg ripgrep || return 0
KNOW_N=${KNOW_N:-10000}
KNOW_RUNS=${KNOW_RUNS:-$(( RUNS > 9 ? RUNS : 9 ))}
know_ws="$BENCH_DIR/knowledge-ws"
if [ ! -f "$know_ws/.generated-$KNOW_N" ]; then
  rm -rf "$know_ws"
  "$CAIRN" init "$know_ws" >/dev/null
  go run ./scripts/gen-knowledge -dir "$know_ws/knowledge" -n "$KNOW_N"
  touch "$know_ws/.generated-$KNOW_N"
fi
echo "  $(find "$know_ws/knowledge" -name '*.md' | wc -l) files, $(du -sm "$know_ws/knowledge" | cut -f1) MB; $(nproc) cores; $(rg --version | head -1)"

# know_pair CAIRN_ARGS -- RG_ARGS: runs cairn and rg alternately $KNOW_RUNS times (output to a
# file, never /dev/null: rg stops at the first match there) and sets KNOW_CAIRN_MS, KNOW_RG_MS
# to the medians, in milliseconds from a nanosecond clock.
know_pair() {
  local cargs=() rargs=() s e ct=() rt=()
  while [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  shift
  rargs=("$@")
  "$CAIRN" -C "$know_ws" "${cargs[@]}" >"$BENCH_DIR/.out" 2>&1 || true  # warm the page cache
  for _ in $(seq "$KNOW_RUNS"); do
    s=$(date +%s%N); "$CAIRN" -C "$know_ws" "${cargs[@]}" >"$BENCH_DIR/.out" 2>&1 || true; e=$(date +%s%N)
    ct+=("$(( (e - s) / 1000 ))")
    s=$(date +%s%N); (cd "$know_ws" && rg "${rargs[@]}" knowledge >"$BENCH_DIR/.out" 2>&1) || true; e=$(date +%s%N)
    rt+=("$(( (e - s) / 1000 ))")
  done
  KNOW_CAIRN_MS=$(printf '%s\n' "${ct[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
  KNOW_RG_MS=$(printf '%s\n' "${rt[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
}

know_record() { if type record >/dev/null 2>&1; then record "$@"; fi; }
printf '  %-60s %9s %9s %7s\n' "query" "cairn ms" "rg ms" "ratio"
# label|query|extra cairn flags
while IFS='|' read -r label q extra; do
  # shellcheck disable=SC2086
  know_pair knowledge search "$q" $extra -- -i -n -C3 "$q"
  hits=$( (cd "$know_ws" && rg -i -c "$q" knowledge || true) | awk -F: '{n += $NF} END {print n+0}')
  printf '  %-60s %9s %9s %7s\n' "$label ($hits matching lines)" "$KNOW_CAIRN_MS" "$KNOW_RG_MS" "$(ratio "$KNOW_CAIRN_MS" "$KNOW_RG_MS")"
  # shellcheck disable=SC2086
  peak=$( { /usr/bin/time -f "%M" "$CAIRN" -C "$know_ws" knowledge search "$q" $extra >/dev/null; } 2>&1 | tail -1)
  know_record "knowledge search, $label, $KNOW_N files" "cairn knowledge search" "$KNOW_CAIRN_MS" "rg -i -n -C3" "$KNOW_RG_MS" \
    "$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')" "no slower than rg on a full scan"
done <<'QUERIES'
no hits, rare letters (full scan)|zzqqxx|
no hits, common letters only (full scan)|tenant onboarding|
no hits, Japanese (full scan)|認証フロー|
common, first 20 hits (default limit)|rate limit|
common, first 500 hits (--limit 500)|rate limit|--limit 500
QUERIES
echo "  ratio = cairn / rg (median of $KNOW_RUNS alternating runs); target: <= 1.00 on the full scans"
