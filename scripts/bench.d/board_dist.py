#!/usr/bin/env python3
"""The query-distribution benchmark of board search (scripts/bench.d/board-dist.sh, issue 27).

    board_dist.py prepare PEER.jsonl PEER.marshal       # the peer's copy, quick to load
    board_dist.py peer-search PEER.marshal QUERY         # the peer as a fresh process
    board_dist.py run --cairn BIN --ws WS --peer PEER.marshal --terms TERMS.tsv --card c1 \\
        --label NAME [--runs 3] [--fresh 8] [--fresh-runs 3] --json OUT.json --md OUT.md

The peer is the naive plan: a Python scan over the board's cards (PEER.jsonl, written by
`gen-terms -board -peer-out`: every searched field of every card of a live project, folded as
cairn folds it, and the active memory entries), a card matching when its text holds every term,
then every matching card's fields read again for its rank (best field weight, open / finished /
archived, newest activity, card order) and the first `limit` kept; memory entries are matched the
same way, newest confirmed first. It gives the same answer as cairn, which the run checks.

Warm: one `cairn mcp` (with --card) answers flowly_search, and one `cairn serve` answers POST /api
search (all projects, limit 30, memory included) over one keep-alive connection; every call is
followed by the peer's scan for the same scope in this process (the caller's project without its
own card, limit 10; or every project, limit 30 and memory), so load falls on both alike. A
query's figure is the median of its --runs calls. Fresh: --fresh queries of each band,
`cairn board search QUERY --json` (snapshot warm) against `python3 board_dist.py peer-search`,
--fresh-runs times each, interleaved."""
import heapq
import http.client
import json
import marshal
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # search_dist is imported from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_dist import BANDS, MCP, band_of, cpu_ns, dist_table, fmt, fresh_cpu, load1, median  # noqa: E402

# a card of the peer: id, project, order, class, updated, joined text, fields ((weight, at, text), ...)
ID, PROJ, ORDER, CLASS, UPDATED, TEXT, FIELDS = range(7)


def prepare(src, out):
    cards, mems = [], []
    with open(src, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            fields = tuple((x["w"], x["at"], x["t"]) for x in r["fields"])
            rec = (r["id"], r["project"], r["order"], r.get("class", 0), r["updated"], "\0".join(x[2] for x in fields), fields)
            (mems if r.get("memory") else cards).append(rec)
    with open(out, "wb") as f:
        marshal.dump((cards, mems), f)


def load_peer(path):
    with open(path, "rb") as f:
        cards, mems = marshal.load(f)
    by_project = {}
    for c in cards:
        by_project.setdefault(c[PROJ], []).append(c)
    return {"cards": cards, "mems": mems, "by_project": by_project, "by_id": {c[ID]: c for c in cards}}


def terms_of(query):
    out = []
    for t in query.split():
        if t not in out:
            out.append(t)
    return out


def peer_search(P, query, card=None, limit=30, memory=True):
    """The naive plan: the ids of the first `limit` cards, how many matched, the memory ids."""
    terms = terms_of(query)
    if card is not None:
        own = P["by_id"][card]
        cards = [c for c in P["by_project"][own[PROJ]] if c is not own]
    else:
        cards = P["cards"]
    if len(terms) == 1:
        t = terms[0]
        matched = [c for c in cards if t in c[TEXT]]
    else:
        matched = [c for c in cards if all(t in c[TEXT] for t in terms)]

    def rank(c):
        best, latest = 0, c[UPDATED]
        for w, at, text in c[FIELDS]:
            for t in terms:
                if t in text:
                    best, latest = max(best, w), max(latest, at)
                    break
        return (-best, c[CLASS], -latest, c[ORDER])

    top = heapq.nsmallest(limit, matched, key=rank)
    mem = []
    if memory:
        found = [m for m in P["mems"] if all(t in m[TEXT] for t in terms)]
        mem = [m[ID] for m in sorted(found, key=lambda m: (-m[UPDATED], m[ORDER]))[:10]]
    return [c[ID] for c in top], len(matched), mem


class Serve:
    """One `cairn serve` on a free loopback port, searched over one keep-alive connection."""

    def __init__(self, argv, ws):
        self.log = open(os.path.join(os.environ.get("BENCH_DIR", "/tmp"), "board-dist-serve.log"), "w+")
        self.p = subprocess.Popen(argv + ["serve", "--addr", "127.0.0.1:0"], stdout=subprocess.DEVNULL, stderr=self.log)
        url = None
        for _ in range(400):
            self.log.seek(0)
            m = re.search(r"http://([0-9.]+):([0-9]+)", self.log.read())
            if m:
                url = m
                break
            time.sleep(0.05)
        if not url:
            self.p.terminate()
            raise SystemExit("cairn serve did not start")
        with open(os.path.join(ws, ".cairn", "serve.token")) as f:
            self.token = f.read().strip()
        self.conn = http.client.HTTPConnection(url.group(1), int(url.group(2)))

    def search(self, query):
        body = json.dumps({"action": "search", "input": {"query": query, "projectId": None}}, ensure_ascii=False).encode()
        start = time.perf_counter_ns()
        self.conn.request("POST", "/api", body, {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        r = self.conn.getresponse()
        data = r.read()
        took = (time.perf_counter_ns() - start) / 1e6
        if r.status != 200:
            raise SystemExit("cairn serve answered %d on %r: %s" % (r.status, query, data[:300]))
        return took, json.loads(data)

    def close(self):
        self.conn.close()
        self.p.terminate()
        self.p.wait()
        self.log.close()


def flowly(m, query):
    took, line = m.call("tools/call", {"name": "flowly_search", "arguments": {"query": query}})
    res = json.loads(line)
    if "error" in res or res["result"].get("isError"):
        raise SystemExit("flowly_search failed on %r: %s" % (query, line[:300]))
    body = json.loads(res["result"]["content"][0]["text"])
    return took, [c["taskId"] for c in body["cards"]]


def run(a):
    queries = []
    with open(a["terms"], encoding="utf-8") as f:
        for line in f:
            band, script, shape, n, lens, q = line.rstrip("\n").split("\t")
            queries.append({"band": band, "script": script, "shape": shape, "matches": int(n), "lens": lens, "q": q})
    random.Random(1).shuffle(queries)
    runs = int(a.get("runs", 3))
    card = a["card"]
    P = load_peer(a["peer"])
    base = [a["cairn"], "-C", a["ws"]]
    m = MCP(base + ["--card", card, "mcp"])
    s = Serve(base, a["ws"])
    load_start = open("/proc/loadavg").read().split()[:3]
    for q in queries[:20]:  # warm both servers (serve builds its narrowing index on first use)
        flowly(m, q["q"])
        s.search(q["q"])
    floor_mcp = median([m.call("ping", {})[0] for _ in range(200)])
    floor_serve = median([s.search("")[0] for _ in range(200)])
    differ_agent = differ_all = 0
    for q in queries:
        ft, fp, st, sp = [], [], [], []
        fc, fpc, sc, spc = [], [], [], []
        q["load"] = load1()
        for _ in range(runs):
            c0 = cpu_ns(m.p.pid)
            took, agent_ids = flowly(m, q["q"])
            fc.append((cpu_ns(m.p.pid) - c0) / 1e6)
            ft.append(took)
            t0, c0 = time.perf_counter_ns(), time.process_time_ns()
            peer_agent = peer_search(P, q["q"], card=card, limit=10, memory=False)
            fp.append((time.perf_counter_ns() - t0) / 1e6)
            fpc.append((time.process_time_ns() - c0) / 1e6)
            c0 = cpu_ns(s.p.pid)
            took, res = s.search(q["q"])
            sc.append((cpu_ns(s.p.pid) - c0) / 1e6)
            st.append(took)
            t0, c0 = time.perf_counter_ns(), time.process_time_ns()
            peer_all = peer_search(P, q["q"])
            sp.append((time.perf_counter_ns() - t0) / 1e6)
            spc.append((time.process_time_ns() - c0) / 1e6)
        q["agent_ms"], q["agent_peer_ms"], q["serve_ms"], q["serve_peer_ms"] = median(ft), median(fp), median(st), median(sp)
        q["agent_cpu"], q["agent_peer_cpu"], q["serve_cpu"], q["serve_peer_cpu"] = median(fc), median(fpc), median(sc), median(spc)
        q["project_matches"] = peer_agent[1]
        if agent_ids != peer_agent[0]:
            differ_agent += 1
            q["agent_differs"] = True
        got = ([c["taskId"] for c in res["cards"]], res["total"], [x["id"] for x in res["memory"]])
        if got != peer_all:
            differ_all += 1
            q["serve_differs"] = True
        if res["total"] != q["matches"]:
            q["count_differs"] = True
    m.close()
    s.close()
    load_warm_end = open("/proc/loadavg").read().split()[:3]
    fresh_q = []
    per_band = int(a.get("fresh", 8))
    if per_band > 0:
        out = os.open(os.path.join(os.environ.get("BENCH_DIR", "/tmp"), ".dist.out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        for band in BANDS:
            fresh_q += [q for q in queries if q["band"] == band][:per_band]
        for q in fresh_q:
            ct, pt, cc, pc = [], [], [], []
            q["fresh_load"] = load1()
            for _ in range(int(a.get("fresh-runs", 3))):
                w, c = fresh_cpu(base + ["board", "search", q["q"], "--json"], out)
                ct.append(w)
                cc.append(c)
                w, c = fresh_cpu([sys.executable, os.path.abspath(__file__), "peer-search", a["peer"], q["q"]], out)
                pt.append(w)
                pc.append(c)
            q["fresh_cairn_ms"], q["fresh_peer_ms"], q["fresh_cairn_cpu"], q["fresh_peer_cpu"] = median(ct), median(pt), median(cc), median(pc)
    load_end = open("/proc/loadavg").read().split()[:3]
    with open(a["json"], "w", encoding="utf-8") as f:
        json.dump(queries, f, ensure_ascii=False, indent=0)
    md = report(a["label"], card, queries, fresh_q, runs, floor_mcp, floor_serve, differ_agent, differ_all,
                (load_start, load_warm_end, load_end))
    with open(a["md"], "w", encoding="utf-8") as f:
        f.write(md)
    print(md)


def report(label, card, queries, fresh_q, runs, floor_mcp, floor_serve, differ_agent, differ_all, loads):
    counted = sum(1 for q in queries if q.get("count_differs"))
    lines = ["#### %s: warm, `cairn serve` POST /api search, every project (%d queries, median of %d calls each; an empty query's round trip: %s ms)"
             % (label, len(queries), runs, fmt(floor_serve)), "",
             "Load average %s at the start, %s at the end of the warm runs." % (" ".join(loads[0]), " ".join(loads[1])), ""]
    lines += dist_table(queries, "serve_ms", [("peer", "serve_peer_ms")])
    lines += ["", "CPU time of the same calls (cairn serve's threads, schedstat; the peer's process time), ms:", ""]
    lines += dist_table(queries, "serve_cpu", [("peer", "serve_peer_cpu")], p99=False)
    lines += ["", "Bands by the cards that match in every project (the answer's `total`); answers (card ids in order, total, memory ids) differing from the peer's: %d; totals differing from gen-terms' count: %d." % (differ_all, counted)]
    slow = sorted(queries, key=lambda q: -q["serve_ms"])[:5]
    lines += ["Slowest: " + ", ".join("`%s` %s ms (%d cards, peer %s)" % (q["q"], fmt(q["serve_ms"]), q["matches"], fmt(q["serve_peer_ms"])) for q in slow) + "."]
    worst = [q for q in sorted(queries, key=lambda q: -(q["serve_ms"] - q["serve_peer_ms"]))[:5] if q["serve_ms"] > q["serve_peer_ms"]]
    if worst:
        lines += ["Most behind the peer: " + ", ".join("`%s` %s vs %s ms (%d cards)" % (q["q"], fmt(q["serve_ms"]), fmt(q["serve_peer_ms"]), q["matches"]) for q in worst) + "."]
    lines += ["", "#### %s: warm, `cairn mcp` flowly_search, the project of card %s (same queries and run; a ping's round trip: %s ms)" % (label, card, fmt(floor_mcp)), ""]
    lines += dist_table(queries, "agent_ms", [("peer", "agent_peer_ms")], band=lambda q: band_of(q["project_matches"]))
    lines += ["", "CPU time of the same calls (cairn mcp's threads, schedstat; the peer's process time), ms:", ""]
    lines += dist_table(queries, "agent_cpu", [("peer", "agent_peer_cpu")], band=lambda q: band_of(q["project_matches"]), p99=False)
    lines += ["", "Bands by the cards that match in that project, the caller's own card left out; answers (card ids in order) differing from the peer's: %d." % differ_agent]
    slow = sorted(queries, key=lambda q: -q["agent_ms"])[:5]
    lines += ["Slowest: " + ", ".join("`%s` %s ms (%d cards, peer %s)" % (q["q"], fmt(q["agent_ms"]), q["project_matches"], fmt(q["agent_peer_ms"])) for q in slow) + "."]
    worst = [q for q in sorted(queries, key=lambda q: -(q["agent_ms"] - q["agent_peer_ms"]))[:5] if q["agent_ms"] > q["agent_peer_ms"]]
    if worst:
        lines += ["Most behind the peer: " + ", ".join("`%s` %s vs %s ms (%d cards)" % (q["q"], fmt(q["agent_ms"]), fmt(q["agent_peer_ms"]), q["project_matches"]) for q in worst) + "."]
    if fresh_q:
        lines += ["", "#### %s: fresh process, `cairn board search QUERY --json` (%d queries, median of interleaved runs each; load average %s at the end)" % (label, len(fresh_q), " ".join(loads[2])), ""]
        lines += dist_table(fresh_q, "fresh_cairn_ms", [("python3 peer", "fresh_peer_ms")], p99=False, load_key="fresh_load")
        lines += ["", "CPU time (user + system) of the same processes, ms:", ""]
        lines += dist_table(fresh_q, "fresh_cairn_cpu", [("python3 peer", "fresh_peer_cpu")], p99=False, load_key="fresh_load")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) == 4 and sys.argv[1] == "peer-search":
        ids, total, mem = peer_search(load_peer(sys.argv[2]), sys.argv[3])
        json.dump({"cards": ids, "total": total, "memory": mem}, sys.stdout)
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
