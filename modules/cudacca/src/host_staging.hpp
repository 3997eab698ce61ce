// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The pinned host staging of statistics rows (connected_components.cpp): the one-launch kernel writes the
// stats and centroids of up to a staging's rows straight into it; a frame with more labels takes a copy
// after the kernel, and makes the staging grow to its rows.

#ifndef CUDACCA_HOST_STAGING_HPP
#define CUDACCA_HOST_STAGING_HPP

#include <cstddef>

namespace cv { namespace cuda { namespace cudacca {

/** Pieces of pinned memory are 256-byte aligned. */
inline size_t alignPinned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/** Bytes of staging for `rows` rows of stats (5 int32) and of centroids (2 double), each array aligned. */
inline size_t stagingBytes(size_t rows)
{
    return alignPinned(5 * sizeof(int) * rows) + alignPinned(2 * sizeof(double) * rows);
}

/** The most rows a staging of `bytes` holds: the inverse of stagingBytes. (Dividing by the 36 bytes of a row
is not: with the alignment, a staging grown to N rows would hold N - 1 by that count, and every later
frame of N labels would miss it.) */
inline size_t stagingRowsIn(size_t bytes)
{
    size_t rows = bytes / (5 * sizeof(int) + 2 * sizeof(double));
    while (rows > 0 && stagingBytes(rows) > bytes)
        --rows;
    return rows;
}

}}} // namespace cv::cuda::cudacca

#endif
