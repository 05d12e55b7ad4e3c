# The agent faces: the tool registry, and the board daemon answering its HTTP API.
echo "== agent faces"
run tools list
echo
echo "\$ cairn serve --addr 127.0.0.1:7799 &   # the board daemon; the token is in .cairn/serve.token"
"$CAIRN" serve --addr 127.0.0.1:7799 2>"$DEMO/.serve.log" &
serve_pid=$!
for _ in $(seq 50); do [ -s "$DEMO/.cairn/serve.token" ] && break; sleep 0.1; done
if command -v curl >/dev/null 2>&1 && [ -s "$DEMO/.cairn/serve.token" ]; then
  echo "\$ curl -s -H \"Authorization: Bearer \$(cat .cairn/serve.token)\" -d '{\"action\":\"search\",\"input\":{\"query\":\"迁移\",\"limit\":2}}' http://127.0.0.1:7799/api"
  curl -s -H "Authorization: Bearer $(cat "$DEMO/.cairn/serve.token")" \
    -d '{"action":"search","input":{"query":"迁移","limit":2}}' http://127.0.0.1:7799/api | head -c 1200
  echo
  echo "\$ curl -s -H \"Authorization: Bearer \$(cat .cairn/serve.token)\" -d '{\"action\":\"TaskList\",\"input\":{}}' http://127.0.0.1:7799/api"
  curl -s -H "Authorization: Bearer $(cat "$DEMO/.cairn/serve.token")" \
    -d '{"action":"TaskList","input":{}}' http://127.0.0.1:7799/api | head -c 600
  echo
  echo "\$ curl -s -o /dev/null -w '%{http_code}\\n' -d '{\"action\":\"search\",\"input\":{\"query\":\"x\"}}' http://127.0.0.1:7799/api   # no token"
  curl -s -o /dev/null -w '%{http_code}\n' -d '{"action":"search","input":{"query":"x"}}' http://127.0.0.1:7799/api
fi
kill "$serve_pid" 2>/dev/null
wait "$serve_pid" 2>/dev/null || true
