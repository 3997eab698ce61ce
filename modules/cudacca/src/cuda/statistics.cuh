// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The statistics of a component (OpenCV's: bounding box, area, sums of x and y for the centroid) as the
// device code gathers them, written once for every analysis strategy: the shared relabeling (analysis.cu),
// the FLSL family (flsl_labeling.cu) and the tree merge (tmk_analysis.cu).
//
// ComponentFeatures holds the features of a set of pixels. Its neutral value (reset) is the one
// initStatsAccumulators gives every label: min fields INT_MAX, max fields INT_MIN, area and sums 0, so
// merging a neutral value changes nothing. mergeInto() adds a set into a label's accumulators with one
// atomic per feature: the seven atomics every strategy tries to issue as rarely as possible.

#ifndef CUDACCA_STATISTICS_CUH
#define CUDACCA_STATISTICS_CUH

#include <climits>

#include "../contracts.hpp"
#include "labeling_common.cuh"

namespace cv { namespace cuda { namespace cudacca { namespace device {

/** Sum of x over the run of len pixels starting at x0: len * x0 + (0 + 1 + ... + len - 1). */
__device__ __forceinline__ unsigned long long runSumX(int x0, int len)
{
    return static_cast<unsigned long long>(len) * static_cast<unsigned>(x0) +
           static_cast<unsigned long long>(len) * static_cast<unsigned>(len - 1) / 2ull;
}

/** Features of a set of pixels. A trivial type: it may live in shared memory and in arrays. */
struct ComponentFeatures
{
    int minX, minY, maxX, maxY, area;
    unsigned long long sumX, sumY;

    __device__ __forceinline__ void reset()
    {
        minX = minY = INT_MAX;
        maxX = maxY = INT_MIN;
        area = 0;
        sumX = sumY = 0;
    }
    __device__ __forceinline__ void addPixel(int x, int y)
    {
        minX = min(minX, x); maxX = max(maxX, x);
        minY = min(minY, y); maxY = max(maxY, y);
        ++area;
        sumX += static_cast<unsigned>(x);
        sumY += static_cast<unsigned>(y);
    }
    /** The run of len >= 1 pixels from (x0, y) to (x0 + len - 1, y). */
    __device__ __forceinline__ void addRun(int x0, int y, int len)
    {
        minX = min(minX, x0); maxX = max(maxX, x0 + len - 1);
        minY = min(minY, y); maxY = max(maxY, y);
        area += len;
        sumX += runSumX(x0, len);
        sumY += static_cast<unsigned long long>(len) * static_cast<unsigned>(y);
    }
    /** Non-atomic merge: for a set that only this thread updates. */
    __device__ __forceinline__ void merge(const ComponentFeatures& o)
    {
        minX = min(minX, o.minX); maxX = max(maxX, o.maxX);
        minY = min(minY, o.minY); maxY = max(maxY, o.maxY);
        area += o.area;
        sumX += o.sumX;
        sumY += o.sumY;
    }
    /** Lane 0 ends with the merge of the whole warp's sets; every lane must call it. */
    __device__ __forceinline__ void warpReduce()
    {
        for (int d = kWarpSize / 2; d > 0; d /= 2)
        {
            ComponentFeatures o;
            o.minX = __shfl_down_sync(kFullMask, minX, d);
            o.minY = __shfl_down_sync(kFullMask, minY, d);
            o.maxX = __shfl_down_sync(kFullMask, maxX, d);
            o.maxY = __shfl_down_sync(kFullMask, maxY, d);
            o.area = __shfl_down_sync(kFullMask, area, d);
            o.sumX = __shfl_down_sync(kFullMask, sumX, d);
            o.sumY = __shfl_down_sync(kFullMask, sumY, d);
            merge(o);
        }
    }
    /** Atomic merge into another set that several threads update (e.g. one in shared memory). */
    __device__ __forceinline__ void atomicMergeInto(ComponentFeatures& to) const
    {
        atomicMin(&to.minX, minX); atomicMin(&to.minY, minY);
        atomicMax(&to.maxX, maxX); atomicMax(&to.maxY, maxY);
        atomicAdd(&to.area, area);
        atomicAdd(&to.sumX, sumX); atomicAdd(&to.sumY, sumY);
    }
    /** Atomic merge into label `label`'s accumulators. */
    __device__ __forceinline__ void atomicMergeInto(const StatsAccumulators& acc, int label) const
    {
        atomicMin(acc.minX + label, minX); atomicMin(acc.minY + label, minY);
        atomicMax(acc.maxX + label, maxX); atomicMax(acc.maxY + label, maxY);
        atomicAdd(acc.area + label, area);
        atomicAdd(acc.sumX + label, sumX); atomicAdd(acc.sumY + label, sumY);
    }
    /** Plain store into label `label`'s accumulators: for the one thread that owns that label. */
    __device__ __forceinline__ void storeTo(const StatsAccumulators& acc, int label) const
    {
        acc.minX[label] = minX; acc.minY[label] = minY;
        acc.maxX[label] = maxX; acc.maxY[label] = maxY;
        acc.area[label] = area;
        acc.sumX[label] = sumX; acc.sumY[label] = sumY;
    }
};

/** Features of one run: the single-run set, for the call sites that merge one run at a time. */
__device__ __forceinline__ ComponentFeatures runFeatures(int x0, int y, int len)
{
    ComponentFeatures f;
    f.minX = x0; f.maxX = x0 + len - 1;
    f.minY = f.maxY = y;
    f.area = len;
    f.sumX = runSumX(x0, len);
    f.sumY = static_cast<unsigned long long>(len) * static_cast<unsigned>(y);
    return f;
}

/** The background (label 0) of a thread block: each thread's set is reduced per warp, the warps' sets
meet in `blockSet` (shared memory, reset by the caller before a __syncthreads), and one thread adds the
block's set to label 0: one set of global atomics per block. Every thread of the block must call it. */
__device__ __forceinline__ void mergeBlockBackground(ComponentFeatures set, ComponentFeatures& blockSet,
                                                     const StatsAccumulators& acc)
{
    set.warpReduce();
    if (threadIdx.x % kWarpSize == 0 && set.area > 0)
        set.atomicMergeInto(blockSet);
    __syncthreads();
    if (threadIdx.x == 0 && blockSet.area > 0) // an image without background leaves label 0 neutral
        blockSet.atomicMergeInto(acc, 0);
}

}}}} // namespace cv::cuda::cudacca::device

#endif
