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
// paper's thread per row; columns by a thread per chunk of a column (line_chunks.cuh). Departures:
// doc/algorithms.md, section "DPL".

#include "../labeling.hpp"
#include "launch.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "line_chunks.cuh"

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

/** The column passes: top to bottom (kDown) or bottom to top. The paper's thread walking its column leaves
each foreground pixel with the smallest label, taken before the pass, from its run's first pixel in the
walk's order up to itself (a segmented prefix minimum, like the row passes). Here a thread block takes 32
consecutive columns, a lane each (grid-stride over the groups of 32, block-uniform; the lanes of a warp
touch adjacent pixels of a row: coalesced), and cuts the rows into blockDim.y chunks, a warp each
(line_chunks.cuh): a thread summarizes its chunk from the labels before the pass, takes the carry of the
chunks before it in the walk (chunkCarries: `forward` for kDown, `backward` otherwise), then walks the chunk,
kColumnBatch rows loaded before they are walked. In place without a race: chunkCarries' barrier separates
every read of the summaries (labels before the pass) from the first write, and in the walk a pixel of a
column belongs to one thread, which reads each of its pixels before writing it. */
template <bool kDown>
__global__ void columnPassKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return;
    const int rows = forest.rows, cols = forest.cols;
    const size_t ld = static_cast<unsigned>(forest.ld);
    bool lowered = false;
    // Unsigned: cols may be close to INT_MAX (one row); base < cols and the grid is one wave, so base plus the
    // stride does not wrap.
    for (unsigned base = blockIdx.x * kWarpSize; base < static_cast<unsigned>(cols);
         base += gridDim.x * kWarpSize) // block-uniform: chunkCarries syncs the block
    {
        const unsigned x = base + threadIdx.x;
        const bool in = x < static_cast<unsigned>(cols);
        int* const column = forest.data + (in ? x : 0);
        int lo, hi; // the chunk, in walk order: element k is row k (kDown) or rows - 1 - k
        device::warpChunk(0, rows, lo, hi);
        auto at = [&](int k) { return column + static_cast<size_t>(kDown ? k : rows - 1 - k) * ld; };

        auto load = [&](int k) { return in ? *at(k) : 0; };
        device::ChunkSummary summary;
        device::walkBatched<kColumnBatch>(lo, hi, load, [&](int, int v) { summary.add(v); });
        int carry, unused;
        device::chunkCarries(summary, carry, unused);
        device::walkBatched<kColumnBatch>(lo, hi, load, [&](int k, int v) {
            if (v == 0)
                carry = INT_MAX; // background: the run ends
            else if (carry < v)
            {
                *at(k) = carry;
                lowered = true;
            }
            else
                carry = v;
        });
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
    const dim3 columnThreads(kWarpSize, lineChunksFor(columnPassKernel<true>, forest.cols, forest.rows)); // line_chunks.cuh
    const unsigned columnBlocks = waveBlocks(columnPassKernel<true>, static_cast<int>(columnThreads.y) * kWarpSize,
                                             blocksFor(forest.cols, kWarpSize));
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            rowPassKernel<true><<<rowBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL left-to-right pass");
            columnPassKernel<false><<<columnBlocks, columnThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL bottom-to-top pass");
            rowPassKernel<false><<<rowBlocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("DPL right-to-left pass");
            columnPassKernel<true><<<columnBlocks, columnThreads, 0, stream>>>(forest, previous, changed);
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
