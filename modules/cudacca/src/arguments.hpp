// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Validation of connectedComponentsWithStats' arguments, in one place. Everything the caller passes is
// checked before any device work; a wrong argument raises cv::Exception naming it and what was expected.

#ifndef CUDACCA_ARGUMENTS_HPP
#define CUDACCA_ARGUMENTS_HPP

#include "opencv2/core.hpp"

#include "algorithm_list.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** A size from the environment variable `name` (OpenCV's configuration syntax: 1048576, 256MB, 1GB), or `defaultValue`
where it is unset or does not parse; then with a warning, not an exception: such a variable is read in the middle of
a call, possibly after the caller's outputs were written (OpenCV's parser throws std::invalid_argument on some bad
values, cv::Exception on others). */
size_t environmentSize(const char* name, size_t defaultValue);

/** Checks the settings of a call (or of a ConnectedComponentsAnalyzer); returns the algorithm's row
(CCA_DEFAULT resolved). */
const AlgorithmRow& checkSettings(int connectivity, int ltype, int algorithm);

/** Checks every argument that can be checked before the labeling (checkSettings included); returns the
algorithm's row (CCA_DEFAULT resolved). */
const AlgorithmRow& checkArguments(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                                   int connectivity, int ltype, int algorithm);

/** Checks the arguments of ConnectedComponentsAnalyzer::applyAsync (the object's settings were checked at
its creation): CCA_DEFAULT, a GpuMat image of at most kOneLaunchMaxPixels, outputs that are GpuMats of the
documented sizes (never reallocated). Returns the capacity: the rows of stats or centroids (0 if neither). */
int checkAsyncArguments(InputArray image, InputOutputArray labels, InputOutputArray stats, InputOutputArray centroids,
                        InputOutputArray count, int ltype, int algorithm);

/** Checks the arguments of ConnectedComponentsAnalyzer::applyBatch (the object's settings were checked at its
creation): a std::vector<GpuMat> of images, each as checkArguments' image; labels a std::vector<GpuMat>, stats
and centroids a std::vector<GpuMat> or std::vector<Mat>, or noArray(). A wrong element is named
("images[3]"). */
void checkBatchArguments(InputArrayOfArrays images, OutputArrayOfArrays labels, OutputArrayOfArrays stats,
                         OutputArrayOfArrays centroids);

/** Checks what only the number of labels decides: CV_16U capacity, fixed sizes of stats and centroids. */
void checkLabelCount(int labelCount, int ltype, OutputArray stats, OutputArray centroids);

}}} // namespace cv::cuda::cudacca

#endif
