// cudacca_bench: opencv_contrib cudaimgproc's BKE (what cv::cuda::connectedComponents runs), labels only,
// 8-connectivity. cudaimgproc 4.10 does not build against NPP 13, so perf/CMakeLists.txt compiles contrib's
// modules/cudaimgproc/src/cuda/connectedcomponents.cu (from the source tree the superbuild fetched) into this
// program, and we call its device entry point with a preallocated label image, as cv::cuda::connectedComponents
// does after labels.create(). It launches on the legacy default stream and ends with cudaDeviceSynchronize().

#include "bench.hpp"

#ifdef CUDACCA_BENCH_HAVE_CONTRIB
namespace cv { namespace cuda { namespace device { namespace imgproc {
void BlockBasedKomuraEquivalence(const cv::cuda::GpuMat& img, cv::cuda::GpuMat& labels);
}}}}
#endif

namespace bench {

bool contribAvailable()
{
#ifdef CUDACCA_BENCH_HAVE_CONTRIB
    return true;
#else
    return false;
#endif
}

void runContribBke(Case& c, Report& rep)
{
#ifdef CUDACCA_BENCH_HAVE_CONTRIB
    if (c.connectivity != 8)
        return;   // contrib's BKE does 8-connectivity only
    cv::cuda::GpuMat labels(c.d_img.size(), CV_32SC1);
    cudaStreamSynchronize(c.stream);   // the input is ready before the legacy-stream kernels start
    const Samples s = timeGpu(0, c.reps.gpuWarmup, c.reps.gpu, [&] {
        cv::cuda::device::imgproc::BlockBasedKomuraEquivalence(c.d_img, labels);
    });
    Row r = c.baseRow("opencv_contrib_bke", "BKE", "labels");
    r.nLabels = c.refN;   // contrib returns no count; the partition check below confirms the CPU's
    r.medianUs = s.median();
    r.p99Us = s.percentile(99);
    rep.row(r);
    const PartitionCheck p = checkPartition(c.ensureRefLabels(), c.refN, labels.data, labels.step, true, c.stream);
    if (!p.ok())
        rep.peerDisagrees("opencv_contrib_bke BKE " + c.describe() + ": not the CPU's partition: " + p.describe());
#else
    (void)c;
    (void)rep;
#endif
}

} // namespace bench
