#!/usr/bin/env python3
"""An MCP stdio shim: logs its environment, then runs the real server and tees every line.

Usage: mcp_shim.py LOG.jsonl -- COMMAND [ARG ...]

The first log line is {"shim": {"env_selected": {OPENCODE*/CAIRN*/XDG*/HOME}, "PWD_is_cwd", "env_names": [every name],
"pid", "ppid", "cwd", "argv"}}; then one line per JSON-RPC message:
{"dir": "client->server" | "server->client", "msg": <JSON>} (stderr of the server as
{"dir": "stderr", "text": ...}).
"""
import json
import os
import subprocess
import sys
import threading

log_path = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
lock = threading.Lock()
logf = open(log_path, "a")


def log(rec):
    with lock:
        logf.write(json.dumps(rec) + "\n")
        logf.flush()


log({"shim": {"env_selected": {k: v for k, v in os.environ.items()
                               if k.startswith("OPENCODE") or k.startswith("CAIRN") or k.startswith("XDG") or k == "HOME"},
              # PWD's value is left out: cairn's redactor takes "PWD": "..." for a password
              # (core/redact's false-positive test reads fixtures/); only whether it equals cwd
              "PWD_is_cwd": os.environ.get("PWD") == os.getcwd(),
              "env_names": sorted(os.environ), "pid": os.getpid(), "ppid": os.getppid(),
              "cwd": os.getcwd(), "argv": cmd}})
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def pump(src, dst, direction):
    for line in iter(src.readline, b""):
        try:
            log({"dir": direction, "msg": json.loads(line)})
        except ValueError:
            log({"dir": direction, "raw": line.decode("utf-8", "replace")})
        dst.write(line)
        dst.flush()
    if direction == "client->server":
        try:
            p.stdin.close()
        except OSError:
            pass


def errpump():
    for line in iter(p.stderr.readline, b""):
        log({"dir": "stderr", "text": line.decode("utf-8", "replace").rstrip("\n")})


threading.Thread(target=pump, args=(sys.stdin.buffer, p.stdin, "client->server"), daemon=True).start()
threading.Thread(target=errpump, daemon=True).start()
pump(p.stdout, sys.stdout.buffer, "server->client")
rc = p.wait()
log({"exit": rc})
sys.exit(rc)
