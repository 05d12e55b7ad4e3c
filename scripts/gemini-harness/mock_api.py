#!/usr/bin/env python3
"""A scripted mock of the Gemini API (generativelanguage v1beta), enough to drive Gemini CLI offline.

Gemini CLI is pointed at it with GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT (and a fake
GEMINI_API_KEY); @google/genai then calls

  POST /v1beta/models/<model>:streamGenerateContent?alt=sse   (the main turn, server-sent events)
  POST /v1beta/models/<model>:generateContent                 (utility calls: compression, ...)
  POST /v1beta/models/<model>:countTokens                     (if called)

Every request is appended to the log (method, path, headers without the key, JSON body and what
was answered).

The script is stateless on purpose, so that resumed and compressed sessions follow it:

{
  "conversations": [
    {"match": "text a user message contains",
     "replies": [ [part, ...], [part, ...], ... ]}
  ],
  "summary": "text returned for a compression request (<state_snapshot> ...)",
  "usage": {"MATCH#K": N}   (optional: promptTokenCount reported with reply K of MATCH; default 100),
  "default": "text returned when nothing matches"
}

A conversation is chosen by the most recent user content holding a text part (not a
functionResponse) that contains a "match" string; the reply index is the number of model
contents after it. A part is {"text": "..."} or {"call": "name", "args": {...}} (a functionCall).
A reply past the end of the list is a plain "Done." text.

A compression request is a generateContent whose last user text asks for a <state_snapshot>
("generate the updated <state_snapshot>" / "Critically evaluate the <state_snapshot>"): it gets
the scenario's summary.
"""
import argparse
import itertools
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
IDS = itertools.count(1)


def part_text(c):
    return "\n".join(p.get("text", "") for p in c.get("parts") or [] if isinstance(p, dict) and "text" in p)


def is_user_text(c):
    if c.get("role") != "user":
        return False
    parts = c.get("parts") or []
    return any("text" in p for p in parts) and not any("functionResponse" in p for p in parts)


def last_user_text(body):
    for c in reversed(body.get("contents") or []):
        if is_user_text(c):
            return part_text(c)
    return ""


def is_compression(body):
    t = last_user_text(body)
    return "<state_snapshot>" in t and ("generate the" in t or "Critically evaluate" in t)


def choose(script, body):
    contents = body.get("contents") or []
    for i in range(len(contents) - 1, -1, -1):
        c = contents[i]
        if not is_user_text(c):
            continue
        t = part_text(c)
        for conv in script.get("conversations", []):
            if conv["match"] in t:
                n = sum(1 for x in contents[i + 1:] if x.get("role") == "model")
                replies = conv["replies"]
                if n < len(replies):
                    return conv["match"], n, replies[n]
                return conv["match"], n, [{"text": "Done."}]
    return None, 0, [{"text": script.get("default", "OK.")}]


def parts_for(blocks):
    out = []
    for b in blocks:
        if "call" in b:
            out.append({"functionCall": {"name": b["call"], "args": b.get("args", {})}})
        else:
            out.append({"text": b["text"]})
    return out


def response(parts, model, prompt_tokens):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 20,
                              "totalTokenCount": prompt_tokens + 20},
            "modelVersion": model, "responseId": "mock-%04d" % next(IDS)}


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
                   if k.lower() not in ("authorization", "x-goog-api-key", "cookie")}
            with LOCK:
                logf.write(json.dumps({"method": self.command, "path": self.path,
                                       "headers": hdr, "body": body, "answer": answer}) + "\n")
                logf.flush()

        def _send(self, code, ctype, data):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._log(None, {})
            self._send(200, "application/json", b"{}")

        def do_POST(self):
            body = self._body() or {}
            path = self.path.split("?")[0]
            m = re.search(r"/models/([^/:]+):(\w+)$", path)
            if not m:
                self._log(body, {})
                self._send(200, "application/json", b"{}")
                return
            model, method = m.group(1), m.group(2)
            if method == "countTokens":
                n = len(json.dumps(body)) // 4
                self._log(body, {"totalTokens": n})
                self._send(200, "application/json", json.dumps({"totalTokens": n}).encode())
                return
            usage = script.get("usage") or {}
            if is_compression(body):
                blocks, kind, conv, idx = [{"text": script.get("summary", "<state_snapshot>work in progress"
                                                                 "</state_snapshot>")}], "compression", None, None
            else:
                conv, idx, blocks = choose(script, body)
                kind = "script"
            tokens = usage.get("%s#%s" % (conv, idx), usage.get(kind, 100))
            parts = parts_for(blocks)
            resp = response(parts, model, tokens)
            self._log(body, {"kind": kind, "method": method, "conversation": conv, "reply": idx,
                             "parts": parts, "promptTokenCount": tokens})
            if method == "streamGenerateContent":
                self._send(200, "text/event-stream", ("data: %s\r\n\r\n" % json.dumps(resp)).encode())
            else:
                self._send(200, "application/json", json.dumps(resp).encode())
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
