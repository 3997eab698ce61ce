// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The algorithm objects of one call, made from a row of algorithm_list.hpp.

#ifndef CUDACCA_REGISTRY_HPP
#define CUDACCA_REGISTRY_HPP

#include <memory>

#include "algorithm_list.hpp"
#include "labeling.hpp"

namespace cv { namespace cuda { namespace cudacca {

struct AlgorithmInstance
{
    std::unique_ptr<Labeling> labeling;
    std::unique_ptr<Analysis> analysis; //!< null: the shared analysis (relabelAndAccumulate) does the statistics
};

/** The stages of `row` for `connectivity` (which the row supports). */
AlgorithmInstance instantiate(const AlgorithmRow& row, int connectivity);

}}} // namespace cv::cuda::cudacca

#endif
