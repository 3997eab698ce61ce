// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The statistics of a component (OpenCV's: bounding box, area, sums of x and y for the centroid) as the
// device code gathers them, written once for every analysis strategy: the shared relabeling (analysis.cu),
// the FLSL family (flsl_labeling.cu), the tree merge (tmk_analysis.cu) and CCA_DEFAULT's one-launch kernel
// (one_launch.cu); finalizeLabel() turns a label's accumulators into OpenCV's row for all of them.
//
// ComponentFeatures holds the features of a set of pixels. Its neutral value (reset) is the one
// initStatsAccumulators gives every label: min fields INT_MAX, max fields INT_MIN, area and sums 0, so
// merging a neutral value changes nothing. atomicMergeInto() adds a set into a label's accumulators with one
// atomic per feature: the seven atomics every strategy tries to issue as rarely as possible (WarpCarry
// and BlockCarry keep one label's sets in registers and shared memory to that end; five are enough where the
// top comes from the component's root alone and the area shares the sum of x's word, StatsAccumulators::areaShift:
// the one-launch kernel, and the run pipeline on images of up to 2^26 pixels).

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
    // The merges below skip minY when it is INT_MAX (a min with INT_MAX changes nothing): the sets of a writer
    // that gives each label's top from its root alone (the component's raster-first pixel or run: the one-launch
    // kernel, the run pipeline) carry INT_MAX there unless they hold the root, and save that atomic.
    /** Atomic merge into another set that several threads update (e.g. one in shared memory). */
    __device__ __forceinline__ void atomicMergeInto(ComponentFeatures& to) const
    {
        atomicMin(&to.minX, minX);
        if (minY != INT_MAX)
            atomicMin(&to.minY, minY);
        atomicMax(&to.maxX, maxX); atomicMax(&to.maxY, maxY);
        atomicAdd(&to.area, area);
        atomicAdd(&to.sumX, sumX); atomicAdd(&to.sumY, sumY);
    }
    /** Atomic merge into label `label`'s accumulators. */
    __device__ __forceinline__ void atomicMergeInto(const StatsAccumulators& acc, int label) const
    {
        atomicMin(acc.minX + label, minX);
        if (minY != INT_MAX)
            atomicMin(acc.minY + label, minY);
        atomicMax(acc.maxX + label, maxX); atomicMax(acc.maxY + label, maxY);
        if (acc.areaShift)
            atomicAdd(acc.sumX + label, areaAndSumX(acc.areaShift));
        else
        {
            atomicAdd(acc.area + label, area);
            atomicAdd(acc.sumX + label, sumX);
        }
        atomicAdd(acc.sumY + label, sumY);
    }
    /** Plain store into label `label`'s accumulators: for the one thread that owns that label (its top,
    minY, left to another thread's store when `withTop` is false). */
    __device__ __forceinline__ void storeTo(const StatsAccumulators& acc, int label, bool withTop = true) const
    {
        acc.minX[label] = minX;
        if (withTop)
            acc.minY[label] = minY;
        acc.maxX[label] = maxX; acc.maxY[label] = maxY;
        if (acc.areaShift)
            acc.sumX[label] = areaAndSumX(acc.areaShift);
        else
        {
            acc.area[label] = area;
            acc.sumX[label] = sumX;
        }
        acc.sumY[label] = sumY;
    }
    /** area and sumX in one word (StatsAccumulators::areaShift): adding such words (modulo 2^64) adds both,
    exactly while the sum of x stays below 2^shift (areaAndSumXOf() reads the area back). */
    __device__ __forceinline__ unsigned long long areaAndSumX(int shift) const
    {
        return (static_cast<unsigned long long>(static_cast<unsigned>(area)) << shift) + sumX;
    }
};

/** Label l's area and sum of x, from either layout of the accumulators. With the area in sumX's word, the sum of
x is the word's bits below areaShift (it stays below 2^areaShift) and the bits above hold the area modulo
2^(64 - areaShift), since the word's adds wrap modulo 2^64. The image has at most 2^(64 - areaShift) pixels, so
that is the area itself unless the area is exactly 2^(64 - areaShift) (one label holds every pixel), which reads
as 0; a label that met a pixel has a minX below INT_MAX, so a 0 read there is that area. */
__device__ __forceinline__ void areaAndSumXOf(const StatsAccumulators& acc, int l, int& area, unsigned long long& sumX)
{
    if (acc.areaShift)
    {
        const unsigned long long word = acc.sumX[l];
        const int shift = acc.areaShift;
        area = static_cast<int>(word >> shift);
        sumX = word & ((1ull << shift) - 1);
        if (area == 0 && acc.minX[l] != INT_MAX)
            area = static_cast<int>(1ll << (64 - shift));
    }
    else
    {
        area = acc.area[l];
        sumX = acc.sumX[l];
    }
}

/** Label l's row of CPU-layout statistics (5 int32 at `statsRow`, null: not wanted) and centroid (2 double at
`centroid`, null: not wanted) from its accumulators: OpenCV's finish(), width and height from the extremes,
centroid = double(sum) / double(area); a label without pixels gets LEFT = -1, TOP = INT_MAX (untouched by
the CPU), WIDTH = HEIGHT = 0 and `emptyCentroid` (the host's quiet NaN, so that the bits match). */
__device__ __forceinline__ void finalizeLabel(const StatsAccumulators& acc, int l, int* statsRow, double* centroid,
                                              double emptyCentroid)
{
    int area;
    unsigned long long sumX;
    areaAndSumXOf(acc, l, area, sumX);
    if (statsRow)
    {
        if (area > 0)
        {
            statsRow[0] = acc.minX[l];
            statsRow[1] = acc.minY[l];
            statsRow[2] = acc.maxX[l] - acc.minX[l] + 1;
            statsRow[3] = acc.maxY[l] - acc.minY[l] + 1;
        }
        else
        {
            statsRow[0] = -1;
            statsRow[1] = INT_MAX;
            statsRow[2] = 0;
            statsRow[3] = 0;
        }
        statsRow[4] = area;
    }
    if (centroid)
    {
        if (area > 0)
        {
            const double a = __uint2double_rn(static_cast<unsigned>(area));
            centroid[0] = __ddiv_rn(__ull2double_rn(sumX), a);
            centroid[1] = __ddiv_rn(__ull2double_rn(acc.sumY[l]), a);
        }
        else
        {
            centroid[0] = emptyCentroid;
            centroid[1] = emptyCentroid;
        }
    }
}

/** Where finalizeRows() puts the rows: stats and centroids (null: not wanted), their rows statsStep and
centroidsStep bytes apart; a PACKED output (rows of 5 int32 / 2 double back to back) is written through the
block's shared memory. */
struct FinalRows
{
    char* stats;
    size_t statsStep;
    char* centroids;
    size_t centroidsStep;
    __device__ __forceinline__ bool statsPacked() const { return stats && statsStep == 5 * sizeof(int); }
    __device__ __forceinline__ bool centroidsPacked() const { return centroids && centroidsStep == 2 * sizeof(double); }
};

/** The block's labels base .. base + blockDim.x - 1 (those up to lastLabel) finalized into rows firstRow ..
(finalizeLabel). Packed outputs: each thread finalizes its label into shared memory (`sharedStats`,
`sharedCentroids`: blockDim.x rows each) and the block then stores the rows as consecutive words, a warp store
per 128 bytes, instead of five 4-byte and two 8-byte stores per thread, 20 and 16 bytes apart. Over the PCIe
bus that was most of a call (H100, 1024^2, 3 431 labels: 40 us of 124); in device memory it leaves full sectors
(8192^2, 2.7 M labels: doc/benchmarks.md). Other outputs are written in place. Every thread of the block calls
it (barriers), with the same arguments. */
__device__ __forceinline__ void finalizeRows(const StatsAccumulators& acc, int base, int lastLabel, size_t firstRow,
                                             const FinalRows& out, int* sharedStats, double* sharedCentroids,
                                             double emptyCentroid)
{
    const int t = static_cast<int>(threadIdx.x);
    const bool statsPacked = out.statsPacked(), centroidsPacked = out.centroidsPacked();
    const size_t row = firstRow + t;
    if (base + t <= lastLabel)
        finalizeLabel(acc, base + t,
                      !out.stats ? nullptr
                      : statsPacked ? sharedStats + t * 5
                                    : reinterpret_cast<int*>(out.stats + row * out.statsStep),
                      !out.centroids ? nullptr
                      : centroidsPacked ? sharedCentroids + t * 2
                                        : reinterpret_cast<double*>(out.centroids + row * out.centroidsStep),
                      emptyCentroid);
    if (!statsPacked && !centroidsPacked)
        return;
    __syncthreads();
    const int rows = min(static_cast<int>(blockDim.x), lastLabel + 1 - base);
    if (statsPacked)
    {
        int* const to = reinterpret_cast<int*>(out.stats) + firstRow * 5;
        for (int w = t; w < rows * 5; w += blockDim.x)
            to[w] = sharedStats[w];
    }
    if (centroidsPacked)
    {
        double* const to = reinterpret_cast<double*>(out.centroids) + firstRow * 2;
        for (int w = t; w < rows * 2; w += blockDim.x)
            to[w] = sharedCentroids[w];
    }
    __syncthreads(); // the shared rows may be written again
}

/** Label l's accumulators set to the neutral value (ComponentFeatures::reset); its top (minY) untouched when
`withTop` is false. */
__device__ __forceinline__ void resetAccumulators(const StatsAccumulators& acc, int l, bool withTop = true)
{
    ComponentFeatures neutral;
    neutral.reset();
    neutral.storeTo(acc, l, withTop);
}

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

// ---- warp-wide reductions (every lane gets the result) -----------------------------------------------
// One instruction each from sm_80 (__reduce_*_sync); a butterfly of shuffles before.

template <typename T, typename Op>
__device__ __forceinline__ T butterflyReduce(T v, Op op)
{
    for (int d = kWarpSize / 2; d > 0; d /= 2)
        v = op(v, __shfl_xor_sync(kFullMask, v, d));
    return v;
}
__device__ __forceinline__ unsigned warpSum(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(kFullMask, v);
#else
    return butterflyReduce(v, [](unsigned a, unsigned b) { return a + b; });
#endif
}
__device__ __forceinline__ int warpMin(int v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(kFullMask, v);
#else
    return butterflyReduce(v, [](int a, int b) { return min(a, b); });
#endif
}
__device__ __forceinline__ int warpMax(int v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(kFullMask, v);
#else
    return butterflyReduce(v, [](int a, int b) { return max(a, b); });
#endif
}
/** Sum of a 64-bit value over the warp, exact whenever the total fits 64 bits: each value is split into
16 + 16 + 32 bits and each part summed in 32 bits without overflow. The low and middle parts total less
than 32 * 2^16 = 2^21; the high parts total at most floor(total / 2^32) < 2^32. */
__device__ __forceinline__ unsigned long long warpSum64(unsigned long long v)
{
    const unsigned low = warpSum(static_cast<unsigned>(v) & 0xffffu);
    const unsigned mid = warpSum(static_cast<unsigned>(v) >> 16);
    const unsigned high = warpSum(static_cast<unsigned>(v >> 32));
    return (static_cast<unsigned long long>(high) << 32) + (static_cast<unsigned long long>(mid) << 16) + low;
}

/** The merge of the sets `s` of the lanes with `joins` (every lane gets it; neutral if none). Every lane calls it. */
__device__ __forceinline__ ComponentFeatures warpJoin(bool joins, const ComponentFeatures& s)
{
    ComponentFeatures f;
    f.area = static_cast<int>(warpSum(joins ? static_cast<unsigned>(s.area) : 0u));
    f.minX = warpMin(joins ? s.minX : INT_MAX);
    f.minY = warpMin(joins ? s.minY : INT_MAX);
    f.maxX = warpMax(joins ? s.maxX : INT_MIN);
    f.maxY = warpMax(joins ? s.maxY : INT_MIN);
    f.sumX = warpSum64(joins ? s.sumX : 0ull);
    f.sumY = warpSum64(joins ? s.sumY : 0ull);
    return f;
}

/** A thread block's carry, in shared memory: the features of the first label that one of its warps
hands in at its end (see WarpCarry::finishInto), merged with shared-memory atomics and added to the
accumulators once per block; a set of another label goes to the accumulators directly. Every set is merged
exactly once: into `f`, which flush() adds once, or atomically into its label. reset() by one thread
before a __syncthreads; flush() by one thread after a __syncthreads that follows every merge. */
struct BlockCarry
{
    int label;
    ComponentFeatures f;

    __device__ __forceinline__ void reset()
    {
        label = -1;
        f.reset();
    }
    __device__ __forceinline__ void merge(const ComponentFeatures& set, int l, const StatsAccumulators& acc)
    {
        const int held = atomicCAS(&label, -1, l);
        if (held == -1 || held == l)
            set.atomicMergeInto(f);
        else
            set.atomicMergeInto(acc, l);
    }
    __device__ __forceinline__ void flush(const StatsAccumulators& acc) const
    {
        if (label >= 0)
            f.atomicMergeInto(acc, label);
    }
};

/** A warp's CARRY: the features of one label gathered in registers (the same in every lane), merged into
the accumulators only when the carry moves to another label, or handed to the block's carry at the end.

Why: above the percolation threshold one component holds almost every run (random g = 1, d = 50 %,
8-connectivity: 99 % of the pixels, OpenCV's CPU count), so the atomics of a run-by-run merge nearly all
hit the same seven addresses and are serialized there (H100, 8192^2: FLSL+CD's statistics took 759 us of
a 2.2 ms call; BKE's whole call 29.9 ms against 1.8 ms without statistics). With the carry, a warp merges
that label's runs in registers, and a block issues its atomics about once.

offer(): every lane calls it together; each lane with `has` offers the set `s` of label `l`; a lane that is a
`member` holds a piece of label `l` offered by another lane (its group's leader: Conflict Detection), and one with
`has` is a member too. The sets of the carried label join the carry (warp reductions). When none does, the carry
moves only to the highest member lane's label (its piece is the last in x order, the one most likely to go on in
the next offer), and only when that label is the highest member's twice in a row or the carry is empty, so that
images of small components, whose labels do not come back, pay nothing but a ballot; a move flushes the old carry.
Why the highest member and not the highest offering lane (a group's leader is its lowest lane): just above the
percolation threshold (4-connectivity, d = 60 %) the giant component has a piece in nearly every offer but its
leader is seldom the highest, so the old rule never carried it and every warp sent it one set of atomics an
offer (a host model of a 2048^2 image: 31 494 sets in 32 518 offers, 2950 with this rule; 8-connectivity,
d = 50 %: 8967 -> 91; H100, 8192^2, accumulateRunsKernel: doc/benchmarks.md, "The carry's candidate"). Every
other set is merged atomically, as without a carry. A flush costs the seven atomics that the set which takes its
place would have cost, so no offer issues more atomics than a plain merge. Exactness: every offered set is merged
exactly once, into its own label, atomically or through the carry, whose flush adds the carry's exact sum, min
and max (warpSum64 is exact as a component's sums fit 64 bits). The warp must end with finishInto(). */
struct WarpCarry
{
    int label;
    int lastCandidate; //!< the highest member lane's label at the last offer that moved nothing
    ComponentFeatures f;

    __device__ __forceinline__ WarpCarry() : label(-1), lastCandidate(-1) { f.reset(); }

    __device__ __forceinline__ void offer(bool has, int l, const ComponentFeatures& s, const StatsAccumulators& acc,
                                          bool member)
    {
        if (!__any_sync(kFullMask, has && l == label))
        {
            const unsigned members = __ballot_sync(kFullMask, member || has);
            if (!members)
                return;
            const int candidate = __shfl_sync(kFullMask, l, 31 - __clz(members));
            if (label >= 0 && candidate != lastCandidate)
            {
                lastCandidate = candidate;
                if (has)
                    s.atomicMergeInto(acc, l);
                return;
            }
            if (label >= 0 && threadIdx.x % kWarpSize == 0)
                f.atomicMergeInto(acc, label);
            label = candidate;
            f.reset();
        }
        const bool joins = has && l == label;
        if (has && !joins)
            s.atomicMergeInto(acc, l);
        f.merge(warpJoin(joins, s));
    }
    /** Every lane that holds a piece offers it itself. */
    __device__ __forceinline__ void offer(bool has, int l, const ComponentFeatures& s, const StatsAccumulators& acc)
    {
        offer(has, l, s, acc, has);
    }

    /** The warp's end (lane 0 does the work): one last set `s` of label `l` (when `has`) and the carry go
    to the block's carry. */
    __device__ __forceinline__ void finishInto(BlockCarry& block, const StatsAccumulators& acc, bool has, int l,
                                               const ComponentFeatures& s)
    {
        if (threadIdx.x % kWarpSize != 0)
            return;
        if (has && l == label)
            f.merge(s);
        else if (has)
            block.merge(s, l, acc);
        if (label >= 0)
            block.merge(f, label, acc);
    }
};

/** One offer of sets straight to the block's carry, for a warp that offers once or twice (the one-launch
kernel's chunks), where WarpCarry's "twice in a row" never comes and one component holding most runs would
serialize their atomics: the sets of one candidate label are merged in the warp and handed to `block` once
(shared-memory atomics when the block carries that label, which the first label offered to it becomes); every
other set is merged atomically into its label. The candidate is the block's label where a lane offers it, else
the label offered by the most lanes (ties: the highest lane's): near the percolation threshold the giant
component holds several runs of most chunks, seldom the last one, and the old rule (the highest lane's label)
sent it a set of atomics per run (1024^2, 4-connectivity, d = 60 %: the statistics phase 39.6 -> 17.0 us;
doc/benchmarks.md, "The one-launch kernel's candidate"). Every set is merged exactly once whichever label is
the candidate. Every lane calls it; `block` is reset before and flushed after, as BlockCarry says. */
__device__ __forceinline__ void offerToBlock(bool has, int l, const ComponentFeatures& s, BlockCarry& block,
                                             const StatsAccumulators& acc)
{
    const unsigned offering = __ballot_sync(kFullMask, has);
    if (!offering)
        return;
    const unsigned lane = threadIdx.x % kWarpSize;
    const unsigned peers = __match_any_sync(kFullMask, has ? l : -1);
    const int key = has ? static_cast<int>((static_cast<unsigned>(__popc(peers)) << 5) | lane) : -1;
    int candidate = __shfl_sync(kFullMask, l, warpMax(key) & 31);
    // The block's label, read atomically (other warps of the block set it with atomicCAS): a hint only, as
    // BlockCarry::merge decides where the set goes.
    const int held = __shfl_sync(kFullMask, lane == 0 ? atomicOr(&block.label, 0) : 0, 0);
    if (held >= 0 && held != candidate && __any_sync(kFullMask, has && l == held))
        candidate = held;
    const bool joins = has && l == candidate;
    if (has && !joins)
        s.atomicMergeInto(acc, l);
    const ComponentFeatures f = warpJoin(joins, s);
    if (lane == 0)
        block.merge(f, candidate, acc);
}

/** A thread block's table of the labels base .. base + kSlots - 1 in shared memory, for a block whose sets lie in the
rows y0 .. y0 + kTableRows - 1 of an image of at most kTableMaxCols columns: a set of such a label is merged there with
shared-memory atomics, and flush() adds each label the block met to the accumulators with one set of atomics. Where a
block's labels are mostly its own and come back a few times each (fine granularity: many small components, each a few
runs of a few rows), this replaces one set of global atomics per set (the accumulation's bound: doc/benchmarks.md,
"The statistics' block table") by one per label. The top (minY) is not kept: the caller stores it (a writer that takes
the top from the component's root alone has one store per label). Every set is merged exactly once: into the table,
whose flush adds the sums, minima and maxima of its sets, exact since a label's pixels in the block number at most
kTableRows * kTableMaxCols = 2^21 (the area fits the word's 24 bits above kTableAreaShift) and their sum of x stays
below 2^21 * 2^18 = 2^39 < 2^kTableAreaShift, and their sum of y - y0 below 8 * 2^21 = 2^24. reset() by every thread,
then a __syncthreads before the first merge; flush() by every thread after a __syncthreads that follows every merge. */
constexpr int kTableRows = 8;
constexpr int kTableMaxCols = 1 << 18;
constexpr int kTableAreaShift = 40;

template <int kSlots>
struct BlockLabelTable
{
    int base; //!< the first label held (set by the caller with the reset, before its __syncthreads)
    int y0;   //!< the block's first row: the sums of y are kept from it
    int minX[kSlots], maxX[kSlots], maxY[kSlots];
    unsigned sumY[kSlots];                //!< sum of y - y0
    unsigned long long areaSumX[kSlots];  //!< area << kTableAreaShift, plus the sum of x

    __device__ __forceinline__ bool holds(int l) const { return static_cast<unsigned>(l - base) < kSlots; }

    __device__ __forceinline__ void reset()
    {
        for (int k = threadIdx.x; k < kSlots; k += blockDim.x)
        {
            minX[k] = INT_MAX;
            maxX[k] = maxY[k] = INT_MIN;
            sumY[k] = 0;
            areaSumX[k] = 0;
        }
    }
    /** The set `s` of label l (holds(l); its pixels in rows y0 .., its minY ignored). */
    __device__ __forceinline__ void merge(int l, const ComponentFeatures& s)
    {
        const int k = l - base;
        atomicMin(minX + k, s.minX);
        atomicMax(maxX + k, s.maxX);
        atomicMax(maxY + k, s.maxY);
        atomicAdd(sumY + k, static_cast<unsigned>(s.sumY - static_cast<unsigned long long>(y0) * static_cast<unsigned>(s.area)));
        atomicAdd(areaSumX + k, (static_cast<unsigned long long>(static_cast<unsigned>(s.area)) << kTableAreaShift) + s.sumX);
    }
    __device__ __forceinline__ void flush(const StatsAccumulators& acc) const
    {
        for (int k = threadIdx.x; k < kSlots; k += blockDim.x)
        {
            const unsigned long long w = areaSumX[k];
            if (w == 0) // no set (a set has at least one pixel)
                continue;
            ComponentFeatures f;
            f.minX = minX[k];
            f.maxX = maxX[k];
            f.minY = INT_MAX; // the caller's
            f.maxY = maxY[k];
            f.area = static_cast<int>(w >> kTableAreaShift);
            f.sumX = w & ((1ull << kTableAreaShift) - 1);
            f.sumY = static_cast<unsigned long long>(y0) * static_cast<unsigned>(f.area) + sumY[k];
            f.atomicMergeInto(acc, base + k);
        }
    }
};

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
