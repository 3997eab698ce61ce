#!/usr/bin/env python3
"""A CPU model of the few-runs block's compressions (flsl_labeling.cu: jumpToRoots in fewRunsChainKernel), thread by
thread: slot k = tid + i * 1024 (so a warp holds 32 consecutive slots for each i), first 5 shuffle rounds inside each
warp's 32 slots (a lane takes its parent's value where the parent is in the window), then block rounds, each moving
every slot to its grandparent, modelled as synchronous (each round reads the state the last one left: the GPU's
racing rounds take at most as many). On chains (the full image's runs one under the other), random forests and
shallow ones, with parents at or before their children as in the early up-link table and after the unions, every
slot must end at its root; the rounds are printed (the 6144-run chain: 9 with the windows, 14 without), for both of
the block's shapes (6 slots a thread up to kFewRunsSmall runs, 8 up to kFewRuns).
After the shuffle rounds every slot must point at its root or at its first ancestor before its window (what the
block rounds' count rests on); --window-rounds 4 models one round too few and must fail there: a chain through a
whole window takes 31 steps, 5 doubling rounds.
The block's shapes (kFewRunsThreads, kFewRunsSmall, kFewRuns) are read from flsl_labeling.cu, and
FewRunsChainAtCountedSizes' boundaries (test_connected_components.cpp) must be those, so that the test keeps sitting on
the block's limits.
Pure Python, no GPU: python3 scripts/check_few_runs_jumps.py [--seed S] [--window-rounds R]"""
import argparse
import random
import sys

import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def source_constant(path, pattern):
    """The integer that `pattern` (one group) finds in the repository file `path`."""
    with open(os.path.join(ROOT, path)) as f:
        m = re.search(pattern, f.read())
    if not m:
        sys.exit(f"FAIL: {pattern!r} not found in {path}")
    return int(m.group(1))


# The block's shapes as the module declares them, and the accuracy test's boundaries, which must be the same.
THREADS = source_constant("modules/cudacca/src/cuda/flsl_labeling.cu", r"constexpr int kFewRunsThreads = (\d+);")
FEW_RUNS = source_constant("modules/cudacca/src/cuda/flsl_labeling.cu", r"constexpr unsigned kFewRuns = (\d+);")
FEW_RUNS_SMALL = source_constant("modules/cudacca/src/cuda/flsl_labeling.cu", r"constexpr unsigned kFewRunsSmall = (\d+);")
TEST_FEW_RUNS_SMALL = source_constant("modules/cudacca/test/test_connected_components.cpp",
                                      r"const long long fewRunsSmall = (\d+), fewRuns = \d+; // kFewRunsSmall, kFewRuns")
TEST_FEW_RUNS = source_constant("modules/cudacca/test/test_connected_components.cpp",
                                r"const long long fewRunsSmall = \d+, fewRuns = (\d+); // kFewRunsSmall, kFewRuns")
WARP = 32
PER_THREAD = FEW_RUNS // THREADS  # the shape being modelled (main() sets it for each)


def window_prologue(f, n, rounds):
    """The shuffle rounds: f holds 1-based parents; for each i and warp, lanes' values exchanged synchronously."""
    for i in range(PER_THREAD):
        if i * THREADS >= n:
            break
        for w in range(THREADS // WARP):
            ks = [w * WARP + lane + i * THREADS for lane in range(WARP)]
            v = [f[k] if k < n else 0 for k in ks]
            v0 = list(v)
            for _ in range(rounds):
                nv = list(v)
                for lane in range(WARP):
                    at = (v[lane] - 1 - (ks[lane] - lane)) & 0xFFFFFFFF
                    if at < WARP:
                        nv[lane] = v[at]
                v = nv
            for lane in range(WARP):
                if v[lane] != v0[lane]:
                    f[ks[lane]] = v[lane]


def block_rounds(f, n):
    """Synchronous grandparent rounds until one moves nothing; returns how many ran (the last one included)."""
    rounds = 0
    while True:
        rounds += 1
        g = [f[f[k] - 1] for k in range(n)]
        moved = any(g[k] != f[k] for k in range(n))
        f[:n] = g
        if not moved:
            return rounds


def roots(parents):
    out = []
    for k, p in enumerate(parents):
        out.append(k if p - 1 == k else out[p - 1])
    return out


def forest(kind, n, rng):
    """1-based parents, each at or before its slot."""
    if kind == "chain":
        return [max(k, 1) for k in range(n)]
    if kind == "random":
        return [rng.randint(1, k + 1) for k in range(n)]
    # short: each parent at most 40 slots back, or a root (one in ten)
    return [k + 1 if rng.random() < 0.1 else max(1, k + 1 - rng.randint(1, 40)) for k in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--window-rounds", type=int, default=5)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    global PER_THREAD
    print(f"seed {seed}, {a.window_rounds} shuffle rounds; kFewRunsSmall {FEW_RUNS_SMALL}, kFewRuns {FEW_RUNS}, {THREADS} threads")
    failures = 0
    if (TEST_FEW_RUNS, TEST_FEW_RUNS_SMALL) != (FEW_RUNS, FEW_RUNS_SMALL) or FEW_RUNS % THREADS or FEW_RUNS_SMALL % THREADS:
        print(f"FAIL FewRunsChainAtCountedSizes' fewRunsSmall, fewRuns ({TEST_FEW_RUNS_SMALL}, {TEST_FEW_RUNS}) are not"
              f" kFewRunsSmall, kFewRuns ({FEW_RUNS_SMALL}, {FEW_RUNS}), or those are not whole slots of {THREADS} threads")
        failures += 1
    cases = [(FEW_RUNS_SMALL, n) for n in (1, 31, 32, 33, 1000, 1024, 4096, FEW_RUNS_SMALL, rng.randint(1, FEW_RUNS_SMALL))]
    cases += [(FEW_RUNS, n) for n in (FEW_RUNS_SMALL + 1, FEW_RUNS, rng.randint(FEW_RUNS_SMALL + 1, FEW_RUNS))]
    for limit, n in cases:
        PER_THREAD = limit // THREADS
        for kind in ("chain", "random", "short"):
            parents = forest(kind, n, rng)
            want = roots(parents)
            f = parents + [0] * (THREADS * PER_THREAD - n)
            window_prologue(f, n, a.window_rounds)
            after_window = f[:n]
            rounds = block_rounds(f, n)
            plain = parents + [0] * (THREADS * PER_THREAD - n)
            plain_rounds = block_rounds(plain, n)
            ok = all(f[k] - 1 == want[k] for k in range(n))
            # the prologue's own claim: every slot at its root or at its first ancestor before its window
            for k in range(n):
                base = k - k % WARP
                v = after_window[k] - 1
                if not (v == want[k] or v < base):
                    ok = False
                    break
            print(f"{'ok  ' if ok else 'FAIL'} {kind:7s} n = {n:5d} ({PER_THREAD} a thread): {rounds:2d} block rounds"
                  f" ({plain_rounds} without the windows)")
            failures += not ok
    print("all exact" if not failures else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
