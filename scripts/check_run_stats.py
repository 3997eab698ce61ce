#!/usr/bin/env python3
"""A CPU model of CCA_DEFAULT's statistics from the recorded runs (flsl_labeling.cu): what the early up-link pass
records (linkWordRuns: each run's start and row at its slot; recordRunEnds: its end from the words' falling edges, and
at a row's last word, when the width is a multiple of 32, the run that reaches bit 31), then what runStatsBlock makes of
it (each run's pixels; the background as the gap before each run, from the previous run's end or the row's start, the
gap after its row's last run, and the rows without runs). On random and adversarial images, every recorded run must
be the true run at its slot, and runs and gaps must cover every pixel exactly once, foreground as runs and background
as gaps. --no-row-end drops recordRunEnds' row-end case and must fail (a run to the last column of a width of 64).
Pure Python, no GPU: python3 scripts/check_run_stats.py [--images N] [--seed S] [--no-row-end]"""
import argparse
import random
import sys

WARP, MASK32 = 32, 0xFFFFFFFF


def popc(x):
    return bin(x & MASK32).count("1")


def table(img, cols):
    """The run table's bitmap words, edge counts before each word and row slots, as the detection leaves them."""
    wpr = (cols + WARP - 1) // WARP
    bits, before, slots = [], [], [0]
    for row in img:
        words = [0] * wpr
        for x, p in enumerate(row):
            if p:
                words[x // WARP] |= 1 << (x % WARP)
        edges, prev, b = 0, 0, []
        for f in words:
            b.append(edges)
            edges += popc(f ^ (((f << 1) & MASK32) | prev))
            prev = f >> 31
        bits.append(words)
        before.append(b)
        slots.append(slots[-1] + (edges + 1) // 2)
    return wpr, bits, before, slots


def record(img, cols, row_end=True):
    """linkThreadWords with RecordedRuns: starts[k] = (s, y), ends[k] = the x past run k's last pixel."""
    wpr, bits, before, slots = table(img, cols)
    starts, ends = {}, {}
    for y in range(len(img)):
        for c in range(wpr):
            f, bf = bits[y][c], before[y][c]
            edge_mask = f ^ (((f << 1) & MASK32) | (bf & 1))
            rises = f & edge_mask
            for b in range(WARP):
                if rises >> b & 1:
                    k = slots[y] + ((bf + popc(edge_mask & ((2 << b) - 1)) - 1) >> 1)
                    starts[k] = (c * WARP + b, y)
            falls = ~f & edge_mask & MASK32
            for b in range(WARP):
                if falls >> b & 1:
                    k = slots[y] + ((bf + popc(edge_mask & ((2 << b) - 1)) - 1) >> 1)
                    ends[k] = c * WARP + b
            if row_end and c + 1 == wpr and f >> 31:
                ends[slots[y] + ((bf + popc(edge_mask) - 1) >> 1)] = cols
    return slots, starts, ends


def check(img, cols, row_end=True):
    """None if the model's runs and gaps are the image, else what differs."""
    rows = len(img)
    slots, starts, ends = record(img, cols, row_end)
    n = slots[rows]
    true = [(x, y) for y in range(rows) for x in range(cols) if img[y][x] and (x == 0 or not img[y][x - 1])]
    if sorted(starts) != list(range(n)) or [starts[k] for k in range(n)] != true:
        return "recorded starts are not the runs in raster order"
    if sorted(ends) != list(range(n)):
        return "run ends not recorded: slots %s" % sorted(set(range(n)) - set(ends))[:5]
    cover = [[0] * cols for _ in range(rows)]
    fg = [[0] * cols for _ in range(rows)]

    def mark(x0, x1, y, fore):
        for x in range(x0, x1):
            cover[y][x] += 1
            fg[y][x] = fore

    for k in range(n):  # runStatsBlock, thread k
        s, y = starts[k]
        e = ends[k]
        mark(s, e, y, 1)
        gap_from = ends[k - 1] if k > slots[y] else 0
        if s > gap_from:
            mark(gap_from, s, y, 0)
        if k + 1 == slots[y + 1] and e < cols:
            mark(e, cols, y, 0)
    for y in range(rows):  # runStatsBlock, thread y: the rows without runs
        if slots[y] == slots[y + 1]:
            mark(0, cols, y, 0)
    for y in range(rows):
        for x in range(cols):
            if cover[y][x] != 1:
                return "pixel (%d, %d) covered %d times" % (x, y, cover[y][x])
            if fg[y][x] != (1 if img[y][x] else 0):
                return "pixel (%d, %d) counted as %s" % (x, y, "foreground" if fg[y][x] else "background")
    return None


def cases(rng, count):
    yield "a run to the last column, width 64", [[0] * 10 + [1] * 54, [1] * 64]
    yield "full rows, width 96", [[1] * 96] * 3
    yield "empty rows between runs, width 33", [[0] * 33, [1] + [0] * 31 + [1], [0] * 33]
    yield "one-pixel runs at word edges, width 128", [[(x % 32) in (0, 31) for x in range(128)]]
    yield "checkerboard, width 65", [[(x + y) & 1 for x in range(65)] for y in range(4)]
    for i in range(count):
        cols = rng.choice([1, 5, 31, 32, 33, 63, 64, 65, 96, 100, 128, 200])
        rows = rng.randint(1, 6)
        d = rng.random()
        run_len = rng.choice([1, 3, 8, 40])
        img = []
        for _ in range(rows):
            row, x = [], 0
            while x < cols:
                v = 1 if rng.random() < d else 0
                n = rng.randint(1, run_len)
                row += [v] * n
                x += n
            img.append(row[:cols])
        yield "random %d: %d x %d" % (i, cols, rows), img


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-row-end", action="store_true", help="drop recordRunEnds' row-end case: must fail")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    checked = 0
    for name, img in cases(rng, a.images):
        why = check(img, len(img[0]), row_end=not a.no_row_end)
        if why:
            print("FAIL %s: %s (seed %d)" % (name, why, a.seed))
            return 1
        checked += 1
    print("OK %d images: every recorded run at its slot, every pixel in one run or one gap" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
