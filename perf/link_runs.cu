// link_runs: FLSL's two passes over the bitmap words (flsl_labeling.cu, linkRunsKernel: the runs' nodes with their
// up links, then the unions of their down links) timed against candidate kernels, on the run table that the
// module's own FullRunLabeling builds for a random image (issue 12: on the 8192² full image the two passes take 25
// us for 8192 runs, a thread for each of the 2 M words; doc/benchmarks.md, "Where the rest of 8192² goes").
// Standalone (no OpenCV): flsl_labeling.cu and analysis.cu are compiled into this translation unit.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o link_runs perf/link_runs.cu
//   ./link_runs [side 8192] [granularity 1] [density 0.5] [calls 30]   (granularity 0: the full image)
//
// Variants (median us of `calls` calls, CUDA events around each, each call preceded untimed by the detection, as
// in the pipeline, and for the unions by the up links and first compression): linkRunsKernel with K = 1, 2, 4, 8
// bitmap words a thread (`wK`); the module's choice for the image (linkWordsPerThread) is printed.
// Checked: the up links' parents equal those of K = 1; after the unions and a compression, every run's root too.
// Tried here and dropped (session 32): the edge count loaded only for a word where a run starts (the pixel before
// the word from the bitmap instead), 1-2 us slower than the module at K = 1 and no faster at K = 4.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_cuda_check.hpp"

#include "device_memory.hpp"
#include "labeling.hpp"
// The tool reads the labeling object's run table and parents (private members).
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

namespace link_runs {

void check(cudaError_t e, const char* what) { checkCuda(e, what); }

} // namespace link_runs

using namespace link_runs;

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 8192;
    const int g = argc > 2 ? std::atoi(argv[2]) : 1;
    const double d = argc > 3 ? std::atof(argv[3]) : 0.5;
    const int calls = argc > 4 ? std::atoi(argv[4]) : 30;
    if (side < 32 || g < 0 || calls < 1)
    {
        std::fprintf(stderr, "usage: link_runs [side] [g (0: full)] [d] [calls]\n");
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
    int* dCount = nullptr;
    int* hScratch = nullptr;
    unsigned* dOut = nullptr;
    check(cudaMalloc(&dImg, pixels), "cudaMalloc");
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
    const RunTable& t = labeling.table_;
    const size_t runs = labeling.runs_;
    int* parent = labeling.runLabels_;
    const unsigned words = static_cast<unsigned>(t.rows) * static_cast<unsigned>(t.wordsPerRow);
    std::printf("link_runs: %d^2, g = %d, d = %.2f, %zu runs, %u words, %d calls; the module takes %d words a thread\n",
                side, g, g > 0 ? d : 1.0, runs, words, calls, labeling.linkWordsPerThread());

    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    unsigned* bits = const_cast<unsigned*>(t.bits);
    unsigned* edges = const_cast<unsigned*>(t.edgesBefore);
    auto detect = [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(image, bits, edges, t.wordsPerRow, dOut, true);
    };
    auto moduleUp = [&] {
        linkRunsKernel<8, false, 1><<<blocksFor(words, kWordThreads), kWordThreads, 0, stream>>>(t, parent, words);
    };
    std::vector<int> upReference, rootReference, got(runs);
    int status = 0;
    auto timeIt = [&](const char* name, bool down, std::function<void()> launch) {
        std::vector<float> us;
        for (int i = 0; i <= calls; ++i)
        {
            detect();
            if (down)
            {
                moduleUp();
                labeling.compressUpLinks(stream);
            }
            check(cudaEventRecord(e0, stream), "cudaEventRecord");
            launch();
            check(cudaEventRecord(e1, stream), "cudaEventRecord");
            check(cudaEventSynchronize(e1), name);
            float ms = 0;
            check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            if (i > 0) // the first: warm-up
                us.push_back(ms * 1000.0f);
        }
        if (down)
            labeling.compressRuns(stream);
        check(cudaMemcpy(got.data(), parent, runs * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
        std::vector<int>& reference = down ? rootReference : upReference;
        const char* verdict = "SAME";
        if (reference.empty())
        {
            reference = got;
            verdict = "(the reference)";
        }
        else if (got != reference)
        {
            verdict = "DIFFERENT";
            status = 1;
        }
        std::sort(us.begin(), us.end());
        std::printf("  %-6s %-8s %8.2f us (min %.2f, max %.2f) %s\n", down ? "unions" : "up", name, us[us.size() / 2],
                    us.front(), us.back(), verdict);
    };
    auto variants = [&](auto down) {
        constexpr bool kDown = decltype(down)::value;
        auto launch = [&](auto kernel, int k) {
            const unsigned threads = (words + k - 1) / k;
            kernel<<<blocksFor(threads, kWordThreads), kWordThreads, 0, stream>>>(t, parent, words);
        };
        timeIt("w1", kDown, [&] { launch(linkRunsKernel<8, kDown, 1>, 1); });
        timeIt("w2", kDown, [&] { launch(linkRunsKernel<8, kDown, 2>, 2); });
        timeIt("w4", kDown, [&] { launch(linkRunsKernel<8, kDown, 4>, 4); });
        timeIt("w8", kDown, [&] { launch(linkRunsKernel<8, kDown, 8>, 8); });
        timeIt("w1", kDown, [&] { launch(linkRunsKernel<8, kDown, 1>, 1); });
    };
    variants(std::false_type());
    variants(std::true_type());
    return status;
}
