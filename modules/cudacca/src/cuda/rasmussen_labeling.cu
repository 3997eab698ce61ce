// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// RASMUSSEN: the propagation-size labeling of Rasmusson, Sorensen and Ziegler 2013, as described in
// Bolelli et al. 2024, section III-A-8 (the review spells it "Rasmusson"). 8-connectivity only. Produces a
// flat LabelForest. Iterative:
//   Initialization - every foreground pixel gets its own pitched index + 1 as label (0 = background);
//   Propagate      - per 32 x 32 tile in shared memory, a thread per pixel: for each of the 8 directions the
//                    propagation size p (how far the foreground run goes on from the pixel in that
//                    direction, inside the tile and its halo) by doubling in log2(32) = 5 steps with warp
//                    shuffles, the pixels of a line in one warp (the pixel-thread mapping changes with the
//                    direction); each pixel takes the smallest of its label and the labels at distance p and
//                    at distance 1 in the 8 directions; repeated until a round changes nothing.
// Key idea: a round carries a label along a whole straight run of a tile (up to 32 pixels), not one pixel;
// but still a bounded distance per round (`paths = long` in algorithm_list.hpp; doc/algorithms.md, "Long
// paths").
// Departures (doc/algorithms.md, section "RASMUSSEN"): no connection bits in the labels, hence no 2^28-pixel
// limit: with 8-connectivity two adjacent foreground pixels are always connected, so the connection of a
// pixel to a neighbour is the neighbour's label being nonzero, read from the same shared-memory tile; the
// halo is one pixel on every side (34 x 34, the paper's 33 x 33 blocks reach one side only); the tiles along
// a one-wave 1D grid that exits at once once a round has changed nothing (as CCA_NP).

#include "../labeling.hpp"
#include "neighbour_propagation.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kTile = 32;               //!< tile side: a tile line is a warp
constexpr int kHalo = kTile + 2;        //!< the tile and its one-pixel halo on every side
constexpr int kThreads = kTile * kTile; //!< a thread per pixel of the tile
constexpr int kDoublings = 5;           //!< log2(kTile): propagation sizes up to 32

/** The propagation size of this lane's pixel along its line: the number of consecutive foreground pixels
that follow it in the direction `kLaneStep` (+1: the next pixel is lane + 1; -1: lane - 1), inside the tile
and its halo. `ahead` is the number of the line's tile pixels after this one in that direction (they are
lanes lane + kLaneStep .. lane + kLaneStep * ahead of this warp); the pixel after them is the halo, the end of
the shared copy. `nextForeground`: the pixel just after this one is foreground. All 32 lanes call it.

Doubling (the paper's: p grows by the propagation size of the pixel p positions away). Let run(i) be the
exact size for the pixel i of the line, run <= ahead + 1 (the halo is the last pixel of the copy: run(halo)
= 0). Invariant: after step k, s = min(run, 2^(k+1)) (before the steps, s = min(run, 1)). Step k: if s < 2^k
the run ended, s stays. If s = 2^k, the pixels i+1..i+2^k are foreground, so run(i) = 2^k + run(i + 2^k):
when 2^k <= ahead, i + 2^k is lane lane + kLaneStep * 2^k of the same line, whose s is min(run(i + 2^k),
2^k) (the invariant, one step back: every lane runs the same steps), and s becomes min(run(i), 2^(k+1));
else 2^k = ahead + 1, i + 2^k is the halo and run(i) = s already (s = ahead + 1 <= 32 != 2^(k+1) from then
on: it stays). After 5 steps s = min(run, 32) = run, since run <= ahead + 1 <= 32. */
template <int kLaneStep>
__device__ __forceinline__ int propagationSize(bool nextForeground, int lane, int ahead)
{
    int s = nextForeground ? 1 : 0;
#pragma unroll
    for (int k = 0; k < kDoublings; ++k)
    {
        const bool jump = s == (1 << k) && s <= ahead;
        const int farther = __shfl_sync(device::kFullMask, s, jump ? lane + kLaneStep * s : lane);
        if (jump)
            s += farther;
    }
    return s;
}

/** One family of directions: the forward direction (kDy, kDx) and its opposite, for the tile pixel
(r, c), tile coordinates, held by this lane. The warp holds lines of this family, the next pixel forward is
lane + 1, the next backward lane - 1; `ahead` and `behind` count the line's tile pixels after and before this
one. Lowers best[r][c] to the smallest label at distance 1 and at the propagation size, both ways (labels
of foreground pixels only: every pixel up to the propagation size is foreground). All 32 lanes call it;
only a foreground pixel writes best[r][c], and only this thread, in this family, writes it. */
template <int kDy, int kDx>
__device__ __forceinline__ void relaxLine(const int (*labels)[kHalo], int (*best)[kTile + 1], int r, int c,
                                          int lane, int ahead, int behind)
{
    const int hr = r + 1, hc = c + 1; // halo coordinates
    const int forward = propagationSize<1>(labels[hr + kDy][hc + kDx] != 0, lane, ahead);
    const int backward = propagationSize<-1>(labels[hr - kDy][hc - kDx] != 0, lane, behind);
    if (labels[hr][hc] == 0)
        return;
    int m = best[r][c];
    auto take = [&](int v) {
        if (v < m)
            m = v;
    };
    if (forward > 0)
    {
        take(labels[hr + kDy][hc + kDx]);
        take(labels[hr + kDy * forward][hc + kDx * forward]);
    }
    if (backward > 0)
    {
        take(labels[hr - kDy][hc - kDx]);
        take(labels[hr - kDy * backward][hc - kDx * backward]);
    }
    best[r][c] = m;
}

/** One Propagate round over every tile, in a grid-stride loop along a 1D grid (any number of tile rows).
Skips the whole round when the previous round changed nothing (`previous` non-null and 0: the labels are
final). Sets *changed (one store per warp, after a vote) when it lowers a label.

Per tile: the block loads the tile (warp w = tile row w: coalesced) and its halo (0 outside the image)
into shared memory, and best = the tile's labels; then, family by family (rows, columns, diagonals,
anti-diagonals), the threads take a mapping where each warp holds whole lines of that family, compute the
propagation sizes both ways (propagationSize) and lower best; each pixel is one thread's in each mapping,
and a __syncthreads separates the families, so best has one writer at a time. Last, each thread writes its
pixel (the first mapping) back when best lowered it. Every loop bound is block-uniform (the tile loop's
bound, the fixed families): every __syncthreads and every full-mask shuffle has all its threads.

The mappings, for warp w and lane l (tile coordinates r, c): rows (r, c) = (w, l), forward east; columns
(l, w), forward south; diagonals (l, (l + w) mod 32), forward south-east: lanes 0..31-w are the diagonal from
(0, w) down to (31 - w, 31), lanes 32-w..31 the one from (32 - w, 0) down to (31, w - 1), and lane l + 1
follows lane l on its diagonal unless l ends one; anti-diagonals (l, (w - l) mod 32), forward south-west:
lanes 0..w from (0, w) to (w, 0), lanes w+1..31 from (w + 1, 31) to (31, w + 1). `ahead` and `behind` are
the distances to the tile's edge along the direction: both ends of these lane ranges.

Races, all benign (as in CCA_NP, neighbour_propagation.cuh): a pixel is written only by the thread that
owns it in its tile, and each tile is visited by one block once per round (a launch); the halo is read from
global memory while the neighbour tiles' blocks may lower those pixels. Every value a pixel ever holds is
the label of a pixel of its own component (a pixel only takes the label of a pixel of a foreground run
from it, connected to it along the run with 8-connectivity) and values only decrease, so a halo read sees
the old or the new value, both valid (aligned 32-bit stores), and at worst the new value waits for the
next round, which will run: this round set the flag. The foreground (label != 0) never changes after the
initialization, so the propagation sizes are exact whatever the timing. */
__global__ void __launch_bounds__(kThreads)
    rasmussenRoundKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    __shared__ int labels[kHalo][kHalo];
    __shared__ int best[kTile][kTile + 1]; // + 1: the columns' mapping reads it without bank conflicts
    const unsigned tilesPerRow = (static_cast<unsigned>(forest.cols) + kTile - 1) / kTile;
    const unsigned tiles = tilesPerRow * ((static_cast<unsigned>(forest.rows) + kTile - 1) / kTile);
    const int w = threadIdx.x / kTile;
    const int l = threadIdx.x % kTile;
    bool lowered = false;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) // block-uniform
    {
        const int y0 = static_cast<int>(t / tilesPerRow) * kTile;
        const int x0 = static_cast<int>(t % tilesPerRow) * kTile;
        // The thread's own pixel (row w, column l): its label at the start of the round.
        const int start = labelOrBackground(forest, y0 + w, x0 + l);
        labels[w + 1][l + 1] = start;
        best[w][l] = start;
        // The halo, one pixel per thread for the first 4 * 33 threads: the rows above and below (corners
        // included), then the columns left and right.
        const int h = threadIdx.x;
        if (h < 2 * kHalo)
        {
            const int hr = h < kHalo ? 0 : kHalo - 1;
            const int hc = h < kHalo ? h : h - kHalo;
            labels[hr][hc] = labelOrBackground(forest, y0 + hr - 1, x0 + hc - 1);
        }
        else if (h < 2 * kHalo + 2 * kTile)
        {
            const int j = h - 2 * kHalo;
            const int hc = j < kTile ? 0 : kHalo - 1;
            const int hr = (j < kTile ? j : j - kTile) + 1;
            labels[hr][hc] = labelOrBackground(forest, y0 + hr - 1, x0 + hc - 1);
        }
        __syncthreads();

        constexpr int kLast = kTile - 1;
        relaxLine<0, 1>(labels, best, w, l, l, kLast - l, l); // rows: east and west
        __syncthreads();
        relaxLine<1, 0>(labels, best, l, w, l, kLast - l, l); // columns: south and north
        __syncthreads();
        {
            const int c = (l + w) % kTile; // diagonals: south-east and north-west
            relaxLine<1, 1>(labels, best, l, c, l, min(kLast - l, kLast - c), min(l, c));
        }
        __syncthreads();
        {
            const int c = (w - l + kTile) % kTile; // anti-diagonals: south-west and north-east
            relaxLine<1, -1>(labels, best, l, c, l, min(kLast - l, c), min(l, kLast - c));
        }
        __syncthreads();

        // Write back what the round lowered (only pixels inside the image: outside, best stays 0).
        const int next = best[w][l];
        if (next != start)
        {
            forest.data[(y0 + w) * forest.ld + x0 + l] = next;
            lowered = true;
        }
        __syncthreads(); // the shared copies are reused by the next tile
    }
    if (__any_sync(device::kFullMask, lowered) && l == 0)
        *changed = 1;
}

/** The labeling: initialization (CCA_NP's), then Propagate rounds until one changes nothing.

Termination: a round that sets the flag lowers at least one label, and labels are positive integers, so
rounds cannot set the flag forever; a round that changes nothing leaves it 0 and iterateUntilUnchanged
stops. Bound: a round takes, among others, the labels at distance 1 in the 8 directions, i.e. of all 8
neighbours, so it lowers every label at least as much as a CCA_NP round does (the values it reads are the
round's start values or smaller): at most CCA_NP's rounds, the longest shortest path from a component's
raster-first pixel plus one; far fewer when the paths run straight (up to 32 pixels of a run per round).

Convergence gives the LabelForest contract, as for CCA_NP: when a round changes nothing (no store at all,
so every load saw the final values), no foreground pixel has a foreground neighbour with a smaller label
(distance 1 is taken in every direction), so a component carries one label. That label is the initial
label of one of its pixels (every value moves along foreground runs, inside the component), at least r + 1
for its raster-first pixel r, and r's own label never rises above its initial r + 1: every pixel of the
component holds r + 1, a flat forest whose roots are the raster-first pixels. */
void runRasmussen(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const long long pixels = static_cast<long long>(forest.rows) * forest.cols;
    initOwnIndexKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(img, forest);
    checkLaunch("RASMUSSEN initialization");

    const long long tiles = ((forest.rows + kTile - 1LL) / kTile) * ((forest.cols + kTile - 1LL) / kTile);
    const unsigned blocks = waveBlocks(rasmussenRoundKernel, kThreads, tiles);
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            rasmussenRoundKernel<<<blocks, kThreads, 0, stream>>>(forest, previous, changed);
            checkLaunch("RASMUSSEN round");
        },
        kPropagationBatches, "RASMUSSEN", stream);
}

} // namespace

namespace rasmussen {
Labeling* createLabeling() // the row's 4-connectivity entry is `none`: only 8 comes here
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) { runRasmussen(image, forest, stream); });
}
} // namespace rasmussen

}}} // namespace cv::cuda::cudacca
