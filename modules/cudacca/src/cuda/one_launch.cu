// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The one-launch path (one_launch.hpp): CCA_DEFAULT on a small image in ONE cooperative kernel. A small
// frame's time was launches and waits (H100, 512^2: a dozen kernels of 3-40 us each, then the wait for N,
// then the statistics' kernels, then a second wait); here the phases meet at grid-wide barriers instead
// (cooperative groups' grid.sync), and N and the statistics reach mapped host memory before the one wait.
//
// The phases, on a pixel forest in the LabelForest convention (contracts.hpp: slot = parent index + 1,
// 0 = background, every parent below its child, so each root is its component's first pixel in raster
// order). A CHUNK is 32 pixels of a row, one per lane. H100 times (512^2, 8-connectivity, g = 1, d = 50 %;
// perf/one_launch_phases.cu): 7 / 11 / 4 / 3 / 6 / 2 us, 34 us in all (the tile phase took 11 us with
// run-start links and up to three unions per pixel, whose image reads came after the first barrier).
//  1 tiles    each tile of 64 columns and 16, 32 or 64 rows (one, two or four rows per warp: the host's
//             choice, rowsPerWarpFor) is labeled in shared memory: each pixel linked to its first neighbour
//             (Komura), then at most one union per pixel (Bolelli et al. 2024, Algorithm 1, union_find.cuh),
//             all read from two ballots per row; then every pixel's global slot points at its tile-local
//             root, and the tile roots are marked in a bit per pixel (rootBits);
//  2 borders  the pairs that cross tiles are joined in the global forest (same union-find, path halving);
//             which pairs are joined at all: the "first pixel of an overlap" rules at Joins (after Lemaitre et
//             al. 2021, 3.1);
//  3 flatten  every TILE root points at its root (the other pixels still point at their tile root); each
//             block counts the roots in its contiguous range of rootBits' words, which keep only the roots;
//  4 rank     a block's offset is the roots of the blocks before it: root label = offset + rank in the
//             block + 1, stored in the root's slot as -label, or, where the roots are many, each word of
//             rootBits gets the count of roots before it (wordRanks; labelsInRootSlots) (and N is written);
//             read from rootBits alone;
//  5 labels   every pixel reaches its root's slot in two loads (its tile root's slot), and its label there or
//             from the root's word; the statistics are merged run by run, one merged set per chunk and label
//             into the block's carry (statistics.cuh, offerToBlock);
//  6 finish   labels 0..N in OpenCV's layout (statistics.cuh, finalizeLabel), to the host when it fits.
// Before phase 1 (2 tiles), in one chunk per warp and with the warp carry, it took 85 us: the global unions
// of every pixel (30 us) and the giant component's run-by-run atomics (38 us) dominated.
// Phases 3-5 keep kInFlight independent loads per thread. A BATCH of frames of one size (kBatch, applyBatch)
// runs the same phases once over the frames stacked into a virtual image (frameImage, Params' frame fields):
// no join crosses a frame's first row, ranks run over the batch and frameBase[f] turns them into frame f's
// labels, and a warp's many chunks merge their statistics in its WarpCarry (one_launch.hpp; doc/design.md).

#include <cooperative_groups.h>

#include <algorithm>
#include <climits>

#include "../analysis.hpp"
#include "../one_launch.hpp"
#include "launch.hpp"
#include "statistics.cuh"
#include "union_find.cuh"

// A hook at each phase's end (after its barrier), empty in the module: perf/one_launch_phases.cu defines it to
// read the time of each phase.
#ifndef CUDACCA_ONE_LAUNCH_PHASE_END
#define CUDACCA_ONE_LAUNCH_PHASE_END(phase)
#endif

namespace cv { namespace cuda { namespace cudacca {

namespace {

namespace cg = cooperative_groups;
using device::BlockCarry;
using device::ComponentFeatures;
using device::kFullMask;
using device::kWarpSize;

constexpr int kThreads = 512;
constexpr int kStatsColumns = 5; //!< cv::CC_STAT_MAX: left, top, width, height, area
constexpr int kWarps = kThreads / kWarpSize;
constexpr int kTileCols = 2 * kWarpSize; //!< phase 1's tiles: two chunks wide,
constexpr int kTileRows = kWarps;        //!< one row per warp, or (Params::rowsPerWarp) up to
constexpr int kMaxRowsPerWarp = 4;       //!< four consecutive rows per warp: tiles of 16, 32 or 64 rows
constexpr int kMaxTilePixels = kTileRows * kMaxRowsPerWarp * kTileCols;

struct Params
{
    BinaryImage image; //!< a batch: rows = frames * paddedRows, cols = the frames' (data unused)
    int* forest;      //!< rows * pitch() slots, index y * pitch() + x (rows padded to whole words of rootBits)
    int* blockRoots;  //!< one count per block
    /** A bit per pixel, word y * wordsPerRow + x / 32, bit x % 32: phase 1 marks the tile roots, phase 3 leaves
    only the roots of the whole forest (the components' first pixels), which phase 4 ranks. */
    unsigned* rootBits;
    /** Per word of rootBits (phase 4): the roots before it in raster order, over the batch. A root's label (a
    batch: before frameBase) is wordRanks[word] + the roots before it in its word + 1 (rootLabel). */
    int* wordRanks;
    int wordsPerRow;
    int rowsPerWarp = 1; //!< phase 1's tiles have kTileRows * rowsPerWarp rows (1, 2 or 4; a batch: dividing paddedRows)
    StatsAccumulators acc;
    OneLaunchOutputs out;
    double emptyCentroid;
    // A batch (kBatch): frame f is rows [f * paddedRows, f * paddedRows + frameRows) of the virtual image
    const OneLaunchFrame* frames = nullptr;
    int frameCount = 0, frameRows = 0, paddedRows = 0;
    int* frameBase = nullptr;     //!< device, frameCount + 1: roots in the frames before f (the last: all)
    int* frameBaseHost = nullptr; //!< mapped host copy

    /** The forest's row pitch in slots: wordsPerRow words of rootBits, so that slot i's root bit is bit i % 32 of
    word i / 32. */
    __device__ __forceinline__ int pitch() const { return wordsPerRow * 32; }
};

/** Phase 1's tiles over an image of rows x cols: kTileCols wide, tileRows (kTileRows * rowsPerWarp) high,
tilesX across, numbered in raster order (the tile phase, the borders phase and the host's choice of rowsPerWarp). */
struct TileGrid
{
    int tileRows, tilesX, tiles;
    __host__ __device__ __forceinline__ TileGrid(int rows, int cols, int tileRows_)
        : tileRows(tileRows_), tilesX((cols + kTileCols - 1) / kTileCols), tiles(tilesX * ((rows + tileRows_ - 1) / tileRows_))
    {
    }
};

/** The frame holding virtual row y (a tile's rows never straddle frames: paddedRows is a multiple of the tile
rows): its image, and its first virtual row. Without a batch: the image, row 0. */
template <bool kBatch>
__device__ __forceinline__ BinaryImage frameImage(const Params& p, int y, int& frame, int& y0)
{
    if (!kBatch)
    {
        frame = y0 = 0;
        return p.image;
    }
    frame = y / p.paddedRows;
    y0 = frame * p.paddedRows;
    BinaryImage img;
    img.data = p.frames[frame].image;
    img.step = p.frames[frame].imageStep;
    img.rows = p.frameRows;
    img.cols = p.image.cols;
    return img;
}

/** A slot read from L2 (ld.global.cg): after a grid barrier, the values other multiprocessors wrote, whatever
this multiprocessor's L1 held before. Used wherever the true value matters (root, label), not in the unions,
whose progress never depends on fresh loads (union_find.cuh, "PLAIN LOADS"). */
__device__ __forceinline__ int slot(const int* forest, int i) { return __ldcg(forest + i); }

/** The rank (label, before a batch's frameBase) of root `root` (a pixel index), from its word after phase 4: the
roots before the word and those before it in the word, + 1. */
__device__ __forceinline__ int rootLabel(const Params& p, int root)
{
    const int word = root / kWarpSize;
    return __ldcg(p.wordRanks + word) + __popc(__ldcg(p.rootBits + word) & ((1u << root % kWarpSize) - 1u)) + 1;
}

/** Where phase 5 finds a root's label: in the root's slot (-label, stored by phase 4: one scattered store a root),
or from its word (rootLabel: one more dependent load a pixel in phase 5, for roots that are their own tile's, but
no store into the forest). The stores cost little while the forest stays in L2 or the roots are few, and 60-130 us
in 64 frames of 512^2 with 1-2 M labels, where the word costs 17-50 us (H100, perf/one_launch_phases.cu;
doc/benchmarks.md, "The labels from the root words"). Every block decides alike (N is the same for all). */
constexpr int kWordRankMinRoots = 1 << 16;
__device__ __forceinline__ bool labelsInRootSlots(int roots, int rows, int cols)
{
    return roots < kWordRankMinRoots || 32ll * roots <= static_cast<long long>(rows) * cols;
}

/** Pixels a thread takes at once in phases 3 to 5: their loads are independent, so that a thread has that
many in flight (the phases were bound by the latency of one load after another: 64 frames of 512^2 spent
190 / 130 / 415 us in them at one pixel or chunk per step, H200). */
constexpr int kInFlight = 4;

/** The roots of kInFlight nodes (node < 0: none), walked in lockstep: one round of loads for all at a time. */
__device__ __forceinline__ void rootsOf(const int* forest, int (&node)[kInFlight])
{
    bool moved = true;
    while (moved)
    {
        moved = false;
        int next[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u)
            next[u] = node[u] >= 0 ? slot(forest, node[u]) - 1 : node[u];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u)
            if (next[u] != node[u])
            {
                node[u] = next[u];
                moved = true;
            }
    }
}

/** Phase 3 on kInFlight words of the root bits (w < 0: none) holding `bits`, a lane per pixel: each tile root
flattened to point at its root, and the word left holding the bits of the roots (phase 4's). Returns this lane's
roots. Every lane of the warp calls it. */
__device__ __forceinline__ int flattenTileRoots(const Params& p, const int (&w)[kInFlight],
                                                const unsigned (&bits)[kInFlight])
{
    const int lane = threadIdx.x % kWarpSize;
    int i[kInFlight], v[kInFlight], node[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
    {
        i[u] = max(w[u], 0) * kWarpSize + lane;
        v[u] = bits[u] >> lane & 1u ? slot(p.forest, i[u]) : 0;
        node[u] = v[u] - 1; // -1: not a tile root
    }
    rootsOf(p.forest, node);
    int roots = 0;
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
    {
        const bool root = v[u] != 0 && node[u] == i[u];
        if (v[u] != 0 && !root && v[u] != node[u] + 1)
            p.forest[i[u]] = node[u] + 1; // an ancestor: concurrent walks stay valid
        const unsigned rootMask = __ballot_sync(kFullMask, root);
        if (lane == 0 && w[u] >= 0)
            p.rootBits[w[u]] = rootMask; // (read by this warp or, listed, by this block only, before)
        roots += root;
    }
    return roots;
}

/** Phase 2's pairs: those that foreground pixel (y, x) joins with its earlier neighbours. Every adjacency is
joined, directly or through a chain of joined ones (so the union-find sees every component whole):
 - left: always;
 - up: unless both left neighbours are foreground: (y, x-1) and (y-1, x-1) are then adjacent and joined (by
   induction along x), and each is joined to its row's pixel;
 - up-left (8): only when neither (y-1, x) nor (y, x-1) is foreground, else one of them links it;
 - up-right (8): only when neither (y-1, x) nor (y, x+1) is foreground: (y, x+1) joins (y-1, x+1) itself
   then (its left is (y, x), its up-left (y-1, x) background).
Phase 2 joins the pairs of this set that cross tiles; those inside a tile are connected already, since phase 1
labels each tile exactly (firstNeighbourLink), so every adjacency ends up connected. */
struct Joins
{
    bool left, up, upLeft, upRight;
};

template <int kConnectivity>
__device__ __forceinline__ Joins joinsOf(const BinaryImage& img, int y, int x)
{
    const bool left = x > 0 && device::isForeground(img, y, x - 1);
    Joins j = { left, false, false, false };
    if (y == 0)
        return j;
    const bool up = device::isForeground(img, y - 1, x);
    const bool upLeft = x > 0 && device::isForeground(img, y - 1, x - 1);
    j.up = up && !(left && upLeft);
    if (kConnectivity == 8)
    {
        const bool right = x + 1 < img.cols && device::isForeground(img, y, x + 1);
        const bool upRight = x + 1 < img.cols && device::isForeground(img, y - 1, x + 1);
        j.upLeft = upLeft && !up && !left;
        j.upRight = upRight && !up && !right;
    }
    return j;
}

/** A tile row (bit c: column c of the tile) and the tile's row above it (0 for the tile's first row). */
struct TileRows
{
    unsigned long long here, above;
};

/** Phase 1's links inside a tile (Komura 2015, as KE's initialization, section III-B-3 of Bolelli et al. 2024;
ke_labeling.cu): the tile slot of column c of the row whose first local index is `row` (0: background), and
in `unionWith` the one local index it must still be united with (-1: none). The pixel links to its first
foreground neighbour in raster order among up-left, up, up-right, left (up, left with 4-connectivity): all
earlier, so the tile stays a forest whose roots are first pixels. Why one union is enough (by induction in
raster order, every adjacent pair of earlier pixels is already connected): the earlier neighbours are
connected among themselves whenever up is foreground (up touches each of them) or, with up background, up-left
and left (vertically adjacent); only up-right is then apart from them, and with 4-connectivity left from up
(diagonal). So: 8-connectivity, up background, up-right and (up-left or left) foreground: unite with the one the
link did not take (up-right when linked to up-left, else left); 4-connectivity, up and left: unite with left.
Neighbours outside the tile count as background here: this labels the tile exactly, and phase 2 joins the pairs
across tiles (Joins). */
template <int kConnectivity>
__device__ __forceinline__ int firstNeighbourLink(const TileRows& m, int row, int c, int& unionWith)
{
    unionWith = -1;
    if (!(m.here >> c & 1u))
        return 0;
    const int li = row + c, up = li - kTileCols;
    const bool left = c > 0 && (m.here >> (c - 1) & 1u), upper = m.above >> c & 1u;
    if (kConnectivity == 4)
    {
        if (upper && left)
            unionWith = li - 1;
        return (upper ? up : left ? li - 1 : li) + 1;
    }
    const bool upLeft = c > 0 && (m.above >> (c - 1) & 1u);
    const bool upRight = c + 1 < kTileCols && (m.above >> (c + 1) & 1u);
    if (!upper && upRight && (upLeft || left))
        unionWith = upLeft ? up + 1 : li - 1;
    return (upLeft ? up - 1 : upper ? up : upRight ? up + 1 : left ? li - 1 : li) + 1;
}

/** Phase 5's share of the image's chunks for each warp: PIECES of `per` consecutive chunks (an equal share, at
most kPieceChunks), the warps' pieces side by side in STRIPES of warps * per chunks, stripe after stripe, so that
a warp walks along rows (its carry then meets the same component again) while all warps stay in one stripe of the
image: a batch of 64 frames of 512^2 is four stripes of about 16 frames, whose forest, statistics and roots stay in
L2 (with a contiguous share per warp, every warp at its own place in the 64 frames, the phase took 423 us at 4-conn,
d = 50 %, 1.1 M labels; H100, perf/one_launch_phases.cu; doc/benchmarks.md, "The labels from the root words"). */
constexpr int kPieceChunks = 32;
struct WarpPieces
{
    int chunks, per, stride, first; //!< the pieces [first + i * stride, + per) below chunks, i = 0, 1, ...
    /** Without `striped`, one piece a warp (its equal share), as where the labels are few the carry gains more
    from long pieces than L2 from the stripes (64 x 512^2, 8-conn, d = 50 %: 174 us, against 206 in stripes). */
    __device__ __forceinline__ WarpPieces(int chunks_, bool striped) : chunks(chunks_)
    {
        const int warps = gridDim.x * kWarps;
        per = (chunks + warps - 1) / warps;
        per = striped ? min(kPieceChunks, per) : per;
        stride = warps * per;
        first = (blockIdx.x * kWarps + threadIdx.x / kWarpSize) * per;
    }
};

/** The words [begin, end) of rootBits of this block for the ranking: contiguous, in raster order. */
__device__ __forceinline__ void blockWords(int words, int& begin, int& end)
{
    const int per = (words + gridDim.x - 1) / gridDim.x;
    begin = min(words, static_cast<int>(blockIdx.x) * per);
    end = min(words, begin + per);
}

/** Sum of v over the block (every thread gets it). `scratch`: kWarps ints of shared memory; the call ends
with a __syncthreads, so it may be called again right away. */
__device__ __forceinline__ int blockSum(int v, int* scratch)
{
    v = static_cast<int>(device::warpSum(static_cast<unsigned>(v)));
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    int total = lane < kWarps ? scratch[lane] : 0;
    total = static_cast<int>(device::warpSum(static_cast<unsigned>(total)));
    __syncthreads();
    return total;
}

// Phase 1, tiles (kRowsPerWarp: the host's rowsPerWarp): each tile is labeled in shared memory (local
// indices, row-major in the tile, so that a local root, the smallest local index of its tree, is also its
// first pixel in raster order); then each pixel's global slot points at its local root, and the tile roots
// are marked in rootBits. Each warp takes
// kRowsPerWarp consecutive rows, two chunks per row: its ballots give its rows and the row above its first as
// 64-bit masks, from which each pixel takes its Komura link and its one union (firstNeighbourLink) without
// reading the image again. Taller tiles (kRowsPerWarp > 1, chosen by the host for images with more tiles than
// blocks) mean fewer tiles one after another per block and fewer pairs across tiles for phase 2.
// Intentional races (compute-sanitizer racecheck reports them, in union_find.cuh's findRoot loads, the
// findRootCompress stores, and the compression's loads and stores (compressAll), and nowhere else in this
// kernel: H100, 938dcf0, a -lineinfo build): the tile's unions run concurrently on `tile`, as UF's
// localMergeKernel (uf_labeling.cu) does. A find may read an entry that another thread is moving to an
// ancestor (atomicMin on a root, or the compression's plain store); old and new value lead to the same
// root, only roots are linked, and atomicMin's returned value decides the retries (union_find.cuh, "PLAIN
// LOADS"). The barrier after the unions orders them before the last pass, where each thread moves only its
// own entries up their paths (compressAll) while others walk through them: every value read is an ancestor
// of smaller index, so each walk still ends at the root.
template <int kConnectivity, bool kBatch, int kRowsPerWarp>
__device__ __forceinline__ void labelTiles(const Params& p, int* tile)
{
    const int rows = p.image.rows, cols = p.image.cols;
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    constexpr int tileRows = kTileRows * kRowsPerWarp;
    const TileGrid tileGrid(rows, cols, tileRows);
    const int tilesX = tileGrid.tilesX, tiles = tileGrid.tiles;
    int* const forest = p.forest;
    const int pitch = p.pitch();
    const int r0 = warp * kRowsPerWarp; // the warp's first row in the tile
    for (int t = blockIdx.x; t < tiles; t += gridDim.x)
    {
        const int ty0 = t / tilesX * tileRows, tx0 = t % tilesX * kTileCols;
        int frame, y0; // the image is read at the frame's rows, the forest at the virtual rows
        const BinaryImage img = frameImage<kBatch>(p, ty0, frame, y0);
        // mask[r]: tile row r0 + r - 1 (mask[0]: the row above the warp's first; none above the tile's first)
        unsigned long long mask[kRowsPerWarp + 1];
#pragma unroll
        for (int r = 0; r <= kRowsPerWarp; ++r)
        {
            const int lr = r0 + r - 1, ly = ty0 + lr - y0;
            const bool row = lr >= 0 && ly < img.rows;
            unsigned b[2];
#pragma unroll
            for (int j = 0; j < 2; ++j)
            {
                const int x = tx0 + j * kWarpSize + lane;
                b[j] = __ballot_sync(kFullMask, row && x < cols && device::isForeground(img, ly, x));
            }
            mask[r] = b[0] | static_cast<unsigned long long>(b[1]) << 32;
        }
        int unionWith[kRowsPerWarp][2];
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
            for (int j = 0; j < 2; ++j)
            {
                const TileRows m = { mask[r + 1], mask[r] };
                const int c = j * kWarpSize + lane, row = (r0 + r) * kTileCols;
                tile[row + c] = firstNeighbourLink<kConnectivity>(m, row, c, unionWith[r][j]);
            }
        // Each pixel's walk to its tile root, moving its own slot up to every ancestor met (compressSlot), the
        // thread's 2 kRowsPerWarp walks in lockstep (a round of independent shared-memory loads at a time: the
        // Komura chains are about as long as the tile is tall). Only while no union runs: then only this thread
        // writes its pixels' slots, and every value it writes is an ancestor.
        int node[kRowsPerWarp][2]; // the node reached (local index), -1: background
        auto compressAll = [&] {
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                {
                    const int li = (r0 + r) * kTileCols + j * kWarpSize + lane;
                    node[r][j] = mask[r + 1] >> (j * kWarpSize + lane) & 1u ? tile[li] - 1 : -1;
                }
            for (bool moved = true; moved;)
            {
                moved = false;
                int next[kRowsPerWarp][2];
#pragma unroll
                for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
                    for (int j = 0; j < 2; ++j)
                        next[r][j] = node[r][j] >= 0 ? tile[node[r][j]] - 1 : -1;
#pragma unroll
                for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
                    for (int j = 0; j < 2; ++j)
                        if (next[r][j] != node[r][j])
                        {
                            tile[(r0 + r) * kTileCols + j * kWarpSize + lane] = next[r][j] + 1;
                            node[r][j] = next[r][j];
                            moved = true;
                        }
            }
        };
        bool unions = false;
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r)
            unions = unions || unionWith[r][0] >= 0 || unionWith[r][1] >= 0;
        if (__syncthreads_or(unions))
        {
            // The chains flattened first, so that the unions' finds are short (H100, one_launch_phases: the tile
            // phase 20.8 -> 17.8 us at 1024^2, g = 1, d = 50 %; 7.6 -> 5.1 at 512^2, g = 4); skipped by a tile
            // without unions (an all-foreground one), where it would only cost time
            compressAll();
            __syncthreads();
#pragma unroll
            for (int r = 0; r < kRowsPerWarp; ++r)
#pragma unroll
                for (int j = 0; j < 2; ++j)
                    if (unionWith[r][j] >= 0)
                        device::unite(tile, (r0 + r) * kTileCols + j * kWarpSize + lane, unionWith[r][j], device::OwnSlot());
            __syncthreads();
        }
        compressAll();
#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r)
        {
            const int y = ty0 + r0 + r;
            if (y >= rows)
                break; // (warp-uniform)
#pragma unroll
            for (int j = 0; j < 2; ++j)
            {
                const int c = j * kWarpSize + lane, x = tx0 + c, root = node[r][j];
                if (x < cols)
                    forest[y * pitch + x] = root < 0 ? 0 : (ty0 + root / kTileCols) * pitch + tx0 + root % kTileCols + 1;
                const unsigned roots = __ballot_sync(kFullMask, root >= 0 && root == (r0 + r) * kTileCols + c);
                const int word = tx0 / kWarpSize + j; // (tx0: a multiple of 64)
                if (lane == 0 && word < p.wordsPerRow)
                    p.rootBits[y * p.wordsPerRow + word] = roots;
            }
        }
        __syncthreads();
    }
}

template <int kConnectivity, typename LabelT, bool kStats, bool kBatch>
__global__ void __launch_bounds__(kThreads, 2) oneLaunchKernel(const Params p)
{
    cg::grid_group grid = cg::this_grid();
    CUDACCA_ONE_LAUNCH_PHASE_END(0);
    const int rows = p.image.rows, cols = p.image.cols;
    const int chunksPerRow = (cols + kWarpSize - 1) / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    int* const forest = p.forest;
    const int pitch = p.pitch();
    const int warp = threadIdx.x / kWarpSize;
    const TileGrid tileGrid(rows, cols, kTileRows * p.rowsPerWarp);
    const int tileRows = tileGrid.tileRows, tilesX = tileGrid.tilesX, tiles = tileGrid.tiles;

    // 1 tiles (labelTiles), tiles of kTileRows * rowsPerWarp rows
    {
        __shared__ int tile[kMaxTilePixels];
        switch (p.rowsPerWarp)
        {
        case 1: labelTiles<kConnectivity, kBatch, 1>(p, tile); break;
        case 2: labelTiles<kConnectivity, kBatch, 2>(p, tile); break;
        default: labelTiles<kConnectivity, kBatch, kMaxRowsPerWarp>(p, tile); break;
        }
    }
    grid.sync();
    CUDACCA_ONE_LAUNCH_PHASE_END(1);

    // 2 borders: the pairs that cross tiles, in the global forest: a tile's top row (its pairs with the row
    // above, and with the left for its first pixel), its first column (left, up-left) and last column
    // (up-right), each pixel once: kTileCols + 2 (tileRows - 1) per tile. A warp takes 32 consecutive such
    // pixels, mostly of one tile row, whose pairs often join the same two trees (a component along the
    // border): each distinct pair of roots is united by one lane (__match_any_sync), so that the giant
    // component's tile roots are not all linked at once by every lane (atomics on one root, retried).
    // Skipping a duplicate is safe: the lane that unites the same two trees joins the skipped pixels too.
    {
        const int border = kTileCols + 2 * (tileRows - 1);
        const int items = tiles * border;
        for (int k0 = blockIdx.x * kThreads + threadIdx.x - lane; k0 < items; k0 += gridDim.x * kThreads)
        {
            const int k = k0 + lane;
            int i = 0, partners = 0, partner0 = 0, partner1 = 0, partner2 = 0; // (registers, not an array)
            auto add = [&](int j) {
                (partners == 0 ? partner0 : partners == 1 ? partner1 : partner2) = j;
                ++partners;
            };
            if (k < items)
            {
                const int t = k / border, b = k - t * border;
                const int ty0 = t / tilesX * tileRows, tx0 = t % tilesX * kTileCols;
                const int y = b < kTileCols ? ty0 : ty0 + 1 + (b - kTileCols) / 2;
                const int x = b < kTileCols ? tx0 + b : tx0 + ((b - kTileCols) % 2 ? kTileCols - 1 : 0);
                int frame, y0;
                const BinaryImage img = frameImage<kBatch>(p, ty0, frame, y0);
                if (y - y0 < img.rows && x < cols && device::isForeground(img, y - y0, x))
                {
                    const Joins n = joinsOf<kConnectivity>(img, y - y0, x); // none upwards in a frame's first row
                    i = y * pitch + x;
                    const bool top = y == ty0, first = x == tx0, last = x == tx0 + kTileCols - 1;
                    if (first && n.left)
                        add(i - 1);
                    if (top && n.up)
                        add(i - pitch);
                    if ((top || first) && n.upLeft)
                        add(i - pitch - 1);
                    if ((top || last) && n.upRight)
                        add(i - pitch + 1);
                }
            }
            // The tile roots of the pixel and of its partners (one round of loads for all four: phase 1 left every
            // pixel's slot at its tile root, and only tile roots move here), then the unions, each walking from the
            // two tile roots (uniteHalving: its path halving moves only tile roots). Uniting tile roots rather than
            // the roots found first saves the walk's last round, which only confirmed a root (issue 13, labels
            // only at 512^2). A pair skipped as a duplicate is united by the lane that keeps it: the same two trees.
            static_assert(kInFlight >= 4, "the pixel and its three partners read together");
            int node[kInFlight];
#pragma unroll
            for (int u = 0; u < kInFlight; ++u)
            {
                const int n = partners == 0 || u > partners ? -1 : u == 0 ? i : u == 1 ? partner0 : u == 2 ? partner1 : partner2;
                node[u] = n >= 0 ? slot(forest, n) - 1 : -1;
            }
            const int tileA = node[0];
            for (int q = 0; __any_sync(kFullMask, q < partners); ++q)
            {
                unsigned long long pair = ~0ull; // none
                int tileB = -1;
                if (q < partners)
                {
                    tileB = q == 0 ? node[1] : q == 1 ? node[2] : node[3];
                    if (tileB != tileA)
                        pair = static_cast<unsigned long long>(min(tileA, tileB)) << 32 | static_cast<unsigned>(max(tileA, tileB));
                }
                const unsigned same = __match_any_sync(kFullMask, pair);
                if (pair != ~0ull && lane == __ffs(same) - 1)
                    device::uniteHalving(forest, tileA, tileB);
            }
        }
    }
    grid.sync();
    CUDACCA_ONE_LAUNCH_PHASE_END(2);

    // 3 flatten the tile roots, and count the roots of this block's range (roots no longer change). Only the
    // tile roots were moved by phase 2 (every join links roots, and a path halving moves nodes of paths between
    // roots); every other pixel still points at its tile root, so a pixel reaches its root in at most two steps
    // once the tile roots point at theirs (phase 5 takes them). A block of at most kWarps * kInFlight words (a
    // 512^2 frame: 31) gives each warp its kInFlight words. More words go in rounds of kThreads, a word per
    // thread: the words that hold tile roots are listed in shared memory, in order, and the warps take them
    // kInFlight at a time, so that where few words hold a tile root a warp does not wait for each word's load in
    // turn (64 x 512^2, g = 16, d = 50 %: 40 -> 15 us; doc/benchmarks.md). A word without tile roots holds no
    // root bits already.
    __shared__ int reduceScratch[kWarps];
    int begin, end; // this block's words
    blockWords(rows * p.wordsPerRow, begin, end);
    int blockRootCount; // (every thread's, for phase 4)
    {
        int roots = 0;
        if (end - begin <= kWarps * kInFlight)
        {
            const int w0 = begin + warp * kInFlight;
            if (w0 < end) // (the whole warp)
            {
                int w[kInFlight];
                unsigned bits[kInFlight];
#pragma unroll
                for (int u = 0; u < kInFlight; ++u)
                {
                    w[u] = w0 + u < end ? w0 + u : -1;
                    bits[u] = w[u] >= 0 ? __ldcg(p.rootBits + w[u]) : 0u;
                }
                roots = flattenTileRoots(p, w, bits);
            }
        }
        else
        {
            __shared__ int listedWords[kThreads];
            __shared__ unsigned listedBits[kThreads];
            for (int round = begin; round < end; round += kThreads)
            {
                const int word = round + static_cast<int>(threadIdx.x);
                const unsigned wordBits = word < end ? __ldcg(p.rootBits + word) : 0u;
                const unsigned listing = __ballot_sync(kFullMask, wordBits != 0);
                if (lane == 0)
                    reduceScratch[warp] = __popc(listing);
                __syncthreads();
                int listed = 0, listedBefore = 0; // the round's listed words; those of the warps before this one
                for (int k = 0; k < kWarps; ++k)
                {
                    const int c = reduceScratch[k];
                    listedBefore += k < warp ? c : 0;
                    listed += c;
                }
                if (wordBits != 0)
                {
                    const int at = listedBefore + __popc(listing & ((1u << lane) - 1u));
                    listedWords[at] = word;
                    listedBits[at] = wordBits;
                }
                __syncthreads();
                for (int j0 = warp * kInFlight; j0 < listed; j0 += kWarps * kInFlight)
                {
                    int w[kInFlight];
                    unsigned bits[kInFlight];
#pragma unroll
                    for (int u = 0; u < kInFlight; ++u)
                    {
                        w[u] = j0 + u < listed ? listedWords[j0 + u] : -1;
                        bits[u] = j0 + u < listed ? listedBits[j0 + u] : 0u;
                    }
                    roots += flattenTileRoots(p, w, bits);
                }
                __syncthreads(); // (the list and reduceScratch are written again)
            }
        }
        blockRootCount = blockSum(roots, reduceScratch);
        if (threadIdx.x == 0)
            p.blockRoots[blockIdx.x] = blockRootCount;
    }
    grid.sync();
    CUDACCA_ONE_LAUNCH_PHASE_END(3);

    // 4 rank: offset of this block, N, then each root's label = offset + its rank in the block + 1.
    int before = 0, total = 0;
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kThreads)
    {
        const int c = __ldcg(p.blockRoots + b);
        total += c;
        before += b < static_cast<int>(blockIdx.x) ? c : 0;
    }
    before = blockSum(before, reduceScratch);
    total = blockSum(total, reduceScratch);
    // A batch: frame f's labels are the roots' ranks minus frameBase[f]; the statistics of frame f's label l
    // are accumulated in slot frameBase[f] + f + l (its background in slot frameBase[f] + f), so the slots
    // are the rows of the batch staging in order, when the staging holds them all (every block sees the same).
    const int frameWords = kBatch ? p.paddedRows * p.wordsPerRow : 0;
    const bool rootSlots = labelsInRootSlots(total, rows, cols);
    const bool statsFit = !kBatch || total + p.frameCount <= p.out.batchRows;
    if (blockIdx.x == 0 && threadIdx.x == 0)
    {
        if (kBatch)
            p.frameBase[p.frameCount] = p.frameBaseHost[p.frameCount] = total;
        if (p.out.count)
            *p.out.count = total;
        if (p.out.labelCountAndStatus)
        {
            p.out.labelCountAndStatus[0] = total + 1;
            p.out.labelCountAndStatus[1] = total > p.out.maxLabel ? 2 : total + 1 > p.out.capacity ? 1 : 0;
        }
        if (kStats && !kBatch && total <= p.out.maxLabel)
            device::resetAccumulators(p.acc, 0);
        if (p.out.batch)
        {
            // this frame's rows of the batch staging (the frames' kernels run one after another, so [1] is ours)
            const bool write = kStats && total <= p.out.maxLabel;
            const int first = write ? atomicAdd(p.out.batch, total + 1) : 0;
            const int placed = write && first + total + 1 <= p.out.batchRows ? first : -1;
            p.out.batch[1] = placed;
            *p.out.batchPlacement = placed;
        }
    }
    if (!kBatch && total > p.out.maxLabel)
        return; // every block sees the same total: none reaches another barrier; only N is written
                // (a batch checks each frame's count in phase 5)
    if (kStats && statsFit && begin < end)
    {
        // This block's slots start neutral, stored by consecutive threads (full sectors) rather than by each
        // root's thread (seven scattered stores a label: 64 x 512^2, g = 1, d = 25 %, 4-conn, 2.2 M labels,
        // doc/benchmarks.md). Its roots hold labels before + 1 .. before + its count, in slots label + frame, with
        // frame nondecreasing from the frame of its first word to that of its last; the slots between are the
        // background slots of the frames that start in this block (frameBase[f] + f), which are this block's too
        // (reset below, by the thread of the frame's first word, with the same values). No other block's slot
        // lies in the range, as slots grow with the raster order. The top (minY) is left to the root's thread.
        const int frameFirst = kBatch ? begin / frameWords : 0, frameLast = kBatch ? (end - 1) / frameWords : 0;
        const int lastSlot = before + blockRootCount + frameLast;
        for (int s = before + 1 + frameFirst + static_cast<int>(threadIdx.x); s <= lastSlot; s += kThreads)
            device::resetAccumulators(p.acc, s, false);
    }
    {
        // Rounds of kThreads words, one per thread, so that thread order is raster order: a thread's roots are
        // ranked after those of the threads before it.
        __shared__ int warpOffset[kWarps];
        __shared__ int rankedSoFar;
        for (int base = begin; base < end; base += kThreads)
        {
            const int w = base + static_cast<int>(threadIdx.x);
            const unsigned bits = w < end ? __ldcg(p.rootBits + w) : 0u;
            const int mine = __popc(bits);
            int inclusive = mine; // over the warp's lanes
            for (int d = 1; d < kWarpSize; d *= 2)
            {
                const int t = __shfl_up_sync(kFullMask, inclusive, d);
                if (lane >= d)
                    inclusive += t;
            }
            if (lane == kWarpSize - 1)
                warpOffset[warp] = inclusive;
            __syncthreads();
            if (warp == 0)
            {
                // exclusive scan of the warps' counts (kWarps <= 32 lanes)
                const int c = lane < kWarps ? warpOffset[lane] : 0;
                int warpsInclusive = c;
                for (int d = 1; d < kWarpSize; d *= 2)
                {
                    const int t = __shfl_up_sync(kFullMask, warpsInclusive, d);
                    if (lane >= d)
                        warpsInclusive += t;
                }
                if (lane < kWarps)
                    warpOffset[lane] = warpsInclusive - c;
                if (lane == kWarpSize - 1)
                    rankedSoFar = warpsInclusive; // this round's roots
            }
            __syncthreads();
            int rootsBefore = before + warpOffset[warp] + inclusive - mine;
            if (!rootSlots && w < end)
                p.wordRanks[w] = rootsBefore;
            const int y = w / p.wordsPerRow;
            const int frame = kBatch ? y / p.paddedRows : 0;
            if (kBatch && w < end && w == frame * frameWords)
            {
                p.frameBase[frame] = p.frameBaseHost[frame] = rootsBefore;
                if (kStats && statsFit)
                    device::resetAccumulators(p.acc, rootsBefore + frame);
            }
            // A label's accumulators start neutral (above) but for the top: a root is its component's first pixel
            // in raster order (phase 3), so no pixel of the component lies above the root's row, and phase 5's runs
            // need no atomic for it (they carry INT_MAX, which the merges skip).
            if (rootSlots || (kStats && statsFit))
                for (unsigned rest = bits; rest; rest &= rest - 1)
                {
                    const int label = ++rootsBefore;
                    if (rootSlots)
                        forest[w * kWarpSize + __ffs(rest) - 1] = -label; // (the forest's pitch: whole words)
                    if (kStats && statsFit)
                        p.acc.minY[label + frame] = y - frame * p.paddedRows; // the frame's row (frame 0 but in a batch)
                }
            before += rankedSoFar;
            __syncthreads();
        }
    }
    __shared__ BlockCarry blockCarry;
    __shared__ ComponentFeatures blockBackground;
    if (kStats && threadIdx.x == 0)
    {
        blockCarry.reset();
        blockBackground.reset();
    }
    grid.sync();
    CUDACCA_ONE_LAUNCH_PHASE_END(4);

    // 5 labels, and the statistics run by run, each warp over its pieces (WarpPieces). A slot holds 0
    // (background), -label (a root, labelsInRootSlots) or, from a pixel, its tile root + 1, whose slot holds -label
    // or (phase 3) its root + 1 (a root in the words' case: itself + 1); where the roots hold no label, it comes
    // from the root's word (rootLabel).
    // A batch: a frame's label is the rank minus its frameBase, and its labels are written only when they fit
    // ltype (else the host refuses the batch naming the frame, whose labels stay untouched); a warp's
    // background set goes to its frame's slot whenever the warp moves on to another frame (chunks are rows).
    {
        ComponentFeatures background;
        background.reset();
        int backgroundSlot = 0;
        device::WarpCarry carry; // (a batch)
        // The frame of the chunk: its rank offset and labels (a batch: cached while the warp stays in a frame).
        int frameHere = -1, base = 0;
        char* labels = static_cast<char*>(p.out.labels);
        auto flushBackground = [&] {
            background.warpReduce();
            if (lane == 0 && background.area > 0)
                background.atomicMergeInto(p.acc, backgroundSlot);
            background.reset();
        };
        // (one instance a mode, each with its own registers: the words' pieces and loads cost spills in one body)
        auto labelsAndStatistics = [&](auto words) {
            constexpr bool kWords = decltype(words)::value;
            const WarpPieces pieces(rows * chunksPerRow, kWords);
            for (int firstChunk = pieces.first; firstChunk < pieces.chunks; firstChunk += pieces.stride)
                for (int k0 = firstChunk, lastChunk = min(pieces.chunks, firstChunk + pieces.per); k0 < lastChunk;
                     k0 += kInFlight)
                {
                    // kInFlight chunks' ranks first (independent loads: the slots, their tile roots' slots, then the
                    // roots' slots or words)
                    int rank[kInFlight];
#pragma unroll
                    for (int u = 0; u < kInFlight; ++u)
                    {
                        const int k = k0 + u, y = k / chunksPerRow, x = (k - y * chunksPerRow) * kWarpSize + lane;
                        rank[u] = k < lastChunk && x < cols ? slot(forest, y * pitch + x) : 0; // (padding rows: 0)
                    }
#pragma unroll
                    for (int u = 0; u < kInFlight; ++u)
                        rank[u] = rank[u] > 0 ? slot(forest, rank[u] - 1) : rank[u];
#pragma unroll
                    for (int u = 0; u < kInFlight; ++u)
                        rank[u] = rank[u] > 0 ? (kWords ? -rootLabel(p, rank[u] - 1) : slot(forest, rank[u] - 1))
                                              : rank[u];
#pragma unroll
                    for (int u = 0; u < kInFlight; ++u)
                        rank[u] = -rank[u];
#pragma unroll
                    for (int u = 0; u < kInFlight && k0 + u < lastChunk; ++u)
                    {
                        const int k = k0 + u;
                        const int y = k / chunksPerRow, x = (k - y * chunksPerRow) * kWarpSize + lane;
                        const int frame = kBatch ? y / p.paddedRows : 0, ly = kBatch ? y - frame * p.paddedRows : y;
                        if (kBatch && ly >= p.frameRows)
                            continue; // padding rows (the whole warp)
                        if (kBatch && frame != frameHere)
                        {
                            // (a warp's chunks are rows of a few frames: these loads once per frame)
                            frameHere = frame;
                            base = __ldcg(p.frameBase + frame);
                            labels = static_cast<char*>(p.frames[frame].labels);
                            if (__ldcg(p.frameBase + frame + 1) - base > p.out.maxLabel)
                                labels = nullptr;
                        }
                        int label = 0;
                        if (x < cols)
                        {
                            label = rank[u];
                            label -= label > 0 ? base : 0;
                            if (labels)
                                reinterpret_cast<LabelT*>(labels + static_cast<size_t>(ly) *
                                                                       (kBatch ? p.frames[frameHere].labelsStep
                                                                               : p.out.labelsStep))[x] =
                                    static_cast<LabelT>(label);
                        }
                        if (kStats && statsFit)
                        {
                            const int frameSlot = base + frame; // slot of the frame's label 0
                            if (kBatch && frameSlot != backgroundSlot)
                            {
                                flushBackground();
                                backgroundSlot = frameSlot;
                            }
                            // A run of the chunk is offered by its first lane: len = the foreground lanes from it on; its
                            // top is the label's, stored in phase 4 (minY INT_MAX: no atomic).
                            const unsigned mask = __ballot_sync(kFullMask, label > 0);
                            const bool first = label > 0 && (lane == 0 || !((mask >> (lane - 1)) & 1u));
                            const unsigned after = ~(mask >> lane);
                            const int len = after ? __ffs(after) - 1 : kWarpSize - lane;
                            ComponentFeatures run = device::runFeatures(x, ly, first ? len : 1);
                            run.minY = INT_MAX;
                            // A batch: a warp walks pieces of up to kPieceChunks chunks, where the giant component's
                            // runs meet in its carry; a frame: one or two chunks a warp, straight to the block's carry.
                            if (kBatch)
                                carry.offer(first, frameSlot + label, run, p.acc);
                            else
                                device::offerToBlock(first, frameSlot + label, run, blockCarry, p.acc);
                            if (x < cols && label == 0)
                                background.addPixel(x, ly);
                        }
                    }
                }
        };
        if (rootSlots)
            labelsAndStatistics(std::false_type());
        else
            labelsAndStatistics(std::true_type());
        if (kStats && statsFit)
        {
            if (kBatch)
            {
                flushBackground();
                carry.finishInto(blockCarry, p.acc, false, 0, background);
            }
            else
                device::mergeBlockBackground(background, blockBackground, p.acc);
            __syncthreads();
            if (threadIdx.x == 0)
                blockCarry.flush(p.acc);
        }
    }
    if (!kStats || !statsFit)
    {
        CUDACCA_ONE_LAUNCH_PHASE_END(5); // (labels only: block 0's own end, no barrier follows)
        return;
    }
    grid.sync();
    CUDACCA_ONE_LAUNCH_PHASE_END(5);

    // 6 finish: labels 0..N, to the mapped host staging when it holds them, else to the device rows when
    // they do (packed host rows; device rows statsStep / centroidsStep bytes apart). In a batch: to this
    // frame's rows of the batch staging, host or device per output, when they fit.
    // A batch of frames (kBatch): the slots are the staging's rows.
    const int first = p.out.batch ? __ldcg(p.out.batch + 1) : 0;
    const bool toHost = kBatch || (p.out.batch ? first >= 0 : total + 1 <= p.out.hostRows);
    if (!toHost && (p.out.batch || total + 1 > p.out.capacity))
        return;
    const int lastRow = kBatch ? total + p.frameCount - 1 : total;
    char* const stats = reinterpret_cast<char*>(toHost && p.out.statsHost ? p.out.statsHost : p.out.stats);
    char* const centroids = reinterpret_cast<char*>(toHost && p.out.centroidsHost ? p.out.centroidsHost : p.out.centroids);
    const size_t statsStep = toHost && p.out.statsHost ? sizeof(int) * kStatsColumns : p.out.statsStep;
    const size_t centroidsStep = toHost && p.out.centroidsHost ? sizeof(double) * 2 : p.out.centroidsStep;
    // Packed rows (the host staging's, which go over the PCIe bus, and packed device rows) leave through shared
    // memory as consecutive words (finalizeRows); other device rows are written in place.
    static_assert(kStatsColumns == 5, "finalizeRows writes OpenCV's five stats columns");
    const device::FinalRows finalRows = { stats, statsStep, centroids, centroidsStep };
    __shared__ int packedStats[kThreads * kStatsColumns];
    __shared__ double packedCentroids[kThreads * 2];
    for (int base = blockIdx.x * kThreads; base <= lastRow; base += gridDim.x * kThreads)
        device::finalizeRows(p.acc, base, lastRow, static_cast<size_t>(first) + base, finalRows, packedStats,
                             packedCentroids, p.emptyCentroid);
    CUDACCA_ONE_LAUNCH_PHASE_END(6);
}

struct DeviceInfo
{
    int device = -1;
    int multiprocessors = 0;
    bool cooperative = false;
};

DeviceInfo currentDevice()
{
    thread_local DeviceInfo cached;
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    if (cached.device != device)
    {
        int coop = 0;
        cached.device = device;
        checkCuda(cudaDeviceGetAttribute(&cached.multiprocessors, cudaDevAttrMultiProcessorCount, device),
                  "cudaDeviceGetAttribute (multiprocessors)");
        checkCuda(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device),
                  "cudaDeviceGetAttribute (cooperative launch)");
        cached.cooperative = coop != 0;
    }
    return cached;
}

int wordsPerRow(int cols) { return (cols + kWarpSize - 1) / kWarpSize; }

/** The forest: rows of Params::pitch() slots. */
size_t forestBytes(int rows, int cols) { return alignUp(sizeof(int) * static_cast<size_t>(rows) * wordsPerRow(cols) * kWarpSize); }

/** rootBits, then wordRanks: an unsigned and an int per word. */
size_t rootWordsBytes(int rows, int cols) { return alignUp(2 * sizeof(unsigned) * static_cast<size_t>(rows) * wordsPerRow(cols)); }

/** Params' rootBits and wordRanks in `s` (rootWordsBytes(rows, cols)). */
void placeRootWords(Params& p, char* s, int rows, int cols)
{
    p.wordsPerRow = wordsPerRow(cols);
    p.rootBits = reinterpret_cast<unsigned*>(s);
    p.wordRanks = reinterpret_cast<int*>(p.rootBits + static_cast<size_t>(rows) * p.wordsPerRow);
}

/** Phase 1's rows per warp: the fewest rounds of tiles per block (each round a chain of loads and block
barriers), ties to the shorter tiles (less work per thread in a round); a batch's tiles must not straddle frames
(paddedRows, 0 without a batch). */
int rowsPerWarpFor(int rows, int cols, long long blocks, int paddedRows)
{
#ifdef CUDACCA_ONE_LAUNCH_ROWS_PER_WARP // (perf/one_launch_phases.cu: to time each choice)
    if (paddedRows % (kTileRows * CUDACCA_ONE_LAUNCH_ROWS_PER_WARP) == 0)
        return CUDACCA_ONE_LAUNCH_ROWS_PER_WARP;
#endif
    int best = 1;
    long long bestRounds = LLONG_MAX;
    for (int r = 1; r <= kMaxRowsPerWarp; r *= 2)
    {
        const int tileRows = kTileRows * r;
        if (paddedRows % tileRows != 0)
            continue;
        const long long rounds = (TileGrid(rows, cols, tileRows).tiles + blocks - 1) / blocks;
        if (rounds < bestRounds)
        {
            best = r;
            bestRounds = rounds;
        }
    }
    return best;
}

template <int kConnectivity, typename LabelT, bool kStats, bool kBatch>
void launch(const Params& params, cudaStream_t stream)
{
    auto kernel = oneLaunchKernel<kConnectivity, LabelT, kStats, kBatch>;
    // One wave of resident blocks (a cooperative launch may not have more), no more than there is work for.
    // Occupancy is cached per thread for the current device only.
    thread_local int perSmCache[2][2][2][2] = {};
    thread_local int cacheDevice = -1;
    const DeviceInfo device = currentDevice();
    if (cacheDevice != device.device)
    {
        std::fill(&perSmCache[0][0][0][0], &perSmCache[0][0][0][0] + 16, 0);
        cacheDevice = device.device;
    }
    int& perSm = perSmCache[kConnectivity == 8][sizeof(LabelT) == 2][kStats][kBatch];
    if (perSm == 0)
        checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, 0),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor (one launch)");
    const long long pixels = static_cast<long long>(params.image.rows) * params.image.cols;
    const long long wave = static_cast<long long>(device.multiprocessors) * perSm;
    const unsigned blocks = static_cast<unsigned>(std::max(1ll, std::min(wave, (pixels + kThreads - 1) / kThreads)));
    Params p = params;
    p.rowsPerWarp = rowsPerWarpFor(p.image.rows, p.image.cols, blocks, kBatch ? p.paddedRows : 0);
    void* args[] = { &p };
    checkCuda(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks), dim3(kThreads), args, 0, stream),
              "cudaLaunchCooperativeKernel (one launch)");
}

template <bool kBatch>
void launchFor(const Params& p, int connectivity, cudaStream_t stream)
{
    withConnectivity(connectivity, [&](auto c) {
        constexpr int C = decltype(c)::value;
        if (p.out.labels16u)
            p.out.wantStats ? launch<C, unsigned short, true, kBatch>(p, stream) : launch<C, unsigned short, false, kBatch>(p, stream);
        else
            p.out.wantStats ? launch<C, int, true, kBatch>(p, stream) : launch<C, int, false, kBatch>(p, stream);
    });
}

/** The kernel's accumulators for `labels` labels (slots) at `memory`: area and sum of x in one word (a frame has at
most kOneLaunchMaxPixels = 2^21 pixels: an area of at most 2^21, a sum of x below 2^21 * 2^21 = kAreaShift bits),
so that a run's merge takes one atomic less. */
StatsAccumulators oneLaunchAccumulators(void* memory, int labels)
{
    static_assert(kOneLaunchMaxPixels <= (1ll << 21) && kAreaShift == 42, "area and sum of x in one 64-bit word");
    return layoutStatsAccumulators(memory, labels, kAreaShift);
}

/** A frame's rows in the virtual image of a batch: a whole number of tiles. */
int framePaddedRows(int rows) { return (rows + kTileRows - 1) / kTileRows * kTileRows; }

} // namespace

int oneLaunchLabelBound(int rows, int cols, int connectivity)
{
    const long long bound = connectivity == 8 ? static_cast<long long>((rows + 1) / 2) * ((cols + 1) / 2)
                                              : (static_cast<long long>(rows) * cols + 1) / 2;
    return static_cast<int>(bound + 1);
}

bool oneLaunchAvailable(int rows, int cols)
{
    return static_cast<long long>(rows) * cols <= kOneLaunchMaxPixels &&
           static_cast<long long>(rows) * wordsPerRow(cols) * kWarpSize <= 2 * kOneLaunchMaxPixels && currentDevice().cooperative;
}

size_t oneLaunchScratchBytes(int rows, int cols, int connectivity, bool wantStats)
{
    // per-block counts: at most one block per kThreads pixels
    const size_t blocks = static_cast<size_t>(rows) * cols / kThreads + 1;
    return forestBytes(rows, cols) + alignUp(sizeof(int) * blocks) + rootWordsBytes(rows, cols) +
           (wantStats ? statsAccumulatorBytes(oneLaunchLabelBound(rows, cols, connectivity)) : 0);
}

void oneLaunch(const BinaryImage& image, int connectivity, void* scratch, const OneLaunchOutputs& out,
               double emptyCentroid, cudaStream_t stream)
{
    char* s = static_cast<char*>(scratch);
    Params p;
    p.image = image;
    p.forest = reinterpret_cast<int*>(s);
    s += forestBytes(image.rows, image.cols);
    p.blockRoots = reinterpret_cast<int*>(s);
    s += alignUp(sizeof(int) * (static_cast<size_t>(image.rows) * image.cols / kThreads + 1));
    placeRootWords(p, s, image.rows, image.cols);
    s += rootWordsBytes(image.rows, image.cols);
    p.acc = out.wantStats ? oneLaunchAccumulators(s, oneLaunchLabelBound(image.rows, image.cols, connectivity))
                          : StatsAccumulators();
    p.out = out;
    p.emptyCentroid = emptyCentroid;
    launchFor<false>(p, connectivity, stream);
}

size_t oneLaunchFramesScratchBytes(int frames, int rows, int cols, int slots, bool wantStats)
{
    const size_t pixels = static_cast<size_t>(frames) * framePaddedRows(rows) * cols;
    return forestBytes(frames * framePaddedRows(rows), cols) + alignUp(sizeof(int) * (pixels / kThreads + 1)) +
           rootWordsBytes(frames * framePaddedRows(rows), cols) + alignUp(sizeof(int) * (frames + 1)) + (wantStats ? statsAccumulatorBytes(slots) : 0);
}

long long oneLaunchFramesPixels(int frames, int rows, int cols)
{
    return static_cast<long long>(frames) * framePaddedRows(rows) * wordsPerRow(cols) * kWarpSize;
}

void oneLaunchFrames(const OneLaunchFrame* frames, int frameCount, int rows, int cols, int connectivity, void* scratch,
                     const OneLaunchOutputs& out, int* frameBaseHost, double emptyCentroid, cudaStream_t stream)
{
    const size_t pixels = static_cast<size_t>(frameCount) * framePaddedRows(rows) * cols; // (as oneLaunchFramesScratchBytes)
    char* s = static_cast<char*>(scratch);
    Params p;
    p.image.data = nullptr;
    p.image.step = static_cast<size_t>(cols);
    p.image.rows = frameCount * framePaddedRows(rows);
    p.image.cols = cols;
    p.forest = reinterpret_cast<int*>(s);
    s += forestBytes(p.image.rows, cols);
    p.blockRoots = reinterpret_cast<int*>(s);
    s += alignUp(sizeof(int) * (pixels / kThreads + 1));
    placeRootWords(p, s, p.image.rows, cols);
    s += rootWordsBytes(p.image.rows, cols);
    p.frameBase = reinterpret_cast<int*>(s);
    s += alignUp(sizeof(int) * (frameCount + 1));
    p.acc = out.wantStats ? oneLaunchAccumulators(s, out.batchRows) : StatsAccumulators();
    p.out = out;
    p.emptyCentroid = emptyCentroid;
    p.frames = frames;
    p.frameCount = frameCount;
    p.frameRows = rows;
    p.paddedRows = framePaddedRows(rows);
    p.frameBaseHost = frameBaseHost;
    launchFor<true>(p, connectivity, stream);
}

}}} // namespace cv::cuda::cudacca
