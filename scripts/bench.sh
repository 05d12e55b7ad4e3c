#!/usr/bin/env bash
# Benchmarks cairn against its peers in the same run (SPEC §9). Never part of the test suite.
#   scripts/bench.sh            # every section
#   scripts/bench.sh tasks      # only sections whose name matches (the *-dist ones only when it says dist)
#   scripts/bench.sh growth     # how cost grows (0.1x, 1x, 10x); in a full run only with GROWTH=1
#   scripts/bench.sh team       # team servers, SQLite and PostgreSQL (2M comments; SCALE=0.05); in a full run only with TEAM=1
# Each section is scripts/bench.d/<name>.sh, sourced with $CAIRN (a fresh build) and $BENCH_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-$(pwd)/.bench}
RUNS=${RUNS:-5}
mkdir -p "$BENCH_DIR"
CAIRN="$BENCH_DIR/cairn"
CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o "$CAIRN" . # as the README installs it
export CAIRN BENCH_DIR RUNS

# need TOOL PACKAGE: install a peer with apt-get when it is missing.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 ..." >&2
  (apt-get update -qq && apt-get install -y -qq "$2") >/dev/null 2>&1 || { echo "cannot install $2" >&2; return 1; }
}

# measure LABEL CMD...: runs CMD $RUNS times (stdout to a file: GNU grep quits early when it sees /dev/null) and prints the median wall time
# and the largest peak RSS; sets MEDIAN_MS for the caller.
measure() {
  local label=$1; shift
  local times=() rss=0 t m out tf="$BENCH_DIR/.time"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$tf" -f "%e %M" "$@" >"$BENCH_DIR/.out" 2>&1 || true  # not /dev/null: grep stops early there
    out=$(tail -1 "$tf")
    t=${out% *}; m=${out#* }
    times+=("$t")
    (( m > rss )) && rss=$m
  done
  MEDIAN_MS=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.0f", a[int((NR+1)/2)]*1000}')
  PEAK_MIB=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
  printf '  %-44s %7s ms  (median of %d)  peak %6s MiB\n' "$label" "$MEDIAN_MS" "$RUNS" "$PEAK_MIB"
}

# record BENCHMARK CAIRN_LABEL CAIRN_MS PEER_LABEL PEER_MS CAIRN_PEAK_MIB TARGET: one row of
# docs/benchmarks.md (use - for a figure that does not apply).
RESULTS="$BENCH_DIR/results.tsv"
: >"$RESULTS"
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"; }

# growth_record FAMILY SIZE SIZE_LABEL POINT CAIRN_LABEL CAIRN_MS PEER_LABEL PEER_MS CAIRN_PEAK_MIB
# PEER_PEAK_MIB LOAD RUNS: one point of the growth section (scripts/bench.d/growth.sh), kept apart
# from the main table.
GROWTH_RESULTS="$BENCH_DIR/growth.tsv"
: >"$GROWTH_RESULTS"
growth_record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$GROWTH_RESULTS"; }

# ratio A B: prints A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) b = 1; printf "%.2f", a / b }'; }

export RESULTS GROWTH_RESULTS
export -f measure ratio need record growth_record
for f in scripts/bench.d/*.sh; do
  name=$(basename "$f" .sh)
  if [ $# -gt 0 ] && [[ "$name" != *"$1"* ]]; then continue; fi
  # the long distribution sections run on a partial match only when it names them: `board` is board.sh alone
  if [ $# -gt 0 ] && [[ "$name" == *-dist && "$1" != *dist* ]]; then continue; fi
  if [ $# -eq 0 ] && [ "$name" = growth ] && [ "${GROWTH:-0}" != 1 ]; then continue; fi
  if [ $# -eq 0 ] && [ "$name" = team ] && [ "${TEAM:-0}" != 1 ]; then continue; fi
  echo "== $name"
  # shellcheck source=/dev/null
  source "$f"
done

if [ $# -eq 0 ] && [ -s "$RESULTS" ]; then
  go run ./scripts/benchreport -in "$RESULTS" -md docs/benchmarks.md -svg docs/benchmarks.svg \
    -machine "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)"
  echo "wrote docs/benchmarks.md and docs/benchmarks.svg"
fi
# The growth section replaces only its own part of docs/benchmarks.md (the table above is kept).
if [ -s "$GROWTH_RESULTS" ]; then
  go run ./scripts/benchreport -growth "$GROWTH_RESULTS" -md docs/benchmarks.md -growth-svg docs/benchmarks-growth.svg \
    -notes scripts/benchreport/growth-notes.tsv -date "$(date -u +%F)" \
    -machine "$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)"
  echo "wrote the growth section of docs/benchmarks.md and docs/benchmarks-growth.svg"
fi
