#!/usr/bin/env python3
"""A CPU model of the FLSL statistics' run rounds over row segments (flsl_labeling.cu: forEachRunRound with
firstWord/endWord, runEndFrom, segmentBackground, and the segment's first slot in accumulateRunsBlock), lane by lane
and store by store, on random and adversarial rows: every segment must hand out exactly the runs that start in it,
each with its true end, from ring entries that hold the index a round expects, with no two entries of one store in
one slot; its first slot must count the runs before it; its background must be the row's pixels there.
--old-bound models the ring bound before c3afb45's fix and must fail (the 1601-pixel checkerboard row the fuzzer
found). Pure Python, no GPU: python3 scripts/check_run_segments.py [--rows N] [--seed S] [--old-bound]"""
import argparse
import random
import sys

WARP, RING, MASK32 = 32, 512, 0xFFFFFFFF


def tdiv2(a):
    """C++ a / 2 for int a (truncates toward zero)."""
    return -((-a) // 2) if a < 0 else a // 2


def popc(x):
    return bin(x & MASK32).count("1")


def bitmap(pixels):
    """The row's bitmap words (bit b of word c = pixel 32c + b; 0 past the row)."""
    words = (len(pixels) + WARP - 1) // WARP
    out = [0] * words
    for x, p in enumerate(pixels):
        if p:
            out[x // WARP] |= 1 << (x % WARP)
    return out


def true_runs(pixels):
    runs, x = [], 0
    while x < len(pixels):
        if pixels[x]:
            s = x
            while x < len(pixels) and pixels[x]:
                x += 1
            runs.append((s, x))
        else:
            x += 1
    return runs


def run_end_from(row, start, words, cols):
    for w0 in range(start, words, WARP):
        bg = [(~row[c] & MASK32) if c < words else MASK32 for c in range(w0, w0 + WARP)]
        for j, b in enumerate(bg):
            if b:
                return (w0 + j) * WARP + (b & -b).bit_length() - 1
    return cols


class RingError(Exception):
    pass


def for_each_run_round(row, cols, first, end, old_bound=False):
    """forEachRunRound<false> over words [first, end) of `row`: the runs handed out, in order, as (s, e)."""
    words = len(row)
    ring = [None] * RING  # (edge index, value)
    carry = row[first - 1] if first > 0 else 0
    state = {"edges": -(carry >> 31), "done": 0}
    out = []

    def rnd():
        e = state["edges"]
        for lane in range(WARP):
            r = state["done"] + lane
            if r < tdiv2(e):
                for idx in (2 * r, 2 * r + 1):
                    got = ring[idx & (RING - 1)]
                    if got is None or got[0] != idx:
                        raise RingError("round reads entry %d from slot %d, which holds %r" % (idx, idx & (RING - 1), got))
                out.append((ring[(2 * r) & (RING - 1)][1], ring[(2 * r + 1) & (RING - 1)][1]))
        state["done"] += WARP

    for w0 in range(first, end, WARP):
        f = [row[c] if c < end else 0 for c in range(w0, w0 + WARP)]
        prev = [carry] + f[:-1]
        mask = [((f[i] ^ (((f[i] << 1) | (prev[i] >> 31)) & MASK32)) if w0 + i < end else 0) for i in range(WARP)]
        with_edges = [i for i in range(WARP) if mask[i]]
        if with_edges:
            counts = [popc(m) for m in mask]
            load = sum(counts)
            edges, done = state["edges"], state["done"]
            held = edges - 2 * done + load + (0 if old_bound or edges >= 0 else 1)
            if held <= RING:  # all 32 words at once
                written = {}
                below = 0
                for i in range(WARP):
                    k, m = edges + below, mask[i]
                    while m:
                        bit = (m & -m).bit_length() - 1
                        slot = k & (RING - 1)
                        if slot in written:
                            raise RingError("one store writes slot %d twice (entries %d and %d)" % (slot, written[slot], k))
                        written[slot] = k
                        ring[slot] = (k, (w0 + i) * WARP + bit)
                        k += 1
                        m &= m - 1
                    below += counts[i]
                state["edges"] += load
                while tdiv2(state["edges"]) - state["done"] >= WARP:
                    rnd()
                with_edges = []
            for j in with_edges:  # word by word
                ej = mask[j]
                base = state["edges"]
                for lane in range(WARP):
                    if (ej >> lane) & 1:
                        k = base + popc(ej & ((1 << lane) - 1))
                        ring[k & (RING - 1)] = (k, (w0 + j) * WARP + lane)
                state["edges"] += popc(ej)
                if tdiv2(state["edges"]) - state["done"] >= WARP:
                    rnd()
        carry = f[WARP - 1]
    if state["edges"] & 1:
        if state["edges"] > 0:
            k = state["edges"]
            ring[k & (RING - 1)] = (k, run_end_from(row, end, words, cols))
        state["edges"] += 1
    while state["done"] < tdiv2(state["edges"]):
        rnd()
    return out


def edges_before(row, c):
    """The row's edges before word c (as the detection writes them)."""
    prev, n = 0, 0
    for w in row[:c]:
        n += popc(w ^ (((w << 1) | (prev >> 31)) & MASK32))
        prev = w
    return n


def segment_background(row, c0, c1, cols):
    area = sum_x = 0
    lo, hi = None, None
    for c in range(c0, c1):
        x0 = c * WARP
        in_row = min(WARP, cols - x0)
        bg = ~row[c] & (MASK32 if in_row == WARP else (1 << in_row) - 1) & MASK32
        if not bg:
            continue
        n = popc(bg)
        offsets = (popc(bg & 0xAAAAAAAA) + 2 * popc(bg & 0xCCCCCCCC) + 4 * popc(bg & 0xF0F0F0F0) +
                   8 * popc(bg & 0xFF00FF00) + 16 * popc(bg & 0xFFFF0000))
        area += n
        sum_x += n * x0 + offsets
        lo = x0 + (bg & -bg).bit_length() - 1 if lo is None else lo
        hi = x0 + bg.bit_length() - 1
    return area, sum_x, lo, hi


def check_row(pixels, seg_words, old_bound=False):
    cols = len(pixels)
    row = bitmap(pixels)
    words = len(row)
    runs = true_runs(pixels)
    got_all = []
    for c0 in range(0, words, seg_words):
        c1 = min(c0 + seg_words, words)
        got = for_each_run_round(row, cols, c0, c1, old_bound)
        want = [r for r in runs if c0 * WARP <= r[0] < c1 * WARP]
        if got != want:
            return "segment [%d, %d): runs %r, expected %r" % (c0, c1, got[:4], want[:4])
        first_slot = (edges_before(row, c0) + 1) >> 1 if c0 > 0 else 0
        if first_slot != sum(1 for r in runs if r[0] < c0 * WARP):
            return "segment [%d, %d): first slot %d" % (c0, c1, first_slot)
        xs = [x for x in range(c0 * WARP, min(c1 * WARP, cols)) if not pixels[x]]
        want_bg = (len(xs), sum(xs), xs[0] if xs else None, xs[-1] if xs else None)
        if segment_background(row, c0, c1, cols) != want_bg:
            return "segment [%d, %d): background %r, expected %r" % (c0, c1, segment_background(row, c0, c1, cols), want_bg)
        got_all += got
    return None if got_all == runs else "the segments' runs are not the row's"


def rows(n, rng):
    """Adversarial rows first (the fuzzer's checkerboard, one-pixel runs filling a segment after an open run, long
    runs across many segments, edges at word ends), then random ones."""
    yield "checkerboard 1601, row 1", [x % 2 for x in range(1601)], 17
    for seg in (17, 20, 32, 16, 1):
        # the second segment starts inside a run (pixel 32 seg - 1) and has an edge at each of its first 513
        # pixels: 513 edges in one store, the dropped one first (needs more than 16 words)
        yield ("open run + 513 edges",
               [0] * (32 * seg - 1) + [1] + [k % 2 for k in range(513)] + [0] * (32 * seg), seg)
    yield "one run across the row", [1] * 3000, 2
    yield "background", [0] * 2049, 16
    yield "runs ending at word ends", ([0] * 31 + [1]) * 70, 3
    for i in range(n):
        cols = rng.choice([1, 31, 32, 33, 64, 100, 1023, 1024, 1601, 2048, 2049, 4099])
        kind = rng.random()
        if kind < 0.3:
            d = rng.random()
            pixels = [1 if rng.random() < d else 0 for _ in range(cols)]
        elif kind < 0.6:  # blocks of g pixels
            g = rng.choice([2, 3, 16, 100, 500])
            d = rng.random()
            cells = [1 if rng.random() < d else 0 for _ in range(cols // g + 1)]
            pixels = [cells[x // g] for x in range(cols)]
        else:  # alternating with a phase, long stretches mixed in
            pixels = [(x + i) % 2 for x in range(cols)]
            for _ in range(rng.randint(0, 3)):
                a = rng.randrange(cols)
                b = min(cols, a + rng.randint(1, 600))
                v = rng.randint(0, 1)
                pixels[a:b] = [v] * (b - a)
        yield "random %d (cols %d)" % (i, cols), pixels, rng.choice([1, 2, 3, 16, 17, 24, 32, 64, 1 << 20])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--old-bound", action="store_true", help="the ring bound before the fix: must fail")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    print("check_run_segments: seed %d%s" % (seed, ", the old ring bound" if a.old_bound else ""))
    rng = random.Random(seed)
    failures = 0
    for name, pixels, seg in rows(a.rows, rng):
        try:
            problem = check_row(pixels, seg, a.old_bound)
        except RingError as e:
            problem = str(e)
        if problem:
            failures += 1
            print("FAIL %s, segments of %d words: %s" % (name, seg, problem))
    print("%d rows, %d failing" % (a.rows + 9, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
