#!/usr/bin/env python3
"""Merges benchmark runs into the committed results (doc/benchmarks.md, "Results").

    python3 perf/merge_runs.py doc/benchmarks RUN_DIR [RUN_DIR ...] [--libraries cudacca,opencv_contrib_bke]

For every case (library, algorithm, variant, width, height, g, density, connectivity) that the runs hold, the
committed row is replaced by one run's row: the middle one by median_us where the runs holding the case are odd in
number, the slower of the middle two where they are even (the protocol of the Results entries since session 40).
A case the committed file lacks is appended. --libraries keeps only those libraries' rows of the runs. The runs'
inputs.csv rows and notes.txt lines (all of them) that the committed files lack are appended too. Each file keeps its line
endings; then run perf/plot.py on the result.
"""
import argparse
import csv
import os
import sys

KEY = ("library", "algorithm", "variant", "width", "height", "g", "density", "connectivity")


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def line_end(path):
    """The committed file's line ending, kept (results.csv has csv's CRLF, inputs.csv the benchmark's LF)."""
    with open(path, "rb") as f:
        return "\r\n" if f.readline().endswith(b"\r\n") else "\n"


def write_csv(path, fields, rows):
    ending = line_end(path)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator=ending)
        w.writeheader()
        w.writerows(rows)


def pick(rows):
    """The middle row by median_us; of an even number, the slower of the middle two."""
    rows = sorted(rows, key=lambda r: float(r["median_us"]))
    return rows[len(rows) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("committed", help="folder of the committed results.csv, inputs.csv and notes.txt")
    ap.add_argument("runs", nargs="+", help="benchmark output folders (each with a results.csv)")
    ap.add_argument("--libraries", help="comma-separated libraries to take from the runs (default: all)")
    a = ap.parse_args()
    keep = set(a.libraries.split(",")) if a.libraries else None

    fields, committed = read_csv(os.path.join(a.committed, "results.csv"))
    cases = {}
    for run in a.runs:
        run_fields, rows = read_csv(os.path.join(run, "results.csv"))
        if run_fields != fields:
            sys.exit(f"{run}/results.csv: columns {run_fields}, not the committed {fields}")
        for r in rows:
            if keep is None or r["library"] in keep:
                cases.setdefault(tuple(r[k] for k in KEY), []).append(r)
    merged = {key: pick(rows) for key, rows in cases.items()}

    replaced = 0
    out = []
    for r in committed:
        key = tuple(r[k] for k in KEY)
        if key in merged:
            out.append(merged.pop(key))
            replaced += 1
        else:
            out.append(r)
    appended = list(merged.values())
    write_csv(os.path.join(a.committed, "results.csv"), fields, out + appended)

    inputs_path = os.path.join(a.committed, "inputs.csv")
    in_fields, inputs = read_csv(inputs_path)
    seen = {tuple(i[k] for k in ("name", "width", "height", "g", "density")) for i in inputs}
    new_inputs = []
    for run in a.runs:
        path = os.path.join(run, "inputs.csv")
        if not os.path.exists(path):
            continue
        for i in read_csv(path)[1]:
            k = tuple(i[f] for f in ("name", "width", "height", "g", "density"))
            if k not in seen:
                seen.add(k)
                new_inputs.append(i)
    if new_inputs:
        write_csv(inputs_path, in_fields, inputs + new_inputs)

    notes_path = os.path.join(a.committed, "notes.txt")
    with open(notes_path) as f:
        notes = f.read().splitlines()
    known = set(notes)
    new_notes = []
    for run in a.runs:
        path = os.path.join(run, "notes.txt")
        if os.path.exists(path):
            with open(path) as f:
                for line in f.read().splitlines():
                    if line not in known:
                        known.add(line)
                        new_notes.append(line)
    if new_notes:
        with open(notes_path, "a") as f:
            f.write("\n".join(new_notes) + "\n")
    print(f"{replaced} rows replaced, {len(appended)} appended, {len(new_inputs)} inputs and {len(new_notes)} notes added")


if __name__ == "__main__":
    main()
