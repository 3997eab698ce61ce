// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Segmented minimum scans along lines cut into chunks: the column passes of CCA_DPL (dpl_labeling.cu) and
// the column and diagonal passes of CCA_8DLS / CCA_M8DLS (dls8_labeling.cu). A line pass gives every
// foreground pixel the smallest label of its segment (maximal run of foreground pixels along the line) from
// the segment's start up to the pixel (forward), or from the pixel to the segment's end (backward). One
// thread walking a whole line leaves the GPU idle when the lines are few or long (a 1024^2 image has 1024
// columns); here a thread block takes 32 consecutive lines (one per lane, so every row access of a warp is
// coalesced) and cuts their common row range into blockDim.y chunks, one per warp. Each thread first
// summarizes its chunk (ChunkSummary), the block exchanges the summaries in shared memory (chunkCarries),
// and each thread then walks its chunk with the carry that the chunks before it (after it, backward) leave:
// exactly the whole line's scan, with blockDim.y times the threads.

#ifndef CUDACCA_LINE_CHUNKS_CUH
#define CUDACCA_LINE_CHUNKS_CUH

#include <climits>

#include "cuda_check.hpp"
#include "labeling_common.cuh"

namespace cv { namespace cuda { namespace cudacca {

//! Most chunks per line: a thread block is 32 lines x at most 32 chunks = 1024 threads.
constexpr int kMaxLineChunks = 32;

/** Chunks per line (blockDim.y) of `kernel` for `lines` lines of up to `length` pixels: the fewest (a power of
two) that give about 2^17 threads (a full wave of a large GPU), keeping chunks of at least 64 pixels, and no
more than the kernel can launch in one thread block (its registers: cudaFuncGetAttributes). */
template <class Kernel>
int lineChunksFor(Kernel kernel, long long lines, long long length)
{
    cudaFuncAttributes attributes;
    checkCuda(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes (line pass)");
    const int most = attributes.maxThreadsPerBlock / 32 < kMaxLineChunks ? attributes.maxThreadsPerBlock / 32
                                                                          : kMaxLineChunks;
    const long long groups = (lines + 31) / 32;
    int chunks = 1;
    while (2 * chunks <= most && groups * 32 * chunks < (1 << 17) && length / (2 * chunks) >= 64)
        chunks *= 2;
    return chunks;
}

namespace device {

/** This warp's chunk [lo, hi) of the block's row range [wlo, whi): chunk threadIdx.y of blockDim.y equal
parts (the last ones shorter or empty). 64-bit arithmetic: wlo + k * len may pass INT_MAX before the clamp. */
__device__ __forceinline__ void warpChunk(int wlo, int whi, int& lo, int& hi)
{
    const long long len = (static_cast<long long>(whi) - wlo + blockDim.y - 1) / blockDim.y;
    const long long l = wlo + len * threadIdx.y;
    lo = static_cast<int>(l < whi ? l : whi);
    hi = static_cast<int>(l + len < whi ? l + len : whi);
}

/** Walks k = lo .. hi - 1: loads kBatch elements (load(k), independent loads in flight), then visits them in
order (visit(k, value)). The loop counts the elements left, so k0 + kBatch is formed only below hi (no
overflow near INT_MAX). */
template <int kBatch, class Load, class Visit>
__device__ __forceinline__ void walkBatched(int lo, int hi, const Load& load, const Visit& visit)
{
    for (int k0 = lo; k0 < hi; k0 += kBatch)
    {
        const int n = hi - k0 < kBatch ? hi - k0 : kBatch;
        decltype(load(k0)) v[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
            if (j < n)
                v[j] = load(k0 + j);
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
            if (j < n)
                visit(k0 + j, v[j]);
        if (hi - k0 <= kBatch)
            break;
    }
}

/** What the chunks before (after) a chunk need of it: `tail` the smallest label of its last segment piece
(the maximal foreground suffix of the chunk; INT_MAX when the chunk ends in background), `head` the same for
its maximal foreground prefix, `all` the whole chunk is foreground. The empty chunk (all, INT_MAX, INT_MAX)
is the identity of the joins below. add() takes the chunk's labels in line order, 0 for background (or for a
row outside the line). */
struct ChunkSummary
{
    int tail = INT_MAX;
    int head = INT_MAX;
    bool all = true;

    __device__ __forceinline__ void add(int label)
    {
        if (label != 0)
        {
            tail = min(tail, label);
            if (all)
                head = min(head, label);
        }
        else
        {
            tail = INT_MAX;
            all = false;
        }
    }
};

/** The carries of this thread's chunk, from the summaries of its line's other chunks: `forward` the smallest
label of the segment piece that reaches the chunk's first row from the rows before (INT_MAX when none: the
row before it is background, or it is the first chunk), `backward` the same from the rows after its last.
Joining chunks in line order: the suffix of (A then B) is B's suffix, extended by A's when B is all
foreground, so forward = fold over the chunks before, c = all ? min(c, tail) : tail; backward mirrors it
with head, over the chunks after, from the last one.
Every thread of the block must call it (two __syncthreads: the summaries are complete before any is read,
and all are read before the block's next call writes them again). */
__device__ __forceinline__ void chunkCarries(const ChunkSummary& s, int& forward, int& backward)
{
    __shared__ int tails[kMaxLineChunks][kWarpSize];
    __shared__ int heads[kMaxLineChunks][kWarpSize];
    __shared__ unsigned alls[kMaxLineChunks];
    const unsigned lane = threadIdx.x, chunk = threadIdx.y;
    tails[chunk][lane] = s.tail;
    heads[chunk][lane] = s.head;
    const unsigned all = __ballot_sync(kFullMask, s.all);
    if (lane == 0)
        alls[chunk] = all;
    __syncthreads();
    forward = INT_MAX;
    for (unsigned c = 0; c < chunk; ++c)
        forward = (alls[c] >> lane & 1u) ? min(forward, tails[c][lane]) : tails[c][lane];
    backward = INT_MAX;
    for (unsigned c = blockDim.y - 1; c > chunk; --c)
        backward = (alls[c] >> lane & 1u) ? min(backward, heads[c][lane]) : heads[c][lane];
    __syncthreads();
}

} // namespace device

}}} // namespace cv::cuda::cudacca

#endif
