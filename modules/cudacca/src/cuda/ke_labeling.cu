// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// KE: Komura equivalence (Komura 2015, 4-connectivity; extended to 8-connectivity by Allegretti et al.
// 2018), as described in Bolelli et al. 2024, section III-B-3. Produces the LabelForest of contracts.hpp
// (the final Compression is the shared analysis's compressAndRank); no other device memory.
// Key idea: no single-node trees: every foreground pixel first takes its first foreground neighbour of
// the half-neighbourhood as parent (plain writes, no atomics); unions only where no link connects yet.
//   Initialization, Compression, Reduction (see reductionKernel); one thread per pixel.
// Steps in full and why parents precede children: doc/algorithms.md, section "KE".

#include "../labeling.hpp"
#include "compress_forest.cuh"
#include "launch.hpp"
#include "labeling_common.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

using device::isForeground;

/** Initialization. Reads only the image and writes only its own pixel: no race. */
template <int kConnectivity>
__global__ void initKernel(const BinaryImage img, const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    int parent = -1; // background: stored as parent + 1 = 0
    if (isForeground(img, y, x))
    {
        parent = p;
        const bool up = y > 0;
        const bool left = x > 0;
        const bool right = x + 1 < forest.cols;
        if (kConnectivity == 8)
        {
            if (up && left && isForeground(img, y - 1, x - 1))
                parent = p - forest.ld - 1;
            else if (up && isForeground(img, y - 1, x))
                parent = p - forest.ld;
            else if (up && right && isForeground(img, y - 1, x + 1))
                parent = p - forest.ld + 1;
            else if (left && isForeground(img, y, x - 1))
                parent = p - 1;
        }
        else
        {
            if (up && isForeground(img, y - 1, x))
                parent = p - forest.ld;
            else if (left && isForeground(img, y, x - 1))
                parent = p - 1;
        }
    }
    forest.data[p] = parent + 1;
}

/** Reduction: the unions that Initialization left out. An edge (x, n), n in x's half-neighbourhood,
is skipped when a path of links already joins x and n: x's parent link, plus half-neighbourhood edges
of pixels BEFORE x in raster order. By induction over the raster order every half-neighbourhood edge
is then implied by the links made (the same kind of argument as UF's border-merge skip rule):
  4-connectivity, parent N (else W):
    N and W both foreground: W-NW (W's N edge) and NW-N (N's W edge) join W to N when NW is
    foreground; otherwise union(x, W).
  8-connectivity, parent the first of NW, N, NE, W:
    N foreground: NW-N is N's W edge, NE-N is NE's W edge, W-N is W's NE edge: nothing to do;
    N background, NW foreground (parent NW): W-NW is W's N edge; NE is two columns from NW: union(x, NE);
    N, NW background, NE foreground (parent NE): W is not adjacent to NE: union(x, W).
So at most one union per pixel, and none inside a region. Unions follow union_find.cuh (volatile finds,
atomicMin on roots). */
template <int kConnectivity>
__global__ void reductionKernel(const BinaryImage img, const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    if (y == 0 || !isForeground(img, y, x))
        return; // row 0: at most one half-neighbour (W), already the parent
    const int p = y * forest.ld + x;
    const bool left = x > 0;
    const bool up = isForeground(img, y - 1, x);
    if (kConnectivity == 4)
    {
        if (up && left && isForeground(img, y, x - 1) && !isForeground(img, y - 1, x - 1))
            device::unite(forest.data, p, p - 1);
        return;
    }
    if (up || x + 1 >= forest.cols || !isForeground(img, y - 1, x + 1))
        return; // N foreground, or no NE: the parent link is the only one needed
    if (left && isForeground(img, y - 1, x - 1))
        device::unite(forest.data, p, p - forest.ld + 1); // parent NW; join NE
    else if (left && isForeground(img, y, x - 1))
        device::unite(forest.data, p, p - 1);             // parent NE; join W
}

template <int kConnectivity>
void runKe(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const unsigned blocks = blocksFor(static_cast<long long>(forest.rows) * forest.cols, kThreads);
    initKernel<kConnectivity><<<blocks, kThreads, 0, stream>>>(img, forest);
    checkLaunch("KE initialization");
    compressForestKernel<<<blocks, kThreads, 0, stream>>>(forest);
    checkLaunch("KE compression");
    reductionKernel<kConnectivity><<<blocks, kThreads, 0, stream>>>(img, forest);
    checkLaunch("KE reduction");
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(ke, runKe)

}}} // namespace cv::cuda::cudacca
