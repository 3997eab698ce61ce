// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// LBUF: line-based union-find (the review's reference [49]), as described in Bolelli et al. 2024, section
// III-B-2: UF (section III-B-1) with single lines as its tiles. Produces the LabelForest of contracts.hpp:
//   LocalMerge  - each foreground pixel is linked to its left neighbour when that is foreground (the only
//                 neighbour of the half-neighbourhood inside a line), then Find: every pixel points at its
//                 run's first pixel;
//   Merge       - UF's unions across tile borders, here every pair of adjacent rows (tile_borders.cuh);
//   Compression - the shared analysis's compressAndRank.
// Key idea: a line's local merge needs no shared memory and no atomics: one plain write per pixel.
// More: doc/algorithms.md, section "LBUF".

#include "../labeling.hpp"
#include "compress_forest.cuh"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "tile_borders.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

/** LocalMerge's link: parent = the left neighbour when both are foreground, else the pixel itself (a root).
Each thread writes only its own pixel and reads only the image: no race. Parents precede children. */
__global__ void linkLeftKernel(const BinaryImage img, const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    int value = 0; // background
    if (device::isForeground(img, y, x))
        value = (x > 0 && device::isForeground(img, y, x - 1) ? p - 1 : p) + 1;
    forest.data[p] = value;
}

template <int kConnectivity>
void runLbuf(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const unsigned blocks = blocksFor(static_cast<long long>(forest.rows) * forest.cols, kThreads);
    linkLeftKernel<<<blocks, kThreads, 0, stream>>>(img, forest);
    checkLaunch("LBUF local merge");
    // LocalMerge's Find: the links form one chain per row run; afterwards every pixel points at the run's
    // first pixel, its line-local root (as UF's LocalMerge leaves every pixel at its tile root).
    compressForestKernel<<<blocks, kThreads, 0, stream>>>(forest);
    checkLaunch("LBUF local find");
    // Merge: every row but the first is the top of a tile (a line) whose upper neighbour is another tile.
    const long long borderPixels = static_cast<long long>(forest.rows - 1) * forest.cols;
    if (borderPixels > 0)
    {
        mergeRowBordersKernel<kConnectivity, 0, 1>
            <<<static_cast<unsigned>((borderPixels + kThreads - 1) / kThreads), kThreads, 0, stream>>>(img, forest,
                                                                                                   borderPixels);
        checkLaunch("LBUF merge");
    }
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(lbuf, runLbuf)

}}} // namespace cv::cuda::cudacca
