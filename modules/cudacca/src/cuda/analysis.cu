// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The shared analysis stage, used by every labeling algorithm (doc/design.md): from the LabelForest to
// OpenCV's labels, statistics and centroids.
//  compressAndRank      one warp per SEGMENT of 1024 raster pixels (256 in a forest of under 2^24 nodes:
//                       a small image, or a run table of a few thousand runs, still fills the GPU): flattens each path to its root (the
//                       Compression of Bolelli et al. 2024, III-B-1) and ranks the segment's roots; a
//                       scan of the segments' root counts (exclusive_sum.cuh) then makes offset + rank + 1 the CPU's label.
//  relabelAndAccumulate same segments: every pixel writes its final label; the statistics ride on this
//                       pass, one set of atomics per row run (Lemaitre et al. 2021, section 3.1).
//  finalizeStatistics   one thread per label: the CPU's layout, with the CPU's arithmetic for centroids.
// Details: doc/algorithms.md, section "Shared analysis".

#include <algorithm>
#include <climits>

#include "../analysis.hpp"
#include "exclusive_sum.cuh"
#include "launch.hpp"
#include "statistics.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::ComponentFeatures;
using device::kFullMask;
using device::kWarpSize;
using device::runFeatures;

constexpr int kChunkBatch = 8; //!< chunks (32 pixels) whose loads a warp issues together
constexpr int kWarpsPerBlock = 8;
constexpr int kBlockThreads = kWarpsPerBlock * kWarpSize;
//! Forests of fewer nodes take the short segments. A warp works through its segment's batches one after
//! another, each two dependent memory latencies long, so long segments leave a small forest with few
//! warps that mostly wait (a run table of 8192 runs, an 8192^2 all-foreground image: 8 warps); the H100
//! holds over 8000 warps. Short segments cost a larger scan of the segment counts, which only matters
//! for large forests.
constexpr long long kShortSegmentNodes = 1ll << 24;

/** log2 of the pixels (nodes) per segment: 1024 (4 batches), or 256 (one batch) for a small forest. */
int segmentShift(long long pixels) { return pixels < kShortSegmentNodes ? 8 : 10; }

int segmentCount(int rows, int cols)
{
    const long long pixels = static_cast<long long>(rows) * cols;
    const int shift = segmentShift(pixels);
    return static_cast<int>((pixels + (1ll << shift) - 1) >> shift);
}

/** Scratch layout: per-segment root counts and their exclusive scan (one extra entry each, so the last
offset is the total), then CUB's temporary storage. */
struct RankScratch
{
    int* counts;
    int* offsets;
    void* scanTemp;
    size_t scanTempBytes;
    int segments;
    int shift; //!< log2 of the pixels per segment
};

RankScratch layoutRankScratch(void* scratch, int rows, int cols)
{
    RankScratch s;
    s.segments = segmentCount(rows, cols);
    s.shift = segmentShift(static_cast<long long>(rows) * cols);
    const size_t countBytes = alignUp(sizeof(int) * (s.segments + 1));
    char* base = static_cast<char*>(scratch);
    s.counts = reinterpret_cast<int*>(base);
    s.offsets = reinterpret_cast<int*>(base + countBytes);
    s.scanTemp = base + 2 * countBytes;
    s.scanTempBytes = exclusiveSumTempBytes<int>(s.segments);
    return s;
}

/** Pixel q (raster index) of a segment: its coordinates and pitched index. 32-bit unsigned arithmetic:
q < 2^31 + 1024. */
struct PixelAt
{
    int x, y, p;
    __device__ PixelAt(unsigned q, const LabelForest& f)
    {
        const unsigned cols = static_cast<unsigned>(f.cols);
        y = static_cast<int>(q / cols);
        x = static_cast<int>(q - static_cast<unsigned>(y) * cols);
        p = y * f.ld + x;
    }
};

/** Root of a, as seen while compressAndRank rewrites the forest. A root reads either as its own index
(+1) or, once ranked, as a negative number; any other value read, even a stale one, is an ancestor,
so the walk ends at the right root. */
__device__ __forceinline__ int findRootWhileRanking(const int* parent, int a)
{
    for (;;)
    {
        const int v = parent[a];
        if (v < 0 || v == a + 1)
            return a;
        a = v - 1;
    }
}

/** The nodes to read: all `pixels`, or the first *liveNodes (one load, the same address for every thread). */
__device__ __forceinline__ unsigned liveNodeCount(unsigned pixels, const unsigned* liveNodes)
{
    return liveNodes ? min(pixels, *liveNodes) : pixels;
}

__global__ void compressAndRankKernel(const LabelForest f, unsigned allPixels, const unsigned* liveNodes, int segments,
                                      int shift, int* segmentRootCounts)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const int lane = threadIdx.x % kWarpSize;
    const int segment = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (segment >= segments) // whole warp leaves together
        return;
    const unsigned pixels = liveNodeCount(allPixels, liveNodes);
    if ((static_cast<unsigned>(segment) << shift) >= pixels) // no live node: no root (the scan reads the 0)
    {
        if (lane == 0)
            segmentRootCounts[segment] = 0;
        return;
    }

    const unsigned lanesBelow = (1u << lane) - 1u;
    const unsigned segmentStart = static_cast<unsigned>(segment) << shift;
    const int chunks = 1 << (shift - 5);
    int rootsSoFar = 0; // same value in every lane
    for (int chunk0 = 0; chunk0 < chunks; chunk0 += kChunkBatch)
    {
        // kChunkBatch chunks' slots and their parents' slots loaded first (see relabelKernel). A value
        // read early may be stale, which the walk allows: another thread only ever rewrites a non-root's
        // slot to an ancestor, and only a root's own thread rewrites a root's slot (with its rank).
        int p[kChunkBatch], v[kChunkBatch], pv[kChunkBatch];
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
        {
            const unsigned q = segmentStart + (chunk0 + b) * kWarpSize + lane;
            p[b] = q < pixels ? PixelAt(q, f).p : -1;
            v[b] = p[b] >= 0 ? f.data[p[b]] : 0;
        }
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
            pv[b] = v[b] != 0 && v[b] != p[b] + 1 ? f.data[v[b] - 1] : 0;
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
        {
            const bool isRoot = v[b] != 0 && v[b] == p[b] + 1;
            if (v[b] != 0 && !isRoot)
            {
                const int parent = v[b] - 1;
                const int root = pv[b] < 0 || pv[b] == parent + 1 ? parent : findRootWhileRanking(f.data, pv[b] - 1);
                // A pixel already pointing at its root (every pixel of a flat forest: BKE, BUF) is left
                // alone: no write. Otherwise it and its parent (usually a tile root shared by many pixels,
                // so the pixels that walk after us take one step) are pointed at the root; the parent is
                // not a root, so only ancestors are written.
                if (parent != root)
                {
                    f.data[p[b]] = root + 1;
                    f.data[parent] = root + 1;
                }
            }
            const unsigned roots = __ballot_sync(kFullMask, isRoot);
            if (isRoot)
                f.data[p[b]] = -(rootsSoFar + __popc(roots & lanesBelow) + 1);
            rootsSoFar += __popc(roots);
        }
    }
    if (lane == 0)
        segmentRootCounts[segment] = rootsSoFar;
}

__global__ void initAccumulatorsKernel(StatsAccumulators acc, const int* componentCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    // With the count on the device: its labels only, and none past the capacity (see initStatsAccumulators).
    const int labels = componentCount ? *componentCount + 1 : acc.count;
    if (labels > acc.count)
        return;
    for (int l = blockIdx.x * blockDim.x + threadIdx.x; l < labels; l += gridDim.x * blockDim.x)
        device::resetAccumulators(acc, l);
}

/** initAccumulatorsKernel's grid at most (a grid-stride loop): the accumulators are sized for a capacity that is
often far above N (earlyStatsCapacity: 279 620 labels at 8192², where g = 16 has 5-16 k), and each block of a grid
sized by the capacity waits for the count before it leaves (about 1.2 us a thousand blocks, doc/benchmarks.md). */
constexpr unsigned kInitMaxBlocks = 256;

/** Final label of the pixel whose forest slot holds v (after compressAndRank), given w, the value of its
root's slot when v > 0 (every non-root points straight at its root by then). A root's slot holds -(rank
in its segment + 1); in place, it may already hold its final (positive) label: only the root's own thread
writes it, so w is one or the other. */
__device__ __forceinline__ int finalLabel(const LabelForest& f, const int* segmentOffsets, int segment, int shift,
                                          int v, int w)
{
    if (v == 0)
        return 0;
    if (v < 0) // this pixel is a root of this segment
        return segmentOffsets[segment] - v;
    if (w > 0) // relabeled in place already
        return w;
    const int r = v - 1;
    const unsigned ry = static_cast<unsigned>(r) / static_cast<unsigned>(f.ld);
    const unsigned rx = static_cast<unsigned>(r) - ry * static_cast<unsigned>(f.ld);
    const unsigned rq = ry * static_cast<unsigned>(f.cols) + rx;
    return segmentOffsets[rq >> shift] - w;
}

template <typename LabelT, bool kStats>
__global__ void __launch_bounds__(kBlockThreads, kStats ? 4 : 1) // kStats: 64 registers, none spilled
relabelKernel(const LabelForest f, unsigned allPixels, const unsigned* liveNodes, int segments, int shift,
              const int* segmentOffsets, char* labels, size_t labelsStep, const StatsAccumulators acc)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const unsigned pixels = liveNodeCount(allPixels, liveNodes);
    __shared__ ComponentFeatures blockBackground;
    __shared__ device::BlockCarry blockCarry;
    if (kStats)
    {
        if (threadIdx.x == 0)
        {
            blockBackground.reset();
            blockCarry.reset();
        }
        __syncthreads();
    }

    const int lane = threadIdx.x % kWarpSize;
    const int segment = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
    if (!kStats && (static_cast<unsigned>(segment) << shift) >= pixels)
        return; // no live node to write; without statistics the kernel has no barrier
    const bool activeWarp = segment < segments; // warp-uniform
    ComponentFeatures background;
    background.reset();

    // The run that ended on lane 31 of the previous chunk and may continue (same in every lane).
    int openLabel = 0, openX0 = 0, openY = 0, openLen = 0;
    device::WarpCarry carry; // kStats: the runs of one label merged in registers (statistics.cuh)

    const unsigned segmentStart = static_cast<unsigned>(segment) << shift;
    const int chunks = 1 << (shift - 5);
    for (int chunk0 = 0; activeWarp && chunk0 < chunks; chunk0 += kChunkBatch)
    {
        // The loads of kChunkBatch chunks first, then their roots' slots: two memory latencies per
        // batch instead of two per chunk (a small image has a few warps, each waiting on its loads).
        int v[kChunkBatch], w[kChunkBatch], finals[kChunkBatch];
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
        {
            const unsigned q = segmentStart + (chunk0 + b) * kWarpSize + lane;
            v[b] = q < pixels ? f.data[PixelAt(q, f).p] : 0;
        }
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
            w[b] = v[b] > 0 ? f.data[v[b] - 1] : 0;
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
            finals[b] = finalLabel(f, segmentOffsets, segment, shift, v[b], w[b]);
#pragma unroll
        for (int b = 0; b < kChunkBatch; ++b)
        {
            const unsigned q = segmentStart + (chunk0 + b) * kWarpSize + lane;
            int x = 0, y = -1, label = 0;
            const bool valid = q < pixels;
            if (valid)
            {
                const PixelAt px(q, f);
                x = px.x;
                y = px.y;
                label = finals[b];
                reinterpret_cast<LabelT*>(labels + static_cast<size_t>(y) * labelsStep)[x] = static_cast<LabelT>(label);
            }
            if (!kStats)
                continue;

            if (valid && label == 0)
                background.addPixel(x, y);

            // Runs of equal foreground labels in this chunk: a lane continues a run when the pixel
            // before it (lane - 1 holds raster index q - 1) is in the same row and has the same label.
            const int prevLabel = __shfl_up_sync(kFullMask, label, 1);
            const bool continues = lane > 0 && label != 0 && x > 0 && prevLabel == label;
            const unsigned continuing = __ballot_sync(kFullMask, continues);
            const bool head = label != 0 && !continues;
            int len = 0;
            if (head)
            {
                const unsigned after = lane == kWarpSize - 1 ? 0u : continuing >> (lane + 1);
                len = __ffs(~after); // 1 + number of continuing lanes right after the head
            }

            // Does the run starting on lane 0 extend the open run of the previous chunk?
            const int label0 = __shfl_sync(kFullMask, label, 0);
            const int x0 = __shfl_sync(kFullMask, x, 0);
            const int y0 = __shfl_sync(kFullMask, y, 0);
            const bool extendsOpen = openLen > 0 && label0 == openLabel && y0 == openY && x0 == openX0 + openLen;

            // The runs completed in this chunk, at most one per lane: a head's run that stops before
            // the chunk's end, and on lane 31 (whose head always reaches the end) the open run of the
            // previous chunk when lane 0 does not extend it.
            int runX0 = x, runLen = len;
            if (lane == 0 && extendsOpen)
            {
                runX0 = openX0;
                runLen += openLen;
            }
            const bool reachesChunkEnd = head && lane + len == kWarpSize;
            const bool closesOpen = openLen > 0 && !extendsOpen;
            const bool offersOpen = lane == kWarpSize - 1 && closesOpen;
            carry.offer((head && !reachesChunkEnd) || offersOpen, offersOpen ? openLabel : label,
                        offersOpen ? runFeatures(openX0, openY, openLen) : runFeatures(runX0, y, runLen), acc);

            const unsigned open = __ballot_sync(kFullMask, reachesChunkEnd);
            openLen = 0;
            if (open)
            {
                const int src = __ffs(open) - 1;
                openLabel = __shfl_sync(kFullMask, label, src);
                openX0 = __shfl_sync(kFullMask, runX0, src);
                openY = __shfl_sync(kFullMask, y, src);
                openLen = __shfl_sync(kFullMask, runLen, src);
            }
        }
    }

    if (kStats)
    {
        if (activeWarp)
            carry.finishInto(blockCarry, acc, openLen > 0, openLabel, runFeatures(openX0, openY, openLen));
        device::mergeBlockBackground(background, blockBackground, acc); // its barrier follows every merge
        if (threadIdx.x == 0)
            blockCarry.flush(acc);
    }
}

constexpr int kFinalizeThreads = 256;

/** A label per thread, the rows of packed outputs through shared memory (finalizeRows). */
__global__ void __launch_bounds__(kFinalizeThreads) finalizeKernel(const StatsAccumulators acc, int* stats, size_t statsStep,
                                                                 double* centroids, size_t centroidsStep, double emptyCentroid)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ int sharedStats[kFinalizeThreads * 5];
    __shared__ double sharedCentroids[kFinalizeThreads * 2];
    const int base = blockIdx.x * kFinalizeThreads;
    const device::FinalRows rows = { reinterpret_cast<char*>(stats), statsStep, reinterpret_cast<char*>(centroids),
                                     centroidsStep };
    device::finalizeRows(acc, base, acc.count - 1, static_cast<size_t>(base), rows, sharedStats, sharedCentroids,
                         emptyCentroid);
}


} // namespace

namespace {
size_t scratchBytesForSegments(int segments)
{
    return 2 * alignUp(sizeof(int) * (segments + 1)) + exclusiveSumTempBytes<int>(segments);
}
} // namespace

size_t rankScratchBytes(int rows, int cols) { return scratchBytesForSegments(segmentCount(rows, cols)); }

size_t rankScratchBytesUpTo(int maxNodes)
{
    // The most segments any n <= maxNodes takes: n = maxNodes, or the largest forest of short segments (their count
    // only grows with n below kShortSegmentNodes). CUB's temporary storage does not shrink as its items grow.
    const int shortNodes = static_cast<int>(std::min<long long>(maxNodes, kShortSegmentNodes - 1));
    return scratchBytesForSegments(std::max(segmentCount(1, maxNodes), segmentCount(1, shortNodes)));
}

void compressAndRank(const LabelForest& forest, void* scratch, size_t scratchBytes, int* d_componentCount,
                     cudaStream_t stream, const unsigned* d_liveNodes, int* h_componentCount)
{
    if (scratchBytes < rankScratchBytes(forest.rows, forest.cols))
        checkCuda(cudaErrorInvalidValue, "compressAndRank: scratch too small");
    const RankScratch s = layoutRankScratch(scratch, forest.rows, forest.cols);
    const unsigned pixels = static_cast<unsigned>(forest.rows) * static_cast<unsigned>(forest.cols);

    launchDependent(compressAndRankKernel, blocksFor(s.segments, kWarpsPerBlock), kBlockThreads, stream, "compressAndRank",
                    forest, pixels, d_liveNodes, s.segments, s.shift, s.counts);

    // offsets[segments] is the number of components; the scan also writes it to *d_componentCount (and the host's).
    exclusiveSumWithTotal(s.scanTemp, s.scanTempBytes, s.counts, s.offsets, s.segments, stream, "segment offsets",
                          d_componentCount, h_componentCount);
}

RankedNodes rankedNodes(const LabelForest& forest, const void* scratch)
{
    if (forest.rows != 1)
        checkCuda(cudaErrorInvalidValue, "rankedNodes: a forest of one row (nodes 0 .. n-1) only");
    const RankScratch s = layoutRankScratch(const_cast<void*>(scratch), forest.rows, forest.cols);
    return { forest.data, s.offsets, s.shift };
}

size_t statsAccumulatorBytes(int labelCount)
{
    return 2 * alignUp(sizeof(unsigned long long) * labelCount) + 5 * alignUp(sizeof(int) * labelCount);
}

StatsAccumulators layoutStatsAccumulators(void* memory, int labelCount, int areaShift)
{
    char* p = static_cast<char*>(memory);
    auto take = [&p](size_t bytes) { char* r = p; p += alignUp(bytes); return r; };
    StatsAccumulators acc;
    acc.count = labelCount;
    acc.areaShift = areaShift;
    acc.sumX = reinterpret_cast<unsigned long long*>(take(sizeof(unsigned long long) * labelCount));
    acc.sumY = reinterpret_cast<unsigned long long*>(take(sizeof(unsigned long long) * labelCount));
    acc.minX = reinterpret_cast<int*>(take(sizeof(int) * labelCount));
    acc.minY = reinterpret_cast<int*>(take(sizeof(int) * labelCount));
    acc.maxX = reinterpret_cast<int*>(take(sizeof(int) * labelCount));
    acc.maxY = reinterpret_cast<int*>(take(sizeof(int) * labelCount));
    acc.area = reinterpret_cast<int*>(take(sizeof(int) * labelCount));
    return acc;
}

StatsAccumulators initStatsAccumulators(void* memory, int labelCount, cudaStream_t stream, const int* d_componentCount,
                                        int areaShift)
{
    const StatsAccumulators acc = layoutStatsAccumulators(memory, labelCount, areaShift);
    launchDependent(initAccumulatorsKernel, std::min(blocksFor(labelCount, 256), kInitMaxBlocks), 256, stream,
                    "initStatsAccumulators", acc, d_componentCount);
    return acc;
}

void relabelAndAccumulate(const LabelForest& forest, const void* scratch, void* labels, size_t labelsStep,
                          bool labels16u, const StatsAccumulators* stats, cudaStream_t stream,
                          const unsigned* d_liveNodes)
{
    if (stats && d_liveNodes)
        checkCuda(cudaErrorInvalidValue, "relabelAndAccumulate: statistics of a forest with live nodes only");
    // Only the offsets are read; the layout needs a mutable pointer but nothing is written through it.
    const RankScratch s = layoutRankScratch(const_cast<void*>(scratch), forest.rows, forest.cols);
    const unsigned pixels = static_cast<unsigned>(forest.rows) * static_cast<unsigned>(forest.cols);
    const StatsAccumulators acc = stats ? *stats : StatsAccumulators();
    char* out = static_cast<char*>(labels);
    const unsigned blocks = blocksFor(s.segments, kWarpsPerBlock);
    auto launch = [&](auto kernel) {
        launchDependent(kernel, blocks, kBlockThreads, stream, "relabelAndAccumulate", forest, pixels, d_liveNodes,
                        s.segments, s.shift, s.offsets, out, labelsStep, acc);
    };
    if (labels16u && stats)
        launch(relabelKernel<unsigned short, true>);
    else if (labels16u)
        launch(relabelKernel<unsigned short, false>);
    else if (stats)
        launch(relabelKernel<int, true>);
    else
        launch(relabelKernel<int, false>);
}

void finalizeStatistics(const StatsAccumulators& stats, int* statsOut, size_t statsStep, double* centroidsOut,
                        size_t centroidsStep, double emptyCentroid, cudaStream_t stream)
{
    launchDependent(finalizeKernel, blocksFor(stats.count, kFinalizeThreads), kFinalizeThreads, stream, "finalizeStatistics", stats, statsOut,
                    statsStep, centroidsOut, centroidsStep, emptyCentroid);
}

}}} // namespace cv::cuda::cudacca
