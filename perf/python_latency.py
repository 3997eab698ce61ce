#!/usr/bin/env python3
"""The latency of cv2.cuda.connectedComponentsWithStats as Python calls it: a numpy image in, numpy labels, stats and
centroids out (wall clock of each call, the call's own wait included), against the same call with a GpuMat image
and GpuMat outputs. A diagnostic (doc/benchmarks.md, "Host labels in pinned Mats"), not part of the benchmark
protocol. Random pixels of the given density, seed 12345; prints p50 / p99 in us.
    python3 perf/python_latency.py [SIDE 512] [DENSITY 0.5] [CALLS 1000]
"""
import sys
import time

import cv2
import numpy as np


def percentiles(f, calls):
    for _ in range(max(20, calls // 10)):
        f()
    t = []
    for _ in range(calls):
        t0 = time.perf_counter()
        f()
        t.append((time.perf_counter() - t0) * 1e6)
    t.sort()
    return t[len(t) // 2], t[len(t) * 99 // 100]


def main():
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    density = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    img = (np.random.default_rng(12345).random((side, side)) < density).astype(np.uint8)
    d_img = cv2.cuda.GpuMat(img)
    d_labels, d_stats, d_centroids = cv2.cuda.GpuMat(), cv2.cuda.GpuMat(), cv2.cuda.GpuMat()
    stream = cv2.cuda.Stream()
    n, labels, stats, centroids = cv2.cuda.connectedComponentsWithStats(img)
    print(f"{side}x{side}, density {density}, N = {n}, {calls} calls")
    variants = [
        ("numpy in, numpy out", lambda: cv2.cuda.connectedComponentsWithStats(img)),
        ("numpy in, numpy labels passed in", lambda: cv2.cuda.connectedComponentsWithStats(img, labels)),
        ("GpuMat in, GpuMat out", lambda: (cv2.cuda.connectedComponentsWithStats(
            d_img, d_labels, d_stats, d_centroids, stream=stream), stream.waitForCompletion())),
    ]
    for name, f in variants:
        p50, p99 = percentiles(f, calls)
        print(f"  {name:36s} p50 {p50:8.1f}  p99 {p99:8.1f} us")


if __name__ == "__main__":
    main()
