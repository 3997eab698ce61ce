// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cv::cuda::ConnectedComponentsAnalyzer: the call of connected_components.cpp with resources kept from call to
// call (issue 13, item 2): the algorithm's stages, an Arena for every temporary device buffer and for the
// stats and centroids it hands out, a PinnedArena for host stats and centroids, a pinned int and an event
// for the number of labels. Once the arenas have grown, a call allocates nothing.

#include "precomp.hpp"
#include "arguments.hpp"
#include "pipeline.hpp"

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
        if (copied_)
            cudaEventDestroy(copied_);
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
        if (!count_)
        {
            countPinnedAllocation();
            checkCuda(cudaHostAlloc(reinterpret_cast<void**>(&count_), sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped),
                      "cudaHostAlloc (analyzer count)");
            checkCuda(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming), "cudaEventCreateWithFlags (analyzer)");
        }
        CallResources r;
        r.row = &row_;
        r.algorithm = &stages_;
        r.pinnedCount = count_;
        r.countCopied = copied_;
        r.arena = &arena_;
        r.hostOutputs = &pinned_;
        r.defaultAlgorithm = algorithm_ == CCA_DEFAULT;
        const cudaStream_t s = StreamAccessor::getStream(stream);
        arena_.beginCall(s);
        try
        {
            int n;
            {
                ArenaScope scope(arena_);
                n = connectedComponents(image, labels, stats, centroids, connectivity_, ltype_, stream, r);
            }
            arena_.endCall(s);
            return n;
        }
        catch (const cv::Exception& e)
        {
            // The work queued so far still uses the arena: the next call (or release) waits for it.
            try
            {
                arena_.endCall(s);
                if (e.code == Error::StsNoMem) // hold nothing after running out of memory
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

    size_t getMemoryBytes() const CV_OVERRIDE
    {
        return arena_.bytes() + pinned_.bytes() + (count_ ? sizeof(int) : 0);
    }

    void releaseMemory() CV_OVERRIDE
    {
        arena_.release();
        pinned_.release();
    }

    int getAlgorithm() const CV_OVERRIDE { return algorithm_; }
    int getConnectivity() const CV_OVERRIDE { return connectivity_; }
    int getLType() const CV_OVERRIDE { return ltype_; }

private:
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
    cudaEvent_t copied_ = nullptr;
};

} // namespace

Ptr<ConnectedComponentsAnalyzer> createConnectedComponentsAnalyzer(int algorithm, int connectivity, int ltype)
{
    return makePtr<ConnectedComponentsAnalyzerImpl>(algorithm, connectivity, ltype);
}

}} // namespace cv::cuda
