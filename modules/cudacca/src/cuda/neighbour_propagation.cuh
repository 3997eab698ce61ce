// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Neighbour propagation on tiles, the common body of NP and LNP (Hawick et al. 2010, as described in
// Bolelli et al. 2024, sections III-A-1 and III-A-2, Algorithm 2): every foreground pixel starts with its
// own pitched index + 1 as label, and each round every foreground pixel takes the smallest label among
// itself and its foreground neighbours (4 or 8), until a round changes nothing. A round visits the image
// by tiles held in shared memory with a one-pixel halo; NP takes one step per tile and round, LNP steps
// inside the tile until the tile converges. The result is a flat LabelForest (see runTilePropagation).
// Host and device code; included by np_labeling.cu and lnp_labeling.cu (and by rasmussen_labeling.cu,
// for labeling_common.cuh's initOwnIndexKernel, labelOrBackground and kPropagationBatches).

#ifndef CUDACCA_NEIGHBOUR_PROPAGATION_CUH
#define CUDACCA_NEIGHBOUR_PROPAGATION_CUH

#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "launch.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** The tiling of a propagation round: kCols x kRows pixels per tile, kThreads threads per block, each
thread owning the pixels (y0 + ty + k * (kThreads / kCols), x0 + tx) for k < kRowsPerThread.
kUntilTileConverges: LNP's local loop (steps until the tile changes nothing); false: NP's single step. */
template <int kCols, int kRows, int kThreads, bool kUntilTileConverges>
struct PropagationTiles
{
    static constexpr int cols = kCols;
    static constexpr int rows = kRows;
    static constexpr int threads = kThreads;
    static constexpr bool untilTileConverges = kUntilTileConverges;
    static constexpr int rowsPerPass = kThreads / kCols;
    static constexpr int rowsPerThread = kRows / rowsPerPass;
    static_assert(kThreads % 32 == 0 && kThreads % kCols == 0 && kRows % rowsPerPass == 0,
                  "a tile is whole passes of whole warps");
    static_assert(2 * (kCols + 2) + 2 * kRows <= kThreads, "one halo pixel per thread at most");
};

//! Rounds queued per host check (iterative_labeling.hpp): first, and at most. A 1-pixel spiral of 512 x 512
//! takes about 131,000 NP rounds; batches up to 1024 keep the host checks to about 130 there, while a round
//! queued past convergence costs only the launch of a one-wave grid that exits at once.
constexpr RoundBatches kPropagationBatches = { 8, 1024 };

/** The label of (y, x) in global memory; 0 (background) outside the image. y * ld + x < rows * ld fits an
int (LabelForest). */
__device__ __forceinline__ int labelOrBackground(const LabelForest& forest, int y, int x)
{
    return y >= 0 && y < forest.rows && x >= 0 && x < forest.cols ? forest.data[y * forest.ld + x] : 0;
}

/** The smallest of `l` and the nonzero labels of the 4 or 8 neighbours of tile[ty][tx] (halo coordinates:
the tile's own pixels are 1..kRows, 1..kCols; the halo holds the neighbours outside the tile, 0 outside the
image). */
template <int kConnectivity, int kHaloCols>
__device__ __forceinline__ int smallestNeighbourLabel(const int (*tile)[kHaloCols], int ty, int tx, int l)
{
    auto take = [&](int v) {
        if (v != 0 && v < l)
            l = v;
    };
    take(tile[ty][tx - 1]);
    take(tile[ty][tx + 1]);
    take(tile[ty - 1][tx]);
    take(tile[ty + 1][tx]);
    if (kConnectivity == 8)
    {
        take(tile[ty - 1][tx - 1]);
        take(tile[ty - 1][tx + 1]);
        take(tile[ty + 1][tx - 1]);
        take(tile[ty + 1][tx + 1]);
    }
    return l;
}

/** One round of propagation (Algorithm 2: kernel NP, or kernel LNP when Tiles::untilTileConverges), over
every tile in a grid-stride loop along a 1D grid (any number of tile rows). Skips the whole round when the
previous round changed nothing (`previous` non-null and 0: the labels are final). Sets *changed (one store
per warp, after a vote) when it lowers a label.

Per tile: the block loads the tile and its halo into shared memory (the tile by rows of whole warps:
coalesced; the halo, at most one pixel per thread); each thread takes, for each of its pixels, the smallest
of its label and its neighbours' (Algorithm 2 lines 2-6 and 9-13, here read from the shared copy); LNP then
writes the new labels into the tile and steps again (lines 17-27) until a step changes nothing in the tile
(__syncthreads_or: the same answer for every thread, so the loop is block-uniform); the lowered labels are
written back to global memory.

Races, all benign. Plain loads and stores, in place, as in the paper: a pixel is written only by the
thread that owns it in its tile, and each tile is visited by one block once per round (a launch), so no
store is lost; but a block reads its halo (global memory) while the neighbour tiles' blocks write those
pixels. Every value a pixel ever holds is a label of its own component (the initial labels are; a pixel
only ever takes the value of a foreground neighbour, of the same component), and values only decrease,
so the halo read sees the old or the new value, both valid (aligned 32-bit stores: nothing torn), and
at worst the new value waits for the next round, which will run: this round set the flag. The rounds
themselves are ordered by the stream: a round sees all the stores of the previous one. */
template <int kConnectivity, typename Tiles>
__global__ void __launch_bounds__(Tiles::threads)
    propagationRoundKernel(const LabelForest forest, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    constexpr int kHaloCols = Tiles::cols + 2;
    constexpr int kHaloRows = Tiles::rows + 2;
    __shared__ int tile[kHaloRows][kHaloCols];
    const unsigned tilesPerRow = (static_cast<unsigned>(forest.cols) + Tiles::cols - 1) / Tiles::cols;
    const unsigned tiles = tilesPerRow * ((static_cast<unsigned>(forest.rows) + Tiles::rows - 1) / Tiles::rows);
    const int tx = threadIdx.x % Tiles::cols;
    const int ty = threadIdx.x / Tiles::cols; // first of the thread's rows; then every rowsPerPass rows
    bool lowered = false;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) // block-uniform
    {
        const int y0 = static_cast<int>(t / tilesPerRow) * Tiles::rows;
        const int x0 = static_cast<int>(t % tilesPerRow) * Tiles::cols;
        // The thread's pixels: their labels at the start of the round (0: background or outside the image),
        // and as the steps lower them.
        int start[Tiles::rowsPerThread], label[Tiles::rowsPerThread];
#pragma unroll
        for (int k = 0; k < Tiles::rowsPerThread; ++k)
        {
            const int r = ty + k * Tiles::rowsPerPass;
            start[k] = labelOrBackground(forest, y0 + r, x0 + tx);
            label[k] = start[k];
            tile[r + 1][tx + 1] = start[k];
        }
        // The halo: the rows above and below (corners included), then the columns left and right.
        const int h = threadIdx.x;
        if (h < 2 * kHaloCols)
        {
            const int hr = h < kHaloCols ? 0 : kHaloRows - 1;
            const int hc = h < kHaloCols ? h : h - kHaloCols;
            tile[hr][hc] = labelOrBackground(forest, y0 + hr - 1, x0 + hc - 1);
        }
        else if (h < 2 * kHaloCols + 2 * Tiles::rows)
        {
            const int j = h - 2 * kHaloCols;
            const int hc = j < Tiles::rows ? 0 : kHaloCols - 1;
            const int hr = (j < Tiles::rows ? j : j - Tiles::rows) + 1;
            tile[hr][hc] = labelOrBackground(forest, y0 + hr - 1, x0 + hc - 1);
        }
        __syncthreads();

        int next[Tiles::rowsPerThread];
        // NP: one step. LNP: steps until one changes nothing in the tile. Each step that goes on lowers at
        // least one label of the tile (positive integers): the loop ends.
        for (;;)
        {
            bool stepLowered = false;
#pragma unroll
            for (int k = 0; k < Tiles::rowsPerThread; ++k)
            {
                const int r = ty + k * Tiles::rowsPerPass + 1;
                next[k] = label[k] == 0 ? 0
                                        : smallestNeighbourLabel<kConnectivity, kHaloCols>(tile, r, tx + 1, label[k]);
                stepLowered |= next[k] != label[k];
            }
            if (!Tiles::untilTileConverges)
                break;
            __syncthreads(); // every read of this step is done before the tile changes
#pragma unroll
            for (int k = 0; k < Tiles::rowsPerThread; ++k)
            {
                tile[ty + k * Tiles::rowsPerPass + 1][tx + 1] = next[k];
                label[k] = next[k];
            }
            if (!__syncthreads_or(stepLowered)) // also publishes the tile's new labels to the next step
                break;
        }

        // Write back what the round lowered (only pixels inside the image: outside, the label stays 0).
#pragma unroll
        for (int k = 0; k < Tiles::rowsPerThread; ++k)
            if (next[k] != start[k])
            {
                forest.data[(y0 + ty + k * Tiles::rowsPerPass) * forest.ld + x0 + tx] = next[k];
                lowered = true;
            }
        __syncthreads(); // the tile is reused by the next iteration
    }
    if (__any_sync(device::kFullMask, lowered) && (threadIdx.x & 31u) == 0)
        *changed = 1;
}

/** What a propagation names in its error messages: the algorithm ("NP"), its initialization kernel and
its round kernel. */
struct PropagationNames
{
    const char* algorithm;
    const char* init;
    const char* round;
};

/** The labeling: initialization, then rounds until one changes nothing.

Termination: a round that sets the flag lowers at least one label, and labels are positive integers, so
rounds cannot set the flag forever; a round that changes nothing leaves it 0 and iterateUntilUnchanged
stops. More precisely, after k rounds a pixel holds at most the smallest initial label within k steps of
it along paths of its component (each step of a round takes the neighbours' values of that round or
smaller), so a component converges after at most its longest shortest path from its raster-first pixel
plus one round (NP; LNP needs at most that many, usually far fewer: a round crosses whole tiles).

Convergence gives the LabelForest contract: when a round changes nothing (no store at all, so every
load saw the final values), no foreground pixel has a foreground neighbour with a smaller label, so
neighbours carry equal labels and a component carries one label. That label is the initial label of one
of its pixels, at least r + 1 for its raster-first pixel r (smallest pitched index: the pitched order is
the raster order); and r's own label never rises above its initial r + 1. So every pixel of the component
holds r + 1, r included: a flat forest whose roots are the raster-first pixels. */
template <int kConnectivity, typename Tiles>
void runTilePropagation(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream,
                        const PropagationNames& names)
{
    const long long pixels = static_cast<long long>(forest.rows) * forest.cols;
    initOwnIndexKernel<<<blocksFor(pixels, Tiles::threads), Tiles::threads, 0, stream>>>(img, forest);
    checkLaunch(names.init);

    const long long tiles =
        ((forest.rows + Tiles::rows - 1LL) / Tiles::rows) * ((forest.cols + Tiles::cols - 1LL) / Tiles::cols);
    const auto round = propagationRoundKernel<kConnectivity, Tiles>;
    const unsigned blocks = waveBlocks(round, Tiles::threads, tiles);
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            round<<<blocks, Tiles::threads, 0, stream>>>(forest, previous, changed);
            checkLaunch(names.round);
        },
        kPropagationBatches, names.algorithm, stream);
}

} // namespace

}}} // namespace cv::cuda::cudacca

#endif
