#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each (FUZZTIME, default 10s); CI runs it from test.sh.
#   FUZZTIME=5m scripts/fuzz.sh        # a longer local session
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
grep -rl --include='*_test.go' '^func Fuzz' core commands 2>/dev/null | sort | while read -r file; do
  pkg="./$(dirname "$file")"
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "fuzz $pkg $target ($FUZZTIME)"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" >/tmp/cairn-fuzz.log 2>&1 || {
      cat /tmp/cairn-fuzz.log
      echo "fuzz target $target in $pkg failed; the failing input is under $pkg/testdata/fuzz/$target" >&2
      exit 1
    }
  done
done
