// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BKE: block-based Komura equivalence of Allegretti, Bolelli and Grana 2019 ("Optimized block-based
// algorithms to label connected components on GPUs", IEEE TPDS 31(2)), as described in Bolelli et al.
// 2024, section III-B-9: Komura equivalence (III-B-3) on 2x2 blocks. 8-connectivity only. Produces a flat
// LabelForest (every foreground pixel holds its component's first pixel + 1); no other device memory.
// One thread per block in every step; the block machinery is block_connectivity.cuh's. Key idea: each
// block links to its first smaller-keyed neighbour block without atomics (the KE rule), and only the
// edges left over (in INFO) need atomic unions.
//   Initialization, Compression, Reduce, Compression, FinalLabeling.
// Departures from the paper: doc/algorithms.md, section "BKE".

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
struct KomuraLink
{
    static __device__ __forceinline__ void values(const BinaryImage& img, const LabelForest& f, const Block& blk,
                                                  int& slotValue, unsigned& info)
    {
        const BlockView v = viewBlock(img, blk);
        info = v.mask;
        if (v.mask)
        {
            const KomuraPlan plan = planBlock(v, blk, f.ld);
            slotValue = (plan.parentSlot >= 0 ? plan.parentSlot : blockKey(blk, v.mask, f.ld)) + 1;
            info |= plan.reduceEdges << kInfoEdgeShift;
        }
    }
};

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
    uniteWithNeighbours(f, blk, f.data[blk.slot] - 1, edges, slot);
}

template <bool kPairs>
void runBke(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    const BlockPass p = blockPassFor(f);
    launchBlocks(p, blockInitKernel<kPairs, KomuraLink>, "BKE initialization", stream, img, f, p.launch.tilesPerRow);
    launchBlocks(p, blockCompressKernel<kPairs>, "BKE compression", stream, f, p.launch.tilesPerRow, p.slot);
    launchBlocks(p, reduceKernel, "BKE reduce", stream, img, f, p.launch.tilesPerRow, p.slot);
    compressAndWriteBlockLabels<kPairs>(p, f, stream);
}

} // namespace

CUDACCA_BLOCK_LABELING(bke, runBke)

}}} // namespace cv::cuda::cudacca
