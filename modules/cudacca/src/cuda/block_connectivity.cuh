// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The 2x2-block machinery shared by the block-based algorithms of Allegretti et al. 2019 (BUF in
// buf_labeling.cu, BKE in bke_labeling.cu; Bolelli et al. 2024, sections III-B-8 and III-B-9). 8-connectivity
// only: in a 2x2 block any two foreground pixels are 8-neighbours, so a block is one node of the
// union-find forest.
//
// A block (by, bx) covers the pixels   a = (2by, 2bx)      b = (2by, 2bx + 1)
//                                      c = (2by + 1, 2bx)  d = (2by + 1, 2bx + 1)
// (b, d are missing in the last block column when cols is odd; c, d in the last block row when rows is
// odd). Its neighbours of the half-neighbourhood are NW, N, NE and W.
//
// Node names (KEYS). A block is named by the pitched index of its first foreground pixel in raster order
// (a, b, c, d in that order), not by its top-left corner. Union by atomicMin on keys then leaves as root
// of each component the block whose first pixel is the component's raster-first pixel, which is the
// root the LabelForest contract asks for (contracts.hpp). With corner indices instead, a component
// whose first block has only bottom-row pixels could get a root right of its first pixel.
//
// State during labeling, all inside the forest buffer (no other device memory):
//   SLOT   the forest element of the block's top-left pixel a: the block's parent key + 1, 0 for an
//          empty block. A key k finds its block's slot as (k / ld rounded down to even) * ld + (k % ld
//          rounded down to even): blockSlot() does it with a multiply instead of a division.
//   INFO   the element right of the slot (b) if the block has one, else the one below it (c); a 1x1
//          block (bottom-right corner, rows and cols odd) has none. Bits 0-3: which of a, b, c, d are
//          foreground (kPixelA...); bits 4-7: BKE's edges left for its Reduce step (kEdgeN, NE, W << 4).
// The final pass of each algorithm overwrites all four pixels of every block.

#ifndef CUDACCA_BLOCK_CONNECTIVITY_CUH
#define CUDACCA_BLOCK_CONNECTIVITY_CUH

#include <cstdint>
#include <type_traits>

#include "../contracts.hpp"
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
    const unsigned mask = static_cast<unsigned>(info) & kPixelMask;
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

/** Calls f(std::integral_constant<bool, forestPairsAligned(forest)>): the kernels' kPairs. */
template <typename F>
void withPairAccess(const LabelForest& forest, F&& f)
{
    if (forestPairsAligned(forest))
        f(std::integral_constant<bool, true>());
    else
        f(std::integral_constant<bool, false>());
}

}}} // namespace cv::cuda::cudacca

#endif
