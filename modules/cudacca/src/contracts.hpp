// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The data contracts between the host dispatch and the kernels: the input image, the equivalence forest
// every labeling builds, the final label image and the statistics accumulators. Compiled by both the host
// compiler and nvcc: plain declarations (and statsAreaShift's arithmetic). doc/design.md has the pipeline that
// connects them.

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
    below 2^areaShift and whose pixels number at most 2^(64 - areaShift) (statsAreaShift() below; the
    one-launch kernel uses kAreaShift). */
    int areaShift;
};

/** StatsAccumulators::areaShift of the one-launch kernel: a frame of at most 2^21 pixels, whose area fits 22
bits and sum of x stays below 2^42. */
constexpr int kAreaShift = 42;

/** StatsAccumulators::areaShift for an image of rows x cols: the bits that the largest sum of x a component can
have (the whole image's) needs, when the image has at most 2^(64 - that) pixels (so a label's area fits the
word's other bits, up to a wrap that statistics.cuh's areaAndSumXOf undoes); else 0, separate areas. 2048^2: 32,
8192^2: 38 (2^26 pixels: the wrap), 16384^2: 0. Host arithmetic (tested without a GPU). */
inline int statsAreaShift(int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    // A component's sum of x is at most the image's: rows * cols (cols - 1) / 2 (below 2^62 where it is taken).
    const unsigned long long perRow = static_cast<unsigned long long>(cols) * static_cast<unsigned>(cols - 1) / 2;
    if (perRow > (1ull << 62) / static_cast<unsigned>(rows))
        return 0;
    const unsigned long long sumXBound = perRow * static_cast<unsigned>(rows);
    int shift = 1;
    while (shift < 63 && (sumXBound >> shift) != 0)
        ++shift; // sumXBound < 2^shift
    const unsigned long long pixels = static_cast<unsigned long long>(rows) * static_cast<unsigned>(cols);
    return pixels <= (1ull << (64 - shift)) ? shift : 0;
}

}}} // namespace cv::cuda::cudacca

#endif
