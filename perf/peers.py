#!/usr/bin/env python3
"""CuPy's cupyx.scipy.ndimage.label on the benchmark's inputs; appends rows to cudacca_bench's results.csv.

Run after build/perf/cudacca_bench --out DIR:

    python3 perf/peers.py --out DIR [--quick]

It measures every (image, connectivity) that results.csv holds, on the same images: the random ones are drawn
again with numpy's legacy MT19937 (the same generator and seeding as std::mt19937, checked below), the real ones
are read from the files inputs.csv names, and every image's foreground pixel count is compared with inputs.csv.
Timing: 2 warm-up calls, then the median of N calls, each timed with CUDA events on the current stream around
label() (which returns the count to the host, so it synchronizes); labels go into a preallocated int32 array.
Check: the labels must be the CPU's partition of the foreground (cv2.connectedComponents), background 0.
Prints a reason and exits 0 when cupy (or cv2, for the check) is not importable. Exit 1 on a mismatch.
"""
import argparse
import csv
import os
import sys
import time

SEED = 20240917          # the bench's (and the module perf suite's) seed
COLUMNS = ("gpu,commit,date,library,algorithm,variant,width,height,g,density,connectivity,"
           "n_labels,median_us,p99_us,gpix_s").split(",")


def reps_for(side, quick):
    """Timed calls per row, as the bench's GPU rows."""
    if side <= 1024:
        return 20 if quick else 50
    return 10 if quick or side > 4096 else 20


def random_image(np, side, g, density):
    """The bench's YACCLAB image: a ceil(side/g)^2 grid of blocks, foreground when the next std::mt19937 draw
    is below density % of 2^32, each block blown up to g x g."""
    if density >= 100:
        return np.full((side, side), 255, np.uint8)
    blocks = (side + g - 1) // g
    thr = np.uint32((density << 32) // 100)
    draws = np.random.RandomState(SEED).randint(0, 2**32, size=blocks * blocks, dtype=np.uint32)
    fg = (draws < thr).reshape(blocks, blocks)
    img = np.repeat(np.repeat(fg, g, axis=0), g, axis=1)[:side, :side]
    return np.where(img, 255, 0).astype(np.uint8)


def check_generator(np):
    """numpy's legacy RandomState(seed) must be std::mt19937(seed): its 10000th draw from 5489 is 4123659995."""
    return int(np.random.RandomState(5489).randint(0, 2**32, size=10000, dtype=np.uint32)[-1]) == 4123659995


def load_image(np, cv2, out_dir, inp):
    side, g, d = int(inp["width"]), int(inp["g"]), int(inp["density"])
    if g > 0:
        return random_image(np, side, g, d)
    path = inp["file"] if os.path.isabs(inp["file"]) else os.path.join(out_dir, inp["file"])
    return cv2.imread(path, cv2.IMREAD_GRAYSCALE)


def same_partition(cp, ref, lab):
    """True when lab is ref's partition of the foreground (ref > 0) and 0 on the background."""
    fg = ref > 0
    if bool((lab[~fg] != 0).any()):
        return False, "background pixels carry labels"
    r, p = ref[fg].astype(cp.int64), lab[fg].astype(cp.int64)
    if r.size == 0:
        return True, ""
    if bool((p == 0).any()):
        return False, "foreground pixels labelled 0"
    pairs = cp.unique(r * (int(p.max()) + 1) + p).size
    nr, npeer = cp.unique(r).size, cp.unique(p).size
    ok = pairs == nr == npeer
    return ok, "" if ok else f"{pairs} (CPU, cupy) label pairs for {nr} CPU and {npeer} cupy labels"


def time_label(cp, label, d_img, structure, out, reps):
    for _ in range(2):
        label(d_img, structure, output=out)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times, n = [], 0
    for _ in range(reps):
        start.record()
        n = label(d_img, structure, output=out)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
    return int(n), times


def median(v):
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def p99(v):
    s = sorted(v)
    return s[max(1, -(-99 * len(s) // 100)) - 1]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cases_of(results):
    """(width, height, g, density, connectivity) of every bench row, in first-seen order."""
    seen = {}
    for r in results:
        if r["library"] != "cupy":
            seen.setdefault(tuple(int(r[k]) for k in ("width", "height", "g", "density", "connectivity")), None)
    return list(seen)


def write_rows(path, results, rows):
    """results.csv without earlier cupy rows, plus the new ones."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in results:
            if r["library"] != "cupy":
                w.writerow([r[c] for c in COLUMNS])
        for r in rows:
            w.writerow([r[c] for c in COLUMNS])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-results", help="the bench's output folder (results.csv, inputs.csv)")
    ap.add_argument("--quick", action="store_true", help="fewer timed calls")
    args = ap.parse_args()
    try:
        import numpy as np
        import cupy as cp
        from cupyx.scipy.ndimage import label
        cp.cuda.runtime.getDeviceCount()
        cp.zeros(1).sum()
    except Exception as e:  # no cupy, no driver, no device
        print(f"cupy: skipped ({type(e).__name__}: {e})")
        return 0
    try:
        import cv2
    except Exception as e:
        print(f"cupy: skipped (cv2, needed for the CPU reference, is not importable: {e})")
        return 0
    if not check_generator(np):
        print("cupy: numpy's RandomState no longer matches std::mt19937: cannot draw the bench's images")
        return 1
    res_path = os.path.join(args.out, "results.csv")
    results = read_csv(res_path)
    if not results:
        print(f"cupy: skipped ({res_path} has no rows)")
        return 0
    inputs = {(int(i["width"]), int(i["height"]), int(i["g"]), int(i["density"])): i
              for i in read_csv(os.path.join(args.out, "inputs.csv"))}
    head = results[0]
    print(f"cupy {cp.__version__}, numpy {np.__version__}, cv2 {cv2.__version__}; {head['gpu']}, commit {head['commit']}")
    rows, failures, t_start, images = [], 0, time.time(), {}
    structures = {4: np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool), 8: np.ones((3, 3), bool)}
    for (w, h, g, d, conn) in cases_of(results):
        inp = inputs.get((w, h, g, d))
        if inp is None:
            print(f"  {w}x{h} g{g} d{d}: not in inputs.csv, skipped")
            continue
        if (w, h, g, d) not in images:
            images.clear()
            img = load_image(np, cv2, args.out, inp)
            if img is None or int(np.count_nonzero(img)) != int(inp["foreground_pixels"]):
                print(f"  MISMATCH {w}x{h} g{g} d{d}: cannot rebuild the bench's image ({inp['name']})")
                failures += 1
                continue
            images[(w, h, g, d)] = img
        img = images[(w, h, g, d)]
        _, ref = cv2.connectedComponents(img, connectivity=conn, ltype=cv2.CV_32S)
        d_img, out = cp.asarray(img), cp.empty((h, w), dtype=cp.int32)
        n, times = time_label(cp, label, d_img, structures[conn], out, reps_for(w, args.quick))
        ok, why = same_partition(cp, cp.asarray(ref), out)
        med = median(times)
        row = dict(head, library="cupy", algorithm="label", variant="labels", width=w, height=h, g=g, density=d,
                   connectivity=conn, n_labels=n + 1, median_us=f"{med:.3f}", p99_us=f"{p99(times):.3f}",
                   gpix_s=f"{w * h / med * 1e-3:.4f}")
        rows.append(row)
        print(f"  {w}x{h} g{g} d{d} conn{conn}: N={n + 1} median {med:.1f} us {w * h / med * 1e-3:.2f} Gpix/s"
              + ("" if ok else f"  MISMATCH {why}"))
        failures += not ok
    write_rows(res_path, results, rows)
    print(f"[ time ] cupy: {time.time() - t_start:.1f} s, {len(rows)} rows appended to {res_path}; "
          f"{failures} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
