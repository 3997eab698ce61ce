// placement: whether where the caller's outputs lie in device memory, or when a call runs, moves the time of a call of
// cv::cuda::connectedComponentsWithStats. A diagnostic for issue 12 (rows of one code that differ by up to 13 % in one
// benchmark process, and whole processes fast or slow on the 8192² full image: doc/benchmarks.md, "What a slow process
// is made of"), not part of the benchmark protocol.
// K sets of outputs (labels, stats, centroids GpuMats) are allocated, each after a spacer GpuMat of a random size, so
// that they lie at different addresses; then every set's full CCA, labels-only and stats-only calls are timed round
// robin (one call of each in turn, CUDA events, the stream synchronized after each, as cudacca_bench does), so that
// the sets share the machine's slow and fast stretches. A set that is slower than another in every pass is slower
// because of where its outputs lie. `pre` MB are allocated before the first call (it moves what cudaMalloc hands out
// to the module's pool and to the image). Built against an OpenCV build with cudacca, e.g.
//   g++ -O2 -std=c++17 perf/placement.cpp -o placement -I<opencv install>/include/opencv4
//       -L<opencv lib> -lopencv_core -lopencv_cudacca -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart
//   ./placement SIDE DENSITY(1 = the full image) [SETS 6] [ROUNDS 30] [PASSES 2] [SEED 1] [PRE_MB 0] [REFERENCES 0]
// Prints, per pass (with the wall clock at its end), each set's median in us per variant and the low bits of its outputs' addresses.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/core/cuda_stream_accessor.hpp>
#include <opencv2/cudacca.hpp>

namespace {

double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    using namespace cv;
    const int side = argc > 1 ? std::atoi(argv[1]) : 8192;
    const double density = argc > 2 ? std::atof(argv[2]) : 1.0;
    const int sets = argc > 3 ? std::atoi(argv[3]) : 6;
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 30;
    const int passes = argc > 5 ? std::atoi(argv[5]) : 2;
    const unsigned seed = argc > 6 ? static_cast<unsigned>(std::atoi(argv[6])) : 1u;
    const int preMb = argc > 7 ? std::atoi(argv[7]) : 0;
    const bool references = argc > 8 && std::atoi(argv[8]) != 0;

    cuda::GpuMat pre;
    if (preMb > 0)
        pre.create(preMb, 1 << 20, CV_8U);
    theRNG().state = 12345;
    Mat img;
    if (density >= 1.0)
        img = Mat(side, side, CV_8U, Scalar(1));
    else
    {
        Mat noise(side, side, CV_32F);
        randu(noise, 0, 1);
        img = (noise < density) / 255;
    }
    cuda::GpuMat d_img;
    d_img.upload(img);

    cudaStream_t s = nullptr;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cuda::Stream stream = cuda::StreamAccessor::wrapStream(s);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);

    RNG rng(seed);
    std::vector<cuda::GpuMat> spacers(sets), labels(sets), stats(sets), centroids(sets), statsOnly(sets), centroidsOnly(sets),
        labelsOnly(sets);
    for (int k = 0; k < sets; ++k)
    {
        spacers[k].create(1, 256 * (1 + rng.uniform(0, 1 << 16)), CV_8U); // up to 16 MB, 256-byte steps
        cuda::connectedComponentsWithStats(d_img, labels[k], stats[k], centroids[k], 8, CV_32S, cuda::CCA_DEFAULT, stream);
        cuda::connectedComponentsWithStats(d_img, labelsOnly[k], noArray(), noArray(), 8, CV_32S, cuda::CCA_DEFAULT, stream);
        cuda::connectedComponentsWithStats(d_img, noArray(), statsOnly[k], centroidsOnly[k], 8, CV_32S, cuda::CCA_DEFAULT, stream);
        stream.waitForCompletion();
    }
    // Three references without cudacca, timed in the same rounds: one fill of a label image's bytes (the DRAM), 20
    // small fills queued back to back (the launches), 10 small fills each followed by a stream synchronization (the
    // host's round trips, as the call's waits for the run count and N are).
    enum { kFull, kLabels, kStats, kFill, kQueued, kRoundTrips, kVariants };
    const char* names[kVariants] = { "full", "labels", "stats", "fill", "20 queued", "10 round trips" };
    cuda::GpuMat word(1, 64, CV_32S);
    auto call = [&](int k, int v) {
        if (v == kFill)
            return cudaMemsetAsync(labels[k].data, 0, labels[k].step * labels[k].rows, s) == cudaSuccess ? 0 : -1;
        if (v == kQueued || v == kRoundTrips)
        {
            for (int i = 0; i < (v == kQueued ? 20 : 10); ++i)
            {
                cudaMemsetAsync(word.data, i, 4, s);
                if (v == kRoundTrips)
                    cudaStreamSynchronize(s);
            }
            return 0;
        }
        if (v == kFull)
            return cuda::connectedComponentsWithStats(d_img, labels[k], stats[k], centroids[k], 8, CV_32S, cuda::CCA_DEFAULT, stream);
        if (v == kLabels)
            return cuda::connectedComponentsWithStats(d_img, labelsOnly[k], noArray(), noArray(), 8, CV_32S, cuda::CCA_DEFAULT, stream);
        return cuda::connectedComponentsWithStats(d_img, noArray(), statsOnly[k], centroidsOnly[k], 8, CV_32S, cuda::CCA_DEFAULT, stream);
    };
    int n = 0;
    for (int w = 0; w < 5; ++w)
        for (int k = 0; k < sets; ++k)
            for (int v = 0; v < kFill; ++v)
                n = call(k, v);
    stream.waitForCompletion();
    std::printf("%dx%d, density %.2f, N = %d, %d sets, %d rounds a pass, seed %u, pre %d MB\n", side, side, density, n,
                sets, rounds, seed, preMb);
    for (int p = 0; p < passes; ++p)
    {
        std::vector<std::vector<float>> us(sets * kVariants);
        for (int r = 0; r < rounds; ++r)
            for (int k = 0; k < sets; ++k)
                for (int v = 0; v < (references ? kVariants : kFill); ++v)
                {
                    cudaEventRecord(start, s);
                    call(k, v);
                    cudaEventRecord(stop, s);
                    cudaEventSynchronize(stop);
                    float ms = 0;
                    cudaEventElapsedTime(&ms, start, stop);
                    us[k * kVariants + v].push_back(ms * 1e3f);
                }
        const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
        for (int k = 0; k < sets; ++k)
        {
            std::printf("t %lld.%03lld pass %d set %d:", ms / 1000, ms % 1000, p, k);
            for (int v = 0; v < (references ? kVariants : kFill); ++v)
                std::printf("  %s %7.1f", names[v], median(us[k * kVariants + v]));
            std::printf("   labels %% 2MB %7zu  labels-only %% 2MB %7zu  stats %% 64KB %5zu\n",
                        reinterpret_cast<size_t>(labels[k].data) % (2u << 20),
                        reinterpret_cast<size_t>(labelsOnly[k].data) % (2u << 20),
                        reinterpret_cast<size_t>(stats[k].data) % (64u << 10));
        }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(s);
    return 0;
}
