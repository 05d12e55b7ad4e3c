#!/usr/bin/env python3
"""A scripted mock of the OpenAI Responses API, enough to drive the Codex CLI offline.

Usage: mock_api.py --script SCENARIO.json --log REQUESTS.jsonl [--port 0] [--port-file FILE]

Every request is appended to the log (method, path, headers without secrets, JSON body, and
what was answered). POST .../responses is answered from the scenario script as server-sent
events; POST .../responses/compact with a compaction item; GET .../models with an empty list;
anything else with an empty JSON object.

The script is stateless on purpose, so that resumed, forked and compacted sessions follow it:

{
  "conversations": [
    {"match": "text the user prompt contains",
     "replies": [ [item, ...], [item, ...], ... ]}
  ],
  "summary": "text returned for a compaction request",
  "usage": {"MATCH#K": N, "compaction": N}   (optional: the input_tokens reported for reply K
             of the conversation MATCH, or for a compaction request; default 100),
  "default": "text returned when nothing matches"
}

A conversation is chosen by the most recent user message (role "user", not a tool output)
whose text contains a "match" string; the reply index is the number of model turns after that
message (a run of function_call / message / reasoning items counts as one turn). An item is
{"text": "..."} (an assistant message) or {"call": "name", "args": {...}} (a function_call;
"namespace" may be given too). A reply past the end of the list is a plain "Done." message.

A title request (the TUI's side request "Generate a concise, single-line task title ...") gets
the scenario's "title". A compaction request is recognised by the last user input asking for a
"CONTEXT CHECKPOINT COMPACTION" (the local summarisation prompt) or by the /responses/compact
path (remote compaction); it gets the scenario's summary.
"""
import argparse
import itertools
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
IDS = itertools.count(1)
COMPACT_MARK = "CONTEXT CHECKPOINT COMPACTION"


def item_text(item):
    c = item.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(b.get("text", "") for b in c or [] if isinstance(b, dict))


def is_user_prompt(item):
    return item.get("type") in (None, "message") and item.get("role") == "user"


MODEL_TYPES = ("function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call",
               "tool_search_call")


def is_model_item(item):
    if item.get("type") in MODEL_TYPES:
        return True
    return item.get("type") in (None, "message") and item.get("role") == "assistant"


def is_compaction(body):
    items = body.get("input") or []
    for it in reversed(items):
        if is_user_prompt(it):
            return COMPACT_MARK in item_text(it)
    return False


TITLE_MARK = "Generate a concise, single-line task title"


def is_title_request(body):
    """The TUI asks, on a side thread without tools, for a title of the first prompt."""
    items = body.get("input") or []
    return any(is_user_prompt(it) and TITLE_MARK in item_text(it) for it in items)


def turns_after(items):
    n, inside = 0, False
    for it in items:
        if is_model_item(it):
            if not inside:
                n += 1
            inside = True
        else:
            inside = False
    return n


def choose(script, body):
    items = body.get("input") or []
    for i in range(len(items) - 1, -1, -1):
        it = items[i]
        if not is_user_prompt(it):
            continue
        t = item_text(it)
        for conv in script.get("conversations", []):
            if conv["match"] in t:
                n = turns_after(items[i + 1:])
                replies = conv["replies"]
                if n < len(replies):
                    return conv["match"], n, replies[n]
                return conv["match"], n, [{"text": "Done."}]
    return None, 0, [{"text": script.get("default", "OK.")}]


def sse(data):
    return ("event: %s\ndata: %s\n\n" % (data["type"], json.dumps(data))).encode()


def output_items(blocks):
    out = []
    for b in blocks:
        n = next(IDS)
        if "call" in b:
            it = {"type": "function_call", "id": "fc_mock_%04d" % n, "status": "completed",
                  "name": b["call"], "arguments": json.dumps(b.get("args", {})),
                  "call_id": b.get("call_id") or "call_mock_%04d" % n}
            if b.get("namespace"):
                it["namespace"] = b["namespace"]
            out.append(it)
        else:
            out.append({"type": "message", "id": "msg_mock_%04d" % n, "status": "completed",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": b["text"], "annotations": []}]})
    return out


def usage_for(input_tokens, output_tokens=40):
    return {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens}


def stream(items, model, usage):
    rid = "resp_mock_%04d" % next(IDS)
    resp = {"id": rid, "object": "response", "model": model, "status": "in_progress", "output": []}
    out = [sse({"type": "response.created", "response": resp})]
    for idx, it in enumerate(items):
        start = dict(it)
        if it["type"] == "message":
            start["content"] = []
            start["status"] = "in_progress"
        elif it["type"] == "function_call":
            start["arguments"] = ""
            start["status"] = "in_progress"
        out.append(sse({"type": "response.output_item.added", "output_index": idx, "item": start}))
        if it["type"] == "message":
            text = it["content"][0]["text"]
            out.append(sse({"type": "response.content_part.added", "item_id": it["id"], "output_index": idx,
                            "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}))
            out.append(sse({"type": "response.output_text.delta", "item_id": it["id"], "output_index": idx,
                            "content_index": 0, "delta": text}))
            out.append(sse({"type": "response.output_text.done", "item_id": it["id"], "output_index": idx,
                            "content_index": 0, "text": text}))
        else:
            out.append(sse({"type": "response.function_call_arguments.delta", "item_id": it["id"],
                            "output_index": idx, "delta": it["arguments"]}))
            out.append(sse({"type": "response.function_call_arguments.done", "item_id": it["id"],
                            "output_index": idx, "arguments": it["arguments"]}))
        out.append(sse({"type": "response.output_item.done", "output_index": idx, "item": it}))
    done = dict(resp, status="completed", output=items, usage=usage)
    out.append(sse({"type": "response.completed", "response": done}))
    return b"".join(out)


def make_handler(script, logf):
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _body(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            if self.headers.get("Content-Encoding", "").lower() == "zstd":
                try:
                    import zstandard  # optional
                    raw = zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 28)
                except Exception as e:  # noqa: BLE001
                    return {"_raw": "zstd body, not decoded: %s" % e}
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return {"_raw": raw.decode("utf-8", "replace")}

        def _log(self, body, answer):
            hdr = {k: v for k, v in self.headers.items()
                   if k.lower() not in ("authorization", "x-api-key", "cookie")}
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
            path = self.path.split("?")[0]
            if path.endswith("/models"):
                self._log(None, {"models": []})
                self._send(200, "application/json", json.dumps({"models": [], "data": []}).encode())
                return
            self._log(None, "{}")
            self._send(200, "application/json", b"{}")

        def do_POST(self):
            body = self._body() or {}
            path = self.path.split("?")[0]
            model = body.get("model", "mock-model")
            summary = script.get("summary", "Summary: work in progress.")
            if path.endswith("/responses/compact"):
                out = {"output": [{"type": "compaction", "encrypted_content": summary}]}
                self._log(body, {"kind": "remote-compaction", "output": out})
                self._send(200, "application/json", json.dumps(out).encode())
                return
            if not path.endswith("/responses"):
                self._log(body, "{}")
                self._send(200, "application/json", b"{}")
                return
            if is_compaction(body):
                blocks, kind, conv, idx = [{"text": summary}], "compaction", None, None
            elif is_title_request(body):
                blocks, kind, conv, idx = [{"text": script.get("title", "Scripted task")}], "title", None, None
            else:
                conv, idx, blocks = choose(script, body)
                kind = "script"
            # a big count on one reply forces an auto-compaction; the counts after it must be small
            usage = script.get("usage") or {}
            tokens = usage.get("%s#%s" % (conv, idx), usage.get(kind, 100))
            items = output_items(blocks)
            self._log(body, {"kind": kind, "conversation": conv, "reply": idx, "items": items,
                             "input_tokens": tokens})
            self._send(200, "text/event-stream", stream(items, model, usage_for(tokens)))
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
