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
//   module     the module's writeLabels (writeLabelsKernel), first and again later
//   tilefill   the write's grid and store pattern without its work: no loads (not checked)
//   tileload   the same after loading each word's bitmap, edge count and row slot, the write's first loads
//   memset     cudaMemsetAsync of the label image (the bound for writing it)
//   fill       a kernel storing 16 bytes per thread (grid-stride)
//   read       a kernel reading the 8-bit image 16 bytes per thread (GB/s of the image)
//   detect     the module's detectRunsKernel alone (reads the image, writes bitmap and edge counts)
//   tileload /sf, /ll+sf, tilefill/sf   with L2 cache hints (createpolicy): the stores evict first; also the loads
//              evict last
//   ... after detect   the same, each call preceded (untimed) by the detection, as in the pipeline: the bitmap and
//              edge counts then sit in L2 when the write starts; "module after detect" is the module's write so
// The module's image is checked to be the same at its second run (SAME, or DIFFERENT and exit 1). The candidate
// kernels measured against it in session 31 (more blocks per SM, streaming stores, a swizzled tile, words of one
// value skipping the tile, persistent grids with loads issued ahead, detection with prefetching) are in this file
// at aed8136; results: doc/benchmarks.md, "The label write's occupancy, and what it waits on".

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_flsl.hpp"

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

/** The label write's grid and store pattern without its work: each warp stores its 1024 labels as
writeLabelsBlock does, a value made of the row's number, or with kLoads of its word's bitmap and edge count and the
row's slot (the loads the write waits on first). Not checked (no labels). */
/** L2 eviction priorities as PTX cache hints (createpolicy, sm_80 and later): the lines a load or store touches are
evicted last / first. */
__device__ __forceinline__ unsigned long long l2Policy(bool evictLast)
{
    unsigned long long p;
    if (evictLast)
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
    else
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}
__device__ __forceinline__ unsigned loadHinted(const unsigned* a, unsigned long long policy)
{
    unsigned v;
    asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v) : "l"(a), "l"(policy));
    return v;
}
__device__ __forceinline__ void storeHinted(int4* a, int v, unsigned long long policy)
{
    asm volatile("st.global.L2::cache_hint.v4.s32 [%0], {%1, %1, %1, %1}, %2;" ::"l"(a), "r"(v), "l"(policy) : "memory");
}

/** kHint: 0 plain accesses; 1 the stores evict first; 2 also the loads evict last. */
template <bool kLoads, int kHint = 0>
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
        if (kHint == 2)
        {
            const unsigned long long last = l2Policy(true);
            value += static_cast<int>(loadHinted(t.bits + c, last) ^ loadHinted(t.edgesBefore + c, last) ^ t.rowSlots[y]);
        }
        else
            value += static_cast<int>(t.bits[c] ^ t.edgesBefore[c] ^ t.rowSlots[y]);
    }
    const unsigned long long first = kHint > 0 ? l2Policy(false) : 0;
    const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
    int* row = reinterpret_cast<int*>(labels + y * step);
#pragma unroll
    for (int k = 0; k < kWarpSize / 4; ++k)
    {
        const unsigned x = x0 + k * 4 * kWarpSize + lane * 4;
        const int v = __shfl_sync(kFullMask, value, (k * 4 + lane / 8) % kWarpSize);
        if (x + 4 <= static_cast<unsigned>(t.cols))
        {
            if (kHint > 0)
                storeHinted(reinterpret_cast<int4*>(row + x), v, first);
            else
                *reinterpret_cast<int4*>(row + x) = make_int4(v, v, v, v);
        }
    }
}

} // namespace label_write

using namespace label_write;
using standalone::check;

int main(int argc, char** argv)
{
    standalone::Ranked r;
    if (!r.setUp(argc, argv, "label_write", true))
        return 2;
    const int side = r.side, g = r.g, calls = r.calls;
    const double d = r.d;
    const size_t pixels = static_cast<size_t>(side) * side;
    const BinaryImage& image = r.image;
    FullRunLabeling& labeling = r.labeling;
    cudaStream_t stream = r.stream;
    int* dCount = r.dCount;
    unsigned* dOut = r.dOut;
    int* dLabels = nullptr;
    check(cudaMalloc(&dLabels, pixels * 4), "cudaMalloc");
    int count = 0;
    check(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const RunTable& t = labeling.table_;
    unsigned tilesPerRow = 0;
    const unsigned blocks = labeling.writeGrid(static_cast<unsigned>(t.rows), tilesPerRow);
    const size_t step = static_cast<size_t>(side) * 4;
    std::printf("label_write: %d^2, g = %d, d = %.2f, %zu runs, %d labels (background included), %d calls\n", side, g,
                g > 0 ? d : 1.0, labeling.runs_, count, calls);

    standalone::EventTimer timer;
    std::vector<int> reference, got(pixels);
    int status = 0;
    std::function<void()> before; // queued (untimed) before each timed call when set
    auto timeIt = [&](const char* name, auto launch, bool writesLabels, size_t bytes) {
        if (writesLabels)
            check(cudaMemsetAsync(dLabels, 0xff, pixels * 4, stream), "poison");
        launch(); // warm-up, and the image checked
        check(cudaStreamSynchronize(stream), name);
        std::vector<float> us;
        for (int i = 0; i < calls; ++i)
        {
            if (before)
                before();
            us.push_back(timer.us(stream, launch, name));
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
    timeIt("tilefill", [&] {
        tileFillKernel<false><<<blocks, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
    }, false, labelBytes);
    timeIt("tileload", [&] {
        tileFillKernel<true><<<blocks, kRowThreads, 0, stream>>>(t, reinterpret_cast<char*>(dLabels), step, tilesPerRow);
    }, false, labelBytes);
    timeIt("module", [&] { labeling.writeLabels(dLabels, step, false, stream); }, true, labelBytes);
    timeIt("memset", [&] { check(cudaMemsetAsync(dLabels, 0, labelBytes, stream), "cudaMemsetAsync"); }, true, labelBytes);
    timeIt("fill", [&] { fillKernel<<<fillBlocks, 256, 0, stream>>>(reinterpret_cast<int4*>(dLabels), labelBytes / 16); },
           true, labelBytes);
    timeIt("read", [&] { readKernel<<<fillBlocks, 256, 0, stream>>>(reinterpret_cast<const uint4*>(r.dImg), pixels / 16, dOut); },
           false, pixels);
    unsigned* bits = const_cast<unsigned*>(t.bits);
    unsigned* edges = const_cast<unsigned*>(t.edgesBefore);
    auto detect = [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    };
    timeIt("detect", detect, false, pixels);
    char* out = reinterpret_cast<char*>(dLabels);
    auto hinted = [&](const char* name) {
        timeIt(name, [&] { tileFillKernel<true, 0><<<blocks, kRowThreads, 0, stream>>>(t, out, step, tilesPerRow); }, false,
               labelBytes);
        timeIt("  /sf", [&] { tileFillKernel<true, 1><<<blocks, kRowThreads, 0, stream>>>(t, out, step, tilesPerRow); },
               false, labelBytes);
        timeIt("  /ll+sf", [&] { tileFillKernel<true, 2><<<blocks, kRowThreads, 0, stream>>>(t, out, step, tilesPerRow); },
               false, labelBytes);
        timeIt("tilefill/sf", [&] { tileFillKernel<false, 1><<<blocks, kRowThreads, 0, stream>>>(t, out, step, tilesPerRow); },
               false, labelBytes);
    };
    hinted("tileload");
    // As in the pipeline: the bitmap and edge counts just written by the detection (in L2) when the write starts.
    before = detect;
    timeIt("module after detect", [&] { labeling.writeLabels(dLabels, step, false, stream); }, true, labelBytes);
    hinted("tileload after detect");
    before = nullptr;
    return status;
}
