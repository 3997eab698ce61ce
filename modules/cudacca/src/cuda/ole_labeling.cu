// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// OLE: the label equivalence of Kalentev et al. 2011 ("Connected component labeling on a 2D grid
// using CUDA", section 2.2 and Listings 1-3; Bolelli et al. 2024 call it OLE, section III-A-4 and
// Algorithm 3). Produces a flat LabelForest. An iterative algorithm with no separate equivalence array:
// the labels ARE the references, stored in the forest itself (label = pitched index + 1, 0 = background).
//   Initialization (Listing 1) - every foreground pixel gets its own index as label: a forest of roots;
//   Scanning (Listing 3)       - each pixel links the tree of its label to its smallest neighbour label;
//   Analysis (Listing 2)       - each pixel follows its chain of labels to the root (full compression).
// Scanning + Analysis repeat until a Scanning changes nothing (convergence: see runOle).
// Departures from the paper: doc/algorithms.md, section "OLE".

#include "../labeling.hpp"
#include "launch.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

//! Scanning + Analysis rounds queued per host check of the "changed" flags: first, and at most.
constexpr int kFirstRoundsPerCheck = 4;
constexpr int kMaxRoundsPerCheck = 16;

/** Listing 3 (Scanning), 4 or 8 neighbours. Skips the whole round when the previous round's Scanning
changed nothing (`previous` non-null and 0): the labels are final then, and the rounds queued after
convergence cost a launch each. Sets *changed (one store per warp, after a vote) when it links a tree.

Intentional races, all benign. Thread x writes L[l - 1] (the root of its tree) while other threads
read that node as a neighbour label, read it as their own label, or write it too (two pixels whose trees
have the same root). Plain loads and stores, as in the paper:
  - every value a node ever holds is the label of a pixel of the same component (a neighbour's label
    is), and lower than the node's own index + 1; so a read of the old or of the new value gives a valid
    label and a valid nl, and no write can make a cycle or join two components;
  - two writes to the same root: the last one wins and the other link is lost; both are below the root's
    own label, so the root is linked either way, and the pixel whose link was lost still sees a smaller
    neighbour label in the next round (the flag is set, so there is one) and links again.
Progress: a round that sets the flag links at least one root (the roots' count strictly decreases), so
the iteration terminates; a round that changes nothing leaves the flag 0. */
template <int kConnectivity>
__global__ void scanKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    int* const L = forest.data;
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
            const int old = L[l - 1];
            L[l - 1] = min(old, nl);
            linked = true;
        }
    });
    if (__any_sync(0xffffffffu, linked) && (threadIdx.x & 31u) == 0)
        *changed = 1;
}

/** Listing 2 (Analysis): each foreground pixel follows its labels to the root and stores the root's
label. Skips the round when its Scanning changed nothing (the labels are already flat then). Roots do not
change in this kernel, and the other threads only rewrite their own pixels to an ancestor's label, so
the volatile walk of union_find.cuh ends at the same root whatever it reads. The walk rewrites the
pixel's label at every step (inline compression), not only at the end as Listing 2 does: the same
result, but the many threads that walk one long chain at once (after the first Scanning a run's roots
form chains) then shorten each other's walks. */
__global__ void analysisKernel(const LabelForest forest, const int* changed)
{
    if (*changed == 0)
        return;
    device::forEachPixel(forest, [&](int y, int x) {
        const int p = y * forest.ld + x;
        if (forest.data[p] != 0) // only this thread writes data[p]
            device::findRootInlineCompress(forest.data, p);
    });
}

/** Convergence gives the LabelForest contract: when a Scanning changes nothing, every pair of
neighbouring foreground pixels has the same label, so a component carries one label r + 1, which the
Initialization or the previous Analysis made a root's (L[r] == r + 1, r in the component); every label is at most its pixel's
index + 1, so r is the component's smallest index, its raster-first pixel. */
template <int kConnectivity>
void runOle(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const long long pixels = static_cast<long long>(forest.rows) * forest.cols;
    initOwnIndexKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(img, forest); // Listing 1
    checkLaunch("OLE initialization");

    // The loop of the paper: Scanning, Analysis, until a Scanning changes nothing (iterative_labeling.hpp
    // queues the rounds in batches between host checks). The paper's images converge in 3 to 8 rounds (its
    // Table 2), i.e. after one or two checks; batches of 4, 8, then 16 rounds keep the waits few for images
    // that need many rounds (long spirals), while a round queued past convergence costs only two launches
    // of a one-wave grid that exits at once. The loop always ends: every round that changes something links
    // at least one root (see scanKernel).
    const unsigned blocks = waveBlocks(scanKernel<kConnectivity>, kThreads, blocksFor(pixels, kThreads));
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            scanKernel<kConnectivity><<<blocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("OLE scanning");
            analysisKernel<<<blocks, kThreads, 0, stream>>>(forest, changed);
            checkLaunch("OLE analysis");
        },
        RoundBatches{ kFirstRoundsPerCheck, kMaxRoundsPerCheck }, "OLE", stream);
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(ole, runOle)

}}} // namespace cv::cuda::cudacca
