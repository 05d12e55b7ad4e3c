#!/usr/bin/env python3
"""Fresh-process timing for scripts/bench.d: runs each command RUNS times, interleaved (one run of
each in turn, so load on a shared machine falls on all of them alike), and prints one line per
command: median and 90th-percentile wall time, then median and 90th-percentile CPU time (user +
system, from wait4), in milliseconds.

    python3 scripts/bench.d/runs.py RUNS -- CMD ARGS... [-- CMD ARGS...]...
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    cmds = []
    for a in sys.argv[2:]:
        if a == "--":
            cmds.append([])
        else:
            cmds[-1].append(a)
    wall = [[] for _ in cmds]
    cpu = [[] for _ in cmds]
    out = os.open(os.path.join(os.environ.get("BENCH_DIR", "/tmp"), ".runs.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    for _ in range(runs):
        for k, c in enumerate(cmds):
            start = time.perf_counter_ns()
            pid = os.fork()
            if pid == 0:
                os.dup2(out, 1)
                os.dup2(out, 2)
                try:
                    os.execvp(c[0], c)
                finally:
                    os._exit(127)
            _, _, ru = os.wait4(pid, 0)
            wall[k].append((time.perf_counter_ns() - start) / 1e6)
            cpu[k].append((ru.ru_utime + ru.ru_stime) * 1e3)

    def pct(v, p):
        v = sorted(v)
        return v[min(len(v) - 1, int(p * len(v)))]

    for k in range(len(cmds)):
        print("%.2f %.2f %.2f %.2f" % (pct(wall[k], 0.5), pct(wall[k], 0.9), pct(cpu[k], 0.5), pct(cpu[k], 0.9)))


main()
