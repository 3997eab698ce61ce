// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_ORDER_CCL_DEFAULT with 8-connectivity (pipeline.hpp): the call into device outputs of its own (CV_32S
// labels, GpuMat stats and centroids), the renumbering (ccl_default_order.hpp), then the caller's outputs. The
// caller's outputs are written only after N passed checkLabelCount, so a refused call (CV_16U overflow, a fixed
// size) leaves them untouched, as without the flag.

#include "precomp.hpp"
#include "arguments.hpp"
#include "ccl_default_order.hpp"
#include "pipeline.hpp"

namespace cv { namespace cuda {

namespace {

/** `from` (on the device) into the caller's output `out` as `type`: copied or converted into a GpuMat, downloaded
into a Mat or HostMem (then the call must wait: `waitNeeded`). `converted` holds a conversion for a download. */
void deliver(const GpuMat& from, OutputArray out, int type, GpuMat& converted, Stream& stream, bool& waitNeeded)
{
    if (!out.needed())
        return;
    const bool device = out.kind() == _InputArray::CUDA_GPU_MAT;
    if (from.type() != type)
    {
        if (device)
        {
            from.convertTo(out, type, stream);
            return;
        }
        from.convertTo(converted, type, stream);
    }
    const GpuMat& source = from.type() != type ? converted : from;
    if (device)
        source.copyTo(out, stream);
    else
    {
        source.download(out, stream);
        waitNeeded = true;
    }
}

} // namespace

int cudacca::connectedComponentsInCclDefaultOrder(InputArray image, OutputArray labels, OutputArray stats,
                                                  OutputArray centroids, int ltype, Stream& stream, CallResources& r)
{
    const cudaStream_t s = StreamAccessor::getStream(stream);
    const Size size = image.size();
    CallResources inner = r;
    inner.cclDefaultOrder = false;

    // The call, into a CV_32S label image of ours (from the pool, or an analyzer's arena) and GpuMat statistics.
    StreamBuffer labelsMemory;
    GpuMat ownLabels(size, CV_32SC1,
                     labelsMemory.allocate(sizeof(int) * static_cast<size_t>(size.width) * size.height, s),
                     sizeof(int) * static_cast<size_t>(size.width));
    GpuMat ownStats, ownCentroids;
    const int labelCount = connectedComponents(image, ownLabels,
                                               stats.needed() ? _OutputArray(ownStats) : _OutputArray(noArray()),
                                               centroids.needed() ? _OutputArray(ownCentroids) : _OutputArray(noArray()),
                                               8, CV_32S, stream, inner);
    checkLabelCount(labelCount, ltype, stats, centroids);

    StreamBuffer scratch;
    const size_t scratchBytes = cclDefaultOrderScratchBytes(labelCount);
    renumberInCclDefaultOrder(ownLabels.ptr<int>(), ownLabels.step, size.height, size.width, labelCount,
                              ownStats.empty() ? nullptr : ownStats.ptr<int>(), ownStats.step,
                              ownCentroids.empty() ? nullptr : ownCentroids.ptr<double>(), ownCentroids.step,
                              scratch.allocate(scratchBytes, s), scratchBytes, s);

    bool waitNeeded = false;
    GpuMat converted;
    deliver(ownLabels, labels, ltype, converted, stream, waitNeeded);
    deliver(ownStats, stats, CV_32SC1, converted, stream, waitNeeded);
    deliver(ownCentroids, centroids, CV_64FC1, converted, stream, waitNeeded);
    if (waitNeeded)
        stream.waitForCompletion();
    return labelCount;
}

}} // namespace cv::cuda
