// What the standalone FLSL tools (perf/label_write.cu, perf/link_runs.cu) share: flsl_labeling.cu and analysis.cu
// compiled into the tool's translation unit with their private members readable (the tools read the labeling
// object's run table), the host objects the labeling uses that a tool does not link (stream-ordered allocations
// from the device's default pool, which keeps its memory, as cudacca's pool does between calls), and the
// benchmark's kind of random input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_cuda_check.hpp"

#include "device_memory.hpp"
#include "labeling.hpp"
#define private public
#include "cuda/analysis.cu"
#include "cuda/flsl_labeling.cu"
#undef private

namespace cv { namespace cuda { namespace cudacca {
void* StreamBuffer::allocate(size_t bytes, cudaStream_t stream)
{
    release();
    checkCuda(cudaMallocAsync(&ptr_, bytes, stream), "cudaMallocAsync");
    stream_ = stream;
    return ptr_;
}
void StreamBuffer::release()
{
    if (ptr_)
        cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
}
void RunLabeling::label(const BinaryImage&, const LabelForest&, int, bool, cudaStream_t) { std::abort(); }
size_t bandMinRunsOverride() { return 0; }
bool countRunsOverride() // as the module reads it (registry.cpp): 1 sizes every table by its counted runs
{
    static const bool counted = std::getenv("OPENCV_CUDACCA_COUNT_RUNS") && std::atoi(std::getenv("OPENCV_CUDACCA_COUNT_RUNS")) != 0;
    return counted;
}
size_t runStatsOverride() // as the module reads it (registry.cpp): 1 never
{
    static const size_t mode = std::getenv("OPENCV_CUDACCA_RUN_STATS") ? std::atoi(std::getenv("OPENCV_CUDACCA_RUN_STATS")) : 0;
    return mode;
}
namespace standalone_settings { // a tool's choices (perf/accumulate_runs.cu)
inline size_t statsSegmentWords = 0;
inline size_t statsTable = 0; //!< 0: as OPENCV_CUDACCA_STATS_TABLE says
}
size_t statsTableOverride() // as the module reads it (registry.cpp): 1 never, 2 wherever the columns allow
{
    static const size_t mode = std::getenv("OPENCV_CUDACCA_STATS_TABLE") ? std::atoi(std::getenv("OPENCV_CUDACCA_STATS_TABLE")) : 0;
    return standalone_settings::statsTable ? standalone_settings::statsTable : mode;
}
size_t statsSegmentWordsOverride() { return standalone_settings::statsSegmentWords; }
}}} // namespace cv::cuda::cudacca

namespace standalone {

inline void check(cudaError_t e, const char* what) { cv::cuda::cudacca::checkCuda(e, what); }

/** A variant's result against the first variant's: "(the reference)" the first time (`got` becomes the reference),
then "SAME" or "DIFFERENT" (and status = 1). */
template <typename T>
const char* compareWithReference(std::vector<T>& reference, const std::vector<T>& got, int& status)
{
    if (reference.empty())
    {
        reference = got;
        return "(the reference)";
    }
    if (got == reference)
        return "SAME";
    status = 1;
    return "DIFFERENT";
}

/** The time of what `launch` queues on `stream`, us, from CUDA events around it (waits for it). */
struct EventTimer
{
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    EventTimer()
    {
        check(cudaEventCreate(&e0), "cudaEventCreate");
        check(cudaEventCreate(&e1), "cudaEventCreate");
    }
    template <typename Launch>
    float us(cudaStream_t stream, Launch&& launch, const char* name)
    {
        check(cudaEventRecord(e0, stream), "cudaEventRecord");
        launch();
        check(cudaEventRecord(e1, stream), "cudaEventRecord");
        check(cudaEventSynchronize(e1), name);
        float ms = 0;
        check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        return ms * 1000.0f;
    }
};

/** The benchmark's kind of input, side x side: blocks of g x g pixels, each foreground with probability d (seed
12345); g = 0: every pixel foreground. */
inline std::vector<unsigned char> blockImage(int side, int g, double d)
{
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
    return img;
}

/** A tool's command line, [side 8192] [g 1 (0: the full image)] [d 0.5] [calls 30] [connectivity 8], and the module's
FullRunLabeling run on that image (no statistics, the table in memory of its own): the image on the device (rows
`side` bytes apart), the labeled and ranked run table, the call's stream, and dOut, 4 * side + 64 bytes of device
scratch. */
struct Ranked
{
    int side = 8192, g = 1, calls = 30, connectivity = 8;
    double d = 0.5;
    unsigned char* dImg = nullptr;
    int* dCount = nullptr;
    int* hScratch = nullptr; // mapped pinned, as the module's
    cudaEvent_t countReady = nullptr; // the module's wait for the run count, as the free function's
    unsigned* dOut = nullptr;
    cudaStream_t stream = nullptr;
    cv::cuda::cudacca::BinaryImage image = {};
    cv::cuda::cudacca::FullRunLabeling labeling{ false };

    /** False, with a usage line on stderr, on a bad command line; exits on a CUDA error. */
    bool setUp(int argc, char** argv, const char* tool, bool sideMultipleOf32)
    {
        side = argc > 1 ? std::atoi(argv[1]) : side;
        g = argc > 2 ? std::atoi(argv[2]) : g;
        d = argc > 3 ? std::atof(argv[3]) : d;
        calls = argc > 4 ? std::atoi(argv[4]) : calls;
        connectivity = argc > 5 ? std::atoi(argv[5]) : connectivity;
        if (side < 32 || (sideMultipleOf32 && side % 32 != 0) || g < 0 || calls < 1 || (connectivity != 4 && connectivity != 8))
        {
            std::fprintf(stderr, "usage: %s [side%s] [g (0: full)] [d] [calls] [connectivity 4 or 8]\n", tool,
                         sideMultipleOf32 ? " (multiple of 32)" : "");
            return false;
        }
        const std::vector<unsigned char> img = blockImage(side, g, d);
        const size_t pixels = static_cast<size_t>(side) * side;
        using cv::cuda::cudacca::checkCuda;
        checkCuda(cudaMalloc(&dImg, pixels), "cudaMalloc");
        checkCuda(cudaMalloc(&dCount, sizeof(int)), "cudaMalloc");
        checkCuda(cudaMalloc(&dOut, 4 * static_cast<size_t>(side) + 64), "cudaMalloc");
        checkCuda(cudaHostAlloc(&hScratch, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
        checkCuda(cudaMemcpy(dImg, img.data(), pixels, cudaMemcpyHostToDevice), "cudaMemcpy");
        checkCuda(cudaStreamCreate(&stream), "cudaStreamCreate");
        checkCuda(cudaEventCreateWithFlags(&countReady, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        cudaMemPool_t pool;
        checkCuda(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
        uint64_t keep = UINT64_MAX;
        checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
        image = { dImg, static_cast<size_t>(side), side, side };
        labeling.labelAndRank(image, connectivity, false, dCount, hScratch, countReady,
                              cv::cuda::cudacca::RunLabeling::TableHome{}, stream);
        checkCuda(cudaStreamSynchronize(stream), "labelAndRank");
        return true;
    }
};

} // namespace standalone
