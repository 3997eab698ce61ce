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
// bitmap words a thread (`wK`); linkRunsSplitKernel, a word's runs split between two threads (`split`), and the same
// where the run count on the device says 1.75 runs a word or more (`split?`, as for a table sized by its bound); the
// module's choice for the image (linkWordsPerThread) is printed.
// Checked: the up links' parents equal those of K = 1; after the unions and a compression, every run's root too.
// Where the runs are at most kFewRuns: the chain after the run-count wait, fewRunsChainKernel's one block against
// the five kernels it replaces (`chain block`, `chain kernels`).
// Then two figures for the calls around them: the GPU's idle time across a host wait in the middle of a call (as
// for the run count), and the module's labeling and label write as queued by a call (the labels-only pipeline).
// Tried here and dropped (session 32): the edge count loaded only for a word where a run starts (the pixel before
// the word from the bitmap instead), 1-2 us slower than the module at K = 1 and no faster at K = 4.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_flsl.hpp"

using namespace cv::cuda::cudacca;
using standalone::check;

int main(int argc, char** argv)
{
    standalone::Ranked r;
    if (!r.setUp(argc, argv, "link_runs", false))
        return 2;
    const int side = r.side, calls = r.calls;
    FullRunLabeling& labeling = r.labeling;
    cudaStream_t stream = r.stream;
    const RunTable& t = labeling.table_;
    const size_t runs = labeling.runs_;
    int* parent = labeling.runLabels_;
    const unsigned words = static_cast<unsigned>(t.rows) * static_cast<unsigned>(t.wordsPerRow);
    unsigned minRunsTimes4 = 0;
    const bool split = labeling.linkSplit(minRunsTimes4);
    std::printf("link_runs: %d^2, g = %d, d = %.2f, %zu runs, %u words, %d calls; the module takes %s\n", side, r.g,
                r.g > 0 ? r.d : 1.0, runs, words, calls,
                split ? (minRunsTimes4 ? "split?" : "split") : labeling.linkWordsPerThread() == 1 ? "w1"
                : labeling.linkWordsPerThread() == 2 ? "w2" : "w4");

    standalone::EventTimer timer;
    unsigned* bits = const_cast<unsigned*>(t.bits);
    unsigned* edges = const_cast<unsigned*>(t.edgesBefore);
    auto detect = [&] {
        detectRunsKernel<<<rowBlocks(side), kRowThreads, 0, stream>>>(r.image, bits, edges, t.wordsPerRow, r.dOut,
                                                                  side % 16 == 0); // rows 16-byte aligned
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
            const float t = timer.us(stream, launch, name);
            if (i > 0) // the first: warm-up
                us.push_back(t);
        }
        if (down)
            labeling.compressRuns(stream);
        check(cudaMemcpy(got.data(), parent, runs * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
        const char* verdict = standalone::compareWithReference(down ? rootReference : upReference, got, status);
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
        auto split = [&](unsigned minRunsTimes4) {
            linkRunsSplitKernel<8, kDown><<<blocksFor(2ll * words, kWordThreads), kWordThreads, 0, stream>>>(t, parent, words,
                                                                                                        minRunsTimes4);
        };
        timeIt("split", kDown, [&] { split(0); });
        timeIt("split?", kDown, [&] { split(7); });
        timeIt("w1", kDown, [&] { launch(linkRunsKernel<8, kDown, 1>, 1); });
    };
    variants(std::false_type());
    variants(std::true_type());

    // The chain after the run-count wait where the runs are at most kFewRuns (labelAndRank): the one block
    // (fewRunsChainKernel) against the five kernels it replaces (compressUpLinks, the union pass, compressRuns,
    // compressAndRank and its segment scan), each call preceded untimed by the detection and the early up-link pass
    // (with the runs' positions) into a table of the tool's; both launched as the module launches them (dependent
    // launches). N of each printed (the accuracy tests check the tables themselves).
    if (runs <= kFewRuns)
    {
        int* table = nullptr;
        int2* positions = nullptr;
        int* ends = nullptr;
        void* scratch = nullptr;
        const size_t scratchBytes = rankScratchBytesUpTo(static_cast<int>(runs));
        check(cudaMalloc(&table, runs * sizeof(int)), "cudaMalloc");
        check(cudaMalloc(&positions, kFewRuns * sizeof(int2)), "cudaMalloc");
        check(cudaMalloc(&ends, kFewRuns * sizeof(int)), "cudaMalloc");
        check(cudaMalloc(&scratch, scratchBytes), "cudaMalloc");
        auto chain = [&](const char* name, std::function<void()> launch) {
            std::vector<float> us;
            for (int i = 0; i <= calls; ++i)
            {
                detect();
                linkUpRunsEarlyKernel<8><<<blocksFor(words, kWordThreads), kWordThreads, 0, stream>>>(
                    t, table, words, static_cast<unsigned>(runs), RecordedRuns{ positions, ends });
                const float x = timer.us(stream, launch, name);
                if (i > 0) // the first: warm-up
                    us.push_back(x);
            }
            int n = -1;
            check(cudaMemcpy(&n, r.dCount, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
            std::sort(us.begin(), us.end());
            std::printf("  chain  %-8s %8.2f us (min %.2f, max %.2f), N = %d\n", name, us[us.size() / 2], us.front(),
                        us.back(), n);
        };
        chain("block", [&] {
            launchDependent(fewRunsChainFor<8>(static_cast<unsigned>(runs)), 1, kFewRunsThreads, stream, "few runs", t, table,
                            const_cast<const int2*>(positions), static_cast<int>(runs), static_cast<int*>(scratch),
                            r.dCount, static_cast<int*>(nullptr));
        });
        int* const own = labeling.runLabels_;
        labeling.runLabels_ = table;
        chain("kernels", [&] {
            labeling.unite<8>(false, stream, true);
            const LabelForest forest = { table, static_cast<int>(runs), 1, static_cast<int>(runs) };
            compressAndRank(forest, scratch, scratchBytes, r.dCount, stream, t.rowSlots + t.rows);
        });
        labeling.runLabels_ = own;
        for (void* p : { static_cast<void*>(table), static_cast<void*>(positions), static_cast<void*>(ends), scratch })
            check(cudaFree(p), "cudaFree");
    }

    // What a host wait in the middle of a call costs the GPU: from the end of the work queued before it (here the
    // detection) to the next work queued after it (an event), when the host waits on the stream and reads a mapped
    // value first, as labelAndRank does for the run count.
    std::vector<float> gap;
    for (int i = 0; i <= calls; ++i)
    {
        detect();
        check(cudaEventRecord(timer.e0, stream), "cudaEventRecord");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        const int count = *static_cast<volatile int*>(r.hScratch);
        check(cudaEventRecord(timer.e1, stream), "cudaEventRecord");
        check(cudaEventSynchronize(timer.e1), "cudaEventSynchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, timer.e0, timer.e1), "cudaEventElapsedTime");
        if (i > 0 && count >= 0)
            gap.push_back(ms * 1000.0f);
    }
    // The labeling as the module queues it, detection to ranking (with the wait for the run count where the table is
    // sized by it), then the label write into int32 labels of the tool's: the benchmark's labels-only call without
    // its host work (arguments, outputs, the wait for N).
    int* labels = nullptr;
    check(cudaMalloc(&labels, static_cast<size_t>(side) * side * sizeof(int)), "cudaMalloc");
    std::vector<float> pipeline;
    for (int i = 0; i <= calls; ++i)
    {
        const float us = timer.us(stream, [&] {
            labeling.labelAndRank(r.image, 8, false, r.dCount, r.hScratch, r.countReady, RunLabeling::TableHome{}, stream);
            labeling.writeLabels(labels, static_cast<size_t>(side) * sizeof(int), false, stream);
        }, "pipeline");
        if (i > 0)
            pipeline.push_back(us);
    }
    for (auto* v : { &gap, &pipeline })
        std::sort(v->begin(), v->end());
    std::printf("  the GPU's idle time across a host wait: %.2f us (min %.2f, max %.2f)\n", gap[gap.size() / 2],
                gap.front(), gap.back());
    std::printf("  labelAndRank + writeLabels: %.2f us (min %.2f, max %.2f)\n", pipeline[pipeline.size() / 2],
                pipeline.front(), pipeline.back());
    return status;
}
