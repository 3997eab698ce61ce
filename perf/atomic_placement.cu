// atomic_placement: how fast one label's statistics atomics go, by where the label's five accumulators lie. Every
// thread of a grid of RUNS threads merges a run into the same label, as FLSL's atomic merges do for the giant component
// above the percolation threshold (flsl_labeling.cu, accumulateRunsBlock, RunFeatureMerge::Atomic): atomicMin of x,
// atomicMax of x and y, a 64-bit add of area and sum of x, a 64-bit add of sum of y, each to its own address. Layouts:
// - soa: the arrays one after another, each `capacity` labels long (analysis.cu's layoutStatsAccumulators), the label
//   at index `label`, over capacities and labels; also with the arrays pushed apart by a pad;
// - tiles: blocks of 32 labels, each field a 128-byte line (256 for the 64-bit ones) of its block, so that a label's
//   fields lie in neighbouring lines of one block.
// Prints the median time of 11 launches per placement, us (doc/benchmarks.md, "FLSL's statistics and where their
// accumulators lie"). A diagnostic, not part of the benchmark protocol. Standalone:
//   nvcc -O3 -arch=sm_90 perf/atomic_placement.cu -o atomic_placement && ./atomic_placement [RUNS, default 4194304]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_cuda_check.hpp"

#define CHECK(x) cv::cuda::cudacca::checkCuda((x), #x)

struct Fields
{
    int* minX;
    int* maxX;
    int* maxY;
    unsigned long long* sumX;
    unsigned long long* sumY;
};

__global__ void mergeRuns(Fields f, unsigned runs)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= runs)
        return;
    const int x = static_cast<int>(i & 8191), y = static_cast<int>(i >> 13);
    atomicMin(f.minX, x);
    atomicMax(f.maxX, x + 3);
    atomicMax(f.maxY, y);
    atomicAdd(f.sumX, (4ull << 38) + 4ull * static_cast<unsigned>(x) + 6ull);
    atomicAdd(f.sumY, 4ull * static_cast<unsigned>(y));
}

static float timeMerge(const Fields& f, unsigned runs)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> us;
    for (int k = 0; k < 12; ++k)
    {
        CHECK(cudaEventRecord(a));
        mergeRuns<<<(runs + 255) / 256, 256>>>(f, runs);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (k > 0) // the first launch warms up
            us.push_back(1000.f * ms);
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

//! analysis.cu's layout: sumX, sumY, minX, minY, maxX, maxY, area, each aligned to 256 bytes, plus `pad` after each.
static Fields soa(char* base, size_t capacity, int label, size_t pad)
{
    auto align = [](size_t b) { return (b + 255) / 256 * 256; };
    char* p = base;
    auto take = [&](size_t bytes) { char* r = p; p += align(bytes) + pad; return r; };
    Fields f;
    f.sumX = reinterpret_cast<unsigned long long*>(take(8 * capacity)) + label;
    f.sumY = reinterpret_cast<unsigned long long*>(take(8 * capacity)) + label;
    f.minX = reinterpret_cast<int*>(take(4 * capacity)) + label;
    take(4 * capacity); // minY
    f.maxX = reinterpret_cast<int*>(take(4 * capacity)) + label;
    f.maxY = reinterpret_cast<int*>(take(4 * capacity)) + label;
    return f;
}

//! Blocks of 32 labels, 1152 bytes: sumX (256), sumY (256), minX, minY, maxX, maxY, area (128 each).
static Fields tiles(char* base, int label)
{
    char* t = base + static_cast<size_t>(label / 32) * 1152;
    const int l = label % 32;
    Fields f;
    f.sumX = reinterpret_cast<unsigned long long*>(t) + l;
    f.sumY = reinterpret_cast<unsigned long long*>(t + 256) + l;
    f.minX = reinterpret_cast<int*>(t + 512) + l;
    f.maxX = reinterpret_cast<int*>(t + 768) + l;
    f.maxY = reinterpret_cast<int*>(t + 896) + l;
    return f;
}

int main(int argc, char** argv)
{
    const unsigned runs = argc > 1 ? static_cast<unsigned>(std::atol(argv[1])) : 4194304u;
    const size_t bytes = size_t(1) << 30;
    char* base = nullptr;
    CHECK(cudaMalloc(&base, bytes));
    CHECK(cudaMemset(base, 0, bytes));
    std::printf("%u runs into one label, median of 11 launches, us\n", runs);

    std::printf("soa, label 1, by capacity:");
    for (size_t capacity : { 4194305ul, 5592406ul, 3000001ul, 2097153ul, 1048577ul, 8388609ul, 6000000ul, 7000001ul })
        std::printf(" %zu=%.0f", capacity, timeMerge(soa(base, capacity, 1, 0), runs));
    std::printf("\nsoa, capacity 4194305, by label:");
    std::vector<float> soaLabels;
    for (int label = 0; label < 64; ++label)
        soaLabels.push_back(timeMerge(soa(base, 4194305, label, 0), runs));
    for (float t : soaLabels)
        std::printf(" %.0f", t);
    std::printf("\nsoa, capacity 4194305, label 1, by pad:");
    for (size_t pad : { 0ul, 128ul, 256ul, 384ul, 512ul, 768ul, 1024ul, 2048ul, 4096ul, 16384ul, 65536ul, 1048576ul })
        std::printf(" %zu=%.0f", pad, timeMerge(soa(base, 4194305, 1, pad), runs));
    std::printf("\ntiles, by label:");
    std::vector<float> tileLabels;
    for (int label = 0; label < 64; ++label)
        tileLabels.push_back(timeMerge(tiles(base, label), runs));
    for (float t : tileLabels)
        std::printf(" %.0f", t);
    std::printf("\ntiles, label 1, the blocks 1 MB further on, 0..15 MB:");
    for (int mb = 0; mb < 16; ++mb)
        std::printf(" %.0f", timeMerge(tiles(base + (size_t(mb) << 20), 1), runs));
    auto summary = [](const char* name, std::vector<float> v) {
        std::sort(v.begin(), v.end());
        std::printf("\n%s: min %.0f, median %.0f, max %.0f", name, v.front(), v[v.size() / 2], v.back());
    };
    summary("soa over 64 labels", soaLabels);
    summary("tiles over 64 labels", tileLabels);
    std::printf("\n");
    CHECK(cudaFree(base));
    return 0;
}
