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

} // namespace device

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
