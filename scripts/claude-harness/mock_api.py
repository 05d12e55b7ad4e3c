#!/usr/bin/env python3
"""A scripted mock of the Anthropic Messages API, enough to drive Claude Code offline.

Usage: mock_api.py --script SCENARIO.json --log REQUESTS.jsonl [--port 0] [--port-file FILE]

Every request is appended to the log (method, path, headers without secrets, JSON body).
POST /v1/messages is answered from the scenario script; count_tokens with a fixed count;
anything else with an empty JSON object.

The script is stateless on purpose, so that resumed and compacted sessions answer the same way:

{
  "conversations": [
    {"match": "text the first user prompt of the conversation contains",
     "replies": [ [block, ...], [block, ...], ... ]}
  ],
  "summary": "text returned for a compaction request",
  "default": "text returned when nothing matches"
}

A conversation is chosen by the most recent real user prompt (a user message that is not only
tool results) that contains one of the "match" strings; the reply index is the number of
assistant messages after that prompt. A block is {"text": "..."} or
{"tool": "Name", "input": {...}} (tool_use, streamed as input_json_delta). A reply past the
end of the list is a plain "Done." text.
"""
import argparse
import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
IDS = itertools.count(1)


def user_text(msg):
    """The text of a user message, or None when it holds only tool results."""
    c = msg.get("content")
    if isinstance(c, str):
        return c
    texts = []
    only_results = True
    for b in c or []:
        if b.get("type") == "text":
            texts.append(b.get("text", ""))
            only_results = False
        elif b.get("type") != "tool_result":
            only_results = False
    if only_results and c:
        return None
    return "\n".join(texts)


def is_compaction(body):
    """A compaction request: the last user message asks for a <summary> of the conversation
    (a system message may follow it)."""
    msgs = [m for m in body.get("messages") or [] if m.get("role") != "system"]
    if not msgs or msgs[-1].get("role") != "user":
        return False
    c = msgs[-1].get("content")
    texts = [c] if isinstance(c, str) else [b.get("text", "") for b in c or [] if b.get("type") == "text"]
    return any("summary of the conversation" in t and "<summary>" in t for t in texts)


def choose(script, body):
    msgs = body.get("messages") or []
    # Walk back to the latest user prompt that matches a conversation.
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if m.get("role") != "user":
            continue
        t = user_text(m)
        if t is None:
            continue
        for conv in script.get("conversations", []):
            if conv["match"] in t:
                n = sum(1 for x in msgs[i + 1:] if x.get("role") == "assistant")
                replies = conv["replies"]
                if n < len(replies):
                    return replies[n]
                return [{"text": "Done."}]
    return [{"text": script.get("default", "OK.")}]


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def stream(blocks, model):
    mid = "msg_mock_%04d" % next(IDS)
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 1, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0}}})]
    stop = "end_turn"
    for idx, b in enumerate(blocks):
        if "tool" in b:
            stop = "tool_use"
            tid = b.get("id") or "toolu_mock_%04d" % next(IDS)
            out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                           "content_block": {"type": "tool_use", "id": tid, "name": b["tool"], "input": {}}}))
            raw = json.dumps(b.get("input", {}))
            half = len(raw) // 2
            for part in (raw[:half], raw[half:]):
                out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                               "delta": {"type": "input_json_delta", "partial_json": part}}))
        else:
            out.append(sse("content_block_start", {"type": "content_block_start", "index": idx,
                           "content_block": {"type": "text", "text": ""}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": idx,
                           "delta": {"type": "text_delta", "text": b["text"]}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": idx}))
    out.append(sse("message_delta", {"type": "message_delta",
                   "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 42}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def make_handler(script, logf):
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _body(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return {"_raw": raw.decode("utf-8", "replace")}

        def _log(self, body, answer):
            hdr = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("x-api-key", "authorization")}
            with LOCK:
                logf.write(json.dumps({"method": self.command, "path": self.path,
                                       "headers": hdr, "body": body, "answer": answer}) + "\n")
                logf.flush()

        def _send(self, code, ctype, data):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("request-id", "req_mock")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._log(None, "{}")
            self._send(200, "application/json", b"{}")

        def do_HEAD(self):
            self._log(None, "")
            self._send(200, "application/json", b"")

        def do_POST(self):
            body = self._body() or {}
            path = self.path.split("?")[0]
            if path.endswith("/count_tokens"):
                self._log(body, "count_tokens")
                self._send(200, "application/json", json.dumps({"input_tokens": 1000}).encode())
                return
            if not path.endswith("/v1/messages"):
                self._log(body, "{}")
                self._send(200, "application/json", b"{}")
                return
            if is_compaction(body):
                blocks = [{"text": "<analysis>Scripted.</analysis>\n<summary>%s</summary>" %
                           script.get("summary", "Summary: work in progress.")}]
                kind = "compaction"
            else:
                blocks = choose(script, body)
                kind = "script"
            self._log(body, {"kind": kind, "blocks": blocks})
            model = body.get("model", "claude-mock")
            if body.get("stream"):
                self._send(200, "text/event-stream", stream(blocks, model))
            else:
                content = []
                for b in blocks:
                    if "tool" in b:
                        content.append({"type": "tool_use", "id": "toolu_mock_%04d" % next(IDS),
                                        "name": b["tool"], "input": b.get("input", {})})
                    else:
                        content.append({"type": "text", "text": b["text"]})
                msg = {"id": "msg_mock_%04d" % next(IDS), "type": "message", "role": "assistant",
                       "model": model, "content": content,
                       "stop_reason": "tool_use" if any("tool" in b for b in blocks) else "end_turn",
                       "stop_sequence": None, "usage": {"input_tokens": 120, "output_tokens": 42}}
                self._send(200, "application/json", json.dumps(msg).encode())
    return H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    a = ap.parse_args()
    with open(a.script) as f:
        script = json.load(f)
    logf = open(a.log, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(script, logf))
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file, "w") as f:
            f.write(str(port))
    print("mock listening on 127.0.0.1:%d" % port, file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
