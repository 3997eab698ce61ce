#!/usr/bin/env python3
# This file is part of cudacca, an OpenCV extra module.
# It is subject to the license terms in the LICENSE file found in the top-level directory.
"""Generates samples/data/cells.png, the samples' bundled default image (our own, synthetic).

A 640x640 8-bit grayscale "microscopy-like" picture: a smooth uneven background, about 110 bright cells
(ellipses, some touching, some with dark nuclei that leave holes), a few rings, specks and some text,
with anti-aliased edges. Deterministic (fixed seed).

    pip install --target build/pyimg opencv-python-headless numpy
    PYTHONPATH=build/pyimg python3 samples/data/make_default_image.py [output.png]
"""
import os
import sys

import numpy as np
import cv2

SEED = 7
SIZE = 640


def make(seed=SEED, size=SIZE):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    # smooth background, 30..70
    bg = 50 + 20 * np.sin(2.1 * xx + 0.7) * np.cos(1.7 * yy - 0.3)
    img = bg.astype(np.float32)  # uneven illumination: Otsu vs a fixed threshold differ

    cells = np.zeros((size, size), np.uint8)
    for _ in range(110):
        cx, cy = (int(v) for v in rng.integers(10, size - 10, 2))
        a = int(rng.integers(6, 26))
        b = int(max(4, a * rng.uniform(0.5, 1.0)))
        ang = float(rng.uniform(0, 180))
        val = int(rng.integers(150, 231))
        cv2.ellipse(cells, (cx, cy), (a, b), ang, 0, 360, val, -1, cv2.LINE_AA)
        if a > 14 and rng.random() < 0.5:  # dark nucleus: a hole in the component
            cv2.ellipse(cells, (cx, cy), (a // 3, b // 3), ang, 0, 360, 0, -1, cv2.LINE_AA)
    # a few rings (one component around a hole) and small specks
    for _ in range(6):
        c = tuple(int(v) for v in rng.integers(60, size - 60, 2))
        cv2.circle(cells, c, int(rng.integers(25, 55)), 210, int(rng.integers(3, 7)), cv2.LINE_AA)
    for _ in range(120):
        c = tuple(int(v) for v in rng.integers(0, size, 2))
        cv2.circle(cells, c, int(rng.integers(1, 3)), 200, -1)
    # text: every letter is one or more components
    cv2.putText(cells, "cudacca", (40, size - 40), cv2.FONT_HERSHEY_DUPLEX, 3.0, 220, 6, cv2.LINE_AA)
    cv2.putText(cells, "GPU labels + stats", (40, 70), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 220, 3, cv2.LINE_AA)

    return np.maximum(np.clip(img + 0.5, 0, 255).astype(np.uint8), cells)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "cells.png")
    img = make()
    if not cv2.imwrite(out, img, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        sys.exit("could not write " + out)
    print("wrote %s (%dx%d, %d bytes)" % (out, img.shape[1], img.shape[0], os.path.getsize(out)))


if __name__ == "__main__":
    main()
