#!/usr/bin/env python3
"""How does OpenCV's CPU connectedComponents number the components? (issue 14, item 4)

For random block images (sizes 5..700, granularity 1-8, densities 10-80 %), with 1 and 8 threads and both
connectivities, compares the labels of CCL_<ALGORITHM> with
  - CCL_SAUF's labels (what cudacca returns: components in raster order of their first pixel), and
  - the same partition numbered in raster order of each component's first 2x2 block (rows 2k and 2k+1,
    columns 2j and 2j+1, blocks ordered by (k, j)), the order of the block-based algorithms.

    PYTHONPATH=<cv2 dir> python3 scripts/check_cpu_numbering.py [--algorithm DEFAULT|WU|GRANA|BOLELLI|SAUF|BBDT|SPAGHETTI]
                                                                [--images 40] [--seed 7]
Uses only the CPU (any cv2: the build's, or a pip opencv-python-headless).
"""
import argparse

import numpy as np
import cv2


def renumber(labels_sauf, n, key):
    """SAUF's partition renumbered 1..n-1 by the smallest key(y, x) of each component."""
    ys, xs = np.nonzero(labels_sauf)
    first = np.full(n, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first, labels_sauf[ys, xs], key(ys.astype(np.int64), xs.astype(np.int64)))
    order = np.argsort(first[1:], kind="stable") + 1
    new = np.zeros(n, np.int64)
    new[order] = np.arange(1, n)
    return new[labels_sauf]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithm", default="DEFAULT")
    ap.add_argument("--images", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    ccl = getattr(cv2, "CCL_" + a.algorithm)
    print("OpenCV %s, CCL_%s, %d images per case, seed %d" % (cv2.__version__, a.algorithm, a.images, a.seed))
    for threads in (1, 8):
        cv2.setNumThreads(threads)
        for conn in (8, 4):
            rng = np.random.default_rng(a.seed)
            same = {"partition": 0, "SAUF's numbering": 0, "first-2x2-block numbering": 0}
            for _ in range(a.images):
                h, w = int(rng.integers(5, 700)), int(rng.integers(5, 700))
                g = int(rng.choice([1, 2, 3, 4, 8]))
                d = float(rng.choice([0.1, 0.3, 0.5, 0.6, 0.8]))
                blocks = (rng.random((h // g + 1, w // g + 1)) < d).astype(np.uint8)
                img = np.ascontiguousarray(np.kron(blocks, np.ones((g, g), np.uint8))[:h, :w])
                n, got = cv2.connectedComponentsWithAlgorithm(img, conn, cv2.CV_32S, ccl)
                ns, sauf = cv2.connectedComponentsWithAlgorithm(img, conn, cv2.CV_32S, cv2.CCL_SAUF)
                if n != ns:
                    continue
                if np.unique(np.stack([got.ravel(), sauf.ravel()]), axis=1).shape[1] == n:
                    same["partition"] += 1
                same["SAUF's numbering"] += int(np.array_equal(got, sauf))
                block = renumber(sauf, n, lambda y, x: ((y // 2) * ((w + 1) // 2) + x // 2) * 4 + (y % 2) * 2 + x % 2)
                same["first-2x2-block numbering"] += int(np.array_equal(got, block))
            print("  %d thread(s), %d-connectivity: %s" % (threads, conn, ", ".join(
                "%s %d/%d" % (k, v, a.images) for k, v in same.items())))


if __name__ == "__main__":
    main()
