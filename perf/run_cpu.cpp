// cudacca_bench: OpenCV's CPU cv::connectedComponentsWithStats, CCL_SAUF (the reference) and CCL_DEFAULT
// (Spaghetti), all threads, wall clock. The reference call made by main.cpp is the warm-up.

#include "bench.hpp"

#include <opencv2/imgproc.hpp>

namespace bench {

static void timeCpuAlgorithm(Case& c, Report& rep, int ccltype, const char* name)
{
    cv::Mat labels = c.refLabels.clone(), stats, centroids;   // warm output buffers, reused by every call
    int n = -1;
    const Samples s = timeWall(0, c.reps.cpu, [&] {
        n = cv::connectedComponentsWithStats(c.input->img, labels, stats, centroids, c.connectivity, CV_32S, ccltype);
    });
    Row r = c.baseRow("opencv_cpu", name, "full");
    r.nLabels = n;
    r.medianUs = s.median();
    r.p99Us = s.percentile(99);
    rep.row(r);
    if (n != c.refN)
    {
        rep.peerDisagrees(cv::format("opencv_cpu %s %s: N = %d, SAUF %d", name, c.describe().c_str(), n, c.refN));
        return;
    }
    if (ccltype == cv::CCL_SAUF)
        return;   // the reference itself
    // CCL_DEFAULT (Spaghetti, 8-connectivity) numbers labels in 2x2-block order, not SAUF's raster order of first
    // pixels: the same partition, other numbers.
    cv::cuda::GpuMat d_labels(labels);
    const PartitionCheck p = checkPartition(c.ensureRefLabels(), c.refN, d_labels.data, d_labels.step, true, c.stream);
    if (!p.ok())
        rep.peerDisagrees(cv::format("opencv_cpu %s %s: not SAUF's partition: %s", name, c.describe().c_str(),
                                     p.describe().c_str()));
}

void runOpenCvCpu(Case& c, Report& rep)
{
    timeCpuAlgorithm(c, rep, cv::CCL_SAUF, "SAUF");
    timeCpuAlgorithm(c, rep, cv::CCL_DEFAULT, "DEFAULT");
}

} // namespace bench
