#!/usr/bin/env python3
"""The query-distribution benchmark of memory and knowledge search (scripts/bench.d/memory-dist.sh,
issue 27).

    memory_dist.py run --cairn BIN --ws WS --corpus NAME:TOOL:COMMAND:TERMS.tsv:DIR[,DIR] ... \\
        --label NAME [--runs 3] [--fresh 8] [--fresh-runs 3] --json OUT.json --md OUT.md

--corpus may be given several times: NAME (a heading), TOOL (the MCP tool: KnowledgeSearch or
MemorySearch), COMMAND (the cairn command of the fresh runs: knowledge or memory), the terms
(scripts/gen-terms -md, counted in matching lines) and the folders the peers read, relative to WS.

The peers are the naive plans, a process each: GNU grep (`grep -r -i -F -n -e QUERY DIR...`) and,
when it is installed, ripgrep (`rg -i -F -n -e QUERY DIR...`), both over every file and printing
every matching line (to a file: grep stops early on /dev/null), run in WS. Warm: one `cairn mcp`
answers the tool for every query, --runs times, each call followed by grep and rg, so load falls
on all alike; cairn is timed from writing the call to reading its answer's line, the peers from
fork to wait. Fresh: --fresh queries of each band, `cairn COMMAND search QUERY --json` against the
same peers, --fresh-runs times each, interleaved. The memory tools read the files on every call
(no index): a warm call saves only the process start. cairn stops after its hit limit (20 by
default), the peers print every match."""
import json
import os
import random
import shutil
import sys

sys.dont_write_bytecode = True  # search_dist is imported from the source tree: leave no __pycache__ there
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_dist import BANDS, MCP, cpu_ns, dist_table, fmt, fresh_cpu, load1, median  # noqa: E402


def tool_call(m, tool, query):
    took, line = m.call("tools/call", {"name": tool, "arguments": {"query": query}})
    res = json.loads(line)
    if "error" in res or res["result"].get("isError"):
        raise SystemExit("%s failed on %r: %s" % (tool, query, line[:300]))
    body = json.loads(res["result"]["content"][0]["text"])
    return took, len(body["hits"])


def lines_in(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def run(a, corpora):
    runs = int(a.get("runs", 3))
    a["json"], a["md"] = os.path.abspath(a["json"]), os.path.abspath(a["md"])
    bench = os.path.abspath(os.environ.get("BENCH_DIR", "/tmp"))
    outpath = os.path.join(bench, ".dist.out")
    out = os.open(outpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    have_rg = shutil.which("rg") is not None
    ws = os.path.abspath(a["ws"])
    base = [os.path.abspath(a["cairn"]) if os.sep in a["cairn"] else a["cairn"], "-C", ws]
    os.chdir(ws)  # the peers read relative paths, as a person types them
    m = MCP(base + ["mcp"])
    floor = median([m.call("ping", {})[0] for _ in range(200)])
    sections = []
    for c in corpora:
        name, tool, command, terms, dirs = c.split(":", 4)
        dirs = dirs.split(",")
        queries = []
        with open(terms, encoding="utf-8") as f:
            for line in f:
                band, script, shape, n, lens, q = line.rstrip("\n").split("\t")
                queries.append({"corpus": name, "band": band, "script": script, "shape": shape, "matches": int(n), "lens": lens, "q": q})
        random.Random(1).shuffle(queries)

        def grep(q):
            return ["grep", "-r", "-i", "-F", "-n", "-e", q, "--"] + dirs

        def rg(q):
            return ["rg", "-i", "-F", "-n", "-e", q, "--"] + dirs

        for q in queries[:10]:  # warm the page cache
            tool_call(m, tool, q["q"])
            fresh_cpu(grep(q["q"]), out)
        load_start = open("/proc/loadavg").read().split()[:3]
        grep_differs = rg_differs = hits_differ = 0
        for q in queries:
            q["load"] = load1()
            ct, gt, rt, cc, gc, rc = [], [], [], [], [], []
            for _ in range(runs):
                c0 = cpu_ns(m.p.pid)
                took, hits = tool_call(m, tool, q["q"])
                cc.append((cpu_ns(m.p.pid) - c0) / 1e6)
                ct.append(took)
                os.ftruncate(out, 0)
                os.lseek(out, 0, 0)
                w, c = fresh_cpu(grep(q["q"]), out)
                gt.append(w)
                gc.append(c)
                glines = lines_in(outpath)
                if have_rg:
                    os.ftruncate(out, 0)
                    os.lseek(out, 0, 0)
                    w, c = fresh_cpu(rg(q["q"]), out)
                    rt.append(w)
                    rc.append(c)
                    rlines = lines_in(outpath)
            q["cairn_ms"], q["grep_ms"], q["cairn_cpu"], q["grep_cpu"] = median(ct), median(gt), median(cc), median(gc)
            if have_rg:
                q["rg_cpu"] = median(rc)
            q["hits"], q["grep_lines"] = hits, glines
            if have_rg:
                q["rg_ms"], q["rg_lines"] = median(rt), rlines
                rg_differs += rlines != q["matches"]
            grep_differs += glines != q["matches"]
            hits_differ += (hits == 0) != (q["matches"] == 0)
        load_warm_end = open("/proc/loadavg").read().split()[:3]
        fresh_q = []
        per_band = int(a.get("fresh", 8))
        if per_band > 0:
            for band in BANDS:
                fresh_q += [q for q in queries if q["band"] == band][:per_band]
            for q in fresh_q:
                q["fresh_load"] = load1()
                ct, gt, rt, cc, gc, rc = [], [], [], [], [], []
                for _ in range(int(a.get("fresh-runs", 3))):
                    w, c = fresh_cpu(base + [command, "search", q["q"], "--json"], out)
                    ct.append(w)
                    cc.append(c)
                    w, c = fresh_cpu(grep(q["q"]), out)
                    gt.append(w)
                    gc.append(c)
                    if have_rg:
                        w, c = fresh_cpu(rg(q["q"]), out)
                        rt.append(w)
                        rc.append(c)
                q["fresh_cairn_ms"], q["fresh_grep_ms"], q["fresh_cairn_cpu"], q["fresh_grep_cpu"] = median(ct), median(gt), median(cc), median(gc)
                if have_rg:
                    q["fresh_rg_ms"], q["fresh_rg_cpu"] = median(rt), median(rc)
        load_end = open("/proc/loadavg").read().split()[:3]
        sections.append(report(a["label"], name, tool, command, dirs, queries, fresh_q, runs, floor, have_rg,
                               (grep_differs, rg_differs, hits_differ), (load_start, load_warm_end, load_end)))
        with open(a["json"] + "." + name + ".json", "w", encoding="utf-8") as f:
            json.dump(queries, f, ensure_ascii=False, indent=0)
    m.close()
    md = "\n".join(sections)
    with open(a["md"], "w", encoding="utf-8") as f:
        f.write(md)
    print(md)


def report(label, name, tool, command, dirs, queries, fresh_q, runs, floor, have_rg, differs, loads):
    peers = [("grep", "grep_ms")] + ([("rg", "rg_ms")] if have_rg else [])
    lines = ["#### %s, %s: warm, `cairn mcp` %s (%d queries, median of %d calls each; a ping's round trip: %s ms)"
             % (label, name, tool, len(queries), runs, fmt(floor)), "",
             "Load average %s at the start, %s at the end of the warm runs. Peers over `%s`." % (" ".join(loads[0]), " ".join(loads[1]), " ".join(dirs)), ""]
    lines += dist_table(queries, "cairn_ms", peers)
    lines += ["", "CPU time of the same calls (cairn mcp's threads, schedstat; the peers' user + system), ms:", ""]
    lines += dist_table(queries, "cairn_cpu", [(l, k.replace("_ms", "_cpu")) for l, k in peers], p99=False)
    lines += ["", "Bands by matching lines (gen-terms' count). Output lines differing from that count: grep %d%s (case folding: grep -i does not fold full-width letters as cairn does); "
              "queries where cairn found nothing and the count is not 0, or the other way round: %d."
              % (differs[0], (", rg %d" % differs[1]) if have_rg else "", differs[2])]
    slow = sorted(queries, key=lambda q: -q["cairn_ms"])[:5]
    lines += ["Slowest: " + ", ".join("`%s` %s ms (%d lines, grep %s)" % (q["q"], fmt(q["cairn_ms"]), q["matches"], fmt(q["grep_ms"])) for q in slow) + "."]
    best = "rg_ms" if have_rg else "grep_ms"
    worst = [q for q in sorted(queries, key=lambda q: -(q["cairn_ms"] - q[best]))[:5] if q["cairn_ms"] > q[best]]
    if worst:
        lines += ["Most behind %s: " % best[:-3] + ", ".join("`%s` %s vs %s ms (%d lines)" % (q["q"], fmt(q["cairn_ms"]), fmt(q[best]), q["matches"]) for q in worst) + "."]
    if fresh_q:
        fpeers = [("grep", "fresh_grep_ms")] + ([("rg", "fresh_rg_ms")] if have_rg else [])
        lines += ["", "#### %s, %s: fresh process, `cairn %s search QUERY --json` (%d queries, median of interleaved runs each; load average %s at the end)"
                  % (label, name, command, len(fresh_q), " ".join(loads[2])), ""]
        lines += dist_table(fresh_q, "fresh_cairn_ms", fpeers, p99=False, load_key="fresh_load")
        lines += ["", "CPU time (user + system) of the same processes, ms:", ""]
        lines += dist_table(fresh_q, "fresh_cairn_cpu", [(l, k.replace("_ms", "_cpu")) for l, k in fpeers], p99=False, load_key="fresh_load")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "run":
        sys.exit(__doc__)
    a, corpora, args = {}, [], sys.argv[2:]
    while args:
        k = args.pop(0)
        if not k.startswith("--") or not args:
            sys.exit(__doc__)
        if k == "--corpus":
            name, tool, command, terms, dirs = args.pop(0).split(":", 4)
            corpora.append(":".join([name, tool, command, os.path.abspath(terms), dirs]))
        else:
            a[k[2:]] = args.pop(0)
    run(a, corpora)


if __name__ == "__main__":
    main()
