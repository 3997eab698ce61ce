// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The 2x2-block machinery shared by the block-based algorithms of Allegretti et al. 2019 (BUF in
// buf_labeling.cu, BKE in bke_labeling.cu; Bolelli et al. 2024, sections III-B-8 and III-B-9; C_BBDT and
// C_DRAG, III-B-7, in block_decision_tree.cuh), with the kernels they share (Initialization frame,
// Compression, FinalLabeling). 8-connectivity only: in a 2x2 block any two foreground pixels are
// 8-neighbours, so a block is one node of the union-find forest.
// Key idea: a block is named by the pitched index of its first foreground pixel (its KEY), so union by
// atomicMin leaves the component's raster-first pixel as root (the LabelForest contract). All state lives
// in the forest: SLOT, pixel a's element (parent key + 1, 0 for an empty block), and INFO, pixel b's
// element, else c's (bits 0-3: foreground pixels, kPixelA...; bits 4-7: BKE's edges left for Reduce).
// Block layout, keys, SLOT and INFO in full: doc/algorithms.md, section "2x2 blocks".

#ifndef CUDACCA_BLOCK_CONNECTIVITY_CUH
#define CUDACCA_BLOCK_CONNECTIVITY_CUH

#include <cstdint>

#include "../contracts.hpp"
#include "../labeling.hpp"
#include "cuda_check.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

// ---- launch geometry --------------------------------------------------------------------------------

//! One thread per 2x2 block; a thread block covers kBlockTileW x kBlockTileH blocks (64 x 16 pixels):
//! a warp is a row of 32 blocks, so it reads 64 consecutive image bytes and writes 256 forest bytes per row.
constexpr int kBlockTileW = 32;
constexpr int kBlockTileH = 8;

/** Grid of a one-thread-per-block launch: a 1D grid of tiles (gridDim.y would be too small for tall
images), tilesPerRow tiles per tile row. */
struct BlockLaunch
{
    unsigned tiles;
    int tilesPerRow;
};

inline BlockLaunch blockLaunchFor(int rows, int cols)
{
    const long long blockRows = (static_cast<long long>(rows) + 1) / 2;
    const long long blockCols = (static_cast<long long>(cols) + 1) / 2;
    const long long tilesPerRow = (blockCols + kBlockTileW - 1) / kBlockTileW;
    const long long tileRows = (blockRows + kBlockTileH - 1) / kBlockTileH;
    BlockLaunch l;
    l.tilesPerRow = static_cast<int>(tilesPerRow);
    l.tiles = static_cast<unsigned>(tilesPerRow * tileRows); // < 2^31: at most rows * cols / 4 + a tile row
    return l;
}

/** Division by the forest's row stride with a multiply (Granlund and Montgomery's round-up method, as
in CUTLASS's FastDivmod): for 0 <= n < 2^31, n / ld == (umulhi(n, magic) + n) >> shift. Set up on the
host by makeStrideDivider. */
struct StrideDivider
{
    int ld;
    unsigned magic;
    unsigned shift;
};

inline StrideDivider makeStrideDivider(int ld)
{
    unsigned shift = 0;
    while ((1ull << shift) < static_cast<unsigned long long>(ld))
        ++shift; // smallest shift with 2^shift >= ld; at most 31
    StrideDivider d;
    d.ld = ld;
    // < 2^32 because 2^shift < 2 ld; (2^shift - ld) * 2^32 < 2^63 fits
    d.magic = static_cast<unsigned>(((1ull << 32) * ((1ull << shift) - static_cast<unsigned long long>(ld))) /
                                        static_cast<unsigned long long>(ld) + 1);
    d.shift = shift;
    return d;
}

/** The forest can take 8-byte (int2) accesses at every slot: slots are at even columns, so an 8-byte
aligned base and an even stride make every pair of elements (slot, slot + 1) and (slot + ld, slot + ld
+ 1) aligned. Decided once per call on the host. */
inline bool forestPairsAligned(const LabelForest& f)
{
    return reinterpret_cast<uintptr_t>(f.data) % 8 == 0 && f.ld % 2 == 0;
}

namespace device {

// ---- bit layouts ------------------------------------------------------------------------------------

enum : unsigned
{
    kPixelA = 1u, kPixelB = 2u, kPixelC = 4u, kPixelD = 8u, //!< foreground pixels of a block
    kPixelMask = 15u
};

enum : unsigned
{
    kEdgeNW = 1u, kEdgeN = 2u, kEdgeNE = 4u, kEdgeW = 8u //!< neighbour blocks of the half-neighbourhood
};

//! Bits 4-7 of INFO: BKE's edges for Reduce.
constexpr unsigned kInfoEdgeShift = 4;

// ---- the block of this thread -----------------------------------------------------------------------

/** This thread's block in a launch of blockLaunchFor(rows, cols) with kBlockTileW x kBlockTileH threads:
its top-left pixel (y0, x0) and slot; false for threads past the image. The block coordinates are
computed in unsigned arithmetic: 2 * (block column) may pass INT_MAX for threads of the last tile. */
struct Block
{
    int y0, x0;    //!< top-left pixel a
    int slot;      //!< pitched index of a: y0 * ld + x0
    bool right;    //!< b and d exist (x0 + 1 < cols)
    bool below;    //!< c and d exist (y0 + 1 < rows)
};

__device__ __forceinline__ bool threadBlock(const LabelForest& f, int tilesPerRow, Block& blk)
{
    const unsigned tileX = blockIdx.x % static_cast<unsigned>(tilesPerRow);
    const unsigned tileY = blockIdx.x / static_cast<unsigned>(tilesPerRow);
    const unsigned x0 = 2u * (tileX * kBlockTileW + threadIdx.x);
    const unsigned y0 = 2u * (tileY * kBlockTileH + threadIdx.y);
    if (x0 >= static_cast<unsigned>(f.cols) || y0 >= static_cast<unsigned>(f.rows))
        return false;
    blk.x0 = static_cast<int>(x0);
    blk.y0 = static_cast<int>(y0);
    blk.slot = blk.y0 * f.ld + blk.x0; // < rows * ld < INT_MAX
    blk.right = blk.x0 + 1 < f.cols;
    blk.below = blk.y0 + 1 < f.rows;
    return true;
}

/** Pitched index of the block's first foreground pixel (its key); mask must be nonzero. */
__device__ __forceinline__ int blockKey(const Block& blk, unsigned mask, int ld)
{
    const int offset = (mask & kPixelA) ? 0 : (mask & kPixelB) ? 1 : (mask & kPixelC) ? ld : ld + 1;
    return blk.slot + offset;
}

/** Slot of the neighbour block in direction edge (one of kEdgeNW, kEdgeN, kEdgeNE, kEdgeW). */
__device__ __forceinline__ int neighbourSlot(const Block& blk, unsigned edge, int ld)
{
    switch (edge)
    {
    case kEdgeNW: return blk.slot - 2 * ld - 2;
    case kEdgeN:  return blk.slot - 2 * ld;
    case kEdgeNE: return blk.slot - 2 * ld + 2;
    default:      return blk.slot - 2;
    }
}

/** The slot of the block that holds pixel (key) k: (y & ~1) * ld + (x & ~1) for k = y * ld + x. The
functor that union_find.cuh's slot-mapped functions take. */
struct BlockSlot
{
    StrideDivider div;

    __device__ __forceinline__ int operator()(int k) const
    {
        const unsigned u = static_cast<unsigned>(k);
        const int y = static_cast<int>((__umulhi(u, div.magic) + u) >> div.shift); // k / ld; no overflow: u < 2^31
        const int x = k - y * div.ld;
        return k - (y & 1) * div.ld - (x & 1);
    }
};

// ---- the input image --------------------------------------------------------------------------------

/** What a block sees of the image: its foreground pixels and its connections to the neighbours of the
half-neighbourhood.

`edges`: the neighbour blocks that touch this block (8-connectivity):
    NW  a and NW's d                         N   (a or b) and (N's c or d)
    NE  b and NE's c                         W   (a or c) and (W's b or d)
`needed`: the edges that this block must realize (by a link or a union). The others are implied by
edges that are realized or implied earlier in a fixed order, so skipping them keeps the components
(the border rule of uf_labeling.cu, in block form). Order the edges by the raster index of the block
that owns them, then NW < N < NE < W within a block; a skipped edge only relies on smaller ones, so by
induction every edge is realized or implied:
    N   skipped if a, NW's d and N's c:  X-NW (our NW edge) and N-NW (N's W edge: N's c, NW's d);
    NE  skipped if b, NE's c and N's d:  X-N (our N edge: b, N's d) and N-NE (NE's W edge: NE's c, N's d);
    W   skipped if W's b and either NW's d with a (X-NW, and W-NW: W's N edge, W's b and NW's d), or
        N's c with a or b (X-N, and W-N: W's NE edge, W's b and N's c).
NW is never skipped. On an all-foreground image every block keeps only its NW edge.
`westBefore`: W's key is known to be smaller than ours (BKE may then link to W in its initialization):
true when W's b is foreground or our top row is empty. */
struct BlockView
{
    unsigned mask;
    unsigned edges;
    unsigned needed;
    bool westBefore;
};

/** The input pixel at p is foreground (nonzero: CV_8U or CV_8S). Through the read-only data cache: the
image is never written while a labeling runs (the host refuses outputs that overlap it). */
__device__ __forceinline__ bool foreground(const unsigned char* p) { return __ldg(p) != 0; }

/** Foreground pixels of the block (kPixelA...). Byte offsets in size_t: rows x step may pass INT_MAX. */
__device__ __forceinline__ unsigned blockMask(const BinaryImage& img, const Block& blk)
{
    const unsigned char* r0 = img.data + static_cast<size_t>(blk.y0) * img.step;
    unsigned mask = foreground(r0 + blk.x0) ? kPixelA : 0u;
    if (blk.right && foreground(r0 + blk.x0 + 1))
        mask |= kPixelB;
    if (blk.below)
    {
        const unsigned char* r1 = r0 + img.step;
        if (foreground(r1 + blk.x0))
            mask |= kPixelC;
        if (blk.right && foreground(r1 + blk.x0 + 1))
            mask |= kPixelD;
    }
    return mask;
}

/** The block's BlockView: reads its four pixels and only those neighbour pixels that can matter. */
__device__ __forceinline__ BlockView viewBlock(const BinaryImage& img, const Block& blk)
{
    const int x0 = blk.x0;
    const unsigned mask = blockMask(img, blk);
    const bool a = mask & kPixelA, b = mask & kPixelB, c = mask & kPixelC;
    const unsigned char* r0 = img.data + static_cast<size_t>(blk.y0) * img.step;

    bool nwd = false, nc = false, nd = false, nec = false; // NW's d, N's c, N's d, NE's c
    if (blk.y0 > 0)
    {
        const unsigned char* ru = r0 - img.step;
        nwd = a && x0 > 0 && foreground(ru + x0 - 1);
        if (a || b)
        {
            nc = foreground(ru + x0);
            nd = blk.right && foreground(ru + x0 + 1);
        }
        nec = b && x0 + 2 < img.cols && foreground(ru + x0 + 2); // x0 + 2 <= cols + 1 <= INT_MAX
    }
    bool wb = false, wd = false; // W's b, W's d
    if (x0 > 0 && (a || c))
    {
        wb = foreground(r0 + x0 - 1);
        wd = blk.below && foreground(r0 + img.step + x0 - 1);
    }

    BlockView v;
    v.mask = mask;
    v.edges = (nwd ? kEdgeNW : 0u) | (nc || nd ? kEdgeN : 0u) | (nec ? kEdgeNE : 0u) | (wb || wd ? kEdgeW : 0u);
    const unsigned implied = (nwd && nc ? kEdgeN : 0u) | (nec && nd ? kEdgeNE : 0u) |
                             (wb && (nwd || nc) ? kEdgeW : 0u);
    v.needed = v.edges & ~implied;
    v.westBefore = wb || !(a || b);
    return v;
}

// ---- forest access ----------------------------------------------------------------------------------

/** Writes (first, second) to p[0], p[1]: one 8-byte store when kPairs (forestPairsAligned). */
template <bool kPairs>
__device__ __forceinline__ void storePair(int* p, int first, int second)
{
    if (kPairs)
        *reinterpret_cast<int2*>(p) = make_int2(first, second);
    else
    {
        p[0] = first;
        p[1] = second;
    }
}

template <bool kPairs>
__device__ __forceinline__ void loadPair(const int* p, int& first, int& second)
{
    if (kPairs)
    {
        const int2 v = *reinterpret_cast<const int2*>(p);
        first = v.x;
        second = v.y;
    }
    else
    {
        first = p[0];
        second = p[1];
    }
}

/** Stores the block's SLOT value and its INFO word (see the top of this file). */
template <bool kPairs>
__device__ __forceinline__ void storeSlotAndInfo(const LabelForest& f, const Block& blk, int slotValue, unsigned info)
{
    if (blk.right)
        storePair<kPairs>(f.data + blk.slot, slotValue, static_cast<int>(info));
    else
    {
        f.data[blk.slot] = slotValue;
        if (blk.below)
            f.data[blk.slot + f.ld] = static_cast<int>(info);
    }
}

/** Whether the block has an INFO element (all but a 1x1 block). */
__device__ __forceinline__ bool hasInfo(const Block& blk) { return blk.right || blk.below; }

/** The block's INFO word; only for blocks with hasInfo(). INFO never changes after initialization. */
__device__ __forceinline__ unsigned loadInfo(const LabelForest& f, const Block& blk)
{
    return static_cast<unsigned>(f.data[blk.right ? blk.slot + 1 : blk.slot + f.ld]);
}

/** Union of the block (a node of its tree with key `self`) with each neighbour block in `edges` (kEdge* bits),
in the order NW, N, NE, W (both algorithms' union steps). Slots only ever hold keys of nodes of the right
trees, so a neighbour's slot value - 1 is one; the walks use plain loads (union_find.cuh says why). */
__device__ __forceinline__ void uniteWithNeighbours(const LabelForest& f, const Block& blk, int self, unsigned edges,
                                                    const BlockSlot& slot)
{
    const int* parent = f.data;
    const unsigned inOrder[4] = { kEdgeNW, kEdgeN, kEdgeNE, kEdgeW };
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (edges & inOrder[i])
            unite(f.data, self, parent[neighbourSlot(blk, inOrder[i], f.ld)] - 1, slot);
}

/** Compression (both algorithms): the block's SLOT <- its root's key + 1. Only for passes where no union
runs: other threads rewrite only their own slots, always to an ancestor, and roots do not change, so
SLOT and INFO can be read with plain loads, and a root is recognized by its own key without reading
further (most blocks of a sparse image). */
template <bool kPairs>
__device__ __forceinline__ void compressBlock(const LabelForest& f, const Block& blk, const BlockSlot& slot)
{
    int value, info;
    if (blk.right)
        loadPair<kPairs>(f.data + blk.slot, value, info);
    else
    {
        value = f.data[blk.slot];
        info = blk.below ? f.data[blk.slot + f.ld] : static_cast<int>(kPixelA);
    }
    if (value == 0 || value - 1 == blockKey(blk, static_cast<unsigned>(info) & kPixelMask, f.ld))
        return; // empty, or a root
    compressSlot(f.data, blk.slot, value - 1, slot);
}

/** The block's four pixels of the LabelForest: `label` for the foreground pixels of `mask` (kPixelA...), 0 for
the others (the pixels that exist: blk.right, blk.below). */
template <bool kPairs>
__device__ __forceinline__ void storeBlockLabels(const LabelForest& f, const Block& blk, unsigned mask, int label)
{
    const int labelA = (mask & kPixelA) ? label : 0;
    const int labelB = (mask & kPixelB) ? label : 0;
    const int labelC = (mask & kPixelC) ? label : 0;
    const int labelD = (mask & kPixelD) ? label : 0;
    if (blk.right)
    {
        storePair<kPairs>(f.data + blk.slot, labelA, labelB);
        if (blk.below)
            storePair<kPairs>(f.data + blk.slot + f.ld, labelC, labelD);
    }
    else
    {
        f.data[blk.slot] = labelA;
        if (blk.below)
            f.data[blk.slot + f.ld] = labelC;
    }
}

/** FinalLabeling (both algorithms): once every SLOT holds its block's root key + 1, writes the LabelForest
of contracts.hpp for the block's four pixels: root key + 1 for a foreground pixel, 0 for background.
Reads only the block's own SLOT and INFO, which no other thread reads any more, so overwriting them is safe. */
template <bool kPairs>
__device__ __forceinline__ void writeBlockLabels(const LabelForest& f, const Block& blk)
{
    int label, info;
    if (blk.right)
        loadPair<kPairs>(f.data + blk.slot, label, info);
    else
    {
        label = f.data[blk.slot];
        info = blk.below ? f.data[blk.slot + f.ld] : (label != 0 ? static_cast<int>(kPixelA) : 0);
    }
    storeBlockLabels<kPairs>(f, blk, static_cast<unsigned>(info) & kPixelMask, label);
}

/** Initialization of the block union-find algorithms (BUF, C_BBDT, C_DRAG), blockInitKernel's Init: every block
is a tree of its own (SLOT = its key + 1, 0 when empty); INFO = its mask. */
struct TreePerBlock
{
    static __device__ __forceinline__ void values(const BinaryImage& img, const LabelForest& f, const Block& blk,
                                                  int& slotValue, unsigned& info)
    {
        info = blockMask(img, blk);
        slotValue = info ? blockKey(blk, info, f.ld) + 1 : 0;
    }
};

/** Initialization (both algorithms), one thread per block: reads the block's pixels and writes only its
own SLOT and INFO, as Init::values(img, f, blk, slotValue, info) decides: no race. */
template <bool kPairs, class Init>
__global__ void blockInitKernel(const BinaryImage img, const LabelForest f, int tilesPerRow)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    int slotValue = 0;
    unsigned info = 0;
    Init::values(img, f, blk, slotValue, info);
    storeSlotAndInfo<kPairs>(f, blk, slotValue, info);
}

/** Compression (both algorithms), one thread per block: the block's slot <- its root's key + 1. */
template <bool kPairs>
__global__ void blockCompressKernel(const LabelForest f, int tilesPerRow, const BlockSlot slot)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    compressBlock<kPairs>(f, blk, slot);
}

/** FinalLabeling (both algorithms), one thread per block (writeBlockLabels). */
template <bool kPairs>
__global__ void blockFinalLabelingKernel(const LabelForest f, int tilesPerRow)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    writeBlockLabels<kPairs>(f, blk);
}

} // namespace device

/** One launch of the block kernels over the forest: a thread per 2x2 block, tiles of kBlockTileW x kBlockTileH
threads, and the slot mapping of the forest's stride. */
struct BlockPass
{
    BlockLaunch launch;
    dim3 threads;
    device::BlockSlot slot;
};

inline BlockPass blockPassFor(const LabelForest& f)
{
    BlockPass p;
    p.launch = blockLaunchFor(f.rows, f.cols);
    p.threads = dim3(kBlockTileW, kBlockTileH);
    p.slot.div = makeStrideDivider(f.ld);
    return p;
}

/** Launches a block kernel over the whole forest (`step` names it in errors). */
template <typename... Params, typename... Args>
void launchBlocks(const BlockPass& p, void (*kernel)(Params...), const char* step, cudaStream_t stream, Args... args)
{
    kernel<<<p.launch.tiles, p.threads, 0, stream>>>(args...);
    checkLaunch(step);
}

/** The last two steps of both algorithms, once every union is made: Compression, then FinalLabeling. */
template <bool kPairs>
void compressAndWriteBlockLabels(const BlockPass& p, const LabelForest& f, cudaStream_t stream)
{
    launchBlocks(p, device::blockCompressKernel<kPairs>, "block compression", stream, f, p.launch.tilesPerRow, p.slot);
    launchBlocks(p, device::blockFinalLabelingKernel<kPairs>, "block final labeling", stream, f, p.launch.tilesPerRow);
}

/** Defines name::createLabeling() for a block labeling (8-connectivity, the rows' only one) that is one host
function template run<kPairs>(const BinaryImage&, const LabelForest&, cudaStream_t); kPairs is
forestPairsAligned(forest), decided once per call. */
#define CUDACCA_BLOCK_LABELING(name, run)                                                                \
    namespace name {                                                                                    \
    Labeling* createLabeling()                                                                          \
    {                                                                                                   \
        return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*8*/,  \
                                       cudaStream_t stream) {                                           \
            if (forestPairsAligned(forest))                                                             \
                run<true>(image, forest, stream);                                                       \
            else                                                                                        \
                run<false>(image, forest, stream);                                                      \
        });                                                                                             \
    }                                                                                                   \
    }

}}} // namespace cv::cuda::cudacca

#endif
