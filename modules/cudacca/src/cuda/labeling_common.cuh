// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Device helpers shared by the labeling kernels: the warp constants, the foreground test on the input
// image and the one-thread-per-pixel raster mapping.

#ifndef CUDACCA_LABELING_COMMON_CUH
#define CUDACCA_LABELING_COMMON_CUH

#include "../contracts.hpp"
#include "../labeling.hpp"
#include "launch.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace device {

constexpr unsigned kFullMask = 0xffffffffu; //!< all 32 lanes of a warp
constexpr int kWarpSize = 32;

/** The input pixel (y, x) is foreground: nonzero, whether the image is CV_8U or CV_8S. The byte offset
is computed in size_t: rows x step may exceed INT_MAX even when the forest's indices do not. */
__device__ __forceinline__ bool isForeground(const BinaryImage& img, int y, int x)
{
    return img.data[static_cast<size_t>(y) * img.step + x] != 0;
}

/** Pixel of linear raster index i (0 <= i < rows * cols, which fits an int, see LabelForest). */
__device__ __forceinline__ void rasterPixel(unsigned i, int cols, int& y, int& x)
{
    y = static_cast<int>(i / static_cast<unsigned>(cols));
    x = static_cast<int>(i - static_cast<unsigned>(y) * static_cast<unsigned>(cols));
}

/** This thread's pixel in a one-thread-per-pixel launch over the raster order (blocksFor in launch.hpp);
false for the threads past the last pixel. Unsigned arithmetic: the last index is at most INT_MAX. */
__device__ __forceinline__ bool threadPixel(int rows, int cols, int& y, int& x)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= static_cast<unsigned>(rows) * static_cast<unsigned>(cols))
        return false;
    rasterPixel(i, cols, y, x);
    return true;
}

/** Calls f(y, x) for every pixel, in a grid-stride loop over the raster order that is warp-uniform (all 32
lanes of a warp run the same iterations, so a warp vote after it sees every lane). The iterative labelings
launch it on one wave of resident blocks (waveBlocks in launch.hpp), so that a round queued past convergence,
which exits on its flag, is cheap. */
template <typename F>
__device__ __forceinline__ void forEachPixel(const LabelForest& forest, F f)
{
    const unsigned n = static_cast<unsigned>(forest.rows) * static_cast<unsigned>(forest.cols);
    const unsigned lane = threadIdx.x & 31u;
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < n; base += stride)
    {
        if (base + lane < n)
        {
            int y, x;
            rasterPixel(base + lane, forest.cols, y, x);
            f(y, x);
        }
    }
}

/** The smallest nonzero label among the 4 or 8 neighbours of pixel (y, x) (pitched index p) in the labels L,
pitched as `forest`; INT_MAX when none is. Plain loads: the callers argue their races. */
template <int kConnectivity>
__device__ __forceinline__ int smallestNeighbourLabel(const int* L, const LabelForest& forest, int y, int x, int p)
{
    const int ld = forest.ld;
    int nl = 0x7fffffff;
    auto take = [&](int q) {
        const int v = L[q];
        if (v != 0 && v < nl)
            nl = v;
    };
    const bool left = x > 0;
    const bool right = x + 1 < forest.cols;
    if (left)
        take(p - 1);
    if (right)
        take(p + 1);
    if (y > 0)
    {
        take(p - ld);
        if (kConnectivity == 8 && left)
            take(p - ld - 1);
        if (kConnectivity == 8 && right)
            take(p - ld + 1);
    }
    if (y + 1 < forest.rows)
    {
        take(p + ld);
        if (kConnectivity == 8 && left)
            take(p + ld - 1);
        if (kConnectivity == 8 && right)
            take(p + ld + 1);
    }
    return nl;
}

} // namespace device

namespace {

/** The initialization of the labelings whose every foreground pixel starts as a tree (or label) of its own:
label = own pitched index + 1 for the foreground, 0 for the background. Reads only the image and writes only
its own pixel: no race. One thread per pixel (blocksFor). */
__global__ void initOwnIndexKernel(const BinaryImage img, const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    forest.data[p] = device::isForeground(img, y, x) ? p + 1 : 0;
}

} // namespace

/** Defines name::createLabeling() for a labeling that is one host function template
run<kConnectivity>(const BinaryImage&, const LabelForest&, cudaStream_t). */
#define CUDACCA_LABELING_BY_CONNECTIVITY(name, run)                                                      \
    namespace name {                                                                                    \
    Labeling* createLabeling()                                                                          \
    {                                                                                                   \
        return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int connectivity, \
                                       cudaStream_t stream) {                                           \
            withConnectivity(connectivity, [&](auto c) { run<decltype(c)::value>(image, forest, stream); }); \
        });                                                                                             \
    }                                                                                                   \
    }

}}} // namespace cv::cuda::cudacca

#endif
