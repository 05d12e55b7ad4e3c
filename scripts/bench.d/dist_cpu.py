#!/usr/bin/env python3
"""Per-band tables of TestDistCPU files (core/spaces/dist_bench_test.go), as docs/benchmarks.md
gives them: two builds compared query by query, after the smaller of interleaved runs.

  dist_cpu.py min OUT RUN...          the smaller CPU time of each query over RUN files (and of
                                      its first call, the 10th column) into OUT
  dist_cpu.py compare BEFORE AFTER    p50/p90/p99/max per band, queries over 1 and 3 ms, pages
                                      read, and the first calls' percentiles; checks that both
                                      files give the same answer (hash) to every query
"""
import collections
import sys

BANDS = ['0', '1-10', '11-100', '101-1k', '1k-10k', '10k+']


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def rows(path):
    return [line.rstrip('\n').split('\t') for line in open(path, encoding='utf-8')]


def smallest(out, runs):
    best, order = {}, []
    for path in runs:
        for r in rows(path):
            q = r[7]
            if q not in best:
                best[q] = r
                order.append(q)
                continue
            first = min(float(best[q][9]), float(r[9])) if len(r) > 9 and len(best[q]) > 9 else None
            if float(r[2]) < float(best[q][2]):
                best[q] = list(r)
            if first is not None:
                best[q][9] = str(first)
    with open(out, 'w', encoding='utf-8') as w:
        for q in order:
            w.write('\t'.join(best[q]) + '\n')


def bands(path, col):
    by = collections.OrderedDict((b, []) for b in BANDS)
    pages = collections.Counter()
    for r in rows(path):
        if col < len(r):
            by[r[0]].append(float(r[col]))
        pages[r[0]] += int(r[4])
    by['all'] = [x for b in BANDS for x in by[b]]
    pages['all'] = sum(pages[b] for b in BANDS)
    return by, pages


def compare(before, after):
    a, b = {r[7]: r[6] for r in rows(before)}, {r[7]: r[6] for r in rows(after)}
    differ = [q for q in a if q in b and a[q] != b[q]]
    print(f"answers differing: {len(differ)} of {len(a)}", differ[:5])
    (x, px), (y, py) = bands(before, 2), bands(after, 2)
    print("| band | queries | p50 | p90 | p99 | max | over 1 ms | over 3 ms | pages read |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for band in x:
        u, v = x[band], y[band]
        name = f"**{band}**" if band == 'all' else band
        cell = lambda p: f"{pct(u, p):.0f} → {pct(v, p):.0f}"
        over = lambda t: f"{sum(1 for s in u if s > t)} → {sum(1 for s in v if s > t)}"
        print(f"| {name} | {len(u)} | {cell(50)} | {cell(90)} | {cell(99)} | {max(u):.0f} → {max(v):.0f} | "
              f"{over(1000)} | {over(3000)} | {px[band]:,} → {py[band]:,} |")
    (x, _), (y, _) = bands(before, 9), bands(after, 9)
    if x['all'] and y['all']:
        print()
        print("| band | first call p50 | p90 | p99 | max |")
        print("|---|--:|--:|--:|--:|")
        for band in x:
            u, v = x[band], y[band]
            print(f"| {band} | {pct(u, 50):.0f} → {pct(v, 50):.0f} | {pct(u, 90):.0f} → {pct(v, 90):.0f} | "
                  f"{pct(u, 99):.0f} → {pct(v, 99):.0f} | {max(u):.0f} → {max(v):.0f} |")


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'min':
        smallest(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == 'compare':
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
