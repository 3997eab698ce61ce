// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cv::cuda::ConnectedComponentsAnalyzer: the call of connected_components.cpp with resources kept from call to
// call (issue 13, item 2): the algorithm's stages, an Arena for every temporary device buffer and for the
// stats and centroids it hands out, a PinnedArena for host stats and centroids, a pinned int and an event
// for the number of labels. Once the arenas have grown, a call allocates nothing.

#include "precomp.hpp"
#include "arguments.hpp"
#include "one_launch.hpp"
#include "pipeline.hpp"

#include <climits>
#include <limits>

namespace cv { namespace cuda {

namespace {

using namespace cudacca;

class ConnectedComponentsAnalyzerImpl CV_FINAL : public ConnectedComponentsAnalyzer
{
public:
    ConnectedComponentsAnalyzerImpl(int algorithm, int connectivity, int ltype)
        : algorithm_(algorithm), connectivity_(connectivity), ltype_(ltype),
          row_(checkSettings(connectivity, ltype, algorithm)), stages_(instantiate(row_, connectivity))
    {
    }

    ~ConnectedComponentsAnalyzerImpl() CV_OVERRIDE
    {
        releaseAsyncScratch();
        if (countReady_)
            cudaEventDestroy(countReady_);
        if (count_)
            cudaFreeHost(count_);
    }

    int apply(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids) CV_OVERRIDE
    {
        // Arguments and device first: Stream::Null() needs a driver (see connectedComponentsWithStats).
        checkArguments(image, labels, stats, centroids, connectivity_, ltype_, algorithm_);
        requireDevice();
        return apply(image, labels, stats, centroids, Stream::Null());
    }

    int apply(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
              Stream& stream) CV_OVERRIDE
    {
        CV_INSTRUMENT_REGION();
        checkArguments(image, labels, stats, centroids, connectivity_, ltype_, algorithm_);
        requireDevice();
        return call(stream, [&](CallResources& r) {
            return connectedComponents(image, labels, stats, centroids, connectivity_, ltype_, stream, r);
        });
    }

    void applyBatch(InputArrayOfArrays images, OutputArrayOfArrays labels, OutputArrayOfArrays stats,
                    OutputArrayOfArrays centroids, std::vector<int>& counts, Stream& stream) CV_OVERRIDE
    {
        CV_INSTRUMENT_REGION();
        checkBatchArguments(images, labels, stats, centroids);
        requireDevice();
        call(stream, [&](CallResources& r) {
            connectedComponentsBatch(images, labels, stats, centroids, counts, connectivity_, ltype_, stream, r, batchRows_);
            return 0;
        });
    }

    void applyAsync(InputArray image, InputOutputArray labels, InputOutputArray stats, InputOutputArray centroids,
                    InputOutputArray count, Stream& stream) CV_OVERRIDE
    {
        CV_INSTRUMENT_REGION();
        const int capacity = checkAsyncArguments(image, labels, stats, centroids, count, ltype_, algorithm_);
        requireDevice();
        const GpuMat img = image.getGpuMat();
        if (!oneLaunchAvailable(img.rows, img.cols))
            CV_Error(Error::StsNotImplemented, "applyAsync: this device cannot launch cooperative kernels");
        const cudaStream_t s = StreamAccessor::getStream(stream);
        const bool wantStats = stats.needed() || centroids.needed();
        const size_t need = oneLaunchScratchBytes(img.rows, img.cols, connectivity_, wantStats);
        if (asyncBytes_ < need)
        {
            // Not while the stream is captured: the graph would own the allocation (and a free).
            cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
            checkCuda(cudaStreamIsCapturing(s, &capturing), "cudaStreamIsCapturing");
            if (capturing != cudaStreamCaptureStatusNone)
                CV_Error_(Error::StsBadArg, ("image: a %dx%d image needs %zu bytes of the object's device memory, it holds "
                                             "%zu, and nothing is allocated while the stream is captured: call applyAsync "
                                             "once outside capture on an image of this size first",
                                             img.cols, img.rows, need, asyncBytes_));
            if (asyncScratch_)
                checkCuda(cudaFreeAsync(asyncScratch_, s), "cudaFreeAsync (applyAsync memory)");
            asyncScratch_ = nullptr;
            asyncBytes_ = 0;
            asyncScratch_ = allocateFromPool(need, s);
            asyncBytes_ = need;
        }
        const BinaryImage b = binaryImageOf(img);
        OneLaunchOutputs o;
        if (labels.needed())
        {
            const GpuMat l = labels.getGpuMat();
            o.labels = l.data;
            o.labelsStep = l.step;
        }
        o.labels16u = ltype_ == CV_16U;
        o.maxLabel = ltype_ == CV_16U ? USHRT_MAX : INT_MAX;
        o.wantStats = wantStats;
        if (stats.needed())
        {
            GpuMat m = stats.getGpuMat();
            o.stats = m.ptr<int>();
            o.statsStep = m.step;
        }
        if (centroids.needed())
        {
            GpuMat m = centroids.getGpuMat();
            o.centroids = m.ptr<double>();
            o.centroidsStep = m.step;
        }
        // Without stats and centroids there is nothing a capacity could cut short: status 1 never arises.
        o.capacity = wantStats ? capacity : INT_MAX;
        GpuMat countMat = count.getGpuMat();
        o.labelCountAndStatus = countMat.ptr<int>();
        oneLaunch(b, connectivity_, asyncScratch_, o, std::numeric_limits<double>::quiet_NaN(), s);
    }

    size_t getMemoryBytes() const CV_OVERRIDE
    {
        return arena_.bytes() + pinned_.bytes() + asyncBytes_ + (count_ ? sizeof(int) : 0);
    }

    void releaseMemory() CV_OVERRIDE
    {
        arena_.release();
        pinned_.release();
        releaseAsyncScratch();
    }

    int getAlgorithm() const CV_OVERRIDE { return algorithm_; }
    int getConnectivity() const CV_OVERRIDE { return connectivity_; }
    int getLType() const CV_OVERRIDE { return ltype_; }

private:
    /** The pinned count and its event, made by the first call. */
    void makeCount()
    {
        if (count_)
            return;
        countPinnedAllocation();
        checkCuda(cudaHostAlloc(reinterpret_cast<void**>(&count_), sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped),
                  "cudaHostAlloc (analyzer count)");
        checkCuda(cudaEventCreateWithFlags(&countReady_, cudaEventDisableTiming), "cudaEventCreateWithFlags (analyzer)");
    }

    /** What a call borrows from the object. */
    CallResources resources()
    {
        CallResources r;
        r.row = &row_;
        r.algorithm = &stages_;
        r.pinnedCount = count_;
        r.countReady = countReady_;
        r.arena = &arena_;
        r.hostOutputs = &pinned_;
        r.defaultAlgorithm = algorithmWithoutFlags(algorithm_) == CCA_DEFAULT;
        r.cclDefaultOrder = renumbersToCclDefault(algorithm_, connectivity_);
        return r;
    }

    /** One call of the object on `stream`: body(resources) with every device buffer taken from the arena. After
    a failure the work queued so far still uses the arena, so the next call (or release) waits for it; out of
    memory, the object holds nothing. */
    template <class Body>
    int call(Stream& stream, Body&& body)
    {
        makeCount();
        CallResources r = resources();
        const cudaStream_t s = StreamAccessor::getStream(stream);
        arena_.beginCall(s);
        try
        {
            int n;
            {
                ArenaScope scope(arena_);
                n = body(r);
            }
            arena_.endCall(s);
            return n;
        }
        catch (const cv::Exception& e)
        {
            try
            {
                arena_.endCall(s);
                if (e.code == Error::StsNoMem)
                {
                    releaseMemory();
                    trimTemporaryPool();
                }
            }
            catch (...)
            {
            }
            throw;
        }
    }

    /** applyAsync's memory: its calls are not tracked by events (graphs may replay them), so the device is
    waited for before it is freed. Freed stream-ordered into the pool it came from, on the per-thread stream as the
    arena does (the CUDACCA_Async tests check that the pool's memory in use returns to where it was). */
    void releaseAsyncScratch() noexcept
    {
        if (!asyncScratch_)
            return;
        cudaDeviceSynchronize();
        cudaFreeAsync(asyncScratch_, cudaStreamPerThread);
        cudaStreamSynchronize(cudaStreamPerThread);
        asyncScratch_ = nullptr;
        asyncBytes_ = 0;
    }

    static void requireDevice()
    {
        if (getCudaEnabledDeviceCount() <= 0)
            CV_Error(Error::GpuNotSupported, "cv::cuda::ConnectedComponentsAnalyzer::apply: no CUDA device is available");
    }

    const int algorithm_, connectivity_, ltype_;
    const AlgorithmRow& row_;
    Arena arena_;                  // declared before the stages, whose buffers point into it
    PinnedArena pinned_;
    AlgorithmInstance stages_;
    int* count_ = nullptr;         //!< pinned
    void* asyncScratch_ = nullptr; //!< applyAsync's device memory (from the pool)
    int batchRows_ = 0;            //!< rows of applyBatch's staging: what the last batch needed
    size_t asyncBytes_ = 0;
    cudaEvent_t countReady_ = nullptr;
};

} // namespace

Ptr<ConnectedComponentsAnalyzer> createConnectedComponentsAnalyzer(int algorithm, int connectivity, int ltype)
{
    return makePtr<ConnectedComponentsAnalyzerImpl>(algorithm, connectivity, ltype);
}

}} // namespace cv::cuda
