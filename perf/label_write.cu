// label_write: the label write of FLSL (flsl_labeling.cu, writeLabelsKernel: every pixel's final label from the
// ranked run table, the only write of the int32 label image) timed against the GPU's write bandwidth and against
// candidate kernels, on the ranked run table that the module's own FullRunLabeling builds for a random image
// (issue 12: at 8192² it moves 268 MB in 100-130 us, about 2.3 TB/s; doc/benchmarks.md, "Where the rest of 8192²
// goes"). Standalone (no OpenCV): flsl_labeling.cu and analysis.cu are compiled into this translation unit.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o label_write perf/label_write.cu
//   ./label_write [side 8192] [granularity 1] [density 0.5] [calls 30]   (granularity 0: the full image)
//
// Variants (median us of `calls` calls, CUDA events around each; GB/s = the label image's bytes / time):
//   module       the module's writeLabels (writeLabelsKernel), first and again later
//   copy         writeVariantKernel<false, false, 1>: its code as a copy here (72 registers: 3 blocks per SM)
//   uni          a word that is all background or one run skips the tile (its label reaches the lanes by shuffles)
//   occ5, occ4   the copy with a launch bound of 5 (4) blocks per SM and the largest shared-memory carveout
//   uni+occ5, swz+uni+occ5   combined; swz: an unpadded, XOR-swizzled tile with 16-byte shared loads
//   persist      the module's writeLabelsBlock in a persistent grid (5 blocks per SM)
//   tilefill     the write's grid and store pattern, no loads (not checked)
//   tileload     the same after loading each word's bitmap, edge count and row slot (the write's first loads)
//   ahead/B      tileload in a persistent grid of B blocks per SM, the next tile's loads issued before the stores
//   tileload8    tileload with 8 blocks (64 warps) per SM
//   memset       cudaMemsetAsync of the label image (the bound for writing it)
//   fill         a kernel storing 16 bytes per thread (grid-stride)
//   read         a kernel reading the 8-bit image 16 bytes per thread (GB/s of the image)
//   detect       the module's detectRunsKernel (reads the image, writes bitmap and edge counts); det4pf / det2pf:
//                its copy with the next round's loads issued first (4 / 2 steps a round), det8: 8 steps a round
// Each label-writing variant's image is compared with the module's (SAME, or DIFFERENT and exit 1), each detection
// variant's bitmap and edge counts with the labeling's (SAME / DIFFERENT). Results: doc/benchmarks.md, "The label
// write's occupancy, and what it waits on".

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime.h>

namespace cv { namespace cuda { namespace cudacca {
void checkCuda(cudaError_t status, const char* what)
{
    if (status != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        std::exit(2);
    }
}
}}} // namespace cv::cuda::cudacca

#include "device_memory.hpp"
#include "labeling.hpp"
// The tool reads the labeling object's run table and ranked runs (private members).
#define private public
#include "cuda/analysis.cu"
#include "cuda/flsl_labeling.cu"
#undef private

// The host objects that the labeling uses and this tool does not link: plain device memory, no pool.
namespace cv { namespace cuda { namespace cudacca {
void* StreamBuffer::allocate(size_t bytes, cudaStream_t)
{
    release();
    checkCuda(cudaMalloc(&ptr_, bytes), "cudaMalloc");
    return ptr_;
}
void StreamBuffer::release()
{
    if (ptr_)
        cudaFree(ptr_);
    ptr_ = nullptr;
}
void RunLabeling::label(const BinaryImage&, const LabelForest&, int, bool, cudaStream_t) { std::abort(); }
size_t bandMinRunsOverride() { return 0; }
}}} // namespace cv::cuda::cudacca

using namespace cv::cuda::cudacca;

namespace label_write {

__global__ void fillKernel(int4* p, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = make_int4(1, 2, 3, 4);
}

__global__ void readKernel(const uint4* p, size_t n, unsigned* out)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) // never in practice: keeps the loads
        out[0] = acc;
}

/** writeLabelsBlock (LabelRows::All, int32 labels) with the variants' changes. kSwz: the warp's tile is 32 rows of
32 labels without padding, label b of lane r's word at r * 32 + (b ^ r) (the lanes' fills stay conflict-free); the
zero fill is 8 16-byte stores per lane (chunks in a lane-rotated order), and each 4-label group is one 16-byte load
(its labels permuted by the word's low two bits, undone in registers). kUni: a word that is all background or all
foreground (one piece) skips the tile: its label reaches the storing lanes by a shuffle. kMinBlocks: the launch
bound's blocks per SM (the host also asks for the largest shared-memory carveout when it is above 1). */
template <bool kSwz, bool kUni, int kMinBlocks>
__global__ void __launch_bounds__(kRowThreads, kMinBlocks)
writeVariantKernel(const RunTable t, const RunLabels runs, char* labels, size_t step, unsigned tilesPerRow)
{
    __shared__ __align__(16) int tiles[kRowsPerBlock * kWarpSize * (kSwz ? kWarpSize : kPad)];
    const unsigned lane = laneId();
    const unsigned warp = threadIdx.x / kWarpSize;
    const unsigned task = blockIdx.x * kRowsPerBlock + warp;
    const unsigned y = task / tilesPerRow;
    if (y >= static_cast<unsigned>(t.rows))
        return;
    int* tile = tiles + warp * kWarpSize * (kSwz ? kWarpSize : kPad);
    const unsigned w = (task - y * tilesPerRow) * kWarpSize + lane;
    int* mine = tile + lane * (kSwz ? kWarpSize : kPad);
    auto at = [&](int b) { return kSwz ? (b ^ static_cast<int>(lane)) : b; };
    bool uniform = true; // this lane's word: one value (words past the row: never stored)
    int value = 0;
    if (w < static_cast<unsigned>(t.wordsPerRow))
    {
        const size_t c = static_cast<size_t>(y) * t.wordsPerRow + w;
        const unsigned f = t.bits[c];
        const unsigned before = t.edgesBefore[c];
        const unsigned edgeMask = f ^ ((f << 1) | (before & 1u));
        const unsigned rowSlot = t.rowSlots[y];
        unsigned starts = f & edgeMask;
        if ((before & 1u) && (f & 1u))
            starts |= 1u;
        uniform = kUni && (f == 0u || f == ~0u);
        if (!uniform)
        {
            if (kSwz)
            {
#pragma unroll
                for (int q = 0; q < kWarpSize / 4; ++q)
                    reinterpret_cast<int4*>(mine)[(q + lane) & 7] = make_int4(0, 0, 0, 0);
            }
            else
            {
#pragma unroll
                for (int b = 0; b < kWarpSize; ++b)
                    mine[b] = 0;
            }
        }
        constexpr int kPieceBatch = 8;
        while (starts)
        {
            int first[kPieceBatch], run[kPieceBatch], label[kPieceBatch];
#pragma unroll
            for (int j = 0; j < kPieceBatch; ++j)
            {
                first[j] = starts ? __ffs(starts) - 1 : -1;
                starts &= starts - 1;
                run[j] = first[j] < 0 ? -1
                       : static_cast<int>(rowSlot + ((before + __popc(edgeMask & ((2u << first[j]) - 1u)) - 1u) >> 1));
            }
            runs.labels(run, label);
            if (uniform) // one piece, the whole word
            {
                value = label[0];
                break;
            }
#pragma unroll
            for (int j = 0; j < kPieceBatch; ++j)
            {
                if (first[j] < 0)
                    break;
                const unsigned rest = ~f & (~0u << first[j]);
                const int end = rest ? __ffs(rest) - 1 : kWarpSize;
                for (int k = first[j]; k < end; ++k)
                    mine[at(k)] = label[j];
            }
        }
    }
    __syncwarp();
    const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
    int* row = reinterpret_cast<int*>(labels + y * step);
#pragma unroll
    for (int k = 0; k < kWarpSize / 4; ++k)
    {
        const unsigned e = k * 4 * kWarpSize + lane * 4;
        const unsigned wd = e / kWarpSize; // the word whose labels these are: 4k + lane / 8
        bool wordUniform = false;
        int wordValue = 0;
        if (kUni) // every lane, before any lane leaves the loop
        {
            wordUniform = __shfl_sync(kFullMask, uniform, wd);
            wordValue = __shfl_sync(kFullMask, value, wd);
        }
        const unsigned x = x0 + e;
        if (x >= static_cast<unsigned>(t.cols))
            continue;
        const int n = min(4, t.cols - static_cast<int>(x));
        int v[4];
        if (wordUniform)
        {
            v[0] = v[1] = v[2] = v[3] = wordValue;
        }
        else if (kSwz)
        {
            const int4 g = *reinterpret_cast<const int4*>(tile + wd * kWarpSize + ((e % kWarpSize) ^ (wd & 28u)));
            const unsigned s = wd & 3u; // v[j] = g[j ^ s]
            int h0 = (s & 1u) ? g.y : g.x, h1 = (s & 1u) ? g.x : g.y, h2 = (s & 1u) ? g.w : g.z, h3 = (s & 1u) ? g.z : g.w;
            v[0] = (s & 2u) ? h2 : h0;
            v[1] = (s & 2u) ? h3 : h1;
            v[2] = (s & 2u) ? h0 : h2;
            v[3] = (s & 2u) ? h1 : h3;
        }
        else
        {
            const int* src = tile + wd * kPad + e % kWarpSize;
            v[0] = src[0];
            v[1] = src[1];
            v[2] = src[2];
            v[3] = src[3];
        }
        if (n == 4)
            *reinterpret_cast<int4*>(row + x) = make_int4(v[0], v[1], v[2], v[3]);
        else
            for (int j = 0; j < n; ++j)
                row[x + j] = v[j];
    }
}

/** detectRunsKernel with kUnroll steps per round, and with kPrefetch the next round's loads issued before this
round's work (the pixels of two rounds in flight per warp). */
template <int kUnroll, bool kPrefetch>
__global__ void __launch_bounds__(kRowThreads)
detectVariantKernel(const BinaryImage img, unsigned* bits, unsigned* edgesBefore, int wordsPerRow, unsigned* rowRuns,
                    bool wideRows)
{
    constexpr unsigned kStep = 16u * kWarpSize;
    const unsigned lane = laneId();
    int y;
    if (!warpRow(img.rows, y))
        return;
    const unsigned cols = static_cast<unsigned>(img.cols);
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    const unsigned char* src = img.data + static_cast<size_t>(y) * img.step;
    const size_t wordBase = static_cast<size_t>(y) * words;
    const bool even = (lane & 1u) == 0;
    unsigned carry = 0;
    unsigned rowEdges = 0;
    unsigned m[kUnroll], next[kUnroll];
    if (kPrefetch)
    {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            next[u] = foreground16(src, u * kStep + lane * 16u, cols, wideRows);
    }
    for (unsigned x0 = 0; x0 < cols; x0 += kUnroll * kStep)
    {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
            m[u] = kPrefetch ? next[u] : foreground16(src, x0 + u * kStep + lane * 16u, cols, wideRows);
        if (kPrefetch)
        {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u)
                next[u] = foreground16(src, x0 + (kUnroll + u) * kStep + lane * 16u, cols, wideRows);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
        {
            const unsigned step0 = x0 + u * kStep;
            if (step0 >= cols)
                break;
            const unsigned high = __shfl_down_sync(kFullMask, m[u], 1);
            const unsigned before = __shfl_up_sync(kFullMask, m[u], 1) >> 15;
            const unsigned word = m[u] | (high << 16);
            const unsigned prev = lane == 0 ? carry : (before & 1u);
            const unsigned edges = even ? __popc(word ^ ((word << 1) | prev)) : 0u;
            unsigned upTo = edges;
#pragma unroll
            for (int d = 1; d < kWarpSize; d *= 2)
            {
                const unsigned t = __shfl_up_sync(kFullMask, upTo, d);
                if (lane >= static_cast<unsigned>(d))
                    upTo += t;
            }
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

/** The label write's grid and store pattern without its work: each warp stores its 1024 labels as
writeLabelsBlock does, a value made of the row's number, or with kLoads of its word's bitmap and edge count and the
row's slot (the loads the write waits on first). Not checked (no labels). */
template <bool kLoads>
__global__ void __launch_bounds__(kRowThreads, 5)
tileFillKernel(const RunTable t, char* labels, size_t step, unsigned tilesPerRow)
{
    const unsigned lane = laneId();
    const unsigned task = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarpSize;
    const unsigned y = task / tilesPerRow;
    if (y >= static_cast<unsigned>(t.rows))
        return;
    int value = static_cast<int>(y);
    const unsigned w = (task - y * tilesPerRow) * kWarpSize + lane;
    if (kLoads && w < static_cast<unsigned>(t.wordsPerRow))
    {
        const size_t c = static_cast<size_t>(y) * t.wordsPerRow + w;
        value += static_cast<int>(t.bits[c] ^ t.edgesBefore[c] ^ t.rowSlots[y]);
    }
    const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
    int* row = reinterpret_cast<int*>(labels + y * step);
#pragma unroll
    for (int k = 0; k < kWarpSize / 4; ++k)
    {
        const unsigned x = x0 + k * 4 * kWarpSize + lane * 4;
        const int v = __shfl_sync(kFullMask, value, (k * 4 + lane / 8) % kWarpSize);
        if (x + 4 <= static_cast<unsigned>(t.cols))
            *reinterpret_cast<int4*>(row + x) = make_int4(v, v, v, v);
    }
}

/** tileFillKernel<true> in a persistent grid whose warps issue the next tile's loads before this tile's stores. */
__global__ void __launch_bounds__(kRowThreads, 5)
tileLoadAheadKernel(const RunTable t, char* labels, size_t step, unsigned tilesPerRow, unsigned tasks)
{
    const unsigned lane = laneId();
    const unsigned stride = gridDim.x * kRowsPerBlock;
    unsigned task = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarpSize;
    auto load = [&](unsigned k) {
        const unsigned y = k / tilesPerRow;
        const unsigned w = (k - y * tilesPerRow) * kWarpSize + lane;
        if (k >= tasks || w >= static_cast<unsigned>(t.wordsPerRow))
            return 0;
        const size_t c = static_cast<size_t>(y) * t.wordsPerRow + w;
        return static_cast<int>(y + (t.bits[c] ^ t.edgesBefore[c] ^ t.rowSlots[y]));
    };
    int value = load(task);
    for (; task < tasks; task += stride)
    {
        const int next = load(task + stride);
        const unsigned y = task / tilesPerRow;
        const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
        int* row = reinterpret_cast<int*>(labels + y * step);
#pragma unroll
        for (int k = 0; k < kWarpSize / 4; ++k)
        {
            const unsigned x = x0 + k * 4 * kWarpSize + lane * 4;
            const int v = __shfl_sync(kFullMask, value, (k * 4 + lane / 8) % kWarpSize);
            if (x + 4 <= static_cast<unsigned>(t.cols))
                *reinterpret_cast<int4*>(row + x) = make_int4(v, v, v, v);
        }
        value = next;
    }
}

/** tileFillKernel<true> with 8 blocks (64 warps) per SM. */
__global__ void __launch_bounds__(kRowThreads, 8)
tileLoad8Kernel(const RunTable t, char* labels, size_t step, unsigned tilesPerRow)
{
    const unsigned lane = laneId();
    const unsigned task = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarpSize;
    const unsigned y = task / tilesPerRow;
    if (y >= static_cast<unsigned>(t.rows))
        return;
    int value = static_cast<int>(y);
    const unsigned w = (task - y * tilesPerRow) * kWarpSize + lane;
    if (w < static_cast<unsigned>(t.wordsPerRow))
    {
        const size_t c = static_cast<size_t>(y) * t.wordsPerRow + w;
        value += static_cast<int>(t.bits[c] ^ t.edgesBefore[c] ^ t.rowSlots[y]);
    }
    const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
    int* row = reinterpret_cast<int*>(labels + y * step);
#pragma unroll
    for (int k = 0; k < kWarpSize / 4; ++k)
    {
        const unsigned x = x0 + k * 4 * kWarpSize + lane * 4;
        const int v = __shfl_sync(kFullMask, value, (k * 4 + lane / 8) % kWarpSize);
        if (x + 4 <= static_cast<unsigned>(t.cols))
            *reinterpret_cast<int4*>(row + x) = make_int4(v, v, v, v);
    }
}

/** The module's writeLabelsBlock in a persistent grid: each block does blocks b, b + gridDim.x, ... */
__global__ void __launch_bounds__(kRowThreads, 5)
persistentWriteKernel(const RunTable t, const RunLabels runs, char* labels, size_t step, unsigned tilesPerRow,
                      unsigned blocks)
{
    __shared__ LabelTile tile[kRowsPerBlock];
    for (unsigned b = blockIdx.x; b < blocks; b += gridDim.x)
    {
        writeLabelsBlock<int>(b, tile, t, runs, labels, step, tilesPerRow, true, LabelRows::All, nullptr);
        __syncwarp();
    }
}

template <typename Kernel>
void maxCarveout(Kernel kernel)
{
    checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100), "carveout");
}

void check(cudaError_t e, const char* what) { checkCuda(e, what); }

} // namespace label_write

using namespace label_write;

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 8192;
    const int g = argc > 2 ? std::atoi(argv[2]) : 1;
    const double d = argc > 3 ? std::atof(argv[3]) : 0.5;
    const int calls = argc > 4 ? std::atoi(argv[4]) : 30;
    if (side < 32 || side % 32 != 0 || g < 0 || calls < 1)
    {
        std::fprintf(stderr, "usage: label_write [side (multiple of 32)] [g (0: full)] [d] [calls]\n");
        return 2;
    }
    // The benchmark's kind of input: blocks of g x g pixels, each foreground with probability d.
    std::vector<unsigned char> img(static_cast<size_t>(side) * side, 1);
    if (g > 0)
    {
        std::mt19937 rng(12345);
        std::bernoulli_distribution fg(d);
        const int blocks = (side + g - 1) / g;
        std::vector<unsigned char> cell(static_cast<size_t>(blocks) * blocks);
        for (auto& v : cell)
            v = fg(rng) ? 255 : 0;
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
                img[static_cast<size_t>(y) * side + x] = cell[static_cast<size_t>(y / g) * blocks + x / g];
    }
    const size_t pixels = static_cast<size_t>(side) * side;
    unsigned char* dImg = nullptr;
    int* dLabels = nullptr;
    int* dCount = nullptr;
    int* hScratch = nullptr;
    unsigned* dOut = nullptr;
    check(cudaMalloc(&dImg, pixels), "cudaMalloc");
    check(cudaMalloc(&dLabels, pixels * 4), "cudaMalloc");
    check(cudaMalloc(&dCount, sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&dOut, 4 * static_cast<size_t>(side) + 64), "cudaMalloc");
    check(cudaHostAlloc(&hScratch, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    check(cudaMemcpy(dImg, img.data(), pixels, cudaMemcpyHostToDevice), "cudaMemcpy");
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");

    const BinaryImage image = { dImg, static_cast<size_t>(side), side, side };
    FullRunLabeling labeling(false);
    labeling.labelAndRank(image, 8, false, dCount, hScratch, RunLabeling::TableHome{}, stream);
    check(cudaStreamSynchronize(stream), "labelAndRank");
    int count = 0;
    check(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const RunTable& t = labeling.table_;
    const RunLabels from = { labeling.rankedRuns_, nullptr };
    unsigned tilesPerRow = 0;
    const unsigned blocks = labeling.writeGrid(static_cast<unsigned>(t.rows), tilesPerRow);
    const size_t step = static_cast<size_t>(side) * 4;
    std::printf("label_write: %d^2, g = %d, d = %.2f, %zu runs, %d labels (background included), %d calls\n", side, g,
                g > 0 ? d : 1.0, labeling.runs_, count, calls);

    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<int> reference, got(pixels);
    int status = 0;
    auto timeIt = [&](const char* name, auto launch, bool writesLabels, size_t bytes) {
        if (writesLabels)
            check(cudaMemsetAsync(dLabels, 0xff, pixels * 4, stream), "poison");
        launch(); // warm-up, and the image checked
        check(cudaStreamSynchronize(stream), name);
        std::vector<float> us;
        for (int i = 0; i < calls; ++i)
        {
            check(cudaEventRecord(e0, stream), "cudaEventRecord");
            launch();
            check(cudaEventRecord(e1, stream), "cudaEventRecord");
            check(cudaEventSynchronize(e1), name);
            float ms = 0;
            check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            us.push_back(ms * 1000.0f);
        }
        std::sort(us.begin(), us.end());
        const float med = us[us.size() / 2];
        const char* verdict = "";
        if (writesLabels && std::strcmp(name, "memset") != 0 && std::strcmp(name, "fill") != 0)
        {
            check(cudaMemcpy(got.data(), dLabels, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
            if (reference.empty())
            {
                reference = got;
                verdict = "(the reference)";
            }
            else if (got == reference)
                verdict = "SAME";
            else
            {
                verdict = "DIFFERENT";
                status = 1;
            }
        }
        std::printf("  %-8s %8.1f us (min %.1f, max %.1f) %7.0f GB/s %s\n", name, med, us.front(), us.back(),
                    bytes / (med * 1e3), verdict);
    };
    const size_t labelBytes = pixels * 4;
    const unsigned fillBlocks = 132 * 8;
    timeIt("module", [&] { labeling.writeLabels(dLabels, step, false, stream); }, true, labelBytes);
    auto variant = [&](const char* name, auto kernel, bool carveout) {
        if (carveout)
            maxCarveout(kernel);
        timeIt(name, [&] {
            kernel<<<blocks, kRowThreads, 0, stream>>>(t, from, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
        }, true, labelBytes);
    };
    variant("copy", writeVariantKernel<false, false, 1>, false);
    variant("uni", writeVariantKernel<false, true, 1>, false);
    variant("occ5", writeVariantKernel<false, false, 5>, true);
    variant("uni+occ5", writeVariantKernel<false, true, 5>, true);
    variant("swz+uni+occ5", writeVariantKernel<true, true, 5>, true);
    variant("occ4", writeVariantKernel<false, false, 4>, true);
    maxCarveout(persistentWriteKernel);
    timeIt("persist", [&] {
        persistentWriteKernel<<<132 * 5, kRowThreads, 0, stream>>>(t, from, reinterpret_cast<char*>(dLabels), step,
                                                                   tilesPerRow, blocks);
    }, true, labelBytes);
    timeIt("tilefill", [&] {
        tileFillKernel<false><<<blocks, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
    }, false, labelBytes);
    timeIt("tileload", [&] {
        tileFillKernel<true><<<blocks, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
    }, false, labelBytes);
    for (unsigned perSM : { 2u, 5u, 8u })
    {
        const char* names[] = { "ahead/2", "ahead/5", "ahead/8" };
        timeIt(names[perSM == 2 ? 0 : perSM == 5 ? 1 : 2], [&] {
            tileLoadAheadKernel<<<132 * perSM, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step,
                                                                          tilesPerRow, blocks * kRowsPerBlock);
        }, false, labelBytes);
    }
    timeIt("tileload8", [&] {
        tileLoad8Kernel<<<blocks, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
    }, false, labelBytes);
    timeIt("module", [&] { labeling.writeLabels(dLabels, step, false, stream); }, true, labelBytes);
    timeIt("memset", [&] { check(cudaMemsetAsync(dLabels, 0, labelBytes, stream), "cudaMemsetAsync"); }, true, labelBytes);
    timeIt("fill", [&] { fillKernel<<<fillBlocks, 256, 0, stream>>>(reinterpret_cast<int4*>(dLabels), labelBytes / 16); },
           true, labelBytes);
    timeIt("read", [&] { readKernel<<<fillBlocks, 256, 0, stream>>>(reinterpret_cast<const uint4*>(dImg), pixels / 16, dOut); },
           false, pixels);
    const size_t words = static_cast<size_t>(t.wordsPerRow) * side;
    std::vector<unsigned> tableRef(2 * words), tableGot(2 * words);
    auto readTable = [&](std::vector<unsigned>& to) {
        check(cudaMemcpy(to.data(), t.bits, words * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
        check(cudaMemcpy(to.data() + words, t.edgesBefore, words * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    };
    readTable(tableRef);
    auto checkTable = [&](const char* name) {
        readTable(tableGot);
        const bool same = tableGot == tableRef;
        std::printf("  %-8s bitmap and edge counts %s\n", name, same ? "SAME" : "DIFFERENT");
        if (!same)
            status = 1;
        check(cudaMemset(const_cast<unsigned*>(t.bits), 0xff, words * 4), "poison");
        check(cudaMemset(const_cast<unsigned*>(t.edgesBefore), 0xff, words * 4), "poison");
    };
    unsigned* bits = const_cast<unsigned*>(t.bits);
    unsigned* edges = const_cast<unsigned*>(t.edgesBefore);
    timeIt("detect", [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    }, false, pixels);
    checkTable("detect");
    timeIt("det4pf", [&] {
        detectVariantKernel<4, true><<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    }, false, pixels);
    checkTable("det4pf");
    timeIt("det8", [&] {
        detectVariantKernel<8, false><<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    }, false, pixels);
    checkTable("det8");
    timeIt("det2pf", [&] {
        detectVariantKernel<2, true><<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    }, false, pixels);
    checkTable("det2pf");
    timeIt("detect", [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    }, false, pixels);
    return status;
}
