#!/usr/bin/env python3
"""The query-distribution benchmark of space search (scripts/bench.d/search-dist.sh, issue 27).

    search_dist.py peer WS/spaces.db PEER.db            # build the naive peer's table
    search_dist.py run --cairn BIN --ws WS --peer PEER.db --terms TERMS.tsv --label NAME \
        [--runs 5] [--fresh 8] [--fresh-runs 3] --json OUT.json --md OUT.md

The peer is what a beginner would write: Python's stdlib sqlite3 (the C SQLite) on a plain FTS5
trigram table (detail=full) of the space's index texts, `ORDER BY created DESC LIMIT 10`, MATCH
for terms of three or more characters and LIKE for shorter ones; the sqlite3 shell running the
same statement is the fresh-process peer.

Warm: one `cairn mcp` (raw JSON-RPC lines on its stdin) answers SearchWorkspaceTasks for every
query, --runs times, each call followed by the peer's statement in this process, so load on a
shared machine falls on both alike; a query's figure is the median of its runs, cairn's timed
from writing the call to reading its answer's line, the peer's around execute and fetchall.
The same calls are also measured in CPU time, which load distorts far less than a round trip's
wall time (each call wakes two processes): cairn's as the time on a CPU of the server's threads
(/proc/PID/task/*/schedstat) across the call, the peer's as its thread's CPU time around execute
and fetchall.
Fresh: --fresh queries of each
band, `cairn space search` and the sqlite3 shell, --fresh-runs times each, interleaved.
The report: per band, p50/p90/p99/max over the queries of cairn and of the peer, and how many
queries cairn answered slower than the peer (by more than 10% and 0.05 ms)."""
import json
import os
import random
import sqlite3
import subprocess
import sys
import time

BANDS = ["0", "1-10", "11-100", "101-1k", "1k-10k", "10k+"]


def build_peer(src, out):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    db = sqlite3.connect(out)
    db.execute("ATTACH ? AS s", (src,))
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, id UNINDEXED, created UNINDEXED, tokenize='trigram', detail=full)")
    # the comments a caller of task 0 in sp1 searches (cairn's own filters), oldest first
    db.execute("INSERT INTO t(rowid, body, id, created) SELECT rid, itext, id, at_ns FROM s.comments "
               "WHERE space = 'sp1' AND task <> '0' AND itext IS NOT NULL ORDER BY rid")
    db.commit()
    db.execute("DETACH s")
    db.close()


def quote(t):
    return '"' + t.replace('"', '""') + '"'


def peer_sql(query):
    """The naive statement for a query and its parameters, and the same with literals (for the shell)."""
    terms = query.split()
    long = [t for t in terms if len(t) >= 3]
    short = [t for t in terms if len(t) < 3]
    where, params = [], []
    if long:
        where.append("t MATCH ?")
        params.append(" AND ".join(quote(t) for t in long))
    for t in short:
        # +body: SQLite 3.40's FTS5 crashes on two LIKE constraints it is handed (a pattern of
        # fewer than three characters is a scan of every row either way)
        where.append("+body LIKE ?")
        params.append("%" + t + "%")
    sql = "SELECT id, body FROM t WHERE " + " AND ".join(where) + " ORDER BY created DESC LIMIT 10"
    lit = sql
    for p in params:
        lit = lit.replace("?", "'" + p.replace("'", "''") + "'", 1)
    return sql, params, lit


class MCP:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "search_dist", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def call(self, method, params):
        self.n += 1
        msg = json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}, ensure_ascii=False).encode() + b"\n"
        start = time.perf_counter_ns()
        self.p.stdin.write(msg)
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        took = (time.perf_counter_ns() - start) / 1e6
        return took, line

    def search(self, query):
        took, line = self.call("tools/call", {"name": "SearchWorkspaceTasks", "arguments": {"query": query}})
        res = json.loads(line)
        if "error" in res:
            raise SystemExit("cairn mcp failed on %r: %s" % (query, line[:300]))
        body = json.loads(res["result"]["content"][0]["text"])
        if res["result"].get("isError"):
            # a search past its time budget (STORAGE_BUSY): counted, at the time it took
            return took, None
        return took, [h["ref"][len("comment:"):] for h in body["hits"]]

    def cpu_ns(self):
        """The server's CPU time so far, in nanoseconds: the time on a CPU of each of its threads
        (/proc/PID/task/*/schedstat), which the load of a shared machine changes far less than a
        round trip's wall time."""
        total = 0
        base = "/proc/%d/task" % self.p.pid
        for tid in os.listdir(base):
            try:
                with open("%s/%s/schedstat" % (base, tid)) as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass  # a thread that ended meanwhile
        return total

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))
    return xs[k]


def median(xs):
    return pct(xs, 50)


def fresh(argv, out):
    start = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os.dup2(out, 1)
        os.dup2(out, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    os.wait4(pid, 0)
    return (time.perf_counter_ns() - start) / 1e6


def run(a):
    queries = []
    with open(a["terms"], encoding="utf-8") as f:
        for line in f:
            band, script, shape, n, lens, q = line.rstrip("\n").split("\t")
            queries.append({"band": band, "script": script, "shape": shape, "matches": int(n), "lens": lens, "q": q})
    rng = random.Random(1)
    rng.shuffle(queries)
    runs = int(a.get("runs", 5))
    peer = sqlite3.connect("file:" + a["peer"] + "?mode=ro", uri=True)
    peer.execute("SELECT count(*) FROM t").fetchone()
    base = [a["cairn"], "-C", a["ws"], "--user", "bench", "--task", "0"]
    m = MCP(base + ["mcp"])
    for q in queries[:20]:  # warm both page caches
        m.search(q["q"])
    # the floor of a call through this client: MCP's ping, answered by the transport alone
    floor = median([m.call("ping", {})[0] for _ in range(200)])
    c0 = m.cpu_ns()
    for _ in range(200):
        m.call("ping", {})
    floor_cpu = (m.cpu_ns() - c0) / 200 / 1e6
    differ = failed = 0
    for q in queries:
        sql, params, lit = peer_sql(q["q"])
        q["peer_sql"] = lit
        ct, pt, cc, pc = [], [], [], []
        for _ in range(runs):
            c0 = m.cpu_ns()
            took, refs = m.search(q["q"])
            cc.append((m.cpu_ns() - c0) / 1e6)
            ct.append(took)
            s, sc = time.perf_counter_ns(), time.thread_time_ns()
            rows = peer.execute(sql, params).fetchall()
            pc.append((time.thread_time_ns() - sc) / 1e6)
            pt.append((time.perf_counter_ns() - s) / 1e6)
        q["cairn_ms"], q["peer_ms"] = median(ct), median(pt)
        q["cairn_cpu_ms"], q["peer_cpu_ms"] = median(cc), median(pc)
        if refs is None:
            failed += 1
            q["failed"] = True
            refs = []
        q["hits"], q["peer_hits"] = len(refs), len(rows)
        if len(refs) != len(rows) and not q.get("failed"):
            differ += 1
    m.close()
    fresh_q = []
    per_band = int(a.get("fresh", 8))
    if per_band > 0:
        out = os.open(os.path.join(os.environ.get("BENCH_DIR", "/tmp"), ".dist.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        for band in BANDS:
            fresh_q += [q for q in queries if q["band"] == band][:per_band]
        for q in fresh_q:
            ct, pt = [], []
            for _ in range(int(a.get("fresh-runs", 3))):
                ct.append(fresh(base + ["space", "search", q["q"], "--json"], out))
                pt.append(fresh(["sqlite3", "-readonly", a["peer"], q["peer_sql"]], out))
            q["fresh_cairn_ms"], q["fresh_peer_ms"] = median(ct), median(pt)
    with open(a["json"], "w", encoding="utf-8") as f:
        json.dump(queries, f, ensure_ascii=False, indent=0)
    md = report(a["label"], queries, fresh_q, runs, differ, floor, failed, floor_cpu)
    with open(a["md"], "w", encoding="utf-8") as f:
        f.write(md)
    print(md)


def fmt(x):
    return "%.2f" % x


def report(label, queries, fresh_q, runs, differ, floor, failed, floor_cpu):
    lines = ["#### %s: warm, `cairn mcp` (%d queries, median of %d calls each; a ping's round trip: %s ms)" % (label, len(queries), runs, fmt(floor)), "",
             "| band (matches) | queries | cairn p50 | p90 | p99 | max | peer p50 | p90 | p99 | max | p90 cairn / peer | slower than the peer |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]

    def row(name, qs):
        c = [q["cairn_ms"] for q in qs]
        p = [q["peer_ms"] for q in qs]
        slower = [q for q in qs if q["cairn_ms"] > q["peer_ms"] * 1.1 + 0.05]
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            name, len(qs), fmt(pct(c, 50)), fmt(pct(c, 90)), fmt(pct(c, 99)), fmt(max(c)),
            fmt(pct(p, 50)), fmt(pct(p, 90)), fmt(pct(p, 99)), fmt(max(p)), fmt(pct(c, 90) / max(pct(p, 90), 1e-9)), len(slower)))

    for band in BANDS:
        qs = [q for q in queries if q["band"] == band]
        if qs:
            row(band, qs)
    row("**all**", queries)
    slow = sorted(queries, key=lambda q: -q["cairn_ms"])[:5]
    lines += ["", "Slowest warm: " + ", ".join("`%s` %s ms (%d matches, peer %s)" % (q["q"], fmt(q["cairn_ms"]), q["matches"], fmt(q["peer_ms"])) for q in slow) + "."]
    worst = sorted(queries, key=lambda q: -(q["cairn_ms"] - q["peer_ms"]))[:5]
    worst = [q for q in worst if q["cairn_ms"] > q["peer_ms"]]
    if worst:
        lines += ["Most behind the peer: " + ", ".join("`%s` %s vs %s ms (%d matches)" % (q["q"], fmt(q["cairn_ms"]), fmt(q["peer_ms"]), q["matches"]) for q in worst) + "."]
    if differ:
        lines += ["Hit counts differing from the peer's: %d queries." % differ]
    if failed:
        lines += ["Stopped by the search's time budget (STORAGE_BUSY, timed as they took): %d queries." % failed]
    lines += ["", "#### %s: warm, CPU time per call (the same calls: the server's threads, the peer's execute and fetchall; a ping: %s ms)" % (label, fmt(floor_cpu)), "",
              "| band (matches) | queries | cairn p50 | p90 | p99 | max | peer p50 | p90 | p99 | max | p90 cairn / peer | slower than the peer |",
              "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]

    def cpu_row(name, qs):
        c = [q["cairn_cpu_ms"] for q in qs]
        p = [q["peer_cpu_ms"] for q in qs]
        slower = [q for q in qs if q["cairn_cpu_ms"] > q["peer_cpu_ms"] * 1.1 + 0.05]
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            name, len(qs), fmt(pct(c, 50)), fmt(pct(c, 90)), fmt(pct(c, 99)), fmt(max(c)),
            fmt(pct(p, 50)), fmt(pct(p, 90)), fmt(pct(p, 99)), fmt(max(p)), fmt(pct(c, 90) / max(pct(p, 90), 1e-9)), len(slower)))

    for band in BANDS:
        qs = [q for q in queries if q["band"] == band]
        if qs:
            cpu_row(band, qs)
    cpu_row("**all**", queries)
    slow = sorted(queries, key=lambda q: -q["cairn_cpu_ms"])[:5]
    lines += ["", "Most CPU warm: " + ", ".join("`%s` %s ms (%d matches, peer %s)" % (q["q"], fmt(q["cairn_cpu_ms"]), q["matches"], fmt(q["peer_cpu_ms"])) for q in slow) + "."]
    if fresh_q:
        lines += ["", "#### %s: fresh process (%d queries, median of interleaved runs each)" % (label, len(fresh_q)), "",
                  "| band (matches) | queries | cairn p50 | p90 | max | sqlite3 shell p50 | p90 | max | p90 cairn / shell |",
                  "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for band in BANDS + ["**all**"]:
            qs = fresh_q if band == "**all**" else [q for q in fresh_q if q["band"] == band]
            if not qs:
                continue
            c = [q["fresh_cairn_ms"] for q in qs]
            p = [q["fresh_peer_ms"] for q in qs]
            lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (band, len(qs), fmt(pct(c, 50)), fmt(pct(c, 90)), fmt(max(c)),
                                                                     fmt(pct(p, 50)), fmt(pct(p, 90)), fmt(max(p)), fmt(pct(c, 90) / max(pct(p, 90), 1e-9))))
    return "\n".join(lines) + "\n"


def fresh_cpu(argv, out):
    """fresh, and the process's CPU time (user + system) as well: (wall ms, CPU ms)."""
    start = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os.dup2(out, 1)
        os.dup2(out, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, _, ru = os.wait4(pid, 0)
    return (time.perf_counter_ns() - start) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3


def cpu_ns(pid):
    """The CPU time a running process has used so far, in ns, summed over its threads (schedstat)."""
    total = 0
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def band_of(n):
    """The frequency band of a match count, as scripts/gen-terms names it."""
    for name, top in (("0", 0), ("1-10", 10), ("11-100", 100), ("101-1k", 1000), ("1k-10k", 10000)):
        if n <= top:
            return name
    return "10k+"


def load1():
    """The 1-minute load average now."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def dist_table(queries, cairn_key, peers, band=lambda q: q["band"], p99=True, load_key="load"):
    """The per-band table of board-dist and memory-dist: cairn's percentiles over each band's
    queries beside each peer's (peers: (label, key) pairs), the p90 ratio and how many queries
    cairn answered slower than the peer (by more than 10% and 0.05 ms), and the median 1-minute
    load average while the band's queries ran (load_key)."""
    stats = ["p50", "p90", "p99", "max"] if p99 else ["p50", "p90", "max"]
    head = ["band (matches)", "queries", "load"] + ["cairn " + stats[0]] + stats[1:]
    for label, _ in peers:
        head += [label + " " + stats[0]] + stats[1:]
    for label, _ in peers:
        head += ["p90 cairn / " + label]
    for label, _ in peers:
        head += ["slower than " + label]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 1)]

    def figures(xs):
        out = [pct(xs, 50), pct(xs, 90)]
        if p99:
            out.append(pct(xs, 99))
        return out + [max(xs)]

    def row(name, qs):
        c = [q[cairn_key] for q in qs]
        cells = [name, str(len(qs)), "%.1f" % median([q.get(load_key, 0) for q in qs])] + [fmt(x) for x in figures(c)]
        ratios, slower = [], []
        for _, key in peers:
            p = [q[key] for q in qs]
            cells += [fmt(x) for x in figures(p)]
            ratios.append(fmt(pct(c, 90) / max(pct(p, 90), 1e-9)))
            slower.append(str(sum(1 for q in qs if q[cairn_key] > q[key] * 1.1 + 0.05)))
        lines.append("| " + " | ".join(cells + ratios + slower) + " |")

    for b in BANDS:
        qs = [q for q in queries if band(q) == b]
        if qs:
            row(b, qs)
    if queries:
        row("**all**", queries)
    return lines


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "peer":
        build_peer(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) < 2 or sys.argv[1] != "run":
        sys.exit(__doc__)
    a, args = {}, sys.argv[2:]
    while args:
        k = args.pop(0)
        if not k.startswith("--"):
            sys.exit(__doc__)
        a[k[2:]] = args.pop(0)
    run(a)


if __name__ == "__main__":
    main()
