#!/usr/bin/env python3
"""One cudacca call on a benchmark-like image, repeated, for Nsight Compute (doc/benchmarks.md, "Per kernel").

    ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        python3 perf/profile_call.py --size 8192 --granularity 1 --density 0.5 --algorithm FLSL_CD

--granularity 0 is the full (all-foreground) image; --analyzer calls through one ConnectedComponentsAnalyzer;
--timed N adds N wall-clocked calls (without ncu: a quick latency reading, Python's overhead included).
The image is made like the benchmark's random images
(blocks of g x g pixels, foreground with probability d) with numpy, uploaded once; the call runs --calls
times (the last is the one to read) with GpuMat labels, stats and centroids (CV_32S), as the benchmark's
`full` variant. Exit code 3 if the labels differ from the CPU's (CCL_SAUF) on the last call.
"""
import argparse
import sys

import numpy as np
import cv2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--granularity", type=int, default=1)
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--algorithm", default="DEFAULT")
    ap.add_argument("--connectivity", type=int, default=8)
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--analyzer", action="store_true",
                    help="call through one cv2.cuda.ConnectedComponentsAnalyzer (kept for every call)")
    ap.add_argument("--timed", type=int, default=0,
                    help="after the calls, N more wall-clocked calls (GpuMat outputs, reused; the stream "
                         "waited for); prints p50 / p99 (run without ncu)")
    a = ap.parse_args()

    n = a.size
    if a.granularity == 0:
        img = np.ones((n, n), np.uint8)
    else:
        rng = np.random.default_rng(a.seed)
        g = a.granularity
        blocks = (rng.random(((n + g - 1) // g, (n + g - 1) // g)) < a.density).astype(np.uint8)
        img = np.ascontiguousarray(np.repeat(np.repeat(blocks, g, 0), g, 1)[:n, :n])
    algo = getattr(cv2.cuda, "CCA_" + a.algorithm)
    d = cv2.cuda_GpuMat()
    d.upload(img)
    analyzer = cv2.cuda.createConnectedComponentsAnalyzer(algo, a.connectivity, cv2.CV_32S) if a.analyzer else None

    def call(labels=None):
        if analyzer is not None:
            return analyzer.apply(d, labels)
        return cv2.cuda.connectedComponentsWithStats(d, labels, connectivity=a.connectivity, ltype=cv2.CV_32S,
                                                     algorithm=algo)

    for _ in range(a.calls):
        count, labels, stats, centroids = call()
    cpu_count, cpu_labels = cv2.connectedComponentsWithAlgorithm(img, a.connectivity, cv2.CV_32S, cv2.CCL_SAUF)
    same = count == cpu_count and np.array_equal(labels.download(), cpu_labels)
    print(f"{a.algorithm} {n}^2 g={a.granularity} d={a.density} {a.connectivity}-conn: "
          f"{count} labels, {'MATCH' if same else 'MISMATCH'} with the CPU")
    if a.timed > 0:
        import time
        times = []
        for _ in range(a.timed):
            t0 = time.perf_counter()
            count, labels, _, _ = call(labels)
            cv2.cuda.Stream.Null().waitForCompletion()
            times.append((time.perf_counter() - t0) * 1e6)
        times.sort()
        print("%d timed calls%s: p50 %.1f us, p99 %.1f us (Python wall clock, binding overhead included)"
              % (a.timed, " through an analyzer" if analyzer is not None else "",
                 times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]))
    return 0 if same else 3


if __name__ == "__main__":
    sys.exit(main())
