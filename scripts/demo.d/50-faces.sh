# The agent faces: the tool registry, and the board daemon answering its HTTP API.
echo "== agent faces"
run tools list
echo
echo "\$ cairn serve --addr 127.0.0.1:0 &   # the board daemon on a free port; the token is in .cairn/serve.token"
"$CAIRN" serve --addr 127.0.0.1:0 2>"$DEMO/.serve.log" &
serve_pid=$!
api=
for _ in $(seq 100); do
  api=$(grep -o 'http://[^/ ]*' "$DEMO/.serve.log" | head -1 || true)
  [ -n "$api" ] && [ -s "$DEMO/.cairn/serve.token" ] && break
  kill -0 "$serve_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$api" ]; then
  echo "cairn serve did not start:"
  cat "$DEMO/.serve.log"
elif command -v curl >/dev/null 2>&1; then
  api="$api/api"
  echo "\$ curl -s -H \"Authorization: Bearer \$(cat .cairn/serve.token)\" -d '{\"action\":\"search\",\"input\":{\"query\":\"迁移\",\"limit\":1}}' $api"
  curl -s -H "Authorization: Bearer $(cat "$DEMO/.cairn/serve.token")" \
    -d '{"action":"search","input":{"query":"迁移","limit":1}}' "$api"
  echo
  echo "\$ curl -s -H \"Authorization: Bearer \$(cat .cairn/serve.token)\" -d '{\"action\":\"TaskList\",\"input\":{}}' $api"
  curl -s -H "Authorization: Bearer $(cat "$DEMO/.cairn/serve.token")" \
    -d '{"action":"TaskList","input":{}}' "$api"
  echo
  echo "\$ curl -s -o /dev/null -w '%{http_code}\\n' -d '{\"action\":\"search\",\"input\":{\"query\":\"x\"}}' $api   # no token"
  curl -s -o /dev/null -w '%{http_code}\n' -d '{"action":"search","input":{"query":"x"}}' "$api"
else
  echo "(curl is not installed: the API examples are skipped)"
fi
kill "$serve_pid" 2>/dev/null
wait "$serve_pid" 2>/dev/null || true
