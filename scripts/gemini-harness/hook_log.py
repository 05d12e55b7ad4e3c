#!/usr/bin/env python3
"""A Gemini CLI hook command: appends what it received to a log and optionally answers.

Usage: hook_log.py LOG.jsonl [REPLIES.json]

Each call appends one line: {"input": <stdin JSON>, "env": {GEMINI*/CLAUDE*/CAIRN* variables},
"pid", "ppid", "cwd"}. When REPLIES.json maps the input's hook_event_name (or
"<event>:<source|trigger|reason>") to a JSON object, that object is printed on stdout as the
hook's output.
"""
import json
import os
import sys

data = sys.stdin.read()
try:
    rec = json.loads(data)
except ValueError:
    rec = {"_raw": data}
env = {k: v for k, v in os.environ.items()
       if k.startswith("GEMINI") or k.startswith("CLAUDE") or k.startswith("CAIRN")}
line = {"input": rec, "env": env, "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd()}
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(line) + "\n")
if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) and isinstance(rec, dict):
    with open(sys.argv[2]) as f:
        replies = json.load(f)
    ev = rec.get("hook_event_name", "")
    sub = rec.get("source") or rec.get("trigger") or rec.get("reason")
    out = replies.get("%s:%s" % (ev, sub)) if sub else None
    if out is None:
        out = replies.get(ev)
    if out is not None:
        sys.stdout.write(json.dumps(out))
