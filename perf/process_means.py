#!/usr/bin/env python3
"""Per benchmark process, the summary's mean Gpix/s (g = 1 / 4 / 16 over the densities, the full image), then per
side the median over its processes and their range: how an A/B of many alternating processes reads, which
perf/compare.py (per case ratios) does not show ("Comparing two builds" in doc/benchmarks.md). A side is a
comma-separated list of results.csv files, one per process, optionally named NAME=...

    python3 perf/process_means.py off=ab/a_off_1/results.csv,ab/a_off_2/results.csv on=ab/b_on_1/results.csv,...
                                  [--width 2048] [--connectivity 8]
                                  [--series cudacca/DEFAULT/full,cudacca/DEFAULT/labels,opencv_contrib_bke/BKE/labels]

With a shell: on=$(ls ab/b_on_*/results.csv | paste -sd, -).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot  # noqa: E402 (read_rows, mean_table: the summary's own means)

COLUMNS = ("g=1", "g=4", "g=16", "full")


def process_means(path, width, conn, wanted):
    """{series: {column: mean Gpix/s}} of one process's results.csv."""
    acc = plot.mean_table(plot.read_rows(path), {}, width, conn)
    return {s: {c: plot.mean(acc[s][c]) for c in COLUMNS if acc[s][c]} for s in wanted if s in acc}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sides", nargs="+", help="[NAME=]run.csv[,run.csv...] per side")
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--connectivity", type=int, default=8)
    ap.add_argument("--series", default="cudacca/DEFAULT/full,cudacca/DEFAULT/labels,cudacca/DEFAULT/stats,"
                                        "opencv_contrib_bke/BKE/labels")
    a = ap.parse_args()
    wanted = [tuple(s.split("/")) for s in a.series.split(",")]
    print(f"{a.width}², {a.connectivity}-connectivity, mean Gpix/s per process ({' / '.join(COLUMNS)}): "
          "median over the side's processes (min-max)")
    for i, side in enumerate(a.sides):
        name, _, paths = side.rpartition("=")
        runs = [process_means(p, a.width, a.connectivity, wanted) for p in paths.split(",")]
        print(f"{name or f'side {i + 1}'} ({len(runs)} processes)")
        for s in wanted:
            cells = []
            for c in COLUMNS:
                v = [r[s][c] for r in runs if s in r and c in r[s]]
                cells.append(f"{statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f})" if v else "-")
            print(f"  {'/'.join(s)}: " + " / ".join(cells))


if __name__ == "__main__":
    main()
