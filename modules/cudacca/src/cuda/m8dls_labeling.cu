// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// M8DLS: the modified 8-directional label selection of Soh et al. 2014 (Bolelli et al. 2024, section
// III-A-7), 8-connectivity only: CCA_8DLS (dls8_labeling.cu) that avoids processing the pixels whose label
// is already settled. Produces a flat LabelForest.
// Key idea, and the departure: the paper declares "permanent" (never processed again) the pixels that still
// hold their original label after two rounds, an empirical rule that can give a wrong answer (the review
// says so; doc/algorithms.md, section "M8DLS", has a 5 x 5 image on which it does). Here the skipping is
// exact: a round skips the lines (rows, columns, diagonals, anti-diagonals) on which no label changed in the
// previous round, tracked with a byte per line, and rounds go on until one changes nothing. Every round's
// result is exactly 8DLS's (the argument is at runEightDirectionalLabelSelection).

#include "dls8.hpp"

#include "../labeling.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace m8dls {
Labeling* createLabeling() // the row's 4-connectivity entry is `none`: only 8 comes here
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) {
        runEightDirectionalLabelSelection(image, forest, true, stream);
    });
}
} // namespace m8dls

}}} // namespace cv::cuda::cudacca
