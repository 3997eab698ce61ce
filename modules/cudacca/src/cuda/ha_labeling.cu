// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// HA4 / HA8: the "hardware accelerated" run-based union-find of Hennequin et al. 2018, as described in
// Bolelli et al. 2024, section III-B-6 ("Hardware Accelerated 4/8"; HA8 is that section's 8-connected
// variant), and in Lemaitre et al. 2021, sections 2 and 3.1 (lines processed in 32-pixel pieces per warp,
// pixels grouped into sub-runs). Produces a flat LabelForest, in three kernels:
//   StripLabeling - one warp per line of a kStripRows-line strip: ballots find the runs, which are united
//                   with the runs of the line above (its mask in shared memory), piece after piece;
//   BorderMerging - unites the runs that touch across the borders between strips, one warp per piece;
//   FinalLabeling - one find per sub-run; every foreground pixel gets root + 1.
// Key idea: the union-find nodes are the sub-run starts only, and each touching pair of runs is united
// once, by the rules V and D (written above stripLabelingKernel).
// Departures from the paper and the union-find nodes: doc/algorithms.md, section "HA".

#include "../labeling.hpp"
#include "launch.hpp"
#include "labeling_common.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::kFullMask;
using device::kWarpSize;
//! Lines per strip: the warps of a StripLabeling block. Strips are independent; their borders are
//! BorderMerging's work.
constexpr int kStripRows = 8;
//! Warps per block of the kernels with one independent warp per task (BorderMerging, FinalLabeling).
constexpr int kWarpsPerBlock = 8;

using device::isForeground;

/** Lane of the first pixel of this lane's sub-run (the run's part in this piece): the lane after the
last background lane below this one, 0 if there is none. Only meaningful where this lane's bit is set. */
__device__ __forceinline__ int subRunStartLane(unsigned lineMask, unsigned lanesBelow)
{
    return kWarpSize - __clz(~lineMask & lanesBelow); // __clz(0) == 32
}

/** Column of the first pixel of this lane's run, across pieces: the sub-run start, unless the sub-run
begins the piece and continues the run `openStart` (the run through the previous piece's last column,
-1 if that pixel is background). Only meaningful where this lane's bit is set. */
__device__ __forceinline__ int runStartColumn(unsigned lineMask, unsigned lanesBelow, int x0, int openStart)
{
    const int lane = subRunStartLane(lineMask, lanesBelow);
    return (lane == 0 && openStart >= 0) ? openStart : x0 + lane;
}

// ---- which pairs are united (StripLabeling and BorderMerging) ------------------------------------------
// Runs A (line y) and B (line y - 1) touch, with c the leftmost column where both are foreground, iff c
// exists (4- and 8-connectivity), or, in 8-connectivity only, B ends just left of A's first pixel or A ends
// just left of B's first pixel. In the first case c is A's or B's first column; so one union per touching
// pair:
//   V (vertical)  X = (y, c) and the pixel above both foreground, and one of them starts its run;
//   D (diagonal)  X starts its run, the pixel above is background, the upper-left is foreground
//                 (the review's "merge X to the upper-left pixel if X is a start"), or, mirrored, the
//                 pixel above starts its run, X is background and X's left neighbour is foreground
//                 (the review's "merge X to the upper-right pixel if the latter is a start", seen from
//                 the upper-right pixel's column).
// StripLabeling applies V and D inside a strip, looking left: at a piece's first column the left
// neighbours' state comes from the carried run starts, so diagonal contacts across piece borders are
// not lost. BorderMerging applies V and, for D, the same rules seen from the left column of the
// diagonal pair (X is foreground, X's right neighbour background and the upper-right pixel starts a
// run; or the pixel above is foreground, its right neighbour background and X's right neighbour
// starts a run), so that every union's operands are nodes its warp can name: a sub-run start of its
// own piece or a run's first pixel.

/** StripLabeling: block b labels lines b * kStripRows ... + kStripRows - 1, warp threadIdx.y its line,
sweeping the 32-pixel pieces from left to right. Lines past the image are background: every warp runs
every piece and reaches every barrier.

Per piece: ballot, node writes (run starts: themselves; a piece's first pixel that continues a run:
the run's start), the mask and the carried run start to shared memory, one barrier, then the unions
with the line above (V, and D for 8-connectivity; see above). Every node a union reads was written
before that barrier (this or an earlier piece, this line or the line above), so the finds walk only
written nodes. The shared slots are double-buffered by piece parity: slot s is written again two pieces
later, after the next barrier, which the reader reaches only after reading it. */
template <int kConnectivity>
__global__ void __launch_bounds__(kWarpSize * kStripRows)
    stripLabelingKernel(const BinaryImage img, const LabelForest forest)
{
    __shared__ unsigned lineMasks[2][kStripRows];
    __shared__ int lineOpenStarts[2][kStripRows];

    const int lane = threadIdx.x;
    const int line = threadIdx.y;
    const unsigned yu = blockIdx.x * kStripRows + line; // may pass rows (and INT_MAX) in the last strip
    const bool lineInside = yu < static_cast<unsigned>(forest.rows);
    const int y = lineInside ? static_cast<int>(yu) : 0;
    const int rowBase = y * forest.ld;
    const int upBase = rowBase - forest.ld; // used only by unions, which need a line above: y >= 1
    const unsigned lanesBelow = (1u << lane) - 1u;
    const int pieces = (forest.cols - 1) / kWarpSize + 1;

    auto loadPiece = [&](int x0) {
        return lineInside && forest.cols - x0 > lane && isForeground(img, y, x0 + lane);
    };

    int openStart = -1; // column of the start of this line's run through column x0 - 1, or -1
    bool nextFg = loadPiece(0);
    for (int piece = 0; piece < pieces; ++piece)
    {
        const int x0 = piece * kWarpSize;
        // Lanes past the last column use x0 (x0 + lane may overflow there); they are background.
        const int x = x0 + (lane < forest.cols - x0 ? lane : 0);
        const bool fg = nextFg;
        if (piece + 1 < pieces) // load one piece ahead: its latency overlaps this piece's unions
            nextFg = loadPiece(x0 + kWarpSize);

        const unsigned mask = __ballot_sync(kFullMask, fg);
        const int runStart = runStartColumn(mask, lanesBelow, x0, openStart);
        const bool isStart = fg && runStart == x;
        if (fg && (isStart || lane == 0))
            forest.data[rowBase + x] = rowBase + runStart + 1;

        const int slot = piece & 1;
        if (lane == 0)
        {
            lineMasks[slot][line] = mask;
            lineOpenStarts[slot][line] = openStart;
        }
        __syncthreads();

        const int leftRunStart = __shfl_up_sync(kFullMask, runStart, 1);
        if (line > 0) // warp-uniform: all lanes take part in the shuffle below
        {
            const unsigned upMask = lineMasks[slot][line - 1];
            const int upOpenStart = lineOpenStarts[slot][line - 1];
            const bool up = (upMask >> lane) & 1u;
            const int upRunStart = runStartColumn(upMask, lanesBelow, x0, upOpenStart);
            const int upLeftRunStart = __shfl_up_sync(kFullMask, upRunStart, 1);
            const bool upIsStart = up && upRunStart == x;

            int a = -1, b = -1;
            if (fg && up)
            {
                if (isStart || upIsStart) // V
                {
                    a = rowBase + runStart;
                    b = upBase + upRunStart;
                }
            }
            else if (kConnectivity == 8)
            {
                // D, looking left; at lane 0 the left column is the previous piece's last one.
                const bool left = lane == 0 ? openStart >= 0 : ((mask >> (lane - 1)) & 1u) != 0;
                const bool upLeft = lane == 0 ? upOpenStart >= 0 : ((upMask >> (lane - 1)) & 1u) != 0;
                if (isStart && upLeft) // X starts a run; above is background (else V)
                {
                    a = rowBase + x;
                    b = upBase + (lane == 0 ? upOpenStart : upLeftRunStart);
                }
                else if (upIsStart && left) // the pixel above starts a run; X is background (else V)
                {
                    a = upBase + x;
                    b = rowBase + (lane == 0 ? openStart : leftRunStart);
                }
            }
            if (a >= 0)
                device::unite(forest.data, a, b);
        }

        const int lastRunStart = __shfl_sync(kFullMask, runStart, kWarpSize - 1);
        openStart = (mask >> (kWarpSize - 1)) ? lastRunStart : -1;
    }
}

/** BorderMerging: one warp per 32-pixel piece of a strip's first line y (y > 0), uniting its runs with
those of line y - 1 (the previous strip's last line). Lanes 0-3 also read the pixels left and right of
the piece (left: both lines, to tell a run's start from a piece's first pixel; right, 8-connectivity:
both lines, for the diagonal pairs whose left column is our lane 31). Union operands are sub-run starts
of this piece (nodes: StripLabeling wrote them) or run starts right of a pixel of this piece (nodes). */
template <int kConnectivity>
__global__ void borderMergingKernel(const BinaryImage img, const LabelForest forest, int pieces, unsigned tasks)
{
    const unsigned task = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (task >= tasks) // warp-uniform
        return;
    const int lane = threadIdx.x % kWarpSize;
    const int border = static_cast<int>(task / static_cast<unsigned>(pieces));
    const int piece = static_cast<int>(task % static_cast<unsigned>(pieces));
    const int y = (border + 1) * kStripRows;
    const int x0 = piece * kWarpSize;
    const int columnsLeft = forest.cols - x0; // >= 1; x0 + 32 may overflow, this does not
    const bool inside = lane < columnsLeft;
    const int x = x0 + (inside ? lane : 0);
    const bool fg = inside && isForeground(img, y, x);
    const bool up = inside && isForeground(img, y - 1, x);
    bool edge = false; // lane 0: (y, x0 - 1), 1: (y - 1, x0 - 1), 2: (y, x0 + 32), 3: (y - 1, x0 + 32)
    if (lane < 2)
        edge = x0 > 0 && isForeground(img, y - lane, x0 - 1);
    else if (kConnectivity == 8 && lane < 4)
        edge = columnsLeft > kWarpSize && isForeground(img, y - (lane - 2), x0 + kWarpSize);
    const unsigned mask = __ballot_sync(kFullMask, fg);
    const unsigned upMask = __ballot_sync(kFullMask, up);
    const unsigned edges = __ballot_sync(kFullMask, edge);

    // The lines extended by one column on each side: bit k + 1 is column x0 + k.
    const unsigned long long line = (static_cast<unsigned long long>(mask) << 1) | (edges & 1u) |
                                    (static_cast<unsigned long long>((edges >> 2) & 1u) << (kWarpSize + 1));
    const unsigned long long upLine = (static_cast<unsigned long long>(upMask) << 1) | ((edges >> 1) & 1u) |
                                      (static_cast<unsigned long long>((edges >> 3) & 1u) << (kWarpSize + 1));
    const bool left = (line >> lane) & 1u;
    const bool right = (line >> (lane + 2)) & 1u;
    const bool upLeft = (upLine >> lane) & 1u;
    const bool upRight = (upLine >> (lane + 2)) & 1u;

    const unsigned lanesBelow = (1u << lane) - 1u;
    const int rowBase = y * forest.ld;
    const int upBase = rowBase - forest.ld;
    const int node = rowBase + x0 + subRunStartLane(mask, lanesBelow);
    const int upNode = upBase + x0 + subRunStartLane(upMask, lanesBelow);

    int a = -1, b = -1;
    if (fg && up)
    {
        if (!left || !upLeft) // V: X or the pixel above starts its run
        {
            a = node;
            b = upNode;
        }
    }
    else if (kConnectivity == 8)
    {
        if (up && right && !upRight) // (y, x + 1) starts a run and touches (y - 1, x) only diagonally
        {
            a = upNode;
            b = rowBase + x + 1;
        }
        else if (fg && upRight && !right) // (y - 1, x + 1) starts a run, touches X only diagonally
        {
            a = node;
            b = upBase + x + 1;
        }
    }
    if (a >= 0)
        device::unite(forest.data, a, b);
}

/** FinalLabeling: one warp per 32-pixel piece of a line. The first thread of each sub-run finds the
root from its node, a shuffle hands it to the rest of the sub-run, every pixel writes root + 1 (0 for
the background).

Intentional race, benign: a node's thread overwrites it with root + 1 while threads of other warps may
be walking through it. No union runs any more, so the node's old parent and the root are both its
ancestors: a walk that reads either value ends at the same root. Only nodes are read, and only their
own thread writes them; the other pixels are written here for the first time and read by nobody. */
__global__ void finalLabelingKernel(const BinaryImage img, const LabelForest forest, int pieces, unsigned tasks)
{
    const unsigned task = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (task >= tasks) // warp-uniform
        return;
    const int lane = threadIdx.x % kWarpSize;
    const int y = static_cast<int>(task / static_cast<unsigned>(pieces));
    const int x0 = static_cast<int>(task % static_cast<unsigned>(pieces)) * kWarpSize;
    const bool inside = lane < forest.cols - x0;
    const int x = x0 + (inside ? lane : 0); // x0 + lane may overflow past the last column
    const bool fg = inside && isForeground(img, y, x);
    const unsigned mask = __ballot_sync(kFullMask, fg);
    const int startLane = subRunStartLane(mask, (1u << lane) - 1u);
    const int p = y * forest.ld + x;

    int root = 0;
    if (fg && startLane == lane)
        root = device::findRootVolatile(forest.data, p);
    root = __shfl_sync(kFullMask, root, startLane);
    if (inside)
        forest.data[p] = fg ? root + 1 : 0;
}

template <int kConnectivity>
void runHa(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const int strips = (forest.rows - 1) / kStripRows + 1;
    const int pieces = (forest.cols - 1) / kWarpSize + 1;
    stripLabelingKernel<kConnectivity>
        <<<static_cast<unsigned>(strips), dim3(kWarpSize, kStripRows), 0, stream>>>(img, forest);
    checkLaunch("HA strip labeling");

    // Task counts fit 32 bits: rows * pieces <= rows * (ld / 32 + 1) < 2^32 (rows * ld < 2^31).
    const long long borderTasks = static_cast<long long>(strips - 1) * pieces;
    if (borderTasks > 0)
    {
        borderMergingKernel<kConnectivity><<<blocksFor(borderTasks, kWarpsPerBlock), kWarpsPerBlock * kWarpSize, 0,
                                             stream>>>(img, forest, pieces, static_cast<unsigned>(borderTasks));
        checkLaunch("HA border merging");
    }

    const long long lineTasks = static_cast<long long>(forest.rows) * pieces;
    finalLabelingKernel<<<blocksFor(lineTasks, kWarpsPerBlock), kWarpsPerBlock * kWarpSize, 0, stream>>>(
        img, forest, pieces, static_cast<unsigned>(lineTasks));
    checkLaunch("HA final labeling");
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(ha, runHa)

}}} // namespace cv::cuda::cudacca
