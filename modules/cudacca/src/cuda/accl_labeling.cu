// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// ACCL: accelerated CCL of Paravecino and Kaeli 2014, as described in Bolelli et al. 2024, section III-B-4.
// Run-based, two phases:
//   Phase 1     - one thread per row walks it, finds its runs and gives each a provisional label, the run's
//                 first pixel: every pixel of a run points at it (the run's head, a root);
//   Phase 2     - one thread per run (of rows 1..rows-1) joins its run with every run of the row above that
//                 touches it: union_find.cuh's unite of the run's head with a pixel of the other run;
//   Compression - every pixel pointed at its run's root (compress_forest.cuh's compressForestKernel).
// The paper's 4-connectivity, and 8 (runs touch diagonally: the run above may end one column before or start
// one column after ours). Departures: the joins are unions instead of a child kernel per merge (dynamic
// parallelism) relabeling the added run; no separate run matrix (a run's end is found again from the image);
// no texture memory. Output: the LabelForest of contracts.hpp, flat. More: doc/algorithms.md, section "ACCL".

#include "../labeling.hpp"
#include "compress_forest.cuh"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

/** Phase 1: the thread of row y walks its pixels left to right; a foreground pixel whose left neighbour is
background (or x = 0) starts a run, whose pitched index becomes the provisional label of every pixel up to
the next background pixel. Each thread writes only its own row, reads only the image: no race. Every run
is a tree of depth 1 rooted at its first pixel (parent <= child). The thread walks cols pixels (the paper's
one thread per row; the loop ends at the row's end). Rows along a 1D grid: up to 2^31 - 2 of them. */
__global__ void labelRowRunsKernel(const BinaryImage img, const LabelForest forest)
{
    const unsigned y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= static_cast<unsigned>(forest.rows))
        return;
    const unsigned char* in = img.data + static_cast<size_t>(y) * img.step;
    const int rowStart = static_cast<int>(y) * forest.ld; // < rows * ld < INT_MAX
    int* out = forest.data + rowStart;
    int label = 0; // the current run's head + 1; 0 outside a run
    for (int x = 0; x < forest.cols; ++x)
    {
        if (in[x] == 0)
            label = 0;
        else if (label == 0)
            label = rowStart + x + 1;
        out[x] = label;
    }
}

/** Phase 2: the joins of contiguous rows. One thread per pixel of rows 1..rows-1; only the thread of a run's
first pixel (a, y) works: it walks its run [a, b] (b found again from the image: foreground up to the next
background pixel or the row's end) and the row above over the columns that touch it, [a, b] for
4-connectivity, [a - 1, b + 1] (clipped to the image) for 8, and unites its head with the first pixel IN
THAT RANGE of every run of row y - 1 met there (`prevUp`: the column before is foreground and in range,
i.e. the same run above, already united).

Why the trees are exactly the components: two runs of one row are separated by background, never adjacent
(neither 4- nor 8-); a run of row y and one of row y - 1 are adjacent iff the upper one meets the range
above; phase 1 joined each run's pixels, and phase 2 unites every adjacent pair of runs once, from the lower
run's thread (each run of the range is met at its first column in range, where prevUp is false). Every
union joins two adjacent runs: no two components are joined. Races: the concurrent unions are union_find.cuh's
(atomicMin on roots, the larger root under the smaller, so parents stay below children and each root is its
component's raster-first pixel; plain stores of ancestors into non-roots by findRootCompress). Phase 1 ran in
the previous launch, so every foreground entry is valid. Termination: the walk stops at the row's end. */
template <int kConnectivity>
__global__ void joinRunsKernel(const BinaryImage img, const LabelForest forest)
{
    // Pixels of rows 1..rows-1: (rows - 1) * cols < 2^31, unsigned arithmetic.
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= static_cast<unsigned>(forest.rows - 1) * static_cast<unsigned>(forest.cols))
        return;
    int y, a;
    device::rasterPixel(i, forest.cols, y, a);
    ++y;
    const unsigned char* cur = img.data + static_cast<size_t>(y) * img.step;
    const unsigned char* up = cur - img.step;
    if (cur[a] == 0 || (a > 0 && cur[a - 1] != 0))
        return; // not a run's first pixel
    const int head = y * forest.ld + a;
    const int above = head - forest.ld - a; // row y - 1, column 0
    bool prevUp = false;
    if (kConnectivity == 8 && a > 0 && up[a - 1] != 0)
    {
        device::unite(forest.data, head, above + a - 1);
        prevUp = true;
    }
    int x = a;
    for (; x < forest.cols && cur[x] != 0; ++x)
    {
        const bool u = up[x] != 0;
        if (u && !prevUp)
            device::unite(forest.data, head, above + x);
        prevUp = u;
    }
    // x = b + 1: the column right of the run touches it diagonally.
    if (kConnectivity == 8 && x < forest.cols && up[x] != 0 && !prevUp)
        device::unite(forest.data, head, above + x);
}

template <int kConnectivity>
void runAccl(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    labelRowRunsKernel<<<blocksFor(forest.rows, kThreads), kThreads, 0, stream>>>(img, forest);
    checkLaunch("ACCL phase 1 (row runs)");
    const long long joinPixels = static_cast<long long>(forest.rows - 1) * forest.cols;
    if (joinPixels > 0)
    {
        joinRunsKernel<kConnectivity><<<blocksFor(joinPixels, kThreads), kThreads, 0, stream>>>(img, forest);
        checkLaunch("ACCL phase 2 (joins)");
    }
    compressForestKernel<<<blocksFor(static_cast<long long>(forest.rows) * forest.cols, kThreads), kThreads, 0,
                           stream>>>(forest);
    checkLaunch("ACCL compression");
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(accl, runAccl)

}}} // namespace cv::cuda::cudacca
