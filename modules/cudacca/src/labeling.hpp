// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The two stages an algorithm is made of (algorithm_list.hpp pairs them): a Labeling builds the
// LabelForest; an Analysis with its own strategy computes the statistics from the final labels (and from
// whatever its Labeling kept). The `shared` analysis has no object: relabelAndAccumulate (analysis.hpp)
// accumulates the statistics while it writes the labels.

#ifndef CUDACCA_LABELING_HPP
#define CUDACCA_LABELING_HPP

#include <cuda_runtime_api.h>

#include "contracts.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Builds the LabelForest of `image` for one call; may keep temporary device memory (StreamBuffer) for
its Analysis. `wantStats` says whether statistics will be asked for. Each labeling is a namespace with
`Labeling* createLabeling()` in its own .cu file. */
class Labeling
{
public:
    virtual ~Labeling() {}
    virtual void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool wantStats,
                       cudaStream_t stream) = 0;
};

/** Computes the statistics once the final labels are written: fills `stats`, already initialized to
neutral values by initStatsAccumulators (min fields INT_MAX, max fields INT_MIN, sums 0). `labeling` is
the object that built the forest (the row pairs them). Each analysis is a namespace with
`Analysis* createAnalysis()`. */
class Analysis
{
public:
    virtual ~Analysis() {}
    virtual void accumulate(const BinaryImage& image, const LabelImage& labels, const Labeling& labeling,
                            const StatsAccumulators& stats, cudaStream_t stream) = 0;
};

/** A Labeling that keeps nothing between calls: one function. */
class FunctionLabeling : public Labeling
{
public:
    typedef void (*Function)(const BinaryImage&, const LabelForest&, int connectivity, cudaStream_t);
    explicit FunctionLabeling(Function f) : f_(f) {}
    void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool /*wantStats*/,
               cudaStream_t stream) override
    {
        f_(image, forest, connectivity, stream);
    }

private:
    Function f_;
};

}}} // namespace cv::cuda::cudacca

#endif
