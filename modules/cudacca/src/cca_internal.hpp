// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The internal interface between the host dispatch (connected_components.cpp) and the kernels
// (cuda/*.cu). Compiled by both the host compiler and nvcc: plain declarations only.
//
// The pipeline (doc/design.md has the picture):
//   1. a labeling algorithm (one .cu file each) builds an EQUIVALENCE FOREST in a pitched int32 buffer;
//   2. compressAndRank() flattens it and ranks the roots;            } shared analysis,
//   3. the host reads N (one synchronization), sizes the outputs;    } analysis.cu,
//   4. relabelAndAccumulate() writes the final labels and the stats; } used by every
//   5. finalizeStatistics() writes the CPU-layout stats/centroids.   } algorithm

#ifndef CUDACCA_CCA_INTERNAL_HPP
#define CUDACCA_CCA_INTERNAL_HPP

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

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

// ---- temporary device memory (connected_components.cpp) ---------------------------------------------

/** Device memory ordered on a stream, from cudacca's stream-ordered pool (kept between calls), freed with
cudaFreeAsync on the same stream when released or destroyed: no device-wide synchronization, so calls on
different streams overlap. Every temporary buffer of the pipeline and of the algorithms comes from here,
so that the test suite can measure the peak (temporaryMemoryHighWater in diagnostics.hpp).
allocate() throws cv::Exception (cv::Error::StsNoMem) when the device is out of memory. */
class StreamBuffer
{
public:
    StreamBuffer() = default;
    StreamBuffer(const StreamBuffer&) = delete;
    StreamBuffer& operator=(const StreamBuffer&) = delete;
    ~StreamBuffer() { release(); }

    void* allocate(size_t bytes, cudaStream_t stream); //!< releases what it held first
    void release();
    void* get() const { return ptr_; }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_ = 0;
};

// ---- labeling algorithms: each builds the LabelForest (one file each) -------------------------------
// Most algorithms are a function (below) that builds the forest; the shared analysis then does the rest.
// An algorithm that brings its own analysis strategy (the FLSL family of Lemaitre et al. 2021) is a
// LabelingAlgorithm object instead (further below).

//! Oliveira and Lotufo's union-find with tile merging (cuda/uf_labeling.cu). connectivity 4 or 8.
void labelUnionFind(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);
//! Allegretti et al.'s block-based Komura equivalence on 2x2 blocks (cuda/bke_labeling.cu). connectivity 8 only.
void labelBlockKomura(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);
//! Allegretti et al.'s block-based union-find on 2x2 blocks (cuda/buf_labeling.cu). connectivity 8 only.
void labelBlockUnionFind(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);
//! Komura equivalence: neighbour-linked initialization, compression, reduction (cuda/ke_labeling.cu). 4 or 8.
void labelKomuraEquivalence(const BinaryImage& image, const LabelForest& forest, int connectivity,
                            cudaStream_t stream);
//! Kalentev et al.'s label equivalence, iterated until no change; waits on `stream` (cuda/ole_labeling.cu). 4 or 8.
void labelKalentev(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);

//! Kalentev et al.'s Row-Col Unify: directional propagation along rows and columns with shared-memory
//! reduction, iterated until no change; waits on `stream` (cuda/rcu_labeling.cu). 4 or 8, any size.
void labelRowColUnify(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);
//! Hennequin et al.'s HA4/HA8: run-based strip labeling with warp ballots, border merging, final labeling
//! (cuda/ha_labeling.cu). 4 (HA4) or 8 (HA8).
void labelHennequin(const BinaryImage& image, const LabelForest& forest, int connectivity, cudaStream_t stream);

// ---- shared analysis (cuda/analysis.cu) --------------------------------------------------------------

/** Bytes of device scratch that compressAndRank() needs for an image of rows x cols. */
size_t rankScratchBytes(int rows, int cols);

/** Flattens the forest (every foreground pixel then points straight at its root) and ranks the roots in
raster order. Writes the number of foreground components to *d_componentCount (device memory) and keeps
the per-segment offsets in `scratch` for relabelAndAccumulate(). */
void compressAndRank(const LabelForest& forest, void* scratch, size_t scratchBytes, int* d_componentCount,
                     cudaStream_t stream);

/** Per-label statistics accumulators: structure of arrays over labels 0..count-1. */
struct StatsAccumulators
{
    int* minX; int* minY; int* maxX; int* maxY; int* area;
    unsigned long long* sumX; unsigned long long* sumY;
    int count;
};

/** Bytes of device memory for the accumulators of `labelCount` labels (the layout is private). */
size_t statsAccumulatorBytes(int labelCount);
/** Lays the accumulators out in `memory` and queues their initialization. */
StatsAccumulators initStatsAccumulators(void* memory, int labelCount, cudaStream_t stream);

/** Writes final labels (0 = background, 1..N-1 in raster order of first pixels) into `labels`
(int32 or uint16, `labelsStep` in bytes). `labels` may be the forest's own buffer (int32, same layout):
the relabeling is safe in place. With `stats` non-null it also accumulates every label's statistics,
background included. Needs the scratch left by compressAndRank(). */
void relabelAndAccumulate(const LabelForest& forest, const void* scratch, void* labels, size_t labelsStep,
                          bool labels16u, const StatsAccumulators* stats, cudaStream_t stream);

/** Writes CPU-layout statistics (count x 5 int32, rows `statsStep` bytes apart) and centroids (count x 2
double) from the accumulators; either output may be null. `emptyCentroid` is what the CPU writes for a
label without pixels (its quiet NaN), passed in so the bits match the host's. */
void finalizeStatistics(const StatsAccumulators& stats, int* statsOut, size_t statsStep, double* centroidsOut,
                        size_t centroidsStep, double emptyCentroid, cudaStream_t stream);

// ---- algorithms with their own analysis strategy ------------------------------------------------------

/** The final label image on the device (what relabelAndAccumulate wrote): int32, or uint16 when is16u. */
struct LabelImage
{
    const void* data;
    size_t step; //!< row stride in bytes
    bool is16u;
    int rows;
    int cols;
};

/** A labeling algorithm as an object, made for one call: it may keep temporary device memory (StreamBuffer)
between its steps. The pipeline calls label() (build the LabelForest; `wantStats` says whether statistics
will be asked for), then compressAndRank, then relabelAndAccumulate. If ownsStatistics(), the relabeling
writes labels only and accumulateStatistics() fills the accumulators (already initialized to their
neutral values by initStatsAccumulators: min fields INT_MAX, max fields INT_MIN, sums 0) from the final
labels and whatever the algorithm kept; otherwise the shared analysis accumulates them while relabeling
and accumulateStatistics() is not called. Every algorithm of the function kind above is
wrapped into one of these by the dispatch (connected_components.cpp). */
class LabelingAlgorithm
{
public:
    virtual ~LabelingAlgorithm() {}
    virtual void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool wantStats,
                       cudaStream_t stream) = 0;
    virtual bool ownsStatistics() const { return false; }
    virtual void accumulateStatistics(const BinaryImage& /*image*/, const LabelImage& /*labels*/,
                                      const StatsAccumulators& /*stats*/, cudaStream_t /*stream*/) {}
};

/** How the FLSL family merges the features of a run into its component (Lemaitre et al. 2021). */
enum class RunFeatureMerge
{
    Atomic,             //!< FLSL (section 3.1): one set of atomics per full run, after labeling
    ConflictDetection,  //!< FLSL+CD (section 3.3): runs of one component in a warp reduced to a leader first
    OnTheFly,           //!< FLSL+OTF (section 3.2): features gathered while the components are merged
};

//! Full-Line Segment Labeling (cuda/flsl_labeling.cu), 4 or 8, with the given feature merge.
LabelingAlgorithm* createFullRunLabeling(RunFeatureMerge merge);

//! Windisch et al.'s tree-merge feature extraction over the final labels (cuda/tmk_analysis.cu); the
//! labeling is BKE's for 8-connectivity and KE's for 4.
LabelingAlgorithm* createTreeMergeAnalysis();

}}} // namespace cv::cuda::cudacca

#endif
