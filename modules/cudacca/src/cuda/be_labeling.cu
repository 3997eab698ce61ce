// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BE: the Block Equivalence of Zavalishin, Safonov, Bekhtin and Kurilin 2016 ("Block equivalence algorithm
// for labeling 2D and 3D images on GPU"), as described in Bolelli et al. 2024, section III-A-9 and
// Algorithm 5: Kalentev's label equivalence (OLE, ole_labeling.cu) on 2x2 blocks. 8-connectivity only (in a
// 2x2 block any two foreground pixels are 8-neighbours). Produces a flat LabelForest. One thread per block
// in every kernel; two buffers of the paper's, indexed by the block's raster index b (blockCols = ceil(cols
// / 2) blocks per row): bL, the block labels (4 bytes per block), and BA, the block adjacency (1 byte per
// block, one bit per neighbour block that is really connected).
//   Init          - the paper's two-step check: the block's own pixels give the set of window pixels that
//                   touch them, then only those pixels of the neighbour blocks are read; bL and BA written;
//   Scan          - OLE's Scanning on blocks, the neighbours read from BA instead of the pixels;
//   Analysis      - OLE's Analysis on blocks;
//   FinalLabeling - every foreground pixel gets its block's label, the background 0.
// Scan + Analysis repeat until a Scan changes nothing (convergence: see runBe).
// Key idea of ours (the LabelForest contract): a block's label is its KEY + 1, the pitched index of its
// first foreground pixel (blockKey, block_connectivity.cuh), not its block index as in the paper, so that
// the smallest label of a component is its raster-first pixel. Departures: doc/algorithms.md, section "BE".

#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "block_connectivity.cuh"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

#include <climits>

namespace cv { namespace cuda { namespace cudacca {

namespace {

using namespace device;

constexpr int kThreads = 256;

//! Scan + Analysis rounds queued per host check of the "changed" flags: first, and at most (OLE's).
constexpr int kFirstRoundsPerCheck = 4;
constexpr int kMaxRoundsPerCheck = 16;

//! BA bits: one per neighbour block (all eight: OLE's Scan looks at every neighbour).
enum : unsigned
{
    kBaNW = 1u, kBaN = 2u, kBaNE = 4u, kBaW = 8u, kBaE = 16u, kBaSW = 32u, kBaS = 64u, kBaSE = 128u
};

/** The grid of 2x2 blocks: blockCols blocks per row, `count` in all (< 2^31: at most a quarter of the
forest's rows * ld plus a row and a column). */
struct BlockGrid
{
    int blockCols;
    unsigned count;
};

/** The node of a label: the block that holds pixel k (a key), as its raster index in bL. The slot functor of
union_find.cuh's slot-mapped functions. k / ld by the multiply of StrideDivider (block_connectivity.cuh). */
struct KeyBlock
{
    StrideDivider div;
    int blockCols;

    __device__ __forceinline__ int operator()(int k) const
    {
        const unsigned u = static_cast<unsigned>(k);
        const int y = static_cast<int>((__umulhi(u, div.magic) + u) >> div.shift); // no overflow: u < 2^31
        const int x = k - y * div.ld;
        return (y >> 1) * blockCols + (x >> 1);
    }
};

/** Block b of the raster order of blocks as block_connectivity.cuh's Block (its top-left pixel and slot). */
__device__ __forceinline__ Block blockAt(const LabelForest& f, int blockCols, unsigned b)
{
    const unsigned by = b / static_cast<unsigned>(blockCols);
    const unsigned bx = b - by * static_cast<unsigned>(blockCols);
    Block blk;
    blk.y0 = static_cast<int>(2u * by);
    blk.x0 = static_cast<int>(2u * bx); // <= cols - 1: b < count
    blk.slot = blk.y0 * f.ld + blk.x0;  // < rows * ld < INT_MAX
    blk.right = blk.x0 + 1 < f.cols;
    blk.below = blk.y0 + 1 < f.rows;
    return blk;
}

/** Calls f(b) for every block b, in a warp-uniform grid-stride loop over the raster order of blocks (OLE's
forEachPixel, on blocks: a warp vote after it sees every lane; one wave of resident blocks). */
template <typename F>
__device__ __forceinline__ void forEachBlock(const BlockGrid& g, F f)
{
    const unsigned lane = threadIdx.x & 31u;
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < g.count; base += stride)
        if (base + lane < g.count)
            f(base + lane);
}

/** Init (Algorithm 5), one thread per block: writes only bL[b] and BA[b]; reads only the image.
Step 1: P, a 4x4 bit window over rows y0 - 1 .. y0 + 2 and columns x0 - 1 .. x0 + 2 (bit 4 * row + column),
gets the 3x3 neighbourhood of every foreground pixel of the block (0x777 around a, shifted by 1 for b, 4 for
c, 5 for d): the window pixels that are 8-adjacent to the block. Step 2: a neighbour block is connected iff
one of its pixels with a P bit is foreground; only those pixels are read. The bits are exact (a block is
connected to X iff some foreground pixel of it is 8-adjacent to one of X), hence symmetric: X's bit in
BA[b] is set iff b's bit in X's BA is. The block's label is its key + 1 (its first foreground pixel). */
__global__ void initKernel(const BinaryImage img, const LabelForest f, const BlockGrid g, int* bL,
                           unsigned char* BA)
{
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= g.count)
        return;
    const Block blk = blockAt(f, g.blockCols, b);
    const unsigned mask = blockMask(img, blk);
    if (mask == 0)
    {
        bL[b] = 0;
        BA[b] = 0;
        return;
    }
    constexpr unsigned kP0 = 0x777u;
    const unsigned P = ((mask & kPixelA) ? kP0 : 0u) | ((mask & kPixelB) ? kP0 << 1 : 0u) |
                       ((mask & kPixelC) ? kP0 << 4 : 0u) | ((mask & kPixelD) ? kP0 << 5 : 0u);
    // The window pixel (y0 + dy, x0 + dx) of bit `bit`: touched and foreground. Called only in bounds.
    auto touches = [&](int bit, int dy, int dx) {
        return ((P >> bit) & 1u) &&
               foreground(img.data + static_cast<size_t>(blk.y0 + dy) * img.step + (blk.x0 + dx));
    };
    const bool up = blk.y0 > 0, left = blk.x0 > 0;
    const bool down2 = blk.y0 + 2 < f.rows;  // the block row below exists (implies blk.below); no overflow
    const bool right2 = blk.x0 + 2 < f.cols; // the block column right exists (implies blk.right)
    unsigned ba = 0;
    if (up && left && touches(0, -1, -1))
        ba |= kBaNW;
    if (up && (touches(1, -1, 0) || (blk.right && touches(2, -1, 1))))
        ba |= kBaN;
    if (up && right2 && touches(3, -1, 2))
        ba |= kBaNE;
    if (left && (touches(4, 0, -1) || (blk.below && touches(8, 1, -1))))
        ba |= kBaW;
    if (right2 && (touches(7, 0, 2) || (blk.below && touches(11, 1, 2))))
        ba |= kBaE;
    if (down2 && left && touches(12, 2, -1))
        ba |= kBaSW;
    if (down2 && (touches(13, 2, 0) || (blk.right && touches(14, 2, 1))))
        ba |= kBaS;
    if (down2 && right2 && touches(15, 2, 2))
        ba |= kBaSE;
    bL[b] = blockKey(blk, mask, f.ld) + 1;
    BA[b] = static_cast<unsigned char>(ba);
}

/** Scan: OLE's Scanning (ole_labeling.cu, scanKernel; Kalentev et al. 2011, Listing 3) on blocks, the
neighbours those of BA (a set bit means the neighbour exists and is nonempty). Skips the round when the
previous round's Scan changed nothing; sets *changed (one store per warp, after a vote) when it links a tree.
The intentional races are OLE's, with the same argument: plain loads and stores; every value a node of bL
ever holds is the label of a block of the same component, below the node's own key + 1 unless it is a root,
so any value read, old or new, is a valid label, no write makes a cycle or joins two components, and a lost
write (two blocks linking the same root) leaves the root linked anyway, its loser linking again next round.
Progress: see runBe. */
__global__ void scanKernel(const BlockGrid g, int* bL, const unsigned char* BA, const KeyBlock keyBlock,
                           const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    const int w = g.blockCols;
    bool linked = false;
    forEachBlock(g, [&](unsigned ub) {
        const unsigned ba = BA[ub];
        if (ba == 0)
            return; // empty, or no connected neighbour
        const int b = static_cast<int>(ub);
        const int l = bL[b];
        int nl = INT_MAX;
        auto take = [&](unsigned bit, int nb) {
            if (ba & bit)
                nl = min(nl, bL[nb]);
        };
        take(kBaNW, b - w - 1);
        take(kBaN, b - w);
        take(kBaNE, b - w + 1);
        take(kBaW, b - 1);
        take(kBaE, b + 1);
        take(kBaSW, b + w - 1);
        take(kBaS, b + w);
        take(kBaSE, b + w + 1);
        if (nl < l)
        {
            int* const node = bL + keyBlock(l - 1);
            const int old = *node;
            *node = min(old, nl);
            linked = true;
        }
    });
    if (__any_sync(kFullMask, linked) && (threadIdx.x & 31u) == 0)
        *changed = 1;
}

/** Analysis: OLE's Analysis on blocks: each nonempty block's label follows the chain of labels (label l
-> node keyBlock(l - 1)) to the root, moving bL[b] up to every ancestor on the way (union_find.cuh's
compressSlot, plain loads). Skips the round when its Scan changed nothing. No union runs, roots do not change,
and each thread writes only its own bL[b], always an ancestor's label: every walk ends at the same root. */
__global__ void analysisKernel(const BlockGrid g, int* bL, const KeyBlock keyBlock, const int* changed)
{
    if (*changed == 0)
        return;
    forEachBlock(g, [&](unsigned b) {
        const int l = bL[b]; // only this thread writes bL[b]
        if (l != 0)
            compressSlot(bL, static_cast<int>(b), l - 1, keyBlock);
    });
}

/** FinalLabeling, one thread per block: the block's label (its root's key + 1, bL flat) into its foreground
pixels, 0 into its background pixels. Writes only the block's own pixels of the forest. */
template <bool kPairs>
__global__ void finalLabelingKernel(const BinaryImage img, const LabelForest f, const BlockGrid g, const int* bL)
{
    const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= g.count)
        return;
    const Block blk = blockAt(f, g.blockCols, b);
    const unsigned mask = blockMask(img, blk);
    storeBlockLabels<kPairs>(f, blk, mask, mask ? bL[b] : 0);
}

/** Invariant: every value of bL[b] is the label k + 1 of a block of b's component (k its key), with k <= b's
own key, and equal only for a root: Init gives the block's own; Scan stores a connected neighbour's label,
below the node's own key + 1 (it writes node keyBlock(l - 1) only when nl < l, and l - 1 is that node's key);
Analysis an ancestor's. So chains strictly decrease (no cycle, walks end).
Termination: after an Analysis (or Init) bL is flat, so every value read during a Scan is the label of a root
of the round's start (values written in it are minima of values read in it). A Scan that sets the flag writes
a value below l into the node of the root l - 1, and so do all other writes to that node in that Scan: the
root is linked at the end of the Scan and never becomes a root again (node values stay below key + 1). The
roots, at least one per component, strictly decrease with every round that changes something.
Convergence gives the LabelForest contract: when a Scan changes nothing (then nothing wrote during it), every
pair of connected blocks has the same label (BA is symmetric: each of the two checked the other), and block
connectivity is pixel 8-connectivity (exact BA bits; a block's pixels are 8-adjacent to each other), so a
component's blocks carry one label r + 1, with r the key of one of them and r <= every key: r is the
component's raster-first pixel (every pixel is at or after its block's key), the key of its own block, which
FinalLabeling gives r + 1. The forest is flat. */
template <bool kPairs>
void runBe(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    BlockGrid g;
    g.blockCols = static_cast<int>((static_cast<long long>(f.cols) + 1) / 2);
    g.count = static_cast<unsigned>(((static_cast<long long>(f.rows) + 1) / 2) * g.blockCols);
    KeyBlock keyBlock;
    keyBlock.div = makeStrideDivider(f.ld);
    keyBlock.blockCols = g.blockCols;

    StreamBuffer labelBuffer, adjacencyBuffer; // the paper's BL and BA
    int* const bL = static_cast<int*>(labelBuffer.allocate(static_cast<size_t>(g.count) * sizeof(int), stream));
    unsigned char* const BA = static_cast<unsigned char*>(adjacencyBuffer.allocate(g.count, stream));

    const unsigned oneThreadPerBlock = blocksFor(g.count, kThreads);
    initKernel<<<oneThreadPerBlock, kThreads, 0, stream>>>(img, f, g, bL, BA);
    checkLaunch("BE init");

    // The paper's loop: Scan, Analysis, until a Scan changes nothing (iterative_labeling.hpp queues the
    // rounds in batches between host checks). Always ends: see above.
    const unsigned blocks = waveBlocks(scanKernel, kThreads, oneThreadPerBlock);
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            scanKernel<<<blocks, kThreads, 0, stream>>>(g, bL, BA, keyBlock, previous, changed);
            checkLaunch("BE scan");
            analysisKernel<<<blocks, kThreads, 0, stream>>>(g, bL, keyBlock, changed);
            checkLaunch("BE analysis");
        },
        RoundBatches{ kFirstRoundsPerCheck, kMaxRoundsPerCheck }, "BE", stream);

    finalLabelingKernel<kPairs><<<oneThreadPerBlock, kThreads, 0, stream>>>(img, f, g, bL);
    checkLaunch("BE final labeling");
}

} // namespace

CUDACCA_BLOCK_LABELING(be, runBe)

}}} // namespace cv::cuda::cudacca
