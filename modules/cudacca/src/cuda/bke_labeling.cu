// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BKE: block-based Komura equivalence of Allegretti, Bolelli and Grana 2019 ("Optimized block-based
// algorithms to label connected components on GPUs", IEEE TPDS 31(2)), as described in Bolelli et al.
// 2024, section III-B-9: Komura equivalence (III-B-3) on 2x2 blocks. 8-connectivity only. One thread per
// block in every step; the block machinery (keys, slots, INFO, connections) is block_connectivity.cuh's.
//   Initialization - each block finds which neighbour blocks (NW, N, NE, W) it touches and links itself
//                    to the first of them whose key is smaller than its own (the KE rule, NW first):
//                    a plain write of its SLOT, no atomics. The other needed edges (at most N, NE, W:
//                    3 bits, as in the paper) go to the block's INFO with its foreground mask.
//   Compression    - flattens those trees (the walks rewrite the block's own slot at every step).
//   Reduce         - union (atomicMin, union_find.cuh) with the neighbours left in INFO.
//   Compression    - again, so that every SLOT holds its root;
//   FinalLabeling  - writes every pixel of the block: root key + 1 for foreground, 0 for background.
// Inline compression (Bolelli et al. 2024, Algorithm 1) in the unions, as in the paper.
// Departures from the paper: blocks are named by the key of their first foreground pixel (see
// block_connectivity.cuh: that makes the root the component's raster-first pixel, the LabelForest
// contract of contracts.hpp), and edges implied by other edges are not linked (viewBlock); on an
// all-foreground image no block is left with work for Reduce.
// Output: a flat LabelForest (every foreground pixel holds its component's first pixel + 1). No device
// memory besides the forest.

#include "../labeling.hpp"
#include "block_connectivity.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using namespace device;

/** The KE choice for a block: the neighbour it links to in Initialization (its slot, or -1 for none)
and the edges left for Reduce. Every key of NW, N and NE is smaller than ours (their pixels are in the
two rows above); W's only when westBefore. */
struct KomuraPlan
{
    int parentSlot;
    unsigned reduceEdges;
};

__device__ __forceinline__ KomuraPlan planBlock(const BlockView& v, const Block& blk, int ld)
{
    KomuraPlan plan;
    plan.parentSlot = -1;
    plan.reduceEdges = v.needed;
    unsigned link = 0;
    if (v.needed & kEdgeNW)
        link = kEdgeNW;
    else if (v.needed & kEdgeN)
        link = kEdgeN;
    else if (v.needed & kEdgeNE)
        link = kEdgeNE;
    else if ((v.needed & kEdgeW) && v.westBefore)
        link = kEdgeW;
    if (link)
    {
        plan.parentSlot = neighbourSlot(blk, link, ld);
        plan.reduceEdges &= ~link;
    }
    return plan;
}

/** Initialization. Reads only the image, writes only its own SLOT and INFO: no race. The link points
at the neighbour's top-left pixel, which need not be its key; the first Compression replaces it with
a key (BlockSlot maps any pixel of a block to the block's slot). */
template <bool kPairs>
__global__ void initKernel(const BinaryImage img, const LabelForest f, int tilesPerRow)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    const BlockView v = viewBlock(img, blk);
    int slotValue = 0;
    unsigned info = v.mask;
    if (v.mask)
    {
        const KomuraPlan plan = planBlock(v, blk, f.ld);
        slotValue = (plan.parentSlot >= 0 ? plan.parentSlot : blockKey(blk, v.mask, f.ld)) + 1;
        info |= plan.reduceEdges << kInfoEdgeShift;
    }
    storeSlotAndInfo<kPairs>(f, blk, slotValue, info);
}

/** Reduce: union with the neighbours that Initialization left in INFO. After the Compression every slot
holds a key, so the block's slot value - 1 and its neighbours' are keys of nodes of the right trees
(each is the block or one of its ancestors); unions keep writing keys only. */
__global__ void reduceKernel(const BinaryImage img, const LabelForest f, int tilesPerRow, const BlockSlot slot)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    unsigned edges;
    if (hasInfo(blk))
        edges = (loadInfo(f, blk) >> kInfoEdgeShift) & (kEdgeN | kEdgeNE | kEdgeW);
    else // the 1x1 block at the bottom-right corner has no INFO: look again
    {
        const BlockView v = viewBlock(img, blk);
        edges = v.mask ? planBlock(v, blk, f.ld).reduceEdges : 0u;
    }
    if (!edges)
        return;
    const int* parent = f.data; // plain loads, see union_find.cuh
    const int self = parent[blk.slot] - 1;
    if (edges & kEdgeN)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeN, f.ld)] - 1, slot);
    if (edges & kEdgeNE)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeNE, f.ld)] - 1, slot);
    if (edges & kEdgeW)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeW, f.ld)] - 1, slot);
}

template <bool kPairs>
void runBke(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    const BlockLaunch launch = blockLaunchFor(f.rows, f.cols);
    const dim3 threads(kBlockTileW, kBlockTileH);
    BlockSlot slot;
    slot.div = makeStrideDivider(f.ld);

    initKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(img, f, launch.tilesPerRow);
    checkLaunch("BKE initialization");
    blockCompressKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(f, launch.tilesPerRow, slot);
    checkLaunch("BKE compression");
    reduceKernel<<<launch.tiles, threads, 0, stream>>>(img, f, launch.tilesPerRow, slot);
    checkLaunch("BKE reduce");
    blockCompressKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(f, launch.tilesPerRow, slot);
    checkLaunch("BKE compression");
    blockFinalLabelingKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(f, launch.tilesPerRow);
    checkLaunch("BKE final labeling");
}

void label(const BinaryImage& image, const LabelForest& forest, int /*connectivity: 8, the row's only one*/,
           cudaStream_t stream)
{
    withPairAccess(forest, [&](auto pairs) { runBke<decltype(pairs)::value>(image, forest, stream); });
}

} // namespace

namespace bke {
Labeling* createLabeling() { return new StatelessLabeling<label>(); }
} // namespace bke

}}} // namespace cv::cuda::cudacca
