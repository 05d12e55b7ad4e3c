#!/usr/bin/env python3
"""A scripted mock of the OpenAI Chat Completions API, enough to drive OpenCode offline.

OpenCode talks to it through its `@ai-sdk/openai-compatible` provider (`options.baseURL` =
http://127.0.0.1:PORT/v1): `POST /v1/chat/completions`. Every request is appended to the log
(method, path, headers without secrets, JSON body, what was answered).

Script (stateless, so resumed and compacted sessions follow it):

{
  "conversations": [{"match": "text of a user message", "replies": [[item, ...], ...]}],
  "summary": "text answered to a compaction request",
  "title": "text answered to a title request",
  "usage": {"MATCH#K": N, "compaction": N}   (prompt_tokens reported for reply K; default 100),
  "default": "text answered when nothing matches"
}

A conversation is chosen by the newest user message (role "user") whose text holds a "match"
string; the reply index is the number of assistant messages after it. An item is
{"text": "..."} or {"call": "tool name", "args": {...}}. A reply past the end is "Done.".

Kinds of request, told apart by the system prompt OpenCode sends:
- title: "You are a title generator" (sent without tools; answered as JSON when not streamed);
- compaction: "You are a context summarization agent" (no tools; the compaction prompt, with
  the history as text, is the one user message);
- summary: "Summarize what was done in this conversation";
- script: anything else.
Streamed answers are `data: {chat.completion.chunk}` lines ending in `data: [DONE]`; the last
chunk before it carries `usage`.
"""
import argparse
import itertools
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
IDS = itertools.count(1)
TITLE_MARK = "You are a title generator"
COMPACT_MARK = "You are a context summarization agent"
SUMMARY_MARK = "Summarize what was done in this conversation"


def text_of(msg):
    c = msg.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(b.get("text", "") for b in c or [] if isinstance(b, dict))


def system_text(body):
    return "\n".join(text_of(m) for m in body.get("messages") or [] if m.get("role") == "system")


def kind_of(body):
    sysm = system_text(body)
    if TITLE_MARK in sysm:
        return "title"
    if COMPACT_MARK in sysm:
        return "compaction"
    if SUMMARY_MARK in sysm or any(SUMMARY_MARK in text_of(m) for m in body.get("messages") or []):
        return "summary"
    return "script"


def choose(script, body):
    msgs = body.get("messages") or []
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if m.get("role") != "user":
            continue
        t = text_of(m)
        for conv in script.get("conversations", []):
            if conv["match"] in t:
                n = sum(1 for x in msgs[i + 1:] if x.get("role") == "assistant")
                replies = conv["replies"]
                return conv["match"], n, (replies[n] if n < len(replies) else [{"text": "Done."}])
    return None, 0, [{"text": script.get("default", "OK.")}]


def chunk(cid, model, delta, finish=None, usage=None):
    d = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        d["usage"] = usage
    return ("data: %s\n\n" % json.dumps(d)).encode()


def usage_for(prompt, completion=20):
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def calls_of(blocks):
    out = []
    for b in blocks:
        if "call" in b:
            out.append({"id": b.get("call_id") or "call_mock_%04d" % next(IDS), "type": "function",
                        "function": {"name": b["call"], "arguments": json.dumps(b.get("args", {}))}})
    return out


def stream(blocks, model, usage):
    cid = "chatcmpl-mock-%04d" % next(IDS)
    out = [chunk(cid, model, {"role": "assistant", "content": ""})]
    text = "".join(b["text"] for b in blocks if "text" in b)
    if text:
        out.append(chunk(cid, model, {"content": text}))
    calls = calls_of(blocks)
    for i, c in enumerate(calls):
        out.append(chunk(cid, model, {"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                                      "function": {"name": c["function"]["name"], "arguments": ""}}]}))
        out.append(chunk(cid, model, {"tool_calls": [{"index": i, "function": {"arguments": c["function"]["arguments"]}}]}))
    out.append(chunk(cid, model, {}, "tool_calls" if calls else "stop"))
    d = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
         "choices": [], "usage": usage}
    out.append(("data: %s\n\n" % json.dumps(d)).encode())
    out.append(b"data: [DONE]\n\n")
    return b"".join(out), calls


def whole(blocks, model, usage):
    calls = calls_of(blocks)
    msg = {"role": "assistant", "content": "".join(b["text"] for b in blocks if "text" in b) or None}
    if calls:
        msg["tool_calls"] = calls
    return {"id": "chatcmpl-mock-%04d" % next(IDS), "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": msg,
                                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": usage}


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
                   if k.lower() not in ("authorization", "x-api-key", "cookie")}
            with LOCK:
                logf.write(json.dumps({"time": time.time(), "method": self.command, "path": self.path,
                                       "headers": hdr, "body": body, "answer": answer}) + "\n")
                logf.flush()

        def _send(self, code, ctype, data):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._log(None, {"data": []})
            self._send(200, "application/json", json.dumps({"object": "list", "data": []}).encode())

        def do_POST(self):
            body = self._body() or {}
            path = self.path.split("?")[0]
            if not path.endswith("/chat/completions"):
                self._log(body, "{}")
                self._send(200, "application/json", b"{}")
                return
            model = body.get("model", "mock-model")
            kind = kind_of(body)
            conv = idx = None
            if kind == "title":
                blocks = [{"text": script.get("title", "Scripted session")}]
            elif kind == "compaction":
                blocks = [{"text": script.get("summary", "SUMMARY-TEXT: work in progress.")}]
            elif kind == "summary":
                blocks = [{"text": "I did the scripted work."}]
            else:
                conv, idx, blocks = choose(script, body)
            tokens = (script.get("usage") or {}).get("%s#%s" % (conv, idx), (script.get("usage") or {}).get(kind, 100))
            usage = usage_for(tokens)
            if body.get("stream"):
                data, calls = stream(blocks, model, usage)
                self._log(body, {"kind": kind, "conversation": conv, "reply": idx, "blocks": blocks,
                                 "prompt_tokens": tokens, "stream": True})
                self._send(200, "text/event-stream", data)
            else:
                ans = whole(blocks, model, usage)
                self._log(body, {"kind": kind, "conversation": conv, "reply": idx, "blocks": blocks,
                                 "prompt_tokens": tokens, "stream": False})
                self._send(200, "application/json", json.dumps(ans).encode())
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
