// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Factories of every row of algorithm_list.hpp: each labeling or analysis namespace named there defines
// createLabeling() / createAnalysis() in its .cu file; the declarations below come from the list itself.

#include "precomp.hpp"
#include "registry.hpp"

#include "arguments.hpp"

namespace cv { namespace cuda { namespace cudacca {

#define CUDACCA_DECLARE_STAGES(id, labeling4, labeling8, analysisNs, paths) \
    namespace labeling4 { Labeling* createLabeling(); }            \
    namespace labeling8 { Labeling* createLabeling(); }            \
    namespace analysisNs { Analysis* createAnalysis(); }
CUDACCA_ALGORITHMS(CUDACCA_DECLARE_STAGES)
#undef CUDACCA_DECLARE_STAGES

namespace none { Labeling* createLabeling() { return nullptr; } }   // the row does not support it
namespace shared { Analysis* createAnalysis() { return nullptr; } } // relabelAndAccumulate accumulates

size_t bandMinRunsOverride()
{
    static const size_t runs = environmentSize("OPENCV_CUDACCA_BAND_MIN_RUNS", 0);
    return runs;
}

size_t statsSegmentWordsOverride()
{
    static const size_t words = environmentSize("OPENCV_CUDACCA_STATS_SEGMENT_WORDS", 0);
    return words;
}

size_t runStatsOverride()
{
    static const size_t mode = environmentSize("OPENCV_CUDACCA_RUN_STATS", 0);
    return mode;
}

size_t statsTableOverride()
{
    static const size_t mode = environmentSize("OPENCV_CUDACCA_STATS_TABLE", 0);
    return mode;
}

bool countRunsOverride()
{
    static const bool counted = environmentSize("OPENCV_CUDACCA_COUNT_RUNS", 0) != 0;
    return counted;
}

void RunLabeling::label(const BinaryImage&, const LabelForest&, int, bool, cudaStream_t)
{
    CV_Error(Error::StsInternal, "cudacca: a run labeling builds no pixel forest (labelAndRank)");
}

AlgorithmInstance instantiate(const AlgorithmRow& row, int connectivity)
{
    CV_Assert(row.supports(connectivity));
    AlgorithmInstance a;
    switch (row.id)
    {
#define CUDACCA_INSTANTIATE(id, labeling4, labeling8, analysisNs, paths)                                        \
    case id:                                                                                           \
        a.labeling.reset(connectivity == 4 ? labeling4::createLabeling() : labeling8::createLabeling()); \
        a.analysis.reset(analysisNs::createAnalysis());                                                \
        break;
        CUDACCA_ALGORITHMS(CUDACCA_INSTANTIATE)
#undef CUDACCA_INSTANTIATE
    default:
        CV_Error_(Error::StsInternal, ("cudacca: no factory for algorithm %d", row.id));
    }
    CV_Assert(a.labeling);
    return a;
}

}}} // namespace cv::cuda::cudacca
