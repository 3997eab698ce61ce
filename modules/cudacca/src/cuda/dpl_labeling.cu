// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// DPL: the directional propagation labeling of Hawick et al. 2010 (Bolelli et al. 2024, section III-A-3),
// 4-connectivity. Produces a flat LabelForest; the labels live in the forest itself (label = pitched index
// + 1, 0 = background):
//   Initialization - every foreground pixel gets its own index + 1 as label;
//   a round        - four directional passes, left to right, bottom to top, right to left, top to bottom:
//                    along the direction, a foreground pixel whose predecessor on its line is foreground
//                    takes min(own label, predecessor's just-updated label), so a label crosses a whole run
//                    in one pass; rounds repeat until one changes nothing (iterateUntilUnchanged).
// Key idea: rounds grow with the turns of a path, not its length. Rows are walked by a warp each (a
// segmented prefix minimum with shuffles, 32 pixels at a time, carried along the row) instead of the
// paper's thread per row; columns by a thread each. Departures: doc/algorithms.md, section "DPL".

#include "../labeling.hpp"
#include "launch.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"

#include <climits>

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::kFullMask;
using device::kWarpSize;

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / kWarpSize;
//! Column pass: rows loaded per batch by a thread before it walks them (independent loads in flight).
constexpr int kColumnBatch = 8;

//! Rounds queued per host check: small and sparse images converge in a few rounds, serpentines need one
//! round per couple of turns (as CCA_RCU, whose passes are the same kind).
constexpr RoundBatches kRoundBatches = { 4, 32 };

/** The row passes: left to right (kForward) or right to left. One warp per row (grid-stride over the rows,
warp-uniform, so the shuffles always see 32 lanes), 32 pixels of the row at a time in the pass's order:
element k of the walk is the pixel x = k (forward) or x = cols - 1 - k (backward), lane = k % 32.

The sequential walk of the paper gives each foreground pixel the minimum of the labels from the first pixel of
its run (in the walk's order) up to itself, taken before the pass: a segmented prefix minimum, segments =
runs. Per piece of 32 elements, each lane holds (v, all) for the range of elements [lo, k] it has covered so
far: v = the minimum label of the maximal foreground suffix of the range (INT_MAX when element k is
background), all = the whole range is foreground. Joining the left neighbour range (v', all'), which ends
just before ours: our foreground suffix extends into its suffix only when our whole range is foreground, so
v = all ? min(v, v') : v, all = all && all'. Five shuffle steps cover [0, k] (Hillis-Steele); then the carry,
v of element 31 of the previous piece (the minimum of the run reaching the piece's start, INT_MAX if that
element was background or there is none), joins the lanes whose range [0, k] is all foreground. That is
exactly the sequential walk's value: min(own, predecessor's updated label) unrolled along the run.

No race: a row belongs to one warp, and every pixel to one lane of it. A pixel is written only when its label
drops; *changed is set (one store per warp) when any did. */
template <bool kForward>
__global__ void rowPassKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    const unsigned lane = threadIdx.x & (kWarpSize - 1);
    const unsigned cols = static_cast<unsigned>(forest.cols);
    const int warps = static_cast<int>(gridDim.x) * kWarpsPerBlock;
    bool lowered = false;
    for (int y = static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.x / kWarpSize);
         y < forest.rows; y += warps)
    {
        int* const line = forest.data + static_cast<size_t>(y) * static_cast<unsigned>(forest.ld);
        int carry = INT_MAX;
        // base: unsigned, as cols may be close to INT_MAX; base < cols, so base + 32 does not wrap.
        for (unsigned base = 0; base < cols; base += kWarpSize)
        {
            const unsigned k = base + lane;
            const bool in = k < cols;
            const unsigned x = kForward ? k : cols - 1u - k;
            const int old = in ? line[x] : 0;
            int v = old != 0 ? old : INT_MAX;
            int all = old != 0; // an int for the shuffles
            for (unsigned offset = 1; offset < kWarpSize; offset *= 2)
            {
                const int leftV = __shfl_up_sync(kFullMask, v, offset);
                const int leftAll = __shfl_up_sync(kFullMask, all, offset);
                if (lane >= offset)
                {
                    if (all)
                        v = min(v, leftV);
                    all = all && leftAll;
                }
            }
            if (all)
                v = min(v, carry);
            if (old != 0 && v < old)
            {
                line[x] = v;
                lowered = true;
            }
            carry = __shfl_sync(kFullMask, v, kWarpSize - 1);
        }
    }
    if (__any_sync(kFullMask, lowered) && lane == 0)
        *changed = 1;
}

/** The column passes: top to bottom (kDown) or bottom to top. One thread per column (grid-stride over the
columns), walking it sequentially as the paper does: the threads of a warp read adjacent pixels of a row,
so the accesses are coalesced. The thread loads kColumnBatch pixels before it walks them (it alone touches
its column, so loading ahead reads the same values). prev is the just-updated label of the previous pixel
of the walk, 0 when it is background or there is none. No race: a column belongs to one thread. */
template <bool kDown>
__global__ void columnPassKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return;
    const unsigned cols = static_cast<unsigned>(forest.cols);
    const unsigned stride = gridDim.x * blockDim.x;
    const int rows = forest.rows;
    const size_t ld = static_cast<unsigned>(forest.ld);
    bool lowered = false;
    for (unsigned x = blockIdx.x * blockDim.x + threadIdx.x; x < cols; x += stride)
    {
        int* const column = forest.data + x;
        int prev = 0;
        for (int i0 = 0; i0 < rows; i0 += kColumnBatch) // i0 < rows <= INT_MAX - 1: i0 + 8 does not overflow
        {
            const int n = rows - i0 < kColumnBatch ? rows - i0 : kColumnBatch;
            int v[kColumnBatch] = {};
#pragma unroll
            for (int j = 0; j < kColumnBatch; ++j)
                if (j < n)
                    v[j] = column[static_cast<size_t>(kDown ? i0 + j : rows - 1 - i0 - j) * ld];
#pragma unroll
            for (int j = 0; j < kColumnBatch; ++j)
            {
                if (j < n)
                {
                    if (v[j] != 0 && prev != 0 && prev < v[j])
                    {
                        v[j] = prev;
                        column[static_cast<size_t>(kDown ? i0 + j : rows - 1 - i0 - j) * ld] = prev;
                        lowered = true;
                    }
                    prev = v[j];
                }
            }
        }
    }
    if (lowered)
        *changed = 1; // every writer stores the same value
}

/** Termination: labels only ever drop (a pass writes a label only when it lowers it), and every label is the
index + 1 of a pixel of the same component (a pass moves labels only between 4-adjacent foreground pixels),
so each stays >= the component's smallest index + 1. A round that changes something lowers the sum of the
labels, a nonnegative integer: the rounds are finite, and the round after the last change sets no flag.

The LabelForest contract at convergence: in a round that changes nothing, every pass sees the same labels;
the left-to-right pass leaves L(y, x) = min(L(y, x), L(y, x - 1)) unchanged, so L(y, x) <= L(y, x - 1) for
every pair of foreground horizontal neighbours, and the right-to-left pass gives the reverse inequality:
they are equal; the column passes do the same for vertical neighbours. So a 4-connected component carries
one label; its raster-first pixel m kept its own m + 1 (no label of its component is smaller), so every
pixel of the component holds m + 1, and m holds itself: a flat forest rooted at raster-first pixels. */
void runDpl(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const long long pixels = static_cast<long long>(forest.rows) * forest.cols;
    initOwnIndexKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(img, forest);
    checkLaunch("DPL initialization");

    // One-wave grids (launch.hpp): a round queued past convergence costs four launches that exit at once.
    const unsigned rowBlocks = waveBlocks(rowPassKernel<true>, kThreads, blocksFor(forest.rows, kWarpsPerBlock));
    const unsigned columnBlocks = waveBlocks(columnPassKernel<true>, kThreads, blocksFor(forest.cols, kThreads));
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            rowPassKernel<true><<<rowBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL left-to-right pass");
            columnPassKernel<false><<<columnBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL bottom-to-top pass");
            rowPassKernel<false><<<rowBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL right-to-left pass");
            columnPassKernel<true><<<columnBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL top-to-bottom pass");
        },
        kRoundBatches, "DPL", stream);
}

} // namespace

namespace dpl {
Labeling* createLabeling()
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) { runDpl(image, forest, stream); });
}
} // namespace dpl

}}} // namespace cv::cuda::cudacca
