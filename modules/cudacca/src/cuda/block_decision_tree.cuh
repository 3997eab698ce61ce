// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The kernels of CCA_C_BBDT and CCA_C_DRAG (Allegretti et al. 2019's CUDA BBDT and DRAG; Bolelli et al. 2024,
// section III-B-7), written once and templated on the decision tree: BUF's kernels (buf_labeling.cu, the 2x2
// machinery of block_connectivity.cuh) with the Merge step's unions chosen by a generated decision tree over
// Grana et al.'s 2x2-block scan mask (c_bbdt_tree.hpp, c_drag_graph.hpp; decision_tree_mask.hpp names the
// pixels). One thread per 2x2 block in every step:
//   Initialization - every block a tree of its own (TreePerBlock);
//   Merge          - the tree reads the mask pixels it needs and names the neighbour blocks to unite with;
//   Compression, FinalLabeling - compressAndWriteBlockLabels.
// Output: the LabelForest of contracts.hpp, flat. More: doc/algorithms.md, sections "C_BBDT" and "C_DRAG".

#ifndef CUDACCA_BLOCK_DECISION_TREE_CUH
#define CUDACCA_BLOCK_DECISION_TREE_CUH

#include "block_connectivity.cuh"
#include "decision_tree_mask.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace device {

static_assert(unsigned(dt::kActionNW) == unsigned(kEdgeNW) && unsigned(dt::kActionN) == unsigned(kEdgeN) &&
                  unsigned(dt::kActionNE) == unsigned(kEdgeNE) && unsigned(dt::kActionW) == unsigned(kEdgeW),
              "the generated trees return block_connectivity.cuh's kEdge* masks");

/** The trees' px: whether a mask pixel of block blk is foreground. X's own pixels o, p, s come from the block's
mask (already read); the others from the image, through the read-only cache, background outside the image.
The offsets are compile-time constants once the tree is inlined (px(kH) etc.). Rows and columns in unsigned
arithmetic: y0 - 2 < 0 wraps past rows, and x0 + 2 <= cols + 1 does not wrap. */
struct MaskPixels
{
    BinaryImage img;
    Block blk;
    unsigned mask;

    __device__ __forceinline__ bool operator()(int c) const
    {
        switch (c)
        {
        case dt::kO: return (mask & kPixelA) != 0;
        case dt::kP: return (mask & kPixelB) != 0;
        case dt::kS: return (mask & kPixelC) != 0;
        default: break;
        }
        const unsigned y = static_cast<unsigned>(blk.y0) + static_cast<unsigned>(dt::conditionDy(c));
        const unsigned x = static_cast<unsigned>(blk.x0) + static_cast<unsigned>(dt::conditionDx(c));
        if (y >= static_cast<unsigned>(img.rows) || x >= static_cast<unsigned>(img.cols))
            return false;
        return foreground(img.data + static_cast<size_t>(y) * img.step + x);
    }
};

/** Merge: thread per block X; the tree Tree::unions(px) returns the neighbour blocks (kEdge* mask) X is united
with.

WHAT THE TREE RETURNS (scripts/decision_trees.cpp; checked for all 2^20 configurations of the mask by
test_decision_trees.cpp): with C the neighbour blocks among P (NW), Q (N), R (NE), S (W) that are 8-connected
to X, and two blocks of C linked when their pixels touch (P-Q, Q-R, P-S, Q-S: the mask shows all of their
pixels that can touch), exactly one block of each connected group of C; nothing when C is empty. So every
block it names has a foreground pixel in the image, hence a nonzero SLOT written by Initialization, and an
in-image slot (neighbourSlot).

WHY EVERY PAIR OF ADJACENT BLOCKS ENDS IN ONE TREE (c_sauf_labeling.cu's induction, on blocks). Two nonempty
blocks are adjacent when a foreground pixel of one is an 8-neighbour of one of the other. Claim: after Merge,
any two adjacent blocks are in one tree. Induction on the later of the two in raster order of blocks, X: the
other, N, is one of X's NW, N, NE, W blocks, so N is in C. If the tree united X with N, done. Otherwise the
tree united X with a block M of N's group: a chain N = B0, B1, ..., Bk = M inside C of blocks linked pairwise
(adjacent). Every pair (Bj, Bj+1) is a pair of adjacent blocks whose later block is Q, R or S (the later of
P-Q is Q, of Q-R is R, of P-S and Q-S is S), all before X in raster order: by induction each pair is in one
tree, so N is in M's tree, which is X's. Blocks are 8-connected inside (any two pixels of a 2x2 block
touch), so the trees hold whole components; every union joins two adjacent blocks, so no two components are
ever joined: the trees are exactly the components. The induction is about the final forest: every unite
returns once its two blocks share a root, and trees only merge, whatever the threads' order.

Races: as BUF's Merge (the unions of all threads run concurrently; union_find.cuh's unite links roots only,
the larger key under the smaller by atomicMin, so each root is its component's raster-first pixel). The
image is only read; SLOTs are written only by unite; INFO is not touched. Initialization ran in the
previous launch. */
template <class Tree>
__global__ void decisionTreeMergeKernel(const BinaryImage img, const LabelForest f, int tilesPerRow,
                                        const BlockSlot slot)
{
    Block blk;
    if (!threadBlock(f, tilesPerRow, blk))
        return;
    const unsigned mask = blockMask(img, blk);
    if (mask == 0)
        return;
    const unsigned edges = Tree::unions(MaskPixels{ img, blk, mask });
    if (edges != 0)
        uniteWithNeighbours(f, blk, blockKey(blk, mask, f.ld), edges, slot);
}

} // namespace device

/** The four steps of C_BBDT and C_DRAG (initName, mergeName name the first two in errors). */
template <bool kPairs, class Tree>
void runDecisionTreeBlocks(const BinaryImage& img, const LabelForest& f, cudaStream_t stream, const char* initName,
                           const char* mergeName)
{
    const BlockPass p = blockPassFor(f);
    launchBlocks(p, device::blockInitKernel<kPairs, device::TreePerBlock>, initName, stream, img, f,
                 p.launch.tilesPerRow);
    launchBlocks(p, device::decisionTreeMergeKernel<Tree>, mergeName, stream, img, f, p.launch.tilesPerRow, p.slot);
    compressAndWriteBlockLabels<kPairs>(p, f, stream);
}

}}} // namespace cv::cuda::cudacca

#endif // CUDACCA_BLOCK_DECISION_TREE_CUH
