// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The 8-directional label selection of Soh et al. 2014 (Bolelli et al. 2024, section III-A-7), shared by
// CCA_8DLS (dls8_labeling.cu, which defines it) and CCA_M8DLS (m8dls_labeling.cu). Host code.

#ifndef CUDACCA_DLS8_HPP
#define CUDACCA_DLS8_HPP

#include <cuda_runtime_api.h>

#include "../contracts.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Builds the flat LabelForest of `img` (8-connectivity) by 8DLS rounds until a round changes nothing.
`skipUnchangedLines`: CCA_M8DLS, a round skips the lines (rows, columns, diagonals, anti-diagonals) on which
no label changed in the previous round; the result of every round is still exactly 8DLS's. */
void runEightDirectionalLabelSelection(const BinaryImage& img, const LabelForest& forest, bool skipUnchangedLines,
                                       cudaStream_t stream);

}}} // namespace cv::cuda::cudacca

#endif
