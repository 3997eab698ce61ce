#!/usr/bin/env python3
"""Compares two benchmark runs (results.csv of cudacca_bench, doc/benchmarks.md): for every case that both hold
(library, algorithm, variant, size, g, density, connectivity), the ratio NEW / BASE of median_us, summarized per
group as a geometric mean with the smallest and largest ratio (below 1: NEW is faster). For A/B runs of two
builds on one machine ("Comparing two builds" in doc/benchmarks.md), and for reading one commit's run against
the committed one. BASE and NEW may each be several runs, comma-separated (the rounds of an A/B run): a case's
time is then its smallest median_us over the runs that hold it, which takes out most of the slow stretches of a
shared machine; with --median, the median over the runs instead (the smallest favours a side whose one round ran
fast: at 2048² the first benchmark process on a machine ran up to 15 % faster at g = 16; doc/benchmarks.md).

    python3 perf/compare.py BASE.csv[,BASE2.csv...] NEW.csv[,NEW2.csv...] [--by algorithm,variant,g]
                            [--library cudacca] [--algorithm DEFAULT] [--worst 5] [--median]
"""
import argparse
import collections
import csv
import math
import statistics
import sys

KEY = ("library", "algorithm", "variant", "width", "height", "g", "density", "connectivity")


def load(paths, median=False):
    """The rows of the comma-separated runs `paths`, one per case: the one with the smallest median_us, or with
    `median` the case's first row with its median_us replaced by the median over the runs."""
    rows, times = {}, collections.defaultdict(list)
    for path in paths.split(","):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                key = tuple(r[k] for k in KEY)
                times[key].append(float(r["median_us"]))
                if key not in rows or float(r["median_us"]) < float(rows[key]["median_us"]):
                    rows[key] = r
    if median:
        for key, row in rows.items():
            row["median_us"] = str(statistics.median(times[key]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--by", default="library,algorithm,variant,g",
                    help="columns that make a group (default: library,algorithm,variant,g)")
    ap.add_argument("--library", help="only this library's rows")
    ap.add_argument("--algorithm", help="only this algorithm's rows")
    ap.add_argument("--worst", type=int, default=0, help="also print the N cases with the largest ratio")
    ap.add_argument("--median", action="store_true", help="a case's time over several runs: their median, not the smallest")
    a = ap.parse_args()
    by = a.by.split(",")
    for column in by:
        if column not in KEY:
            sys.exit("--by: %s is not one of %s" % (column, ", ".join(KEY)))

    base, new = load(a.base, a.median), load(a.new, a.median)
    groups = collections.defaultdict(list)
    cases = []
    for key, row in new.items():
        old = base.get(key)
        if old is None or (a.library and row["library"] != a.library) or (a.algorithm and row["algorithm"] != a.algorithm):
            continue
        ratio = float(row["median_us"]) / float(old["median_us"])
        groups[tuple(row[c] for c in by)].append(ratio)
        cases.append((ratio, key))
    if not cases:
        sys.exit("no case is in both runs")
    print("%s  n  geomean NEW/BASE  min  max" % "  ".join(by))
    for group in sorted(groups):
        r = groups[group]
        geomean = math.exp(sum(math.log(x) for x in r) / len(r))
        print("%s  %d  %.3f  %.3f  %.3f" % ("  ".join(group), len(r), geomean, min(r), max(r)))
    for ratio, key in sorted(cases, reverse=True)[:a.worst]:
        print("worst %.3f  %s" % (ratio, " ".join(key)))


if __name__ == "__main__":
    main()
