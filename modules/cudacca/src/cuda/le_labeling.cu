// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// LE: the Label Equivalence of Hawick, Leist and Playne 2010 ("Parallel graph component labelling with
// GPUs and CUDA"), as described in Bolelli et al. 2024, section III-A-4 (the paragraphs before Kalentev's
// optimization, which is CCA_OLE in ole_labeling.cu). Produces a flat LabelForest. An iterative algorithm
// whose equivalences live in a SEPARATE array H (pitched like the forest: node q is H[q]), while the forest
// itself is the label image L (label = pitched index + 1, 0 = background):
//   Init     - L[p] = H[p] = p + 1 for the foreground, 0 for the background;
//   Scan     - each pixel finds the smallest neighbour label nl in L and, if nl < L[p], lowers H at its
//              label's node with atomicMin (H[L[p] - 1]); L is not written;
//   Analysis - each node of H that is a label replaced by its root (Find);
//   Labeling - L[p] <- H[L[p] - 1]: every pixel takes its label's root.
// Scan + Analysis + Labeling repeat until a Scan changes nothing (convergence: see runLe).
// Temporary device memory: H, 4 bytes per forest element. Departures from the paper: doc/algorithms.md,
// section "LE".

#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

//! Scan + Analysis + Labeling rounds queued per host check of the "changed" flags: first, and at most
//! (OLE's batches: the review's images converge in a few rounds, long spirals need many).
constexpr int kFirstRoundsPerCheck = 4;
constexpr int kMaxRoundsPerCheck = 16;

/** Init: L and H both index + 1 for the foreground, 0 for the background. Each thread writes only its own
pixel of each. */
__global__ void initKernel(const BinaryImage img, const LabelForest forest, int* H)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    const int v = device::isForeground(img, y, x) ? p + 1 : 0;
    forest.data[p] = v;
    H[p] = v;
}

/** Scan, 4 or 8 neighbours. Skips the whole round when the previous round's Scan changed nothing
(`previous` non-null and 0: the labels are final, and a round queued past convergence costs a launch).
Sets *changed (one store per warp, after a vote) when it lowers a node of H.

No race on L: this kernel only reads it. H is only written by atomicMin (the paper's: "Scan requires
atomic operations to avoid lost updates on H"), so no link is lost; the nodes written are labels
l - 1, which are roots of H at the start of the round (see runLe), and they are not read here. */
template <int kConnectivity>
__global__ void scanKernel(const LabelForest forest, int* H, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    const int* const L = forest.data;
    const int ld = forest.ld;
    bool linked = false;
    device::forEachPixel(forest, [&](int y, int x) {
        const int p = y * ld + x;
        const int l = L[p];
        if (l == 0)
            return;
        const int nl = device::smallestNeighbourLabel<kConnectivity>(L, forest, y, x, p);
        if (nl < l)
        {
            atomicMin(H + (l - 1), nl);
            linked = true;
        }
    });
    if (__any_sync(device::kFullMask, linked) && (threadIdx.x & 31u) == 0)
        *changed = 1;
}

/** Analysis: every node of H that is a label (L[q] == q + 1, the paper's test; runLe shows that these are
exactly the roots of H at the start of the round, and that H maps them among themselves) is replaced by
its root. Skips the round when its Scan changed nothing. L is not written in this kernel; in H only the
thread of q writes H[q], always an ancestor's label (inline compression, union_find.cuh), and roots do not
change, so the volatile walk ends at the same root whatever it reads. */
__global__ void analysisKernel(const LabelForest forest, int* H, const int* changed)
{
    if (*changed == 0)
        return;
    device::forEachPixel(forest, [&](int y, int x) {
        const int q = y * forest.ld + x;
        if (forest.data[q] == q + 1)
            device::findRootInlineCompress(H, q);
    });
}

/** Labeling: L[p] <- H[L[p] - 1], the root of the pixel's label. Skips the round when its Scan changed
nothing. Reads only H (not written in this kernel) and writes only its own pixel of L: no race. */
__global__ void labelingKernel(const LabelForest forest, const int* H, const int* changed)
{
    if (*changed == 0)
        return;
    device::forEachPixel(forest, [&](int y, int x) {
        const int p = y * forest.ld + x;
        const int l = forest.data[p];
        if (l != 0)
        {
            const int root = H[l - 1];
            if (root != l)
                forest.data[p] = root;
        }
    });
}

/** Invariants (every node and pixel foreground; "round" = Scan, Analysis, Labeling):
  (a) every value of L[p] and H[q] is the label r + 1 of a pixel r of the same component, with r <= p
      (r <= q): Init sets the pixel's own, Scan stores a neighbour's label below the node's own value,
      Analysis an ancestor's, Labeling the value of a node of H;
  (b) a node that is a root of H (H[r] == r + 1) has L[r] == r + 1: true at Init; Scan and Analysis do not
      write L and never make a root; Labeling gives r the value H[r] == r + 1;
  (c) after a Labeling, every label is a root's: Analysis flattened the nodes that Labeling reads.
At the start of a round the labels are then the roots of H, the nodes with L[q] == q + 1 (b, c); Scan links
only such nodes, to such labels, so Analysis, which walks from exactly these nodes, stays among them and
flattens every node that Labeling reads.
Termination: a Scan that sets the flag lowers at least one root's H[l - 1] below l, and a node that
stops being a root never becomes one again (values only decrease): the number of roots, at least one per
component, strictly decreases with every round that changes something.
Convergence gives the LabelForest contract: when a Scan changes nothing, every pair of neighbouring
foreground pixels has the same label, so a component carries one label r + 1 with r in it and r <= every
pixel of it (a): r is its raster-first pixel, and L[r] == r + 1. L is flat. */
template <int kConnectivity>
void runLe(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const long long pixels = static_cast<long long>(forest.rows) * forest.cols;
    // H covers the forest's pitched indices up to the last pixel: (rows - 1) * ld + cols < INT_MAX.
    const size_t nodes = static_cast<size_t>(forest.rows - 1) * static_cast<size_t>(forest.ld) + forest.cols;
    StreamBuffer hBuffer;
    int* const H = static_cast<int*>(hBuffer.allocate(nodes * sizeof(int), stream));

    initKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(img, forest, H);
    checkLaunch("LE init");

    // The paper's loop: Scan, Analysis, Labeling, until a Scan changes nothing (iterative_labeling.hpp
    // queues the rounds in batches between host checks). Always ends: see above.
    const unsigned blocks = waveBlocks(scanKernel<kConnectivity>, kThreads, blocksFor(pixels, kThreads));
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            scanKernel<kConnectivity><<<blocks, kThreads, 0, stream>>>(forest, H, previous, changed);
            checkLaunch("LE scan");
            analysisKernel<<<blocks, kThreads, 0, stream>>>(forest, H, changed);
            checkLaunch("LE analysis");
            labelingKernel<<<blocks, kThreads, 0, stream>>>(forest, H, changed);
            checkLaunch("LE labeling");
        },
        RoundBatches{ kFirstRoundsPerCheck, kMaxRoundsPerCheck }, "LE", stream);
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(le, runLe)

}}} // namespace cv::cuda::cudacca
