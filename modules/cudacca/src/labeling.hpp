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

/** The number of runs from which the FLSL family's first compression goes by bands (flsl_labeling.cu,
compressUpLinks) for every run table, counted or sized by its bound, as the environment variable
OPENCV_CUDACCA_BAND_MIN_RUNS sets it (read once; e.g. 1: every table, so that the sanitizers and the fuzzer drive
small images through the band kernels); 0 where it is not set: tables of at least 2^21 counted runs only, the
measured choice; a value that is not a number is ignored (environmentSize). The results are the same either way. */
size_t bandMinRunsOverride();

/** The bitmap words per warp of the FLSL family's statistics (flsl_labeling.cu, statsSegments) for every run table,
as the environment variable OPENCV_CUDACCA_STATS_SEGMENT_WORDS sets it (read once; e.g. 1: a warp per word, so
that the fuzzer and the sanitizers drive runs across many segments on small images); 0 where it is not set: the
measured choice. The results are the same either way. */
size_t statsSegmentWordsOverride();

/** Whether every run table of the FLSL family is sized by its counted runs (flsl_labeling.cu, labelAndRank), as the
environment variable OPENCV_CUDACCA_COUNT_RUNS sets it (read once; 1: yes, so that the fuzzer and the sanitizers drive
small images through the run-count wait, the early up-link table, its overflow, the few-runs block and the statistics
from the recorded runs, which otherwise only images of more than 8 M pixels take); false where it is not set or 0:
tables up to 16 MB are sized by their bound, the measured choice. The results are the same either way. */
bool countRunsOverride();

/** Whether CCA_DEFAULT's statistics on runs the early up-link pass recorded come from those runs (flsl_labeling.cu,
runStatsBlock), as the environment variable OPENCV_CUDACCA_RUN_STATS sets it (read once): 1 never (the row
segments, accumulateRunsBlock, so that the fuzzer and the sanitizers drive both on the same images); 0 or not set:
wherever they were recorded, the measured choice. The results are the same either way. */
size_t runStatsOverride();

/** Whether CCA_DEFAULT's statistics over the row segments keep a table of labels per block (flsl_labeling.cu,
statsTable), as the environment variable OPENCV_CUDACCA_STATS_TABLE sets it (read once): 1 never, 2 wherever the
image's columns allow (so that the fuzzer and the sanitizers drive both on the same images); 0 or not set: where the
image has millions of runs of many small components (tableWanted), the measured choice. The results are the same
either way. */
size_t statsTableOverride();

/** A labeling of the run-table pipeline (the FLSL family; doc/design.md, "The run-table pipeline"):
its nodes are the image's row runs, not pixels, so it builds no LabelForest. It flattens and ranks its
own roots (the shared ranking, run on the run table), writes the final labels once by expanding the runs,
and keeps the run table for its Analysis, which then needs no label image. connected_components.cpp
drives it instead of label(). */
class RunLabeling : public Labeling
{
public:
    /** Device memory the run table may live in instead of memory of its own: the caller's int32 label image,
    its pixels contiguous (`bytes` = rows * cols * 4 from `data`, row y at y * step: nothing in that span belongs
    to anybody else), unused until its pixels are written. A null `data`: none. */
    struct TableHome
    {
        void* data = nullptr;
        size_t step = 0;
        size_t bytes = 0;
    };

    /** Not used: a run labeling has no pixel forest (refuses with an internal error). */
    void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool wantStats,
               cudaStream_t stream) override;

    /** Labels the runs of `image` and ranks their roots in raster order; queues the number of foreground
    components into *d_componentCount (device memory) and into *h_scratch, a mapped pinned host int that holds
    kCountPending (mapped_count.hpp) until then: awaitMappedCount() reads it with an event recorded after this
    call's work. No write of the GPU to *h_scratch may still be on its way when this is called. May wait once (to
    size the run table) for the run count in `h_scratch`, with `countReady`, which it records after the run count
    (work that needs no count queued after it runs during the wait; null: the wait is for the whole stream).
    `image` must stay valid until the call's analysis is queued. With a `home`, the run table (its parents, then
    its ranks) lives there; the labels must then be written into that image, in two parts (writeLabels,
    finishLabels). */
    virtual void labelAndRank(const BinaryImage& image, int connectivity, bool wantStats, int* d_componentCount,
                              int* h_scratch, cudaEvent_t countReady, const TableHome& home, cudaStream_t stream) = 0;
    /** Queues the write of every pixel's final label (0 = background, 1..N-1 in raster order of first
    pixels) into `labels`, int32 or uint16, rows `step` bytes apart: the only write of the label image. When
    the run table lives in `labels` (labelAndRank's home), this writes the rows past the table only; the
    analysis, which reads the runs' labels, must be queued before finishLabels() writes the rest. */
    virtual void writeLabels(void* labels, size_t step, bool labels16u, cudaStream_t stream) const = 0;
    /** writeLabels() into int32 `labels` and the statistics of `analysis` (this labeling's Analysis, as
    Analysis::accumulate would queue them into `stats`, initialized) in one launch: both only read the ranked runs. */
    virtual void writeLabelsAndAccumulate(void* labels, size_t step, const Analysis& analysis, const StatsAccumulators& stats,
                                          cudaStream_t stream) const = 0;
    /** The rows that held the run table, when it lived in the label image (nothing otherwise). */
    virtual void finishLabels(cudaStream_t stream) const = 0;
    /** After labelAndRank: a bound of the number of labels known to the host without waiting (the runs,
    or the run table's bound, plus the background). */
    virtual size_t labelBound() const = 0;
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
