#!/usr/bin/env bash
# Drives the Search page of `cairn serve` in headless Chromium (issue 7): type a query, see the
# highlighted hits, Tab to the link to the results, switch scope (the project menu disabled, "the
# first 30 of N") and source, open a card, press Esc (the box first) and S, switch language, check
# reduced motion and the partial notice; reload without the token, the start page and its
# examples, the side panel as a dialog, axe-core in light and dark (AXE=0 skips it), screenshots
# at 1280×900 and 390×844 in light and dark. A second daemon serves a small board with a
# 300-character unbroken title (no horizontal overflow at 390 px) and a card found by strasse
# and file through Straße and ﬁle (the card panel marks them), and is stopped to check what the
# page says then; a third serves a workspace without a board, which gets one before Retry.
# Installs Debian's chromium with apt-get when it is missing, and axe-core
# with npm into the temporary directory. Not part of `go test` (which must pass without a browser).
#   scripts/browser-test.sh                  # generated scale-1 board
#   BOARD=fixtures/board/board.json QUERY=迁移 PROJECT=p1 scripts/browser-test.sh
# Prints the directory that holds the screenshots (SHOTS=dir to choose it); everything else it
# makes (the binaries, axe-core, the workspaces, the daemons' logs) is removed when it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-browser.XXXXXX")
serve_pid= long_pid= empty_pid=
# cleanup stops the daemons still running and removes the work directory (about 45 MB)
cleanup() {
  for pid in $serve_pid $long_pid $empty_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $serve_pid $long_pid $empty_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # Ctrl-C or a CI timeout's SIGTERM still runs cleanup
shots=${SHOTS:-$(mktemp -d "${TMPDIR:-/tmp}/cairn-browser-shots.XXXXXX")}
query=${QUERY:-迁移}
chromium=${CHROMIUM:-$(command -v chromium || true)}

if [ -z "$chromium" ]; then
  echo "installing chromium with apt-get ..." >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk) >/dev/null
  chromium=$(command -v chromium)
fi

go build -o "$work/cairn" .
(cd scripts/browser && go build -o "$work/browser" .)

axe=
if [ "${AXE:-1}" != 0 ]; then
  command -v npm >/dev/null || { echo "npm is needed for axe-core (AXE=0 skips the accessibility check)" >&2; exit 1; }
  (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/npm" axe-core@4 >/dev/null)
  axe="$work/npm/node_modules/axe-core/axe.min.js"
  echo "== axe-core $(node -p "require('$work/npm/node_modules/axe-core/package.json').version" 2>/dev/null || echo '?')"
fi

# start_serve WS LOG: starts cairn serve for WS, sets serve_pid and url (the printed address).
start_serve() {
  "$work/cairn" -C "$1" serve --addr 127.0.0.1:0 2>"$2" &
  serve_pid=$!
  url=
  for _ in $(seq 100); do
    url=$(grep -o 'http://[^ ]*token=[0-9a-f]*' "$2" || true)
    [ -n "$url" ] && return 0
    kill -0 "$serve_pid" 2>/dev/null || { cat "$2" >&2; exit 1; }
    sleep 0.1
  done
  echo "cairn serve printed no URL" >&2
  cat "$2" >&2
  exit 1
}

# The small board: one card whose title is one unbroken 300-character run, a description with
# an unbroken snippet, and no other records; a second card with a long project-free note; a
# third whose words only match after folding (Straße for strasse, the ligature ﬁ for fi).
long=overflow-$(head -c 400 /dev/zero | tr '\0' 'x')
long=${long:0:300}
cat >"$work/long.json" <<JSON
{"revision": 1,
 "projects": [{"id": "p1", "title": "Layout", "archived": false, "memory": true}],
 "cards": [
  {"id": "c1", "project": "p1", "title": "$long", "description": "see $long$long", "tags": ["layout"], "type": "bug", "status": "Todo", "archived": false, "updated_at": "2026-11-01T08:00:00Z", "workspace_id": ""},
  {"id": "c2", "project": "p1", "title": "Wrap overflow in cards", "description": "", "tags": ["layout"], "type": "", "status": "Done", "archived": false, "updated_at": "2026-11-02T08:00:00Z", "workspace_id": ""},
  {"id": "c3", "project": "p1", "title": "Straße ﬁle cleanup", "description": "Read the ﬁle list from the STRASSE table", "tags": [], "type": "", "status": "Todo", "archived": false, "updated_at": "2026-11-03T08:00:00Z", "workspace_id": ""}
 ],
 "events": [{"id": "e1", "card": "c2", "type": "progress_reported", "note": "checked https://example.com/$long", "actor": "agent", "at": "2026-11-02T08:00:00Z"}]
}
JSON

ws="$work/ws"
"$work/cairn" init "$ws" >/dev/null
board=${BOARD:-}
if [ -z "$board" ]; then
  board="$work/board.json"
  go run ./scripts/gen-board -scale 1 -seed 7 -o "$board"
fi
"$work/cairn" -C "$ws" board import "$board" >/dev/null

ws2="$work/ws-long"
"$work/cairn" init "$ws2" >/dev/null
"$work/cairn" -C "$ws2" board import "$work/long.json" >/dev/null

# a workspace without a board: the daemon starts, the page says how to import one
ws3="$work/ws-empty"
"$work/cairn" init "$ws3" >/dev/null

start_serve "$ws2" "$work/serve-long.log"
long_pid=$serve_pid long_url=$url serve_pid=
start_serve "$ws3" "$work/serve-empty.log"
empty_pid=$serve_pid empty_url=$url serve_pid=
start_serve "$ws" "$work/serve.log"

[ -n "${PROJECT:-}" ] && url="$url&project=$PROJECT"
echo "== browser test against ${url%%\?*} ($("$chromium" --version 2>/dev/null || echo chromium))"
status=0
"$work/browser" -url "$url" -out "$shots" -chromium "$chromium" -query "$query" -corrupt "$ws/board/memory.json" \
  -axe "$axe" -long-url "$long_url" -long-pid "$long_pid" \
  -empty-url "$empty_url" -empty-import "$work/cairn -C $ws3 board import $work/long.json" || status=$?
kill -TERM "$serve_pid" "$long_pid" "$empty_pid" 2>/dev/null || true
wait "$serve_pid" || true
wait "$long_pid" || true
wait "$empty_pid" || true
serve_pid= long_pid= empty_pid=
if grep -q -- "$query" "$work/serve.log"; then
  echo "FAIL: the query text reached the daemon's log" >&2
  status=1
fi
echo "daemon log: $(grep -c ' 200 ' "$work/serve.log") answered requests; $(grep -c 'reloaded' "$work/serve.log") reloads"
echo "screenshots: $shots"
exit "$status"
