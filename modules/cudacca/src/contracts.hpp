// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The data contracts between the host dispatch and the kernels: the input image, the equivalence forest
// every labeling builds, the final label image and the statistics accumulators. Compiled by both the host
// compiler and nvcc: plain declarations only. doc/design.md has the pipeline that connects them.

#ifndef CUDACCA_CONTRACTS_HPP
#define CUDACCA_CONTRACTS_HPP

#include <cstddef>
#include <cstdint>

namespace cv { namespace cuda { namespace cudacca {

/** The contract between every labeling algorithm and the shared analysis.

A pitched int32 buffer of rows x cols, row stride `ld` elements. For the pixel (y, x), with pitched
index p = y * ld + x:
  - background:  data[p] == 0;
  - foreground:  data[p] == q + 1, where q is the pitched index of its parent in a union-find forest;
    the trees are exactly the connected components, and every parent has a smaller pitched index than
    its child (q <= p), so each root (data[r] == r + 1) is its component's first pixel in raster order.
That last property is what makes raster-order labels (the CPU's CCL_SAUF order) cheap: a root's rank
among all roots, in raster order, is its final label minus one.

rows * ld must stay below INT_MAX so that q + 1 fits an int. */
struct LabelForest
{
    int* data;
    int ld;   //!< row stride in elements
    int rows;
    int cols;
};

/** The 8-bit input image on the device (CV_8UC1 or CV_8SC1, nonzero = foreground). */
struct BinaryImage
{
    const unsigned char* data;
    size_t step;  //!< row stride in bytes
    int rows;
    int cols;
};

/** The final label image on the device (what relabelAndAccumulate wrote): int32, or uint16 when is16u. */
struct LabelImage
{
    const void* data;
    size_t step; //!< row stride in bytes
    bool is16u;
    int rows;
    int cols;
};

/** Per-label statistics accumulators: structure of arrays over labels 0..count-1. */
struct StatsAccumulators
{
    int* minX; int* minY; int* maxX; int* maxY; int* area;
    unsigned long long* sumX; unsigned long long* sumY;
    int count;
    /** 0: `area` holds the areas. Else sumX's bits from areaShift up hold the area and those below it the sum of
    x, `area` unused, so that one 64-bit add merges both: for an image whose every component's sum of x stays
    below 2^areaShift and whose pixels number at most 2^(64 - areaShift) (statsAreaShift(), analysis.hpp; the
    one-launch kernel uses kAreaShift). */
    int areaShift;
};

/** StatsAccumulators::areaShift of the one-launch kernel: a frame of at most 2^21 pixels, whose area fits 22
bits and sum of x stays below 2^42. */
constexpr int kAreaShift = 42;

}}} // namespace cv::cuda::cudacca

#endif
