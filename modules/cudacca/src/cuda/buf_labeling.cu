// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BUF: block-based union-find of Allegretti, Bolelli and Grana 2019 ("Optimized block-based algorithms
// to label connected components on GPUs", IEEE TPDS 31(2)), as described in Bolelli et al. 2024,
// section III-B-8: the kernels of UF (III-B-1) on 2x2 blocks. 8-connectivity only. One thread per block
// in every step; the block machinery (keys, slots, INFO, connections) is block_connectivity.cuh's.
//   Initialization - every block is a tree of its own: SLOT = its key + 1 (0 for an empty block), and
//                    its foreground mask goes to INFO for FinalLabeling.
//   Merge          - each block reads the image again, finds which neighbour blocks (NW, N, NE, W) it
//                    touches (the block-connection test the review borrows from BE, III-A-9) and
//                    unites with them (atomicMin, union_find.cuh, with inline compression).
//   Compression    - every SLOT <- its root's key + 1;
//   FinalLabeling  - writes every pixel of the block: root key + 1 for foreground, 0 for background.
// Departures from the paper: blocks are named by the key of their first foreground pixel (see
// block_connectivity.cuh: that makes the root the component's raster-first pixel, the LabelForest
// contract of contracts.hpp), and unions implied by other edges are skipped (viewBlock): on an
// all-foreground image each block makes one union instead of four.
// Output: a flat LabelForest (every foreground pixel holds its component's first pixel + 1). No device
// memory besides the forest.

#include "../labeling.hpp"
#include "block_connectivity.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using namespace device;

/** Initialization: reads the block's four pixels, writes its own SLOT and INFO. */
template <bool kPairs>
__global__ void initKernel(const BinaryImage img, const LabelForest f, int tilesPerRow)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    const unsigned mask = blockMask(img, blk);
    storeSlotAndInfo<kPairs>(f, blk, mask ? blockKey(blk, mask, f.ld) + 1 : 0, mask);
}

/** Merge: union with every needed neighbour. Slots only ever hold keys (Initialization writes the
block's own, unions write roots), so a neighbour's slot value - 1 is the key of a node of its tree. */
__global__ void mergeKernel(const BinaryImage img, const LabelForest f, int tilesPerRow, const BlockSlot slot)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    const BlockView v = viewBlock(img, blk);
    if (!v.needed)
        return;
    const int* parent = f.data; // plain loads, see union_find.cuh
    const int self = blockKey(blk, v.mask, f.ld);
    if (v.needed & kEdgeNW)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeNW, f.ld)] - 1, slot);
    if (v.needed & kEdgeN)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeN, f.ld)] - 1, slot);
    if (v.needed & kEdgeNE)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeNE, f.ld)] - 1, slot);
    if (v.needed & kEdgeW)
        unite(f.data, self, parent[neighbourSlot(blk, kEdgeW, f.ld)] - 1, slot);
}

template <bool kPairs>
void runBuf(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    const BlockLaunch launch = blockLaunchFor(f.rows, f.cols);
    const dim3 threads(kBlockTileW, kBlockTileH);
    BlockSlot slot;
    slot.div = makeStrideDivider(f.ld);

    initKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(img, f, launch.tilesPerRow);
    checkLaunch("BUF initialization");
    mergeKernel<<<launch.tiles, threads, 0, stream>>>(img, f, launch.tilesPerRow, slot);
    checkLaunch("BUF merge");
    blockCompressKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(f, launch.tilesPerRow, slot);
    checkLaunch("BUF compression");
    blockFinalLabelingKernel<kPairs><<<launch.tiles, threads, 0, stream>>>(f, launch.tilesPerRow);
    checkLaunch("BUF final labeling");
}

void label(const BinaryImage& image, const LabelForest& forest, int /*connectivity: 8, the row's only one*/,
           cudaStream_t stream)
{
    withPairAccess(forest, [&](auto pairs) { runBuf<decltype(pairs)::value>(image, forest, stream); });
}

} // namespace

namespace buf {
Labeling* createLabeling() { return new StatelessLabeling<label>(); }
} // namespace buf

}}} // namespace cv::cuda::cudacca
