#!/usr/bin/env python3
"""A Claude Code hook command that appends its JSON input to the file named by argv[1].

hook_log.py FILE          one line per call: the stdin JSON as it came
hook_log.py --env FILE    one line per call: {"time", "pid", "chain", "env", "cwd", "input"}, where
                          env holds the variables whose names start with CLAUDE or CAIRN (values of
                          names with TOKEN, KEY or SECRET redacted) and chain
                          is the parent chain (pid, comm, argv) up from this process's parent to the
                          claude process
"""
import json
import os
import sys
import time


def chain(pid, depth=8):
    """The process chain above pid: [{pid, comm, argv}], nearest first."""
    out = []
    while pid > 1 and len(out) < depth:
        try:
            with open("/proc/%d/stat" % pid) as f:
                stat = f.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
        except (OSError, ValueError):
            break
        out.append({"pid": pid, "comm": comm, "argv": argv[:6]})
        if comm == "claude" or (argv and os.path.basename(argv[0]) == "claude"):
            break  # the runtime itself: what runs it is the harness's business
        pid = ppid
    return out


def named_env():
    """CLAUDE*/CAIRN* variables; values of names holding TOKEN, KEY or SECRET are not kept."""
    return {k: ("[redacted]" if any(w in k for w in ("TOKEN", "KEY", "SECRET")) else v)
            for k, v in sorted(os.environ.items()) if k.startswith(("CLAUDE", "CAIRN"))}


def main():
    args = sys.argv[1:]
    wrap = args[:1] == ["--env"]
    if wrap:
        args = args[1:]
    data = sys.stdin.read()
    try:
        rec = json.loads(data)
    except ValueError:
        rec = {"_raw": data}
    if wrap:
        rec = {"time": time.time(), "pid": os.getpid(), "chain": chain(os.getppid()),
               "env": named_env(), "cwd": os.getcwd(), "input": rec}
    with open(args[0], "a") as f:
        f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
