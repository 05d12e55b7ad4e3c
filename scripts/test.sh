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
echo "gofmt: ok"
echo "go vet: both builds (the first run compiles every package: a minute or more)..."
go vet ./...
go vet -tags urfave_cli_no_docs ./... # the build the README installs
echo "go vet: ok"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# One go test per package, as many at a time as there are cores (what go test ./... runs at
# once), and each package's line printed when it finishes: go test ./... prints in package order,
# so the slowest package (commands, first in that order) held every line back for minutes.
# The full verbose log of each package goes to $logs; PKGS narrows the packages (default ./...).
export logs
# The slowest packages start first, so that none of them starts last and runs alone on a core.
slow="commands core/spaces core/board"
# Packages whose tests drive a PostgreSQL server (scripts/pg-test.sh) run after the others, alone:
# the server's processes are work xargs does not count, and beside the others they would slow
# the timing tests of cancellation on a machine of two cores. They also must not run beside
# commands, whose fault trials stop and restart that server (CAIRN_TEST_POSTGRES_CTL).
after="core/spaces/pgstore web"
mod=$(go list -m)
# shellcheck disable=SC2086
pkgs=$(go list ${PKGS:-./...})
jobs=$(nproc 2>/dev/null || echo 2)
echo "go test: $(wc -l <<<"$pkgs") packages, $jobs at a time, the slowest first; a line per package as it finishes (commands takes longest: a few minutes)..."
run_one='
  f="$logs/$(printf %s "$1" | tr / _).log"
  go test -count=1 -v "$1" >"$f" 2>&1
  rc=$?
  grep -E "^(ok|FAIL|panic)|^\s*--- FAIL|^pgstore: " "$f"
  exit $rc'
set +e
{
  for p in $slow; do grep -x "$mod/$p" <<<"$pkgs" || true; done
  grep -vxF "$(printf "$mod/%s\n" $slow $after)" <<<"$pkgs" || true
} | xargs -P "$jobs" -I{} bash -c "$run_one" _ {}
status=$?
for p in $after; do
  if grep -qx "$mod/$p" <<<"$pkgs"; then
    bash -c "$run_one" _ "$mod/$p" || status=1
  fi
done
set -e
passed=$(cat "$logs"/*.log | grep -cE '^\s*--- PASS' || true)
failed=$(cat "$logs"/*.log | grep -cE '^\s*--- FAIL' || true)
if [ "$status" -ne 0 ]; then
  for f in "$logs"/*.log; do
    if grep -qE '^\s*--- FAIL|^FAIL|^panic' "$f"; then grep -B40 -A40 -E '^\s*--- FAIL|^FAIL|^panic' "$f" | head -400; fi
  done
  echo "tests: $passed passed, $failed failed"
  exit 1
fi
# fresh fuzzing of every target, only when asked (FUZZTIME=20000x scripts/test.sh)
if [ -n "${FUZZTIME:-}" ] && [ "$FUZZTIME" != "0" ]; then
  scripts/fuzz.sh
fi
# the Search page in headless Chromium (installs Debian's chromium when missing): in CI, or BROWSER=1
# Its screenshots go to $logs, removed on exit like the rest of the run; a failed run keeps them.
if [ -n "${CI:-}" ] || [ "${BROWSER:-}" = 1 ]; then
  echo "browser test: the Search page in headless Chromium..."
  if ! SHOTS="$logs/screenshots" scripts/browser-test.sh; then
    if [ -n "$(ls -A "$logs/screenshots" 2>/dev/null)" ]; then
      kept=$(mktemp -d "${CAIRN_KEEP_TMPDIR:-${TMPDIR:-/tmp}}/cairn-browser-failed.XXXXXX")
      cp -r "$logs/screenshots/." "$kept/"
      echo "browser test failed; its screenshots: $kept" >&2
    fi
    echo "tests: $passed passed, $((failed + 1)) failed"
    exit 1
  fi
  passed=$((passed + 1))
else
  echo "browser test skipped (BROWSER=1 scripts/test.sh runs it; CI always does)"
fi
echo "tests: $passed passed, $failed failed"
