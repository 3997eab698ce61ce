// call_variants: the wall-clock time of one call of cv::cuda::connectedComponentsWithStats and of an analyzer's
// apply() with each kind of output (host Mat statistics, GpuMat statistics, labels only, statistics only; host
// labels; everything on the host, with labels in a Mat the call may pin or in the caller's own), all
// timed round robin (one call of each variant in turn), so that the variants share the machine's fast and slow
// stretches (doc/benchmarks.md, "The free function against an analyzer"). A diagnostic for issue 13, not part of
// the benchmark protocol. Built against an OpenCV build with cudacca, e.g.
//   g++ -O2 -std=c++17 perf/call_variants.cpp -o call_variants -I<opencv install>/include/opencv4
//       -L<opencv lib> -lopencv_core -lopencv_cudacca -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart
//   (one command)
//   ./call_variants [SIDE 512] [DENSITY 0.75] [CONNECTIVITY 8] [CALLS 2000] [ALGORITHM 0 = CCA_DEFAULT]
//                   [VARIANT -1 = all, else its index in the list below] [WARMUP 200 rounds]
// One variant, no warm-up, under Nsight Compute: the kernels of that variant's calls only, e.g. labels only
//   ncu --csv --metrics gpu__time_duration.sum ./call_variants 8192 0.05 8 2 0 2 0
// The image is random pixels (granularity 1) of the given density (1: every pixel foreground), seed 12345.
// Prints the p10 / p50 / p90 / p99 of each variant in us.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cuda_runtime.h>
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/core/cuda_stream_accessor.hpp>
#include <opencv2/cudacca.hpp>

namespace {

double nowUs()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Variant
{
    const char* name;
    std::function<void()> call;
    std::vector<double> us;
};

} // namespace

int main(int argc, char** argv)
{
    using namespace cv;
    const int side = argc > 1 ? std::atoi(argv[1]) : 512;
    const double density = argc > 2 ? std::atof(argv[2]) : 0.75;
    const int conn = argc > 3 ? std::atoi(argv[3]) : 8;
    const int calls = argc > 4 ? std::atoi(argv[4]) : 2000;
    const int algo = argc > 5 ? std::atoi(argv[5]) : cuda::CCA_DEFAULT;
    const int only = argc > 6 ? std::atoi(argv[6]) : -1;
    const int warmup = argc > 7 ? std::atoi(argv[7]) : 200;

    theRNG().state = 12345;
    Mat noise(side, side, CV_32F);
    randu(noise, 0, 1);
    Mat img = (noise < density) / 255;
    cuda::GpuMat d_img;
    d_img.upload(img);

    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cuda::Stream stream = cuda::StreamAccessor::wrapStream(s);
    cudaEvent_t event = nullptr;
    cudaEventCreateWithFlags(&event, cudaEventDisableTiming);

    // each variant its own outputs (as an application keeps them from call to call) and its own analyzer
    cuda::GpuMat labels[7], d_stats[3], d_centroids[3];
    // hostLabels: Mats the call may give pinned memory (pinned_mats.hpp); ownLabels: the caller's own (as Python's
    // arrays are), which stays pageable
    Mat stats[6], centroids[6], hostLabels[2], ownLabels(side, side, CV_32S);
    Ptr<cuda::ConnectedComponentsAnalyzer> analyzer[3];
    for (auto& a : analyzer)
        a = cuda::createConnectedComponentsAnalyzer(algo, conn, CV_32S);
    int n = 0;
    auto wait = [&] { stream.waitForCompletion(); };
    std::vector<Variant> v = {
        { "function, host stats", [&] { n = cuda::connectedComponentsWithStats(d_img, labels[0], stats[0], centroids[0], conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, GpuMat stats", [&] { n = cuda::connectedComponentsWithStats(d_img, labels[1], d_stats[0], d_centroids[0], conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, labels only", [&] { n = cuda::connectedComponentsWithStats(d_img, labels[2], noArray(), noArray(), conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, host stats only", [&] { n = cuda::connectedComponentsWithStats(d_img, noArray(), stats[1], centroids[1], conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, host labels", [&] { n = cuda::connectedComponentsWithStats(d_img, hostLabels[0], stats[3], centroids[3], conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, all host", [&] { n = cuda::connectedComponentsWithStats(img, hostLabels[1], stats[4], centroids[4], conn, CV_32S, algo, stream); wait(); }, {} },
        { "function, all host, own labels", [&] { n = cuda::connectedComponentsWithStats(img, ownLabels, stats[5], centroids[5], conn, CV_32S, algo, stream); wait(); }, {} },
        { "analyzer, host stats", [&] { n = analyzer[0]->apply(d_img, labels[3], stats[2], centroids[2], stream); wait(); }, {} },
        { "analyzer, GpuMat stats", [&] { n = analyzer[1]->apply(d_img, labels[4], d_stats[1], d_centroids[1], stream); wait(); }, {} },
        { "analyzer, labels only", [&] { n = analyzer[2]->apply(d_img, labels[5], noArray(), noArray(), stream); wait(); }, {} },
        { "event record + synchronize", [&] { cudaEventRecord(event, s); cudaEventSynchronize(event); }, {} },
    };
    if (only >= 0)
    {
        CV_Assert(only < static_cast<int>(v.size()));
        v = { v[only] };
    }
    for (int w = 0; w < warmup; ++w)
        for (auto& x : v)
            x.call();
    for (int i = 0; i < calls; ++i)
        for (auto& x : v)
        {
            const double t0 = nowUs();
            x.call();
            x.us.push_back(nowUs() - t0);
        }
    if (only < 0)
        n = cuda::connectedComponentsWithStats(d_img, labels[6], noArray(), noArray(), conn, CV_32S, algo, stream);
    std::printf("algorithm %d, %dx%d, density %.2f, %d-connectivity, N = %d, %d calls each\n", algo, side, side,
                density, conn, n, calls);
    for (auto& x : v)
    {
        std::sort(x.us.begin(), x.us.end());
        const size_t k = x.us.size();
        std::printf("  %-28s p10 %7.1f  p50 %7.1f  p90 %7.1f  p99 %7.1f us\n", x.name, x.us[k / 10], x.us[k / 2],
                    x.us[k * 9 / 10], x.us[k * 99 / 100]);
    }
    cudaEventDestroy(event);
    cudaStreamDestroy(s);
    return 0;
}
