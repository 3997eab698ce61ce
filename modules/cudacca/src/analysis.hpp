// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The shared analysis (cuda/analysis.cu): turns any LabelForest into the CPU's raster-order labels and,
// for the algorithms whose row names the `shared` analysis, their statistics.

#ifndef CUDACCA_ANALYSIS_HPP
#define CUDACCA_ANALYSIS_HPP

#include <cuda_runtime_api.h>

#include "contracts.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Bytes of device scratch that compressAndRank() needs for an image of rows x cols. */
size_t rankScratchBytes(int rows, int cols);

/** Bytes of device scratch enough for compressAndRank() on any 1 x n forest with n <= maxNodes (rankScratchBytes is
not monotonic in n: small forests take shorter segments, so more of them). For a table allocated before its node
count is known. */
size_t rankScratchBytesUpTo(int maxNodes);

/** Flattens the forest (every foreground pixel then points straight at its root) and ranks the roots in
raster order. Writes the number of foreground components to *d_componentCount (device memory) and keeps
the per-segment offsets in `scratch` for relabelAndAccumulate(). With `d_liveNodes` (device memory), only
the first *d_liveNodes nodes in raster order are read, the others are background without being read (a
run table sized by its bound: its slots past the last run are never written). With `h_componentCount` (mapped
pinned host memory), the number is written there too, by the kernel that finds it (no copy to queue): the host
may read it once an event recorded after this call's work has completed. */
void compressAndRank(const LabelForest& forest, void* scratch, size_t scratchBytes, int* d_componentCount,
                     cudaStream_t stream, const unsigned* d_liveNodes = nullptr, int* h_componentCount = nullptr);

/** A ranked forest of nodes 0 .. n-1 (a 1 x n LabelForest as compressAndRank() left it), read in place instead of
relabeled: a node's final label comes from its own slot and, for a non-root, its root's (two dependent loads where
relabelAndAccumulate's output takes one, but no pass over the nodes; FLSL's run table, doc/benchmarks.md). Valid
because compressAndRank points every non-root straight at its root and nothing writes the slots afterwards (never
mix it with relabelAndAccumulate in place, which turns root slots into positive labels while others read them). */
struct RankedNodes
{
    const int* slots;          //!< a root: -(its rank in its segment + 1); any other node: its root + 1
    const int* segmentOffsets; //!< the labels before each segment (the scan of compressAndRank)
    int shift;                 //!< log2 of the nodes per segment

#ifdef __CUDACC__
    /** The root of node k, whose slot holds v. */
    __device__ __forceinline__ static int rootOf(int k, int v) { return v < 0 ? k : v - 1; }
    /** The final label of a root, whose slot holds rootSlot. */
    __device__ __forceinline__ int labelOfRoot(int root, int rootSlot) const
    {
        return segmentOffsets[static_cast<unsigned>(root) >> shift] - rootSlot;
    }
    /** The final label of node k. */
    __device__ __forceinline__ int label(int k) const
    {
        bool root;
        return label(k, root);
    }
    /** The final label of node k, and whether k is its tree's root. */
    __device__ __forceinline__ int label(int k, bool& isRoot) const
    {
        const int v = slots[k];
        const int root = rootOf(k, v);
        isRoot = v < 0;
        return labelOfRoot(root, v < 0 ? v : slots[root]);
    }
#endif
};

/** The ranked 1 x n `forest` in place, with the `scratch` of its compressAndRank() (which must stay alive). */
RankedNodes rankedNodes(const LabelForest& forest, const void* scratch);

/** Bytes of device memory for the accumulators of `labelCount` labels (the layout is private). */
size_t statsAccumulatorBytes(int labelCount);
/** Lays the accumulators out in `memory` (statsAccumulatorBytes(labelCount) bytes), with StatsAccumulators::areaShift
`areaShift` (0, or contracts.hpp's statsAreaShift() of the image); nothing is queued. */
StatsAccumulators layoutStatsAccumulators(void* memory, int labelCount, int areaShift = 0);
/** Lays the accumulators out in `memory` and queues their initialization. With `d_componentCount` (device
memory, known only on the device, e.g. before the host has waited for N), only its value + 1 labels are
initialized, and none when that passes `labelCount` (the caller then starts again once N is known). Their
areaShift is `areaShift` (as layoutStatsAccumulators'). */
StatsAccumulators initStatsAccumulators(void* memory, int labelCount, cudaStream_t stream,
                                        const int* d_componentCount = nullptr, int areaShift = 0);

/** Writes final labels (0 = background, 1..N-1 in raster order of first pixels) into `labels`
(int32 or uint16, `labelsStep` in bytes). `labels` may be the forest's own buffer (int32, same layout):
the relabeling is safe in place. With `stats` non-null it also accumulates every label's statistics,
background included. Needs the scratch left by compressAndRank(). With `d_liveNodes` (as given to
compressAndRank), nodes past the live ones are neither read nor written, and `stats` must be null. */
void relabelAndAccumulate(const LabelForest& forest, const void* scratch, void* labels, size_t labelsStep,
                          bool labels16u, const StatsAccumulators* stats, cudaStream_t stream,
                          const unsigned* d_liveNodes = nullptr);

/** Writes CPU-layout statistics (count x 5 int32, rows `statsStep` bytes apart) and centroids (count x 2
double) from the accumulators; either output may be null. `emptyCentroid` is what the CPU writes for a
label without pixels (its quiet NaN), passed in so the bits match the host's. */
void finalizeStatistics(const StatsAccumulators& stats, int* statsOut, size_t statsStep, double* centroidsOut,
                        size_t centroidsStep, double emptyCentroid, cudaStream_t stream);

}}} // namespace cv::cuda::cudacca

#endif
