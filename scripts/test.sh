#!/usr/bin/env bash
# Runs every test: gofmt, vet, unit tests, end-to-end testscript transcripts, process and fault
# tests (which replay every fuzz target's seed corpus and kept crashers), then, when FUZZTIME is set,
# fresh fuzzing of each target, then the Search page in headless Chromium when CI is set or BROWSER=1.
# One line per package as it finishes. CI does not fuzz: new inputs are random, and a run that may
# fail on a fresh input is not a gate; developers fuzz (FUZZTIME=200000x scripts/fuzz.sh) and keep
# what it finds under testdata/fuzz, where every run replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
# the full verbose log goes to $log; the package lines and failures stream as they come
go test -count=1 -v ./... 2>&1 | tee "$log" | grep --line-buffered -E '^(ok|FAIL|panic)|^\s*--- FAIL'
status=${PIPESTATUS[0]}
set -e
passed=$(grep -cE '^\s*--- PASS' "$log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$log" || true)
if [ "$status" -ne 0 ]; then
  grep -B40 -A40 -E '^\s*--- FAIL' "$log" | head -400
  echo "tests: $passed passed, $failed failed"
  exit "$status"
fi
# fresh fuzzing of every target, only when asked (FUZZTIME=20000x scripts/test.sh)
if [ -n "${FUZZTIME:-}" ] && [ "$FUZZTIME" != "0" ]; then
  scripts/fuzz.sh
fi
# the Search page in headless Chromium (installs Debian's chromium when missing): in CI, or BROWSER=1
if [ -n "${CI:-}" ] || [ "${BROWSER:-}" = 1 ]; then
  scripts/browser-test.sh
  passed=$((passed + 1))
else
  echo "browser test skipped (BROWSER=1 scripts/test.sh runs it; CI always does)"
fi
echo "tests: $passed passed, $failed failed"
