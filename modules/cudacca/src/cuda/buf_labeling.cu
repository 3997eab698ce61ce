// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// BUF: block-based union-find of Allegretti, Bolelli and Grana 2019 ("Optimized block-based algorithms
// to label connected components on GPUs", IEEE TPDS 31(2)), as described in Bolelli et al. 2024,
// section III-B-8: the kernels of UF (III-B-1) on 2x2 blocks. 8-connectivity only. Produces a flat
// LabelForest (every foreground pixel holds its component's first pixel + 1); no other device memory.
// One thread per block in every step; the block machinery is block_connectivity.cuh's. Key idea: each
// block unites (atomicMin) with the neighbour blocks NW, N, NE, W it touches.
//   Initialization, Merge, Compression, FinalLabeling.
// Departures from the paper: doc/algorithms.md, section "BUF".

#include "../labeling.hpp"
#include "block_connectivity.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using namespace device;

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
    uniteWithNeighbours(f, blk, blockKey(blk, v.mask, f.ld), v.needed, slot);
}

template <bool kPairs>
void runBuf(const BinaryImage& img, const LabelForest& f, cudaStream_t stream)
{
    const BlockPass p = blockPassFor(f);
    launchBlocks(p, blockInitKernel<kPairs, TreePerBlock>, "BUF initialization", stream, img, f, p.launch.tilesPerRow);
    launchBlocks(p, mergeKernel, "BUF merge", stream, img, f, p.launch.tilesPerRow, p.slot);
    compressAndWriteBlockLabels<kPairs>(p, f, stream);
}

} // namespace

CUDACCA_BLOCK_LABELING(buf, runBuf)

}}} // namespace cv::cuda::cudacca
