// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Built against an installed OpenCV prefix with cudacca (test/CMakeLists.txt, test cudacca_install).
// With a GPU: labels a small random image and compares labels, stats and centroids with the CPU (exit 0
// when identical, 1 otherwise). Without one: says so and exits 0, having linked and loaded the library.

#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/cudacca.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <cstring>

static bool sameBytes(const cv::Mat& a, const cv::Mat& b)
{
    if (a.size() != b.size() || a.type() != b.type())
        return false;
    for (int y = 0; y < a.rows; ++y)
        if (std::memcmp(a.ptr(y), b.ptr(y), a.cols * a.elemSize()) != 0)
            return false;
    return true;
}

int main()
{
    cv::Mat image(97, 131, CV_8UC1);
    cv::RNG rng(20261123);
    rng.fill(image, cv::RNG::UNIFORM, 0, 2);

    if (cv::cuda::getCudaEnabledDeviceCount() <= 0)
    {
        std::printf("cudacca_install_app: linked against the installed prefix; no CUDA device here, nothing run\n");
        return 0;
    }
    cv::Mat labels, stats, centroids, cpuLabels, cpuStats, cpuCentroids;
    const int n = cv::cuda::connectedComponentsWithStats(image, labels, stats, centroids, 8, CV_32S);
    const int cpuN = cv::connectedComponentsWithStats(image, cpuLabels, cpuStats, cpuCentroids, 8, CV_32S,
                                                      cv::CCL_SAUF);
    const bool same = n == cpuN && sameBytes(labels, cpuLabels) && sameBytes(stats, cpuStats) &&
                      sameBytes(centroids, cpuCentroids);
    std::printf("cudacca_install_app: %d labels, %s the CPU's\n", n, same ? "identical to" : "DIFFERENT from");
    return same ? 0 : 1;
}
