#!/usr/bin/env bash
# Drives the Search page of `cairn serve` in headless Chromium (issue 7): type a query, see the
# highlighted hits, switch scope and source, open a card, press Esc and S, switch language, check
# reduced motion and the partial notice. Installs Debian's chromium with apt-get when it is missing.
# Not part of `go test` (which must pass without a browser).
#   scripts/browser-test.sh                  # generated scale-1 board
#   BOARD=fixtures/board/board.json QUERY=迁移 PROJECT=p1 scripts/browser-test.sh
# Prints the directory that holds the screenshots (SHOTS=dir to choose it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-browser.XXXXXX")
shots=${SHOTS:-$work/screenshots}
query=${QUERY:-迁移}
chromium=${CHROMIUM:-$(command -v chromium || true)}

if [ -z "$chromium" ]; then
  echo "installing chromium with apt-get ..." >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk) >/dev/null
  chromium=$(command -v chromium)
fi

go build -o "$work/cairn" .
(cd scripts/browser && go build -o "$work/browser" .)

ws="$work/ws"
"$work/cairn" init "$ws" >/dev/null
board=${BOARD:-}
if [ -z "$board" ]; then
  board="$work/board.json"
  go run ./scripts/gen-board -scale 1 -seed 7 -o "$board"
fi
"$work/cairn" -C "$ws" board import "$board" >/dev/null

"$work/cairn" -C "$ws" serve --addr 127.0.0.1:0 2>"$work/serve.log" &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true' EXIT
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[^ ]*token=[0-9a-f]*' "$work/serve.log" || true)
  [ -n "$url" ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "cairn serve printed no URL" >&2; cat "$work/serve.log" >&2; exit 1; }

[ -n "${PROJECT:-}" ] && url="$url&project=$PROJECT"
echo "== browser test against ${url%%\?*} ($("$chromium" --version 2>/dev/null || echo chromium))"
status=0
"$work/browser" -url "$url" -out "$shots" -chromium "$chromium" -query "$query" -corrupt "$ws/board/memory.json" || status=$?
kill -TERM "$serve_pid"
wait "$serve_pid" || true
trap - EXIT
if grep -q -- "$query" "$work/serve.log"; then
  echo "FAIL: the query text reached the daemon's log" >&2
  status=1
fi
echo "daemon log: $(grep -c ' 200 ' "$work/serve.log") answered requests; $(grep -c 'reloaded' "$work/serve.log") reloads"
echo "screenshots: $shots"
exit "$status"
