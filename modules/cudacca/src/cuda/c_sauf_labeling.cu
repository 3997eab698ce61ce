// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// C_SAUF: the CUDA adaptation of SAUF (Wu, Otoo and Suzuki 2009) by Allegretti et al. 2019, as described in
// Bolelli et al. 2024, section III-B-7. One thread per pixel, three kernels:
//   Initialization - provisional label = own pitched index + 1 for foreground (a root), 0 for background;
//   Merge          - the thread of a foreground pixel x walks SAUF's decision tree over the scan mask
//                    p (up-left), q (up), r (up-right), s (left) and performs only the unions the tree
//                    leaves: two already visited pixels that are adjacent are united by someone else, so
//                    x need not visit both (union_find.cuh's unite: atomicMin, parents below children);
//   Compression    - every pixel pointed at its root (compress_forest.cuh's compressForestKernel).
// 8-connectivity is the paper's; 4-connectivity (mask q, s, not adjacent to each other: no tree to prune) is
// offered too. Output: the LabelForest of contracts.hpp, flat. More: doc/algorithms.md, section "C_SAUF".

#include "../labeling.hpp"
#include "compress_forest.cuh"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

using device::isForeground;

/** Merge: SAUF's decision tree (Wu et al. 2009), one thread per foreground pixel x = (y, x), p its pitched
index. The tree tests the IMAGE (the mask pixels' foreground bits), never the labels, in this order:

  8-connectivity                                    4-connectivity (mask q, s)
    q ? unite(x, q)                                   q ? unite(x, q)
    : r ? ( p ? unite(x, p), unite(x, r)              s ? unite(x, s)     (both when both are foreground)
          : s ? unite(x, s), unite(x, r)
          :     unite(x, r) )
    : p ? unite(x, p)
    : s ? unite(x, s)
    : nothing (x stays a root)

WHY EVERY FOREGROUND MASK NEIGHBOUR ENDS IN x'S TREE. Claim: after Merge, any two 8-adjacent (4-adjacent)
foreground pixels a, b are in one tree. Induction on the later of the two in raster order, say x (the
other, n, is then in x's scan mask: every adjacency pair lies in the later pixel's mask). If x's branch
unites x with n directly, done. Otherwise the branch skipped n because it united x with a pixel m that is
ADJACENT to n, both m and n in the mask, so both precede x in raster order; by induction (the pair {m, n}
has a smaller later pixel) m and n are in one tree, and x is in m's. The skips, 8-connectivity:
  - branch q: p and r are q's left and right neighbours, s = (y, x-1) is q = (y-1, x)'s down-left diagonal;
  - branch r (q background), with p: s = (y, x-1) is p = (y-1, x-1)'s lower neighbour (p, r are not adjacent:
    both are united); with s (p background): no skip (s, r are two columns apart: both united);
  - branch p (q, r background): s is p's lower neighbour;
  - branch s: nothing else is foreground.
4-connectivity: q and s are diagonal, not 4-adjacent, so both are united when both are foreground: no skip.
Every union joins two adjacent foreground pixels, so no two components are ever joined: the trees are
exactly the components. The induction is about the FINAL forest, not about timing: every unite returns only
once its two pixels share a root (union_find.cuh), and trees only ever merge, so whichever thread runs first,
the forest at the end connects the transitive closure of all the unions performed.

Races: the unions of all threads run concurrently on the forest, as in UF's Merge: atomicMin links only
roots, the larger under the smaller (so parents stay below children: each root is its component's
raster-first pixel, contracts.hpp), and findRootCompress's plain stores write ancestors into non-roots;
walks that read old or new values reach the same root (union_find.cuh). Init ran in the previous launch,
so every foreground pixel's entry is nonzero before any union reads it. */
template <int kConnectivity>
__global__ void mergeKernel(const BinaryImage img, const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    if (!isForeground(img, y, x))
        return;
    const int p = y * forest.ld + x;
    const bool up = y > 0;
    const bool left = x > 0;
    if (kConnectivity == 4)
    {
        if (up && isForeground(img, y - 1, x))
            device::unite(forest.data, p, p - forest.ld);
        if (left && isForeground(img, y, x - 1))
            device::unite(forest.data, p, p - 1);
        return;
    }
    const bool right = x + 1 < forest.cols;
    if (up && isForeground(img, y - 1, x)) // q
    {
        device::unite(forest.data, p, p - forest.ld);
        return;
    }
    if (up && right && isForeground(img, y - 1, x + 1)) // r
    {
        if (left && isForeground(img, y - 1, x - 1)) // p
            device::unite(forest.data, p, p - forest.ld - 1);
        else if (left && isForeground(img, y, x - 1)) // s
            device::unite(forest.data, p, p - 1);
        device::unite(forest.data, p, p - forest.ld + 1);
        return;
    }
    if (up && left && isForeground(img, y - 1, x - 1)) // p
    {
        device::unite(forest.data, p, p - forest.ld - 1);
        return;
    }
    if (left && isForeground(img, y, x - 1)) // s
        device::unite(forest.data, p, p - 1);
}

template <int kConnectivity>
void runCSauf(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    // One thread per pixel along a 1D grid: rows * cols < 2^31, so at most 2^23 blocks of 256.
    const unsigned blocks = blocksFor(static_cast<long long>(forest.rows) * forest.cols, kThreads);
    initOwnIndexKernel<<<blocks, kThreads, 0, stream>>>(img, forest);
    checkLaunch("C_SAUF initialization");
    mergeKernel<kConnectivity><<<blocks, kThreads, 0, stream>>>(img, forest);
    checkLaunch("C_SAUF merge");
    compressForestKernel<<<blocks, kThreads, 0, stream>>>(forest);
    checkLaunch("C_SAUF compression");
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(c_sauf, runCSauf)

}}} // namespace cv::cuda::cudacca
