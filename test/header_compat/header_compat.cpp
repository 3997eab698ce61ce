// Compile-only check: cudacca and contrib's cudaimgproc live together in one translation unit.
// Both declare functions in cv::cuda; cudacca's names must not clash with cudaimgproc's
// (connectedComponents, ConnectedComponentsAlgorithmsTypes: CCL_DEFAULT, CCL_BKE).
#include "opencv2/cudacca.hpp"
#include "opencv2/cudaimgproc.hpp"

int header_compat_both(const cv::cuda::GpuMat& img, cv::cuda::GpuMat& labels, cv::cuda::GpuMat& stats,
                       cv::cuda::GpuMat& centroids, cv::cuda::Stream& stream)
{
    int n = cv::cuda::connectedComponentsWithStats(img, labels, stats, centroids, 8, CV_32S,
                                                   cv::cuda::CCA_UF, stream);
    n += cv::cuda::connectedComponentsWithStats(img, labels, cv::noArray(), cv::noArray(), 4, CV_16U,
                                                cv::cuda::CCA_DEFAULT);
    n += cv::cuda::connectedComponentsWithStats(img, labels, stats, centroids);

    cv::cuda::connectedComponents(img, labels, 8, CV_32S, cv::cuda::CCL_BKE);
    cv::cuda::connectedComponents(img, labels, 8, CV_32S, cv::cuda::CCL_DEFAULT);
    cv::cuda::connectedComponents(img, labels);

    static_assert(cv::cuda::CCA_DEFAULT != cv::cuda::CCA_UF, "distinct enumerators");
    return n;
}
