#!/usr/bin/env python3
"""carry_model: a host model of the run pipeline's statistics merge (flsl_labeling.cu, accumulateRunsBlock with
Conflict Detection, then statistics.cuh's WarpCarry), to count the sets of atomics each label receives.

A warp takes a row and offers its runs 32 at a time in x order (one offer a round); Conflict Detection groups a
round's runs by label and each group's lowest lane (its leader) offers the group's set. The carry holds one
label: the sets of that label join it in registers, every other set is one set of atomics. When the carried
label is not offered, the carry moves to the round's candidate if that candidate was also the last round's (or
the carry is empty, rule `member` only). Rules for the candidate:
  leader  the highest offering lane's label (a group's leader: main until session 40)
  member  the label of the highest lane holding a run (the round's last run), and an empty carry takes it at once
The model ignores the rows' segments (a row is one warp: images of 8192 rows or more) and the block's carry.

  PYTHONPATH=build/opencv/lib/python3 python3 perf/carry_model.py SIDE DENSITY CONNECTIVITY [RULE]

Prints the labels, rounds, sets of atomics in all, and the labels that receive the most (with their area).
"""
import collections
import sys

import cv2
import numpy as np


def main():
    side, d, conn = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    rule = sys.argv[4] if len(sys.argv) > 4 else "member"
    img = (np.random.default_rng(1).random((side, side)) < d).astype(np.uint8)
    n, lab = cv2.connectedComponents(img, connectivity=conn, ltype=cv2.CV_32S)
    sets = collections.Counter()
    rounds = carried = 0
    for y in range(side):
        row = img[y]
        starts = np.nonzero(np.diff(np.concatenate(([0], row, [0]))) == 1)[0]
        labels = lab[y][starts]
        label, last = -1, -1
        for r0 in range(0, len(labels), 32):
            rounds += 1
            ls = [int(v) for v in labels[r0:r0 + 32]]
            leader = {}
            for lane, l in enumerate(ls):
                leader.setdefault(l, lane)
            candidate = max(leader, key=leader.get) if rule == "leader" else ls[-1]
            if label not in leader:
                if candidate != last and not (rule == "member" and label < 0):
                    last = candidate
                    sets.update(leader.keys())
                    continue
                if label >= 0:
                    sets[label] += 1  # the flush
                label = candidate
            for l in leader:
                if l == label:
                    carried += 1
                else:
                    sets[l] += 1
    total = sum(sets.values())
    print(f"{rule}: {side}^2, d = {d}, {conn}-conn: {n - 1} labels, {rounds} rounds, {total} sets of atomics "
          f"({total / rounds:.1f} a round), {carried} sets carried")
    area = np.bincount(lab.ravel())
    for l, c in sets.most_common(3):
        print(f"  label {l}: {c} sets, area {area[l]}")


if __name__ == "__main__":
    main()
