// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_ORDER_CCL_DEFAULT's renumbering (cuda/ccl_default_order.cu): from cudacca's numbering (raster order of each
// component's first pixel, CCL_SAUF's) to the one the CPU's cv::CCL_DEFAULT gives with 8-connectivity (raster
// order of each component's first 2x2 block).

#ifndef CUDACCA_CCL_DEFAULT_ORDER_HPP
#define CUDACCA_CCL_DEFAULT_ORDER_HPP

#include <cstddef>

#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

/** Bytes of device scratch renumberInCclDefaultOrder() needs for `labelCount` labels (background included). */
size_t cclDefaultOrderScratchBytes(int labelCount);

/** Renumbers, in place and on `stream`, an 8-connectivity result of `labelCount` labels: the CV_32S label image
(rows x cols, `labelsStep` bytes per row), and when non-null the labelCount x 5 int32 stats and the labelCount x 2
double centroids (rows `statsStep` and `centroidsStep` bytes apart). The background keeps label and row 0. */
void renumberInCclDefaultOrder(int* labels, size_t labelsStep, int rows, int cols, int labelCount, int* stats,
                               size_t statsStep, double* centroids, size_t centroidsStep, void* scratch,
                               size_t scratchBytes, cudaStream_t stream);

}}} // namespace cv::cuda::cudacca

#endif
