#!/usr/bin/env python3
"""An MCP server command that logs and relays: mcp_shim.py --log FILE -- COMMAND [ARG...]

Appends to FILE one JSON line when it starts ({"event": "start", time, pid, chain, env (names
starting with CLAUDE or CAIRN), cwd, argv}), one per JSON-RPC line in each direction
({"event": "rpc", "dir": "in" (Claude Code -> server) or "out", "msg"}), and one when either side
closes or a signal arrives. COMMAND runs as a child with the same environment; its stderr is
passed through.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hook_log import chain, named_env  # noqa: E402

LOCK = threading.Lock()


def main():
    a = sys.argv[1:]
    if len(a) < 4 or a[0] != "--log" or a[2] != "--":
        sys.exit("usage: mcp_shim.py --log FILE -- COMMAND [ARG...]")
    # one write() per line on an O_APPEND descriptor: shims running side by side share the file
    fd = os.open(a[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    cmd = a[3:]

    def log(**rec):
        rec = dict({"time": time.time(), "pid": os.getpid()}, **rec)
        data = (json.dumps(rec) + "\n").encode()
        with LOCK:
            while data:
                data = data[os.write(fd, data):]

    log(event="start", ppid=os.getppid(), chain=chain(os.getppid()), env=named_env(), cwd=os.getcwd(), argv=cmd)
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    log(event="child", child_pid=child.pid)

    def on_signal(sig, _frame):
        log(event="signal", signal=signal.Signals(sig).name)
        try:
            child.send_signal(sig)
        except OSError:
            pass
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)

    def rec(line, direction):
        try:
            msg = json.loads(line)
        except ValueError:
            msg = {"_raw": line.decode("utf-8", "replace")}
        log(event="rpc", dir=direction, msg=msg)

    def pump_in():
        for line in sys.stdin.buffer:
            rec(line, "in")
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except OSError:
                break
        log(event="stdin-eof")
        try:
            child.stdin.close()
        except OSError:
            pass
    threading.Thread(target=pump_in, daemon=True).start()
    for line in child.stdout:
        rec(line, "out")
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    rc = child.wait()
    log(event="exit", child_rc=rc)


if __name__ == "__main__":
    main()
