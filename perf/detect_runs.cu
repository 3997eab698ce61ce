// detect_runs: FLSL's run detection (flsl_labeling.cu, detectRunsKernel: reads the 8-bit image once, writes the
// bitmap, each word's edges before it in its row and each row's run count) timed against the GPU's read bandwidth
// and against candidate kernels (issue 12: at 8192² the detection takes 36-37 us where 64 MB read at the copy
// bandwidth would take about 22; doc/benchmarks.md, "The detection's instructions"). Standalone (no OpenCV):
// flsl_labeling.cu and analysis.cu are compiled into this translation unit.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o detect_runs perf/detect_runs.cu
//   ./detect_runs [side 8192] [granularity 1] [density 0.5] [calls 30]   (granularity 0: the full image)
//
// Variants (median us of `calls` calls, CUDA events around each; GB/s = the image's bytes / time):
//   module       the module's detectRunsKernel (since session 48: whole rounds without bounds checks, the mask by
//                multiplication, one rotation for the pixel before, two steps' scans packed in one word)
//   read1        the image read 16 bytes a thread, grid-stride over a wave of blocks (label_write's `read`)
//   read4        the same with four independent 16-byte loads a thread per round
//   readwrite    read4 plus a quarter byte per pixel written (what the detection writes: bitmap and edge counts)
//   before       the module's kernel before session 48 (a warp per row, four steps of 512 pixels a round, a 5-step
//                scan per step, the mask by __vcmpne4, every load's bounds checked)
//   chunks       that kernel cut into a warp per 2048-pixel chunk of a row (every warp one round of four loads), the
//                chunks of a row in one block: each chunk's edges counted as if its row started there, then offset
//                and corrected for the pixel before it through shared memory after one barrier (side a multiple of
//                2048, at most 16384)
//   narrow       the module's kernel with byte loads only (as for rows that are not 16-byte aligned)
// The image's foreground pixels get random values 1..255 (any nonzero byte is foreground). Every detection variant's
// bitmap, edge counts and row run counts are compared with the module's (SAME, or DIFFERENT and exit 1).
// DETECT_RUNS_AFTER_WRITE=1: each timed call follows, untimed, a streaming write of an int32 label image, as the
// detection follows the previous call's label write in the pipeline. Results: doc/benchmarks.md, "The detection's
// instructions" (session 48).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_flsl.hpp"

using namespace cv::cuda::cudacca;

namespace detect_runs {

/** What precedes the detection in a call of the pipeline: the previous call's label write, 4 bytes a pixel with
streaming stores (flsl_labeling.cu, storeQuad). */
__global__ void streamingFillKernel(int4* p, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        __stcs(p + i, make_int4(1, 2, 3, 4));
}

__global__ void read1Kernel(const uint4* p, size_t n, unsigned* out)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    {
        const uint4 v = __ldcs(p + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) // never in practice: keeps the loads
        out[0] = acc;
}

template <bool kWrite>
__global__ void read4Kernel(const uint4* p, size_t n, unsigned* out, uint4* written)
{
    unsigned acc = 0;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    for (size_t i = t; i < n; i += 4 * stride)
    {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
            v[k] = i + k * stride < n ? __ldcs(p + i + k * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < 4; ++k)
        {
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
            // A quarter byte per pixel: one 16-byte store per 4 loads of 16 pixels.
            if (kWrite && k == 3)
                written[(i - t) / 4 + t] = make_uint4(acc, v[0].x, v[1].y, v[2].z);
        }
    }
    if (acc == 0x12345678u)
        out[0] = acc;
}

/** The mask of 16 pixels as the module made it before session 48 (__vcmpne4, then a multiplication per 4 bytes). */
__device__ __forceinline__ unsigned foreground16Before(const unsigned char* row, unsigned x, unsigned cols)
{
    if (x >= cols)
        return 0;
    if (x + 16u <= cols)
    {
        const uint4 v = __ldcs(reinterpret_cast<const uint4*>(row + x));
        auto nibble = [](unsigned w) { return ((__vcmpne4(w, 0u) & 0x08040201u) * 0x01010101u) >> 24; };
        return nibble(v.x) | (nibble(v.y) << 4) | (nibble(v.z) << 8) | (nibble(v.w) << 12);
    }
    unsigned m = 0;
    for (unsigned k = 0; k < 16u && x + k < cols; ++k)
        m |= (row[x + k] != 0 ? 1u : 0u) << k;
    return m;
}

/** One 512-pixel step as c9d3a5e's kernel made it (lane l's 16 pixels in m): the word of lanes 2j and 2j+1 (in the
even lane), its edges (0 in odd lanes), and their inclusive scan over the lanes. */
__device__ __forceinline__ void stepBefore(unsigned m, unsigned lane, unsigned carry, unsigned& word, unsigned& edges,
                                           unsigned& upTo)
{
    const unsigned high = __shfl_down_sync(kFullMask, m, 1);
    const unsigned before = __shfl_up_sync(kFullMask, m, 1) >> 15;
    word = m | (high << 16);
    const unsigned prev = lane == 0 ? carry : (before & 1u);
    edges = (lane & 1u) == 0 ? __popc(word ^ ((word << 1) | prev)) : 0u;
    upTo = edges;
#pragma unroll
    for (int d = 1; d < kWarpSize; d *= 2)
    {
        const unsigned t = __shfl_up_sync(kFullMask, upTo, d);
        if (lane >= static_cast<unsigned>(d))
            upTo += t;
    }
}

/** The module's kernel before session 48 (c9d3a5e's detectRunsKernel, kUnroll = 4, its mask included), to compare against: a 5-step scan
per step of 512 pixels, the mask by __vcmpne4, every load's bounds checked. */
__global__ void __launch_bounds__(kRowThreads)
detectBeforeKernel(const BinaryImage img, unsigned* bits, unsigned* edgesBefore, int wordsPerRow, unsigned* rowRuns)
{
    constexpr unsigned kStep = 16u * kWarpSize;
    constexpr int kUnroll = 4;
    const unsigned lane = laneId();
    int y;
    if (!warpRow(img.rows, y))
        return;
    const unsigned cols = static_cast<unsigned>(img.cols);
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    const unsigned char* src = img.data + static_cast<size_t>(y) * img.step;
    const size_t wordBase = static_cast<size_t>(y) * words;
    const bool even = (lane & 1u) == 0;
    unsigned carry = 0, rowEdges = 0;
    for (unsigned x0 = 0; x0 < cols; x0 += kUnroll * kStep)
    {
        unsigned m[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            m[u] = foreground16Before(src, x0 + u * kStep + lane * 16u, cols);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
        {
            const unsigned step0 = x0 + u * kStep;
            if (step0 >= cols)
                break;
            unsigned word, edges, upTo;
            stepBefore(m[u], lane, carry, word, edges, upTo);
            const unsigned w = (step0 >> 5) + (lane >> 1);
            if (even && w < words)
            {
                bits[wordBase + w] = word;
                edgesBefore[wordBase + w] = rowEdges + upTo - edges;
            }
            rowEdges += __shfl_sync(kFullMask, upTo, kWarpSize - 1);
            carry = (__shfl_sync(kFullMask, m[u], kWarpSize - 1) >> 15) & 1u;
        }
    }
    if (lane == 0)
        rowRuns[y] = (rowEdges + 1u) / 2u;
}

constexpr int kChunkSteps = 4;                              //!< 512-pixel steps per chunk
constexpr unsigned kChunkPixels = kChunkSteps * 16u * kWarpSize; //!< 2048

/** A warp per chunk of kChunkPixels pixels of a row; a block holds kRowThreads / 32 chunks, whole rows of
`chunksPerRow` chunks each (chunksPerRow divides 8 here: the tool asks the side to be a multiple of 2048 and at most
16384). Each warp counts its chunk's edges as if the pixel before it were background, keeps its words' bitmap and
edge counts in registers, publishes its total, first and last pixel, and after one barrier adds the edges of the
row's chunks before it and the correction for the pixel before its own first (the first word's edge at bit 0). */
__global__ void __launch_bounds__(kRowThreads)
detectChunksKernel(const BinaryImage img, unsigned* bits, unsigned* edgesBefore, int wordsPerRow, unsigned* rowRuns,
                   int chunksPerRow)
{
    constexpr unsigned kStep = 16u * kWarpSize;
    constexpr int kWarps = kRowThreads / kWarpSize;
    __shared__ unsigned total[kWarps], firstBit[kWarps], lastBit[kWarps];
    const unsigned lane = laneId();
    const int warp = threadIdx.x / kWarpSize;
    const unsigned chunk = blockIdx.x * kWarps + warp;
    const int y = static_cast<int>(chunk / chunksPerRow);
    const int c = static_cast<int>(chunk % chunksPerRow);
    const bool live = y < img.rows; // warp-uniform
    const unsigned cols = static_cast<unsigned>(img.cols);
    const unsigned x0 = c * kChunkPixels;
    const bool even = (lane & 1u) == 0;
    unsigned wordOut[kChunkSteps], edgeOut[kChunkSteps];
    unsigned chunkEdges = 0, first = 0, carry = 0;
    if (live)
    {
        const unsigned char* src = img.data + static_cast<size_t>(y) * img.step;
        unsigned m[kChunkSteps];
#pragma unroll
        for (int u = 0; u < kChunkSteps; ++u)
            m[u] = foreground16(src, x0 + u * kStep + lane * 16u, cols, true);
        first = __shfl_sync(kFullMask, m[0], 0) & 1u;
#pragma unroll
        for (int u = 0; u < kChunkSteps; ++u)
        {
            unsigned word, edges, upTo;
            stepBefore(m[u], lane, carry, word, edges, upTo);
            wordOut[u] = word;
            edgeOut[u] = chunkEdges + upTo - edges;
            chunkEdges += __shfl_sync(kFullMask, upTo, kWarpSize - 1);
            carry = (__shfl_sync(kFullMask, m[u], kWarpSize - 1) >> 15) & 1u;
        }
        if (lane == 0)
        {
            total[warp] = chunkEdges;
            firstBit[warp] = first;
            lastBit[warp] = carry;
        }
    }
    __syncthreads();
    if (!live)
        return;
    // Chunk j > 0 of the row counted the edge at its first pixel against background; against the pixel before it
    // (the last of chunk j - 1) that edge is there iff the two differ: delta_j = (first_j ^ last_{j-1}) - first_j.
    const int rowWarp0 = warp - c;
    unsigned offset = 0;
    for (int j = 0; j < c; ++j)
        offset += total[rowWarp0 + j] + (j > 0 ? (firstBit[rowWarp0 + j] ^ lastBit[rowWarp0 + j - 1]) - firstBit[rowWarp0 + j] : 0u);
    const unsigned delta = c > 0 ? (first ^ lastBit[warp - 1]) - first : 0u;
    const size_t wordBase = static_cast<size_t>(y) * wordsPerRow;
#pragma unroll
    for (int u = 0; u < kChunkSteps; ++u)
    {
        const unsigned w = (x0 >> 5) + u * (kStep >> 5) + (lane >> 1);
        if (even && w < static_cast<unsigned>(wordsPerRow))
        {
            bits[wordBase + w] = wordOut[u];
            // The first word's own count excludes its edges, the later ones include the first word's.
            edgesBefore[wordBase + w] = offset + edgeOut[u] + (u == 0 && lane == 0 ? 0u : delta);
        }
    }
    if (c == chunksPerRow - 1 && lane == 0)
        rowRuns[y] = (offset + delta + chunkEdges + 1u) / 2u;
}


} // namespace detect_runs

using namespace detect_runs;
using standalone::check;

int main(int argc, char** argv)
{
    standalone::Ranked r;
    if (!r.setUp(argc, argv, "detect_runs", false))
        return 2;
    const int side = r.side, calls = r.calls;
    const bool chunked = side % kChunkPixels == 0 && side <= 8 * static_cast<int>(kChunkPixels); // `chunks` runs
    const bool wide = side % 16 == 0; // the rows' 16-byte loads (the image's rows are `side` bytes apart)
    const size_t pixels = static_cast<size_t>(side) * side;
    {
        // Foreground of any nonzero value, not only 255: the masks must take every byte that is not 0.
        std::vector<unsigned char> img(pixels);
        check(cudaMemcpy(img.data(), r.dImg, pixels, cudaMemcpyDeviceToHost), "cudaMemcpy");
        const unsigned seed = 20261127u;
        std::mt19937 rng(seed);
        for (auto& v : img)
            v = v ? static_cast<unsigned char>(1 + rng() % 255) : 0;
        check(cudaMemcpy(r.dImg, img.data(), pixels, cudaMemcpyHostToDevice), "cudaMemcpy");
        std::printf("foreground values 1..255 (seed %u)\n", seed);
    }
    const BinaryImage& image = r.image;
    cudaStream_t stream = r.stream;
    unsigned* dOut = r.dOut;
    const int wordsPerRow = (side + 31) / 32;
    const size_t words = static_cast<size_t>(side) * wordsPerRow;
    unsigned *bits = nullptr, *edges = nullptr, *rowRuns = nullptr;
    uint4* written = nullptr;
    check(cudaMalloc(&bits, words * 4), "cudaMalloc");
    check(cudaMalloc(&edges, words * 4), "cudaMalloc");
    check(cudaMalloc(&rowRuns, side * 4 + 64), "cudaMalloc");
    check(cudaMalloc(&written, pixels / 4 + 132 * 8 * 256 * 16 + 64), "cudaMalloc");
    std::printf("detect_runs: %d^2, g = %d, d = %.2f, %d calls\n", side, r.g, r.g > 0 ? r.d : 1.0, calls);

    standalone::EventTimer timer;
    std::vector<unsigned> reference, got;
    int status = 0;
    // DETECT_RUNS_AFTER_WRITE=1: each timed call follows (untimed) a streaming write of an int32 label image, as in
    // a call of the pipeline after the previous call's label write.
    const char* afterWriteEnv = std::getenv("DETECT_RUNS_AFTER_WRITE");
    const bool afterWrite = afterWriteEnv && std::strcmp(afterWriteEnv, "1") == 0;
    int4* labels = nullptr;
    if (afterWrite)
    {
        check(cudaMalloc(&labels, pixels * 4), "cudaMalloc");
        std::printf("each timed call after a streaming write of %zu MB\n", pixels * 4 >> 20);
    }
    auto timeIt = [&](const char* name, auto launch, bool checked) {
        check(cudaMemsetAsync(bits, 0xff, words * 4, stream), "poison");
        check(cudaMemsetAsync(edges, 0xff, words * 4, stream), "poison");
        check(cudaMemsetAsync(rowRuns, 0xff, side * 4, stream), "poison");
        launch();
        check(cudaStreamSynchronize(stream), name);
        std::vector<float> us;
        for (int i = 0; i < calls; ++i)
        {
            if (afterWrite)
                streamingFillKernel<<<132 * 8, 256, 0, stream>>>(labels, pixels / 4);
            us.push_back(timer.us(stream, launch, name));
        }
        std::sort(us.begin(), us.end());
        const float med = us[us.size() / 2];
        const char* verdict = "";
        if (checked)
        {
            got.assign(2 * words + side, 0);
            check(cudaMemcpy(got.data(), bits, words * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
            check(cudaMemcpy(got.data() + words, edges, words * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
            check(cudaMemcpy(got.data() + 2 * words, rowRuns, side * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
            verdict = standalone::compareWithReference(reference, got, status);
        }
        std::printf("  %-10s %8.1f us (min %.1f, max %.1f) %7.0f GB/s %s\n", name, med, us.front(), us.back(),
                    pixels / (med * 1e3), verdict);
    };
    const unsigned wave = 132 * 8;
    auto module = [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, wordsPerRow, rowRuns, wide);
    };
    timeIt("module", module, true);
    timeIt("read1", [&] { read1Kernel<<<wave, 256, 0, stream>>>(reinterpret_cast<const uint4*>(image.data), pixels / 16, dOut); },
           false);
    timeIt("read4", [&] {
        read4Kernel<false><<<wave, 256, 0, stream>>>(reinterpret_cast<const uint4*>(image.data), pixels / 16, dOut, written);
    }, false);
    timeIt("readwrite", [&] {
        read4Kernel<true><<<wave, 256, 0, stream>>>(reinterpret_cast<const uint4*>(image.data), pixels / 16, dOut, written);
    }, false);
    if (wide)
        timeIt("before", [&] {
            detectBeforeKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, wordsPerRow, rowRuns);
        }, true);
    if (chunked)
    {
        const int chunksPerRow = side / kChunkPixels;
        const unsigned chunkBlocks = static_cast<unsigned>((static_cast<size_t>(side) * chunksPerRow + 7) / 8);
        timeIt("chunks", [&] {
            detectChunksKernel<<<chunkBlocks, kRowThreads, 0, stream>>>(image, bits, edges, wordsPerRow, rowRuns,
                                                                        chunksPerRow);
        }, true);
    }
    timeIt("narrow", [&] { // the module's kernel with byte loads only (rows not 16-byte aligned)
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, wordsPerRow, rowRuns, false);
    }, true);
    timeIt("module", module, true);
    return status;
}
