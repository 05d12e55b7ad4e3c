#!/usr/bin/env bash
# Walks through every cairn tool on a scratch copy of fixtures/demo; the fixtures stay untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
DEMO=$(mktemp -d)
trap 'rm -rf "$DEMO"' EXIT
CAIRN="$DEMO/.bin/cairn"
mkdir -p "$DEMO/.bin"
# the build is the long part of a first run (a minute or two with a cold cache): say so on a terminal
[ -t 2 ] && echo "building cairn for the demo (go build; the first time takes a minute or two)..." >&2
go build -o "$CAIRN" .
[ -t 2 ] && echo "built; the walk-through:" >&2
cp -r fixtures/demo/. "$DEMO/"
[ -f "$DEMO/cairn.toml" ] || "$CAIRN" init "$DEMO" >/dev/null
export CAIRN DEMO
cd "$DEMO"
# run CMD...: echo the command as a user would type it, then run it, its stderr in line with its
# stdout (as a terminal shows them) so a message never lands under the next command.
run() {
  local shown="" a
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./:=,@-][A-Za-z0-9_./:=,@#-]*$ ]]; then shown+=" $a"; else shown+=" '${a//\'/\'\\\'\'}'"; fi
  done
  echo; echo "\$ cairn${shown}"
  "$CAIRN" "$@" 2>&1 || echo "(exit $?)"
}
for f in "$OLDPWD"/scripts/demo.d/*.sh; do
  # shellcheck source=/dev/null
  source "$f"
done
