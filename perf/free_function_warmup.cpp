// free_function_warmup: does the free function's latency depend on what the process did before? (doc/benchmarks.md,
// "The free function's first latency row"; issue 13). A diagnostic, not part of the benchmark protocol. Times
// cv::cuda::connectedComponentsWithStats (GpuMat labels, host Mat stats and centroids, then the stream's wait) over
// CALLS calls after 20 untimed ones, in rounds; before a round, MODE (bits) may first run:
//   1 one call of the free function on an 8192^2 all-foreground image (cudacca's pool grows),
//   2 about 50 ms of memsets on a 1 GiB GpuMat (the GPU kept busy; the pool untouched),
//   4 200 calls of a ConnectedComponentsAnalyzer on the same image,
//   8 three ConnectedComponentsAnalyzer::applyBatch calls of 64 copies of the image.
// Prints p10 / p50 / p90 in us and cudacca's CUDA allocations per round. Built against an OpenCV build with
// cudacca (cudaAllocationCount is exported for cudacca's tests), e.g.
//   g++ -O2 -std=c++17 perf/free_function_warmup.cpp -o free_function_warmup -I<opencv install>/include/opencv4
//       -L<opencv lib> -lopencv_core -lopencv_cudacca   (one command)
//   ./free_function_warmup [SIDE 512] [G 1] [ALGORITHM 0] [MODE 0] [ROUNDS 2] [CALLS 1000]
// The image: blocks of G x G pixels, each foreground with probability 1/2 (std::mt19937, seed 1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/cudacca.hpp>

namespace cv { namespace cuda { namespace cudacca { CV_EXPORTS size_t cudaAllocationCount(); }}}

namespace {

double nowUs()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 512;
    const int g = argc > 2 ? std::atoi(argv[2]) : 1;
    const int algorithm = argc > 3 ? std::atoi(argv[3]) : 0;
    const int mode = argc > 4 ? std::atoi(argv[4]) : 0;
    const int rounds = argc > 5 ? std::atoi(argv[5]) : 2;
    const int calls = argc > 6 ? std::atoi(argv[6]) : 1000;

    std::mt19937 rng(1);
    const int cells = (side + g - 1) / g;
    std::vector<unsigned char> cell(static_cast<size_t>(cells) * cells);
    for (auto& c : cell)
        c = rng() % 2;
    cv::Mat img(side, side, CV_8U);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            img.at<uchar>(y, x) = cell[static_cast<size_t>(y / g) * cells + x / g] ? 255 : 0;
    cv::cuda::GpuMat image(img), labels;
    cv::cuda::Stream stream;
    cv::Mat stats, centroids;

    for (int round = 0; round < rounds; ++round)
    {
        if (mode & 1)
        {
            cv::cuda::GpuMat big(8192, 8192, CV_8U, cv::Scalar(255)), l;
            cv::Mat s, c;
            cv::cuda::connectedComponentsWithStats(big, l, s, c, 8, CV_32S, algorithm, stream);
            stream.waitForCompletion();
        }
        if (mode & 2)
        {
            cv::cuda::GpuMat buffer(32768, 32768, CV_8U);
            for (const double t0 = nowUs(); nowUs() - t0 < 50000;)
            {
                buffer.setTo(cv::Scalar(1), stream);
                stream.waitForCompletion();
            }
        }
        if (mode & 4)
        {
            auto analyzer = cv::cuda::createConnectedComponentsAnalyzer(algorithm, 8, CV_32S);
            cv::cuda::GpuMat l;
            cv::Mat s, c;
            for (int i = 0; i < 200; ++i)
            {
                analyzer->apply(image, l, s, c, stream);
                stream.waitForCompletion();
            }
        }
        if (mode & 8)
        {
            auto analyzer = cv::cuda::createConnectedComponentsAnalyzer(algorithm, 8, CV_32S);
            std::vector<cv::cuda::GpuMat> images(64, image), l, s, c;
            std::vector<int> counts;
            for (int i = 0; i < 3; ++i)
            {
                analyzer->applyBatch(images, l, s, c, counts, stream);
                stream.waitForCompletion();
            }
        }
        std::vector<double> us;
        const size_t allocations = cv::cuda::cudacca::cudaAllocationCount();
        for (int i = 0; i < calls + 20; ++i)
        {
            const double t = nowUs();
            cv::cuda::connectedComponentsWithStats(image, labels, stats, centroids, 8, CV_32S, algorithm, stream);
            stream.waitForCompletion();
            if (i >= 20)
                us.push_back(nowUs() - t);
        }
        std::sort(us.begin(), us.end());
        std::printf("%dx%d g=%d algorithm %d mode %d round %d: p10 %.1f p50 %.1f p90 %.1f us; %zu allocations in %d calls; N = %d\n",
                    side, side, g, algorithm, mode, round, us[us.size() / 10], us[us.size() / 2], us[us.size() * 9 / 10],
                    cv::cuda::cudacca::cudaAllocationCount() - allocations, calls + 20, stats.rows - 1);
    }
    return 0;
}
