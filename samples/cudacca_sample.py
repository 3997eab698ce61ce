#!/usr/bin/env python3
# This file is part of cudacca, an OpenCV extra module.
# It is subject to the license terms in the LICENSE file found in the top-level directory.
"""cudacca sample: threshold an image, label its connected components on the GPU with
cv2.cuda.connectedComponentsWithStats, print the largest components and write a color-coded label image.

    PYTHONPATH=<OpenCV build>/lib/python3 python3 cudacca_sample.py [image] [--threshold otsu|T] [--invert]
        [--connectivity 8|4] [--algorithm NAME] [--output cudacca_labels.png] [--boxes FILE] [--repeat N]
        [--check]

NAME: default or one of cv2.cuda.CCA_* without the prefix (uf, bke, buf, ke, ole, rcu, ha, flsl, flsl_cd,
flsl_otf, tmk, lbuf, dlp), case-insensitive.

Exit codes: 0 success, 1 error, 2 no CUDA device, 3 --check found a difference from the CPU's
cv2.connectedComponentsWithStats (CCL_SAUF).
"""
import argparse
import os
import sys
import time

import numpy as np
import cv2

DEFAULT_IMAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "cells.png")


def label_colors(labels):
    """Same colors as the C++ sample: a hash of the label, background black."""
    h = (labels.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
    bgr = np.stack([64 + ((h >> np.uint64(s)) & np.uint64(255)) * np.uint64(3) // np.uint64(4)
                    for s in (0, 8, 16)], axis=-1).astype(np.uint8)
    bgr[labels == 0] = 0
    return bgr


def first_difference(gpu, cpu, what):
    if gpu.shape != cpu.shape or gpu.dtype != cpu.dtype:
        return "%s: GPU %s %s vs CPU %s %s" % (what, gpu.shape, gpu.dtype, cpu.shape, cpu.dtype)
    a = np.ascontiguousarray(gpu)
    b = np.ascontiguousarray(cpu)
    if a.dtype == np.float64:  # bitwise, so that NaN equals NaN
        a, b = a.view(np.uint64), b.view(np.uint64)
    bad = np.argwhere(a != b)
    if len(bad) == 0:
        return None
    idx = tuple(int(i) for i in bad[0])
    return "%s: %d element(s) differ, first at %s: GPU %r, CPU %r" % (what, len(bad), idx, gpu[idx].item(),
                                                                      cpu[idx].item())


def threshold_arg(s):
    if s == "otsu":
        return None
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError("'otsu' or an integer 0..254, got %r" % s)
    if not 0 <= v <= 254:
        raise argparse.ArgumentTypeError("'otsu' or an integer 0..254, got %d" % v)
    return v


def algorithms():
    """{'default': cv2.cuda.CCA_DEFAULT, 'uf': cv2.cuda.CCA_UF, ...}: every CCA_* algorithm of this cv2 (not the
    CCA_ORDER_CCL_DEFAULT flag)."""
    cuda = getattr(cv2, "cuda", None)
    return {name[4:].lower(): getattr(cuda, name) for name in dir(cuda)
            if name.startswith("CCA_") and not name.startswith("CCA_ORDER_")}


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # exit code 1, not argparse's 2 (2 means: no CUDA device)
        self.print_usage(sys.stderr)
        self.exit(1, "%s: error: %s\n" % (self.prog, message))


def main():
    ap = ArgumentParser(description="cudacca sample: GPU connected components with statistics")
    ap.add_argument("image", nargs="?", default=DEFAULT_IMAGE, help="input image (default: %(default)s)")
    ap.add_argument("-t", "--threshold", type=threshold_arg, default=None, metavar="otsu|T",
                    help="'otsu' (default) or a fixed value 0..254; foreground: pixel > T")
    ap.add_argument("--invert", action="store_true", help="foreground is dark (pixel <= threshold)")
    ap.add_argument("-c", "--connectivity", type=int, choices=(4, 8), default=8)
    ap.add_argument("-a", "--algorithm", default="default", metavar="NAME",
                    help="default (cv2.cuda.CCA_DEFAULT) or another cv2.cuda.CCA_* without the prefix: %s"
                    % ", ".join(sorted(algorithms())))
    ap.add_argument("-o", "--output", default="cudacca_labels.png", help="color-coded label image to write")
    ap.add_argument("-b", "--boxes", default=None, metavar="FILE",
                    help="also write the label image with every bounding box and centroid drawn")
    ap.add_argument("-r", "--repeat", type=int, default=10,
                    help="timed calls after the warm-up (the median is printed; default %(default)s)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the CPU cv2.connectedComponentsWithStats (CCL_SAUF): MATCH or MISMATCH")
    args = ap.parse_args()

    if not hasattr(cv2, "cuda") or not hasattr(cv2.cuda, "connectedComponentsWithStats"):
        print("error: this cv2 (%s, %s) has no cv2.cuda.connectedComponentsWithStats: build OpenCV with cudacca"
              % (cv2.__version__, getattr(cv2, "__file__", "?")), file=sys.stderr)
        return 1
    if args.repeat < 1:
        ap.error("--repeat must be at least 1, got %d" % args.repeat)
    name = args.algorithm.lower()
    name = name[4:] if name.startswith("cca_") else name
    if name not in algorithms():
        ap.error("--algorithm must be one of %s, got %r" % (", ".join(sorted(algorithms())), args.algorithm))
    algorithm = algorithms()[name]

    # 1. read and binarize (on the CPU)
    gray = cv2.imread(args.image, cv2.IMREAD_GRAYSCALE)
    if gray is None:
        print("error: cannot read image %r" % args.image, file=sys.stderr)
        return 1
    ttype = cv2.THRESH_BINARY_INV if args.invert else cv2.THRESH_BINARY
    if args.threshold is None:
        t, binary = cv2.threshold(gray, 0, 255, ttype | cv2.THRESH_OTSU)
    else:
        t, binary = cv2.threshold(gray, args.threshold, 255, ttype)
    print("image: %s (%dx%d), threshold %s = %g%s, foreground %d pixels"
          % (args.image, gray.shape[1], gray.shape[0], "Otsu" if args.threshold is None else "fixed", t,
             ", inverted" if args.invert else "", cv2.countNonZero(binary)))

    # 2. a GPU is needed from here on
    devices = cv2.cuda.getCudaEnabledDeviceCount()
    if devices <= 0:
        print("no CUDA device available: cv2.cuda.getCudaEnabledDeviceCount() returned %d%s"
              % (devices, " (no CUDA driver, or OpenCV built without CUDA)" if devices < 0 else ""))
        return 2

    # 3. label on the GPU: a GpuMat input gives GpuMat outputs, ready once the stream is
    stream = cv2.cuda.Stream()
    d_binary = cv2.cuda_GpuMat()
    d_binary.upload(binary, stream)
    kwargs = dict(connectivity=args.connectivity, ltype=cv2.CV_32S, algorithm=algorithm, stream=stream)
    cv2.cuda.connectedComponentsWithStats(d_binary, **kwargs)  # warm-up: CUDA context, kernels
    stream.waitForCompletion()
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        n, d_labels, d_stats, d_centroids = cv2.cuda.connectedComponentsWithStats(d_binary, **kwargs)
        stream.waitForCompletion()
        times.append((time.perf_counter() - t0) * 1e3)
    labels, stats, centroids = d_labels.download(), d_stats.download(), d_centroids.download()

    print("connectivity %d, algorithm CCA_%s" % (args.connectivity, name.upper()))
    print("N = %d labels (background included): %d components, in %.3f ms per call (median of %d calls after a "
          "warm-up, outputs on the GPU)" % (n, n - 1, sorted(times)[len(times) // 2], args.repeat))

    # 4. the five largest components (label 0 is the background)
    order = sorted(range(1, n), key=lambda l: (-int(stats[l, cv2.CC_STAT_AREA]), l))[:5]
    print("largest %d components:" % len(order))
    print("  %8s %10s  %-24s %s" % ("label", "area", "bbox (x, y, w, h)", "centroid (x, y)"))
    for l in order:
        x, y, w, h, area = (int(v) for v in stats[l])
        print("  %8d %10d  %-24s (%.2f, %.2f)" % (l, area, "(%d, %d, %d, %d)" % (x, y, w, h),
                                                  centroids[l, 0], centroids[l, 1]))

    # 5. color-coded label image
    color = label_colors(labels)
    if not cv2.imwrite(args.output, color):
        print("error: cannot write %r" % args.output, file=sys.stderr)
        return 1
    print("wrote %s" % args.output)
    if args.boxes:
        # every component's bounding box (white) and centroid (red cross) on the label image
        for l in range(1, n):
            x, y, w, h = (int(v) for v in stats[l, :4])
            cv2.rectangle(color, (x, y), (x + w - 1, y + h - 1), (255, 255, 255), 1)
            cv2.drawMarker(color, (int(round(centroids[l, 0])), int(round(centroids[l, 1]))), (0, 0, 255),
                           cv2.MARKER_CROSS, 7, 1)
        if not cv2.imwrite(args.boxes, color):
            print("error: cannot write %r" % args.boxes, file=sys.stderr)
            return 1
        print("wrote %s (bounding boxes and centroids)" % args.boxes)

    # 6. optional exact comparison with the CPU
    if args.check:
        cn, cl, cs, cc = cv2.connectedComponentsWithStatsWithAlgorithm(
            binary, connectivity=args.connectivity, ltype=cv2.CV_32S, ccltype=cv2.CCL_SAUF)
        diff = None if cn == n else "number of labels: GPU %d, CPU %d" % (n, cn)
        diff = diff or first_difference(labels, cl, "labels") or first_difference(stats, cs, "stats") \
            or first_difference(centroids, cc, "centroids (bitwise)")
        if diff:
            print("MISMATCH with the CPU (CCL_SAUF): %s" % diff)
            return 3
        print("MATCH: labels, stats and centroids equal the CPU's (CCL_SAUF)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except cv2.error as e:
        print("OpenCV error: %s" % e, file=sys.stderr)
        sys.exit(1)
