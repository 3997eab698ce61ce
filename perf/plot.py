#!/usr/bin/env python3
"""Summary (Markdown) and plots (PNG) of cudacca_bench's results.csv (doc/benchmarks.md).

    python3 perf/plot.py DIR/results.csv [--out doc/benchmarks] [--side 8192] [--no-plots]

Writes OUT/summary.md always (standard library only), and, when matplotlib is importable, OUT/throughput_*.png
(Gpix/s against density per granularity at --side, default the largest side) and OUT/latency_conn*.png
(p50 / p99 of the latency variant against the image side). OUT defaults to the CSV's folder. inputs.csv and
notes.txt next to the CSV name the real images and carry the peers' notes.
"""
import argparse
import collections
import csv
import os
import sys
from collections import defaultdict

GRANULARITIES = (1, 4, 16)
DENSITIES = (5, 25, 50, 60, 75, 95)
LATENCY_PATTERNS = ((1, 50), (4, 50), (16, 50), (1, 100))
# Which peer rows compare with which cudacca variant: "full" (with statistics) and "labels" (labels only).
PEERS = {
    "full": (("opencv_cpu", "full"), ("npp", "full")),
    "labels": (("opencv_contrib_bke", "labels"), ("npp", "labels"), ("cupy", "labels")),
}


def read_rows(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in ("width", "height", "g", "density", "connectivity", "n_labels"):
                r[k] = int(r[k])
            for k in ("median_us", "p99_us", "gpix_s"):
                r[k] = float(r[k])
            rows.append(r)
    return rows


def read_inputs(path):
    """(width, height, g, density) -> name of the real image (g = 0)."""
    names = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for i in csv.DictReader(f):
                if int(i["g"]) == 0:
                    names[(int(i["width"]), int(i["height"]), 0, int(i["density"]))] = i["name"]
    return names


def pattern(r, names):
    """'g1 d50', 'full', or the real image's name."""
    if r["g"] == 0:
        return names.get((r["width"], r["height"], 0, r["density"]), f"real d{r['density']}")
    return "full" if r["density"] >= 100 else f"g{r['g']} d{r['density']}"


def column(r, names):
    """Summary column of a row: 'g=1', 'g=4', 'g=16', 'full' or the real image's name."""
    if r["g"] == 0:
        return pattern(r, names)
    return "full" if r["density"] >= 100 else f"g={r['g']}"


def series(r):
    return (r["library"], r["algorithm"], r["variant"])


def provenance(rows, short=False):
    """'commit X, date D', or, when the CSV merges runs, every (commit, date) with its row count."""
    runs = collections.Counter((r["commit"], r["date"]) for r in rows)
    if len(runs) == 1:
        (commit, date), = runs
        return f"commit {commit}, {date}" if not short else f"{commit}, {date}"
    if short:
        return "; ".join(f"{c}, {d}" for (c, d) in sorted(runs, key=lambda k: k[1]))
    return "runs merged: " + "; ".join(f"commit {c}, {d}: {n} rows" for (c, d), n in sorted(runs.items()))


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def fmt(x, digits=2):
    return "-" if x != x else f"{x:.{digits}f}"


# ---------------------------------------------------------------------------------------------------------
# Markdown summary

def mean_table(rows, names, side, conn):
    """Mean Gpix/s per summary column for every (library, algorithm, variant) but latency."""
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["width"] == side and r["connectivity"] == conn and not r["variant"].startswith("latency"):
            acc[series(r)][column(r, names)].append(r["gpix_s"])
    return acc


def columns_of(acc):
    real = sorted({c for cols in acc.values() for c in cols} - {"g=1", "g=4", "g=16", "full"})
    return ["g=1", "g=4", "g=16", "full"] + real


def best(acc, keys, col):
    """(mean Gpix/s, series) of the best of `keys` in column col."""
    cands = [(mean(acc[k][col]), k) for k in keys if acc[k].get(col)]
    return max(cands) if cands else (float("nan"), None)


def headline(acc, cols, variant):
    """One table row: cudacca's best algorithm / the best peer, per column."""
    ours = [k for k in acc if k[0] == "cudacca" and k[2] == variant]
    peers = [k for k in acc if (k[0], k[2]) in PEERS[variant]]
    cells = []
    for c in cols:
        (a, ka), (b, kb) = best(acc, ours, c), best(acc, peers, c)
        if ka is None or kb is None:
            cells.append("-")
        else:
            cells.append(f"{ka[1]} {a:.1f} / {kb[0]} {kb[1]} {b:.1f} = **{a / b:.1f}x**")
    return f"| {variant} | " + " | ".join(cells) + " |"


def ratio_rows(rows, names, side, conn):
    """Per input: best cudacca / best peer, for full and for labels."""
    by_input = defaultdict(list)
    for r in rows:
        if r["width"] == side and r["connectivity"] == conn and not r["variant"].startswith("latency"):
            by_input[(r["g"], r["density"])].append(r)
    out = []
    for key in sorted(by_input, key=lambda k: (k[0] == 0, k[0], k[1])):
        rs = by_input[key]
        cells = [pattern(rs[0], names)]
        for variant in ("full", "labels"):
            ours = [r for r in rs if r["library"] == "cudacca" and r["variant"] == variant]
            peers = [r for r in rs if (r["library"], r["variant"]) in PEERS[variant]]
            if not ours or not peers:
                cells += ["-", "-", "-"]
                continue
            a = max(ours, key=lambda r: r["gpix_s"])
            b = max(peers, key=lambda r: r["gpix_s"])
            cells += [f"{a['algorithm']} {a['gpix_s']:.2f}", f"{b['library']} {b['algorithm']} {b['gpix_s']:.2f}",
                      f"{a['gpix_s'] / b['gpix_s']:.1f}x"]
        out.append("| " + " | ".join(cells) + " |")
    return out


def latency_table(rows, side, conn):
    """p50 / p99 per algorithm of the latency variants: the function ("latency") and, where measured, one
    ConnectedComponentsAnalyzer ("latency_analyzer", listed as ALGORITHM (analyzer))."""
    lat = {}
    for r in rows:
        if r["library"] == "cudacca" and r["variant"].startswith("latency") and r["width"] == side \
                and r["connectivity"] == conn:
            name = r["algorithm"] + (" (analyzer)" if r["variant"] == "latency_analyzer" else "")
            lat[(name, r["g"], r["density"])] = r
    if not lat:
        return []
    pats = [p for p in LATENCY_PATTERNS if any((a, *p) in lat for a, _, _ in lat)]
    head = ["full" if d >= 100 else f"g{g} d{d}" for g, d in pats]
    out = ["| algorithm | " + " | ".join(head) + " |", "|---|" + "---|" * len(head)]
    for a in sorted({a for a, _, _ in lat}):
        cells = [f"{lat[(a, *p)]['median_us']:.0f} / {lat[(a, *p)]['p99_us']:.0f}" if (a, *p) in lat else "-"
                 for p in pats]
        out.append(f"| {a} | " + " | ".join(cells) + " |")
    return out


# Issue 12's and 13's targets (H100, CCA_DEFAULT, 8-connectivity, CV_32S GpuMat outputs): what the CSV holds.
# (side, variant, column, at least Gpix/s); a column's value is the mean over its densities, as in the tables.
THROUGHPUT_TARGETS = (
    [(8192, "full", c, t) for c, t in (("g=1", 50), ("g=4", 150), ("g=16", 300), ("full", 400))]
    + [(8192, "labels", c, t) for c, t in (("g=1", 115), ("g=4", 150), ("g=16", 300), ("full", 400))]
    + [(8192, "stats", "full", 400)])
LATENCY_TARGETS = ((512, "latency", "p50", 50), (512, "latency", "p99", 80), (1024, "latency", "p50", 80),
                   (512, "labels", "p50", 30))
BATCH_TARGET = (512, 20)  # 64 frames of 512^2 in one call, Gpix/s at least
# CCA_DEFAULT's one-launch path takes images of up to 2^21 pixels (one_launch.hpp); above, it runs CCA_FLSL_CD's code.
ONE_LAUNCH_MAX_PIXELS = 1 << 21
VARIANT_NAMES = {"full": "full CCA", "labels": "labels only", "stats": "stats only"}


def targets(rows, names):
    """Issue 12's and 13's targets against the CSV's CCA_DEFAULT rows, 8-connectivity (the issues' setting):
    one Markdown table row each, with the measured value and whether it is met. Targets the CSV cannot show
    (device memory, DRAM bytes, exactness) are in doc/verification.md."""
    def default(side, conn=8):
        return [r for r in rows if r["library"] == "cudacca" and r["algorithm"] == "DEFAULT" and r["width"] == side
                and r["connectivity"] == conn]

    def synthetic(r):  # the issues' inputs: g = 1, 4, 16 at d = 5..95 %, and the full image
        return r["g"] > 0 and (r["density"] in DENSITIES or r["density"] >= 100)

    out = ["| issue | target | measured | met |", "|---|---|---|---|"]

    def line(issue, target, measured, met):
        out.append(f"| {issue} | {target} | {measured} | {'yes' if met else '**no**'} |")

    for side, variant, col, want in THROUGHPUT_TARGETS:
        v = [r["gpix_s"] for r in default(side) if r["variant"] == variant and synthetic(r) and column(r, names) == col]
        if v:
            line(12, f"{side}², {VARIANT_NAMES[variant]}, {col}: at least {want} Gpix/s", f"{mean(v):.1f}", mean(v) >= want)
    contrib = defaultdict(list)
    ours = defaultdict(list)
    for r in rows:
        if r["width"] == 2048 and r["connectivity"] == 8 and synthetic(r):
            if r["library"] == "opencv_contrib_bke" and r["variant"] == "labels":
                contrib[column(r, names)].append(r["gpix_s"])
            elif r["library"] == "cudacca" and r["algorithm"] == "DEFAULT" and r["variant"] == "full":
                ours[column(r, names)].append(r["gpix_s"])
    for col in ("g=1", "g=4", "g=16", "full"):
        if ours[col] and contrib[col]:
            a, b = mean(ours[col]), mean(contrib[col])
            line(12, f"2048², full CCA, {col}: at least contrib's BKE labels only ({b:.1f} Gpix/s)",
                 f"{a:.1f} ({a / b:.2f}x)", a >= b)
    for variant in ("full", "labels", "stats"):
        for col in ("g=1", "g=4", "g=16", "full"):
            four = [r["gpix_s"] for r in default(8192, 4) if r["variant"] == variant and synthetic(r)
                    and column(r, names) == col]
            eight = [r["gpix_s"] for r in default(8192, 8) if r["variant"] == variant and synthetic(r)
                     and column(r, names) == col]
            if four and eight:
                ratio = mean(four) / mean(eight)
                line(12, f"8192², {VARIANT_NAMES[variant]}, {col}: 4-connectivity within 10 % of 8 (Gpix/s, 4 / 8)",
                     f"{ratio:.2f}x", ratio >= 0.9)
    # Item 5: per side, every case (variant, g, d, connectivity) where another cudacca algorithm was measured too.
    times = defaultdict(dict)
    for r in rows:
        if r["library"] == "cudacca":
            times[(r["width"], r["height"], r["variant"], r["g"], r["density"], r["connectivity"])][r["algorithm"]] = r
    for side in sorted({k[0] for k in times}):
        cases = [(v["DEFAULT"]["median_us"] / min(x["median_us"] for x in v.values()), v) for k, v in times.items()
                 if k[0] == side and "DEFAULT" in v and len(v) > 1]
        if cases:
            ratio, worst = max(cases, key=lambda c: c[0])
            fastest = min(worst.values(), key=lambda x: x["median_us"])
            over = sum(c[0] > 1.1 for c in cases)
            # Above the one-launch path's 2^21 pixels CCA_DEFAULT runs CCA_FLSL_CD's code: their ratio is the noise
            # between rows of one code, to read the verdict against.
            same = [v["DEFAULT"]["median_us"] / v["FLSL_CD"]["median_us"] for k, v in times.items()
                    if k[0] == side and k[0] * k[1] > ONE_LAUNCH_MAX_PIXELS and "DEFAULT" in v and "FLSL_CD" in v]
            noise = f"; CCA_DEFAULT / CCA_FLSL_CD, the same code: {min(same):.2f}-{max(same):.2f}x" if same else ""
            line(12, f"{side}², every variant and both connectivities: CCA_DEFAULT's time within 10 % of the fastest "
                 "cudacca algorithm's (item 5)",
                 f"worst {ratio:.3f}x ({fastest['algorithm']}, {fastest['variant']} {pattern(fastest, names)} "
                 f"{fastest['connectivity']}-conn); {over} of {len(cases)} over{noise}", over == 0)
    for side, variant, stat, limit in LATENCY_TARGETS:
        rs = [r for r in default(side) if r["variant"] == variant and r["g"] in GRANULARITIES
              and r["density"] in DENSITIES]
        if rs:
            key = "median_us" if stat == "p50" else "p99_us"
            worst = max(rs, key=lambda r: r[key])
            over = sum(r[key] > limit for r in rs)
            what = "host stats and centroids" if variant == "latency" else "labels only into a GpuMat"
            line(13, f"{side}², {what}: {stat} at most {limit} us on every input",
                 f"worst {worst[key]:.1f} ({pattern(worst, names)}); {over} of {len(rs)} over", over == 0)
    side, want = BATCH_TARGET
    rs = [r for r in default(side) if r["variant"] == "batch64" and r["g"] in GRANULARITIES
          and r["density"] in DENSITIES]
    if rs:
        worst = min(rs, key=lambda r: r["gpix_s"])
        line(13, f"64 x {side}² in one call: at least {want} Gpix/s",
             f"lowest {worst['gpix_s']:.1f} ({pattern(worst, names)})", worst["gpix_s"] >= want)
    return out if len(out) > 2 else []


def summary(rows, names, notes):
    first = rows[0]
    libs = sorted({r["library"] for r in rows})
    md = [f"# cudacca_bench summary", "",
          f"GPU {first['gpu']}, {provenance(rows)}; {len(rows)} rows; libraries: "
          + ", ".join(libs) + ".", "",
          "Throughput = pixels / median time of a whole call (doc/benchmarks.md). Columns g=1/4/16: mean over "
          "the densities 5, 25, 50, 60, 75, 95 % ('*': fewer measured); full: the all-foreground image; "
          "named columns: real images.", ""]
    goals = targets(rows, names)
    if goals:
        md += ["## Issue 12's and 13's targets", "",
               "CCA_DEFAULT, 8-connectivity, as the issues state them (throughput: the mean over the column's "
               "densities; latency: every g = 1, 4, 16 input at d = 5..95 %), from the rows this CSV holds (a merge "
               "of runs: each row's commit is in the CSV, so a ratio may compare two runs). Device memory and DRAM "
               "bytes per pixel are not in the CSV: doc/verification.md.", ""] + goals + [""]
    for side in sorted({r["width"] for r in rows}):
        for conn in (8, 4):
            acc = mean_table(rows, names, side, conn)
            if not acc:
                continue
            cols = columns_of(acc)
            md += [f"## {side}x{side}, {conn}-connectivity", "",
                   "cudacca's best algorithm / the best peer (Gpix/s; full: peers with statistics, i.e. OpenCV "
                   "CPU and NPP with its Info; labels: contrib BKE, NPP, CuPy):", "",
                   "| | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols),
                   headline(acc, cols, "full"), headline(acc, cols, "labels"), "",
                   "Mean Gpix/s:", "",
                   "| library | algorithm | variant | " + " | ".join(cols) + " |", "|---|---|---|" + "---|" * len(cols)]
            for k in sorted(acc, key=lambda k: (k[0] != "cudacca", k[0], k[2], k[1])):
                cells = []
                for c in cols:
                    v = acc[k].get(c, [])
                    partial = c.startswith("g=") and 0 < len(v) < len(DENSITIES)
                    cells.append(fmt(mean(v)) + ("*" if partial else ""))
                md.append(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + " |")
            md += ["", "Per input, best cudacca / best peer:", "",
                   "| input | cudacca full | best peer full | ratio | cudacca labels | best peer labels | ratio |",
                   "|---|---|---|---|---|---|---|"] + ratio_rows(rows, names, side, conn) + [""]
            lat = latency_table(rows, side, conn)
            if lat:
                md += ["Latency variant (GpuMat labels, host stats and centroids, wall clock): p50 / p99 in us:",
                       ""] + lat + [""]
    if notes:
        md += ["## Notes (notes.txt)", ""] + [f"- {n}" for n in notes[:40]]
        if len(notes) > 40:
            md.append(f"- ... {len(notes) - 40} more in notes.txt")
    return "\n".join(md) + "\n"


# ---------------------------------------------------------------------------------------------------------
# Plots

def style_for(plt, keys):
    """Colour per cudacca algorithm, black / grey line styles for the peers."""
    ours = sorted({k for k in keys if k[0] == "cudacca"})
    cmap = plt.get_cmap("tab20")
    st = {k: dict(color=cmap(i % 20), lw=1.4, marker="o", ms=3) for i, k in enumerate(ours)}
    peer_styles = [dict(color="black", ls="--", marker="s"), dict(color="0.45", ls=":", marker="^"),
                   dict(color="0.25", ls="-.", marker="D"), dict(color="0.6", ls="--", marker="v"),
                   dict(color="0.1", ls=":", marker="x")]
    for i, k in enumerate(sorted({k for k in keys if k[0] != "cudacca"})):
        st[k] = dict(lw=1.6, ms=4, **peer_styles[i % len(peer_styles)])
    return st


def label_of(k):
    return f"{k[1]}" if k[0] == "cudacca" else f"{k[0]} {k[1]} ({k[2]})"


def finish_figure(plt, fig, axes, rows, title, path):
    """Title with the GPU and the runs, one legend on the right, saved and closed."""
    fig.suptitle(f"{title} — {rows[0]['gpu']}, {provenance(rows, short=True)}")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="center right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.85, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_throughput(plt, rows, names, side, conn, variant, path):
    keep = [r for r in rows if r["width"] == side and r["connectivity"] == conn and
            ((r["library"] == "cudacca" and r["variant"] == variant) or (r["library"], r["variant"]) in PEERS[variant])]
    if not keep:
        return False
    keys = sorted({series(r) for r in keep})
    st = style_for(plt, keys)
    extra = sorted({column(r, names) for r in keep if r["g"] == 0 or r["density"] >= 100},
                   key=lambda c: (c != "full", c))
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.8), sharey=True, gridspec_kw=dict(width_ratios=[3, 3, 3, 2]))
    for ax, g in zip(axes, GRANULARITIES):
        for k in keys:
            pts = sorted((r["density"], r["gpix_s"]) for r in keep if series(r) == k and r["g"] == g
                         and r["density"] < 100)
            if pts:
                ax.plot(*zip(*pts), label=label_of(k), **st[k])
        ax.set_title(f"granularity {g}")
        ax.set_xlabel("foreground density (%)")
        ax.set_xticks(DENSITIES)
        ax.grid(alpha=0.3)
    ax = axes[3]
    for k in keys:
        xs, ys = [], []
        for i, c in enumerate(extra):
            v = [r["gpix_s"] for r in keep if series(r) == k and column(r, names) == c]
            if v:
                xs.append(i)
                ys.append(v[0])
        if xs:
            ax.plot(xs, ys, ls="none", **{kk: vv for kk, vv in st[k].items() if kk not in ("ls", "lw")})
    ax.set_xticks(range(len(extra)))
    ax.set_xticklabels(extra)
    ax.set_xlim(-0.5, len(extra) - 0.5)
    ax.set_title("full image, real images")
    ax.grid(alpha=0.3)
    axes[0].set_ylabel("Gpix/s (pixels / median time)")
    axes[0].set_yscale("log")
    return finish_figure(plt, fig, axes, rows, f"{variant}: {side}x{side}, {conn}-connectivity", path)


def plot_latency(plt, rows, conn, path):
    lat = [r for r in rows if r["library"] == "cudacca" and r["variant"] == "latency" and r["connectivity"] == conn]
    if not lat:
        return False
    peers = [r for r in rows if r["connectivity"] == conn and (r["library"], r["variant"]) in PEERS["full"]]
    keys = sorted({series(r) for r in lat + peers})
    st = style_for(plt, keys)
    fig, axes = plt.subplots(1, len(LATENCY_PATTERNS), figsize=(17, 4.8), sharey=True)
    for ax, (g, d) in zip(axes, LATENCY_PATTERNS):
        for k in keys:
            pts = sorted((r["width"], r["median_us"], r["p99_us"]) for r in lat + peers
                         if series(r) == k and r["g"] == g and r["density"] == d)
            if not pts:
                continue
            x, p50, p99 = zip(*pts)
            ax.plot(x, p50, label=label_of(k) if k[0] == "cudacca" else f"{label_of(k)}, median", **st[k])
            if k[0] == "cudacca":
                ax.fill_between(x, p50, p99, color=st[k]["color"], alpha=0.12)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sides = sorted({r["width"] for r in lat})
        ax.set_xticks(sides, [str(s) for s in sides])
        ax.tick_params(axis="x", which="minor", bottom=False, labelbottom=False)
        ax.set_title("full image" if d >= 100 else f"g{g} d{d}")
        ax.set_xlabel("image side (px)")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("latency (us): p50 line, band to p99")
    return finish_figure(plt, fig, axes, rows,
                         f"latency (GpuMat labels, host stats + centroids), {conn}-connectivity", path)


def draw_plots(rows, names, out, side):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        print(f"plots skipped: matplotlib is not importable ({e})")
        return []
    written = []
    for conn in (8, 4):
        for variant in ("full", "labels"):
            p = os.path.join(out, f"throughput_{variant}_conn{conn}_{side}.png")
            if plot_throughput(plt, rows, names, side, conn, variant, p):
                written.append(p)
        p = os.path.join(out, f"latency_conn{conn}.png")
        if plot_latency(plt, rows, conn, p):
            written.append(p)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="results.csv of cudacca_bench (and perf/peers.py)")
    ap.add_argument("--out", help="output folder (default: the CSV's folder)")
    ap.add_argument("--side", type=int, help="image side of the throughput plots (default: the largest)")
    ap.add_argument("--no-plots", action="store_true", help="write summary.md only")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        print(f"{args.csv}: no rows")
        return 1
    src = os.path.dirname(os.path.abspath(args.csv))
    out = args.out or src
    os.makedirs(out, exist_ok=True)
    names = read_inputs(os.path.join(src, "inputs.csv"))
    notes_path = os.path.join(src, "notes.txt")
    notes = open(notes_path).read().splitlines() if os.path.exists(notes_path) else []
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary(rows, names, notes))
    written = [] if args.no_plots else draw_plots(rows, names, out, args.side or max(r["width"] for r in rows))
    print(f"wrote {os.path.join(out, 'summary.md')}" + "".join(f", {os.path.basename(p)}" for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
