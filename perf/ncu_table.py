#!/usr/bin/env python3
"""Per-kernel table of one call from Nsight Compute's CSV (doc/benchmarks.md, "Per kernel").

    ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \\
        python3 perf/profile_call.py --size 8192 --granularity 1 --density 0.5 --calls 2 > k.csv
    python3 perf/ncu_table.py k.csv --calls 2 --pixels 67108864

profile_call.py repeats one call --calls times; the table is the last call's kernels (the first ones warm up),
with their time (us), DRAM bytes read and written, the sum, and with --pixels the bytes per pixel.
"""
import argparse
import collections
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--calls", type=int, default=2, help="identical calls in the profile (default 2)")
    ap.add_argument("--pixels", type=float, default=0, help="pixels of the image: prints bytes per pixel")
    a = ap.parse_args()
    rows = list(csv.reader(open(a.csv)))
    try:
        h = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    except StopIteration:
        sys.exit(f"{a.csv}: no ncu CSV header (did ncu run?)")
    hdr = rows[h]
    ki, vi, mi, ii = hdr.index("Kernel Name"), hdr.index("Metric Value"), hdr.index("Metric Name"), hdr.index("ID")
    kernels = collections.OrderedDict()
    for r in rows[h + 1:]:
        if len(r) <= vi:
            continue
        d = kernels.setdefault(r[ii], {"name": r[ki]})
        try:
            d[r[mi]] = float(r[vi].replace(",", ""))
        except ValueError:
            pass
    launches = list(kernels.values())
    last = launches[-(len(launches) // a.calls):]
    total = collections.Counter()
    for d in last:
        t = d.get("gpu__time_duration.sum", 0) / 1e3
        rd, wr = d.get("dram__bytes_read.sum", 0), d.get("dram__bytes_write.sum", 0)
        total.update(t=t, r=rd, w=wr)
        name = d["name"].split("(")[0][:60]
        print("  %9.2f us  %12.0f read  %12.0f written  %s" % (t, rd, wr, name))
    print("  last call: %d kernels, %.1f us, DRAM read %.0f B, written %.0f B" % (len(last), total["t"], total["r"], total["w"]))
    if a.pixels:
        print("  bytes per pixel: read %.3f, written %.3f, total %.3f"
              % (total["r"] / a.pixels, total["w"] / a.pixels, (total["r"] + total["w"]) / a.pixels))


if __name__ == "__main__":
    main()
