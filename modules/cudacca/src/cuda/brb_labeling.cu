// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BRB: the block-run-based labeling of Chen et al. 2011, as described in Bolelli et al. 2024, section
// III-A-6. 8-connectivity only (in a 2x2 block any two foreground pixels are 8-neighbours). Produces a flat
// LabelForest. Block rows (BR) of two pixel rows, 2x2 blocks, one thread per block; the blocks are the
// nodes of a union-find forest kept in the LabelForest as block_connectivity.cuh's SLOT and INFO (a block
// is named by its KEY, the pitched index of its first foreground pixel: blockKey).
//   BlockRunExtraction - per warp (32 blocks of a BR): the BR's two rows OR-ed into one pixel row, its runs
//                        of 1s found with __ballot_sync and __clz, and every block of a run pointed at the
//                        run's root block;
//   PreviousBRUpdate   - every pair of connected blocks of a BR and the BR above (and the runs cut by the
//                        warps' 64-pixel pieces) links the root of one tree to the other's;
//   CurrentBRUpdate    - every block's SLOT moved up to its tree's root;
//   the two updates repeated until PreviousBRUpdate links nothing (iterative_labeling.hpp's host loop);
//   LabelAssignment    - every foreground pixel gets its block's root key + 1 (the shared FinalLabeling).
// Key idea: a run of the OR-ed row is 8-connected (two nonempty adjacent columns of a two-row band touch),
// so a whole run is joined at once, without unions, in the extraction.
// Departures (doc/algorithms.md, section "BRB"): the BRs are processed all at once in global memory, not
// one after the other in shared memory; hence the root of a run is its block with the smallest key (not
// its first block), links go from the larger root to the smaller (atomicMin), and the paper's reverse
// row-wise LabelAssignment is the compression that CurrentBRUpdate already made, then FinalLabeling.

#include "../labeling.hpp"
#include "block_connectivity.cuh"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using namespace device;

//! PreviousBRUpdate + CurrentBRUpdate rounds queued per host check: first, and at most (few rounds: see
//! runBrb).
constexpr RoundBatches kBrbBatches = { 2, 16 };

/** BlockRunExtraction, a thread per 2x2 block (block_connectivity.cuh's launch: a warp is 32 consecutive
blocks of one BR, a 64-pixel piece of it). Every thread of the launch takes part in the votes (the threads
past the image as empty blocks), then writes only its own block's SLOT and INFO: no race.

The OR-ed row: pixel column x is 1 when (y0, x) or (y0 + 1, x) is foreground; a block's columns are x0 and
x0 + 1. Two adjacent 1 columns hold 8-adjacent foreground pixels (rows differ by at most 1), so a run of 1s
is 8-connected, and two foreground pixels of the BR that are 8-adjacent in the same BR lie in one run. A
nonempty block holds the pixels of exactly one run (two runs in one block would need a 0 between them
inside two columns). Inside the warp's piece: the block starts its run unless its column x0 is 1 and so is
the column before (the previous lane's x0 + 1; nothing before lane 0: a run cut by the pieces' border is
joined again by PreviousBRUpdate through the W edge), and ends it unless its column x0 + 1 is 1 and so is
the next lane's x0. The run of lane i spans lanes S..E: S the last start at or before i (__clz of the
ballot of starts), E the first end at or after i.

The run's root is its block with the smallest key, so that every tree keeps its smallest key at the root
(what union_find.cuh's links preserve, and what makes the final root the component's raster-first pixel):
the first block of the run with a foreground pixel in the top row (its key is that pixel; every top-row
key of the run is in a later column, every bottom-row key is larger), else the run's first block S (all
keys in the bottom row; S's key is its first one). Every block of the run stores the root's key + 1 in its
SLOT, the root included (its own key: a root). INFO is the block's foreground mask. */
template <bool kPairs>
__global__ void blockRunExtractionKernel(const BinaryImage img, const LabelForest f, int tilesPerRow)
{
    Block blk;
    const bool inside = threadBlock(f, tilesPerRow, blk);
    const unsigned mask = inside ? blockMask(img, blk) : 0u;
    static_assert(kBlockTileW == kWarpSize, "a warp is one row of a tile");
    const unsigned lane = threadIdx.x;
    const int column0 = (mask & (kPixelA | kPixelC)) != 0 ? 1 : 0;
    const int column1 = (mask & (kPixelB | kPixelD)) != 0 ? 1 : 0;
    const bool columnBefore = __shfl_up_sync(kFullMask, column1, 1) != 0 && lane > 0u;
    const bool columnAfter = __shfl_down_sync(kFullMask, column0, 1) != 0 && lane < 31u;
    const unsigned starts = __ballot_sync(kFullMask, mask != 0 && !(column0 && columnBefore));
    const unsigned ends = __ballot_sync(kFullMask, mask != 0 && !(column1 && columnAfter));
    const unsigned tops = __ballot_sync(kFullMask, (mask & (kPixelA | kPixelB)) != 0);
    const int key = mask ? blockKey(blk, mask, f.ld) : 0;
    unsigned rootLane = lane;
    if (mask)
    {
        // Both exist: the run's first block in the piece is a start, its last one an end.
        const unsigned s = 31u - __clz(starts & (kFullMask >> (31u - lane)));
        const unsigned e = __ffs(ends & (kFullMask << lane)) - 1u;
        const unsigned runTops = tops & (kFullMask << s) & (kFullMask >> (31u - e));
        rootLane = runTops ? __ffs(runTops) - 1u : s;
    }
    const int rootKey = __shfl_sync(kFullMask, key, rootLane);
    if (inside)
        storeSlotAndInfo<kPairs>(f, blk, mask ? rootKey + 1 : 0, mask);
}

/** PreviousBRUpdate, a thread per block: for each connected neighbour block of the BR above (NW, N, NE:
viewBlock's `needed` edges; the others are implied, block_connectivity.cuh says why, since every W edge is
realized) and, for the first block of a warp's piece, the W neighbour (the run cut by the pieces' border),
the roots of both trees are found (plain loads); when they differ the larger is linked under the smaller
by atomicMin (the paper links one root to the other; one link per pair and round, no retry). Skips the
round when the previous round linked nothing; sets *changed (one store per warp, after a vote) when it
links.

Races, and why the rounds still converge: a slot always holds a key of its own component (the extraction
writes its run's root; a link the root of a connected block's tree), below its own key + 1 unless the
node is a root (a link writes lo + 1 into the slot of hi > lo; compressions write ancestors). So walks
strictly decrease and end, stale or not (only stores of this launch can be missed: the launches are
ordered). A root found here held its own key at the start of the round; after the atomicMin it holds less:
every round that sets the flag leaves fewer roots than it found, and a node never becomes a root again.
The atomicMin may replace a link made in the same round by another pair (hi already under c > lo): that
pair's trees may then be apart again, but its link set the flag, so another round checks it again. */
__global__ void previousBrUpdateKernel(const BinaryImage img, const LabelForest f, int tilesPerRow,
                                       const BlockSlot slot, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    bool linked = false;
    Block blk;
    if (threadBlock(f, tilesPerRow, blk))
    {
        const BlockView v = viewBlock(img, blk);
        const unsigned edges =
            (v.needed & (kEdgeNW | kEdgeN | kEdgeNE)) | (threadIdx.x == 0 ? v.edges & kEdgeW : 0u);
        if (edges)
        {
            const int self = blockKey(blk, v.mask, f.ld);
            const unsigned inOrder[4] = { kEdgeNW, kEdgeN, kEdgeNE, kEdgeW };
#pragma unroll
            for (int i = 0; i < 4; ++i)
                if (edges & inOrder[i])
                {
                    const int a = findRoot(f.data, self, slot);
                    const int b = findRoot(f.data, f.data[neighbourSlot(blk, inOrder[i], f.ld)] - 1, slot);
                    if (a != b)
                    {
                        atomicMin(f.data + slot(a < b ? b : a), (a < b ? a : b) + 1);
                        linked = true;
                    }
                }
        }
    }
    if (__any_sync(kFullMask, linked) && threadIdx.x == 0)
        *changed = 1;
}

/** CurrentBRUpdate, a thread per block: the block's SLOT moved up to its root (block_connectivity.cuh's
compressBlock: no link runs in this launch, so the walks end at the true roots). Skips the round when its
PreviousBRUpdate linked nothing (the slots are already flat: see runBrb). */
template <bool kPairs>
__global__ void currentBrUpdateKernel(const LabelForest f, int tilesPerRow, const BlockSlot slot,
                                      const int* changed)
{
    if (*changed == 0)
        return;
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    compressBlock<kPairs>(f, blk, slot);
}

/** The labeling: BlockRunExtraction, then PreviousBRUpdate + CurrentBRUpdate until a PreviousBRUpdate links
nothing, then LabelAssignment (FinalLabeling).

Termination: every round that sets the flag ends with fewer roots than it began with
(previousBrUpdateKernel), and there is at least one root per component: at most (run pieces - components) + 1
rounds; in practice a round links every pair of trees whose roots no other pair targets, and a lost link
only comes from several links into one root in the same round, so the rounds do not grow with the length
of the paths (`paths = any`): a round joins two trees through their roots wherever they are.
Flat slots at the end: the extraction leaves stars (every block points at its run's root, a root), and each
round whose PreviousBRUpdate links is followed by a compression; the last round links nothing, so the
slots are as the last compression (or the extraction) left them: every slot holds its root's key + 1.
Convergence gives the LabelForest contract: when a PreviousBRUpdate links nothing (then nothing is stored in
it, and every walk is exact), the two blocks of every checked pair are in one tree; the W edges inside a
piece are in one run, hence one tree; the edges not checked are implied by those (block_connectivity.cuh);
block connectivity is pixel 8-connectivity, so a tree holds a whole component, and no more (links only
join connected blocks). Its root holds the smallest key of the tree (the extraction's roots are their
runs' smallest keys; a link keeps the smaller root): the component's raster-first pixel r, and
FinalLabeling gives r + 1 to every foreground pixel of the component. */
template <bool kPairs>
void runBrb(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    const BlockPass p = blockPassFor(f);
    const int tilesPerRow = p.launch.tilesPerRow;
    launchBlocks(p, blockRunExtractionKernel<kPairs>, "BRB BlockRunExtraction", stream, img, f, tilesPerRow);
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            launchBlocks(p, previousBrUpdateKernel, "BRB PreviousBRUpdate", stream, img, f, tilesPerRow, p.slot,
                         previous, changed);
            launchBlocks(p, currentBrUpdateKernel<kPairs>, "BRB CurrentBRUpdate", stream, f, tilesPerRow, p.slot,
                         static_cast<const int*>(changed));
        },
        kBrbBatches, "BRB", stream);
    launchBlocks(p, blockFinalLabelingKernel<kPairs>, "BRB LabelAssignment", stream, f, tilesPerRow);
}

} // namespace

CUDACCA_BLOCK_LABELING(brb, runBrb)

}}} // namespace cv::cuda::cudacca
