// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cv::cuda::ConnectedComponentsAnalyzer: settings checked at creation, the free function's results on a
// stream of images (sizes, label counts, output kinds, label types and streams change between calls), and
// no allocation once it has grown: device (cudacca's pool and pinned memory, OpenCV's GpuMat allocator) and
// host (operator new, OpenCV's Mat allocator), counted around each call. applyBatch (issue 13, item 3): its
// argument checks, each frame against the CPU, CV_16U overflow named, no device allocation once grown.

#include "test_precomp.hpp"
#include "test_utils.hpp"
#include "../src/allocation_count.hpp"
#include "../src/host_staging.hpp"

#include "opencv2/core/cuda_stream_accessor.hpp"

#include <atomic>
#include <functional>
#include <cstdlib>
#include <new>

// ---- host allocations of this thread: operator new, replaced for the whole test program -------------------
namespace {
thread_local bool countingNew = false;
std::atomic<size_t> newCalls(0);
void* countedNew(size_t n)
{
    if (countingNew)
        ++newCalls;
    void* p = std::malloc(n ? n : 1);
    if (!p)
        throw std::bad_alloc();
    return p;
}
} // namespace
void* operator new(size_t n) { return countedNew(n); }
void* operator new[](size_t n) { return countedNew(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace opencv_test { namespace {

using namespace cudacca_test;

TEST(CUDACCA_Analyzer, SettingsCheckedAtCreation)
{
    // No device needed: the settings are checked before anything else.
    auto expectError = [](int algorithm, int connectivity, int ltype, int code, const char* word) {
        try
        {
            cv::cuda::createConnectedComponentsAnalyzer(algorithm, connectivity, ltype);
            ADD_FAILURE() << "no exception for " << word;
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(code, e.code) << e.what();
            EXPECT_NE(std::string::npos, e.err.find(word)) << e.err;
        }
    };
    expectError(cv::cuda::CCA_DEFAULT, 6, CV_32S, cv::Error::StsBadArg, "connectivity");
    expectError(cv::cuda::CCA_DEFAULT, 8, CV_8U, cv::Error::StsUnsupportedFormat, "ltype");
    expectError(12345, 8, CV_32S, cv::Error::StsBadArg, "algorithm");
    expectError(cv::cuda::CCA_BKE, 4, CV_32S, cv::Error::StsBadArg, "connectivity 4");
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
        cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_FLSL, 4, CV_16U);
    EXPECT_EQ(cv::cuda::CCA_FLSL, a->getAlgorithm());
    EXPECT_EQ(4, a->getConnectivity());
    EXPECT_EQ(CV_16U, a->getLType());
    EXPECT_EQ(0u, a->getMemoryBytes());
}

TEST(CUDACCA_Analyzer, BadArgumentsBeforeAnyGpuWork)
{
    // As the free function: the image checked first (no device needed), outputs untouched.
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
    cv::Mat labels(3, 3, CV_32SC1, cv::Scalar(kPoisonLabel32)), before = labels.clone();
    try
    {
        a->apply(cv::Mat(4, 4, CV_16UC1, cv::Scalar(1)), labels, cv::noArray(), cv::noArray());
        ADD_FAILURE() << "no exception for a CV_16UC1 image";
    }
    catch (const cv::Exception& e)
    {
        EXPECT_EQ(cv::Error::StsUnsupportedFormat, e.code);
        EXPECT_NE(std::string::npos, e.err.find("image")) << e.err;
    }
    EXPECT_TRUE(bytesEqual(before, labels));
    if (cudaDeviceCount() <= 0)
    {
        try
        {
            a->apply(cv::Mat(4, 4, CV_8UC1, cv::Scalar(1)), labels, cv::noArray(), cv::noArray());
            ADD_FAILURE() << "no exception without a device";
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(cv::Error::GpuNotSupported, e.code) << e.what();
        }
    }
}

//! One call of the analyzer on `img` with GpuMat (or host) outputs that it may reuse, checked against the CPU.
::testing::AssertionResult applyMatchesCpu(cv::cuda::ConnectedComponentsAnalyzer& a, const cv::Mat& img, bool hostOutputs,
                                           cv::cuda::GpuMat& dl, cv::cuda::GpuMat& ds, cv::cuda::GpuMat& dc,
                                           cv::Mat& hl, cv::Mat& hs, cv::Mat& hc, cv::cuda::Stream& stream)
{
    const CCResult ref = cpuReference(img, a.getConnectivity());
    if (overflows(ref, a.getLType()))
        return ::testing::AssertionSuccess();
    cv::cuda::GpuMat d;
    d.upload(img);
    HostResult got;
    if (hostOutputs)
    {
        got.n = a.apply(d, hl, hs, hc, stream);
        got.labels = hl.clone();
        got.stats = hs.clone();
        got.centroids = hc.clone();
    }
    else
    {
        got.n = a.apply(d, dl, ds, dc, stream);
        stream.waitForCompletion();
        got = download(got.n, dl, ds, dc);
    }
    return matchesCpu(ref, a.getLType(), got);
}

TEST(CUDACCA_Analyzer, SameAsTheCpuOnAStreamOfImages)
{
    // Every algorithm x connectivity x label type: one analyzer each, fed images whose size, density and
    // label count change, alternating GpuMat and host outputs (kept from call to call, so that the outputs it
    // handed out are passed back to it) and two streams.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    std::vector<cv::Mat> images;
    const cv::Size sizes[] = { {640, 480}, {17, 1}, {1, 23}, {333, 777}, {640, 480}, {1024, 64}, {64, 1024} };
    for (int i = 0; i < 14; ++i)
        images.push_back(randomBlockImage(sizes[i % 7], 0.1 + 0.06 * i, 1 + (i % 3) * 3, rng));
    images.push_back(cv::Mat(200, 300, CV_8UC1, cv::Scalar(9)));
    images.push_back(cv::Mat::zeros(50, 60, CV_8UC1));
    cv::cuda::Stream streams[2];
    for (const auto& cfg : algorithmConnectivities())
        for (int ltype : testedLabelTypes())
        {
            SCOPED_TRACE(algorithmName(cfg.first) + " " + std::to_string(cfg.second) + "-conn " + ltypeName(ltype));
            cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
                cv::cuda::createConnectedComponentsAnalyzer(cfg.first, cfg.second, ltype);
            cv::cuda::GpuMat dl, ds, dc;
            cv::Mat hl, hs, hc;
            FailureBudget budget(3);
            for (size_t i = 0; i < images.size(); ++i)
            {
                SCOPED_TRACE(cv::format("image %d (%dx%d)", (int)i, images[i].cols, images[i].rows));
                if (!budget.record(applyMatchesCpu(*a, images[i], i % 3 == 2, dl, ds, dc, hl, hs, hc, streams[i % 2])))
                    break;
            }
            EXPECT_GT(a->getMemoryBytes(), 0u);
            a->releaseMemory();
            EXPECT_EQ(0u, a->getMemoryBytes() > sizeof(int) ? a->getMemoryBytes() : 0u) << "after releaseMemory()";
            EXPECT_TRUE(applyMatchesCpu(*a, images[0], false, dl, ds, dc, hl, hs, hc, streams[0])) << "after releaseMemory()";
        }
}

TEST(CUDACCA_LaunchGraphs, ReplaysSameAsTheCpu)
{
    // The run pipeline's work before the wait for N, replayed as a CUDA graph once a call repeats an earlier one
    // (src/cuda/launch_recording.hpp), forced on: one input GpuMat whose pixels change at every call (a replay must
    // read the image as it is now), the outputs kept (the same buffers, so the recordings repeat) and poisoned in
    // place before each call, two streams, GpuMat and host outputs in turn; the free function (its kept arena) and
    // an analyzer, the FLSL family (OTF waits for its run count: the recording ends there) and CCA_DEFAULT's
    // pipeline, both connectivities. Every call against the CPU; the graphs must have been replayed.
    skipIfNoCudaDevice();
    struct Restore
    {
        ~Restore() { cv::cuda::cudacca::setLaunchGraphs(-1); }
    } restore;
    cv::cuda::cudacca::setLaunchGraphs(1);
    std::mt19937 rng(testSeed());
    cv::cuda::Stream streams[2];
    struct Case
    {
        int algorithm;
        cv::Size size;
    };
    const Case cases[] = { { cv::cuda::CCA_FLSL_CD, { 640, 480 } }, { cv::cuda::CCA_FLSL, { 333, 257 } },
                           { cv::cuda::CCA_FLSL_OTF, { 512, 384 } }, { cv::cuda::CCA_DEFAULT, { 2048, 1100 } } };
    size_t made = 0;
    for (const Case& k : cases)
        for (int connectivity : supportedConnectivities(k.algorithm))
            for (bool analyzer : { false, true })
            {
                SCOPED_TRACE(algorithmName(k.algorithm) + " " + std::to_string(connectivity) + "-conn " +
                             (analyzer ? "analyzer" : "free function") + " " + sz(k.size));
                cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
                    cv::cuda::createConnectedComponentsAnalyzer(k.algorithm, connectivity, CV_32S);
                cv::cuda::GpuMat image(k.size, CV_8UC1), dl, ds, dc;
                cv::Mat hl, hs, hc;
                size_t made0 = 0, replayed0 = 0, made1 = 0, replayed1 = 0;
                cv::cuda::cudacca::launchGraphCounts(made0, replayed0);
                FailureBudget budget(2);
                for (int i = 0; i < 10; ++i)
                {
                    const cv::Mat img = randomBlockImage(k.size, 0.05 + 0.09 * i, 1 + (i % 3), rng);
                    SCOPED_TRACE(cv::format("call %d", i));
                    const void* before = image.data;
                    image.upload(img);
                    ASSERT_EQ(before, (const void*)image.data) << "the input GpuMat kept its memory";
                    const CCResult ref = cpuReference(img, connectivity);
                    cv::cuda::Stream& stream = streams[i % 2];
                    const bool host = i % 4 >= 2;
                    HostResult got;
                    if (host)
                    {
                        for (cv::Mat* m : { &hl, &hs, &hc })
                            if (!m->empty())
                                m->setTo(cv::Scalar::all(-3));
                        got.n = analyzer ? a->apply(image, hl, hs, hc, stream)
                                         : cv::cuda::connectedComponentsWithStats(image, hl, hs, hc, connectivity, CV_32S,
                                                                                  k.algorithm, stream);
                        got.labels = hl.clone();
                        got.stats = hs.clone();
                        got.centroids = hc.clone();
                    }
                    else
                    {
                        for (cv::cuda::GpuMat* m : { &dl, &ds, &dc })
                            if (!m->empty())
                                m->setTo(cv::Scalar::all(-3), stream);
                        got.n = analyzer ? a->apply(image, dl, ds, dc, stream)
                                         : cv::cuda::connectedComponentsWithStats(image, dl, ds, dc, connectivity, CV_32S,
                                                                                  k.algorithm, stream);
                        stream.waitForCompletion();
                        got = download(got.n, dl, ds, dc);
                    }
                    if (!budget.record(matchesCpu(ref, CV_32S, got)))
                        break;
                }
                cv::cuda::cudacca::launchGraphCounts(made1, replayed1);
                // (A key changes when the arena grows or merges its chunks, so not every repeat replays; a graph made
                // for an earlier case may serve this one: FLSL_OTF's work before its run-count wait is the same for
                // both connectivities.)
                EXPECT_GE(replayed1 - replayed0, 2u) << "graphs launched";
                made += made1 - made0;
            }
    EXPECT_GE(made, 4u) << "graphs made";
}

TEST(CUDACCA_Analyzer, OutlivesTheStreamsItWasGiven)
{
    // Each call on a stream that is destroyed right after it, growing images (the arena merges its chunks
    // on the next stream), then releaseMemory() and the analyzer's end: nothing may touch a dead stream
    // (the driver crashed in cuMemFreeAsync when the arena freed its chunks on the last call's stream).
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    for (bool releaseFirst : { true, false })
    {
        cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT);
        for (int side : { 64, 300, 900 })
        {
            cv::cuda::GpuMat dl, ds, dc;
            cv::Mat hl, hs, hc;
            cv::cuda::Stream stream;
            EXPECT_TRUE(applyMatchesCpu(*a, randomBlockImage(cv::Size(side, side), 0.4, 1, rng), side == 300,
                                        dl, ds, dc, hl, hs, hc, stream)) << side;
        }
        if (releaseFirst)
            a->releaseMemory();
    }
}

/** Counts GpuMat and Mat allocations. Installed once as the default allocators for the rest of the program
and never destroyed: a Mat or GpuMat allocated through it keeps a pointer to it and may outlive any test. */
struct CountingAllocators
{
    struct Gpu : cv::cuda::GpuMat::Allocator
    {
        cv::cuda::GpuMat::Allocator* base = cv::cuda::GpuMat::defaultAllocator();
        std::atomic<size_t> calls{0};
        bool allocate(cv::cuda::GpuMat* m, int rows, int cols, size_t elemSize) CV_OVERRIDE
        {
            ++calls;
            return base->allocate(m, rows, cols, elemSize);
        }
        void free(cv::cuda::GpuMat* m) CV_OVERRIDE { base->free(m); }
    } gpu;
    struct Host : cv::MatAllocator
    {
        const cv::MatAllocator* base = cv::Mat::getStdAllocator();
        mutable std::atomic<size_t> calls{0};
        cv::UMatData* allocate(int dims, const int* sizes, int type, void* data, size_t* step, cv::AccessFlag flags,
                               cv::UMatUsageFlags usage) const CV_OVERRIDE
        {
            ++calls;
            return base->allocate(dims, sizes, type, data, step, flags, usage);
        }
        bool allocate(cv::UMatData* u, cv::AccessFlag flags, cv::UMatUsageFlags usage) const CV_OVERRIDE
        {
            return base->allocate(u, flags, usage);
        }
        void deallocate(cv::UMatData* u) const CV_OVERRIDE { base->deallocate(u); }
    } host;

    static CountingAllocators& installed()
    {
        static CountingAllocators* c = [] {
            CountingAllocators* p = new CountingAllocators;
            cv::cuda::GpuMat::setDefaultAllocator(&p->gpu);
            cv::Mat::setDefaultAllocator(&p->host);
            return p;
        }();
        return *c;
    }
};

TEST(CUDACCA_HostStaging, HoldsTheRowsItGrewFor)
{
    // The staging grows to a frame's N rows; a later frame of N labels must find them there (not N - 1: it
    // would then take the copy after the kernel every time). No GPU needed.
    using cv::cuda::cudacca::stagingBytes;
    using cv::cuda::cudacca::stagingRowsIn;
    for (size_t n = 0; n < 70000; n += (n < 300 ? 1 : 97))
    {
        const size_t rows = stagingRowsIn(stagingBytes(n));
        ASSERT_GE(rows, n) << n << " rows";
        ASSERT_LE(stagingBytes(rows), stagingBytes(n)) << n << " rows"; // and no more than the memory holds
        ASSERT_GT(stagingBytes(rows + 1), stagingBytes(n)) << n << " rows"; // the most it holds
    }
}

TEST(CUDACCA_Analyzer, NoAllocationInSteadyState)
{
    // Frames of one size whose label count changes (N from a few to thousands): once the analyzer has seen
    // the largest, a call allocates nothing, with GpuMat outputs and with host outputs.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    std::vector<cv::cuda::GpuMat> frames;
    for (double d : { 0.3, 0.05, 0.6, 0.95, 0.3, 0.45, 0.1, 0.75 })
    {
        frames.emplace_back();
        frames.back().upload(randomBlockImage(cv::Size(512, 512), d, 1, rng));
    }
    for (int algorithm : { cv::cuda::CCA_DEFAULT, cv::cuda::CCA_BKE })
        for (bool hostOutputs : { false, true })
        {
            SCOPED_TRACE(algorithmName(algorithm) + (hostOutputs ? " host outputs" : " GpuMat outputs"));
            cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(algorithm);
            cv::cuda::Stream stream;
            cv::cuda::GpuMat dl, ds, dc;
            cv::Mat hl, hs, hc;
            auto call = [&](const cv::cuda::GpuMat& f) {
                if (hostOutputs)
                    a->apply(f, hl, hs, hc, stream);
                else
                    a->apply(f, dl, ds, dc, stream);
            };
            for (int round = 0; round < 2; ++round) // warm-up: every frame, twice (the arena merges its chunks)
                for (const auto& f : frames)
                    call(f);
            stream.waitForCompletion();
            const size_t memory = a->getMemoryBytes();
            CountingAllocators& counting = CountingAllocators::installed();
            const size_t gpu0 = counting.gpu.calls.load(), host0 = counting.host.calls.load();
            const size_t cuda0 = cv::cuda::cudacca::cudaAllocationCount();
            newCalls = 0;
            countingNew = true;
            for (int round = 0; round < 3; ++round)
                for (const auto& f : frames)
                    call(f);
            countingNew = false;
            stream.waitForCompletion();
            EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - cuda0) << "cudacca's device or pinned allocations";
            EXPECT_EQ(0u, counting.gpu.calls.load() - gpu0) << "GpuMat allocations";
            EXPECT_EQ(0u, counting.host.calls.load() - host0) << "Mat allocations";
            EXPECT_EQ(0u, newCalls.load()) << "operator new";
            EXPECT_EQ(memory, a->getMemoryBytes());
            std::cout << "[ MEMORY   ] analyzer " << algorithmName(algorithm) << (hostOutputs ? " host" : " GpuMat")
                      << " outputs, 512x512 frames: holds " << memory << " bytes" << std::endl;
        }
}

// ---- applyBatch (issue 13, item 3) ------------------------------------------------------------------------

TEST(CUDACCA_Batch, BadArgumentsNamedBeforeAnyGpuWork)
{
    // Runs with and without a device: each case fails its argument check, naming the argument or the element,
    // and the output vectors are left as they were.
    const cv::cuda::GpuMat a0 = fakeGpuMat(48, 64, CV_8UC1, 0x100000), a1 = fakeGpuMat(30, 20, CV_8UC1, 0x200000);
    const std::vector<cv::cuda::GpuMat> images = { a0, a1 };
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
    cv::cuda::Stream null = cv::cuda::StreamAccessor::wrapStream(nullptr); // Stream::Null() needs a driver
    std::vector<cv::cuda::GpuMat> labels(1), stats(1), centroids(1);
    std::vector<cv::Mat> hostLabels(1), hostStats(1);
    std::vector<int> counts = { 7 };
    const std::vector<RefusalCase> cases = {
        { "one GpuMat", [&] { a->applyBatch(a0, labels, stats, centroids, counts, null); }, cv::Error::StsBadArg, "images" },
        { "host images", [&] { a->applyBatch(std::vector<cv::Mat>{ cv::Mat(4, 4, CV_8UC1) }, labels, stats, centroids, counts,
              null); }, cv::Error::StsBadArg, "images" },
        { "an image of another type", [&] { a->applyBatch(std::vector<cv::cuda::GpuMat>{ a0, fakeGpuMat(8, 8, CV_16UC1, 0x300000) },
              labels, stats, centroids, counts, null); }, cv::Error::StsUnsupportedFormat, "images[1]" },
        { "an empty image", [&] { a->applyBatch(std::vector<cv::cuda::GpuMat>{ a0, a1, cv::cuda::GpuMat() }, labels, stats,
              centroids, counts, null); }, cv::Error::StsBadArg, "images[2]" },
        { "host labels", [&] { a->applyBatch(images, hostLabels, stats, centroids, counts, null); }, cv::Error::StsBadArg, "labels" },
        { "stats one GpuMat", [&] { a->applyBatch(images, labels, stats[0], centroids, counts, null); }, cv::Error::StsBadArg, "stats" },
        { "centroids one Mat", [&] { cv::Mat c; a->applyBatch(images, labels, hostStats, c, counts, null); }, cv::Error::StsBadArg,
          "centroids" },
        { "labels over an image", [&] {
              std::vector<cv::cuda::GpuMat> over = { fakeGpuMat(48, 64, CV_32SC1, 0x200000 - 64) };
              a->applyBatch(images, over, stats, centroids, counts, null); }, cv::Error::StsBadArg, "labels[0]" },
    };
    expectRefusals(cases, [&] {
        EXPECT_EQ(1u, labels.size());
        EXPECT_EQ(1u, stats.size());
        EXPECT_TRUE(labels[0].empty() && stats[0].empty() && centroids[0].empty());
        EXPECT_EQ(std::vector<int>{ 7 }, counts);
    });
}

//! Frame k of a batch against the CPU: labels (unless not asked for), stats and centroids (device or host).
::testing::AssertionResult batchFrameMatchesCpu(const CCResult& ref, int ltype, int n, const cv::cuda::GpuMat* labels,
                                                const cv::_InputArray& stats, const cv::_InputArray& centroids)
{
    HostResult got;
    got.n = n;
    if (labels)
        labels->download(got.labels);
    if (stats.kind() == cv::_InputArray::CUDA_GPU_MAT)
        stats.getGpuMat().download(got.stats);
    else
        got.stats = stats.getMat();
    if (centroids.kind() == cv::_InputArray::CUDA_GPU_MAT)
        centroids.getGpuMat().download(got.centroids);
    else
        got.centroids = centroids.getMat();
    if (!labels)
        got.labels = expectedLabels(ref, ltype);
    return matchesCpu(ref, ltype, got);
}

TEST(CUDACCA_Batch, EveryFrameSameAsTheCpu)
{
    // Batches of images of different sizes (one above the one-launch limit, some of one pixel), both
    // connectivities and label types, stats and centroids on the device or the host: each frame equals the CPU.
    // Six calls per analyzer: the first ones stage too few rows (frames labeled again one by one), the later ones
    // not; CCA_BKE takes every frame one by one. Labels are given poisoned in place for some frames.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    // Mixed sizes: one kernel per frame (and one call for the frame above 2^21 pixels); one size: one kernel for
    // the batch (333 x 257: rows padded to whole tiles, columns not a whole tile).
    const std::vector<cv::Size> mixed = { cv::Size(640, 480), cv::Size(1, 1), cv::Size(333, 777), cv::Size(1500, 1500),
                                          cv::Size(17, 1), cv::Size(512, 512), cv::Size(64, 1024) };
    const std::vector<cv::Size> same(5, cv::Size(333, 257));
    for (int algorithm : { cv::cuda::CCA_DEFAULT, cv::cuda::CCA_BKE })
        for (int connectivity : { 4, 8 })
            for (int ltype : testedLabelTypes())
                for (bool hostOutputs : { false, true })
                {
                    if (algorithm == cv::cuda::CCA_BKE && connectivity == 4)
                        continue; // BKE is 8-connectivity only
                    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
                        cv::cuda::createConnectedComponentsAnalyzer(algorithm, connectivity, ltype);
                    cv::cuda::Stream stream;
                    for (int call = 0; call < 6; ++call)
                    {
                        const std::vector<cv::Size>& sizes = call % 2 ? same : mixed;
                        SCOPED_TRACE(cv::format("%s, %d-connectivity, %s, %s outputs, call %d (%s sizes)", algorithmName(algorithm).c_str(),
                                                connectivity, ltypeName(ltype).c_str(), hostOutputs ? "host" : "GpuMat", call,
                                                call % 2 ? "one" : "mixed"));
                        std::vector<cv::cuda::GpuMat> images;
                        std::vector<CCResult> refs;
                        for (const cv::Size& size : sizes)
                        {
                            // (CV_16U: granularity 4 keeps the label count under 65536)
                            const cv::Mat img = randomBlockImage(size, 0.2 + 0.15 * (rng() % 5),
                                                                 (ltype == CV_16U ? 4 : 1) + static_cast<int>(rng() % 3), rng);
                            refs.push_back(cpuReference(img, connectivity));
                            images.emplace_back(img);
                        }
                        std::vector<cv::cuda::GpuMat> labels(images.size()), stats(2), centroids;
                        std::vector<cv::Mat> hostStats, hostCentroids(1);
                        labels[0].upload(poisonedLabels(sizes[0], ltype)); // written in place
                        labels[2].upload(poisonedLabels(sizes[2], ltype));
                        stats[1].upload(poisonedStats(3));                  // too small: replaced
                        std::vector<int> counts;
                        if (hostOutputs)
                            a->applyBatch(images, labels, hostStats, hostCentroids, counts, stream);
                        else
                            a->applyBatch(images, call / 2 == 1 ? cv::_OutputArray(cv::noArray()) : cv::_OutputArray(labels),
                                          stats, centroids, counts, stream);
                        stream.waitForCompletion();
                        ASSERT_EQ(images.size(), counts.size());
                        for (size_t k = 0; k < images.size(); ++k)
                        {
                            SCOPED_TRACE(cv::format("frame %zu, %dx%d, N = %d", k, sizes[k].width, sizes[k].height, refs[k].n));
                            const bool withLabels = hostOutputs || call / 2 != 1;
                            if (hostOutputs)
                                EXPECT_TRUE(batchFrameMatchesCpu(refs[k], ltype, counts[k], &labels[k], hostStats[k], hostCentroids[k]));
                            else
                                EXPECT_TRUE(batchFrameMatchesCpu(refs[k], ltype, counts[k], withLabels ? &labels[k] : nullptr,
                                                                 stats[k], centroids[k]));
                        }
                    }
                }
    // An empty batch is no error.
    std::vector<int> counts = { 1 };
    std::vector<cv::cuda::GpuMat> none, l;
    cv::cuda::createConnectedComponentsAnalyzer()->applyBatch(none, l, cv::noArray(), cv::noArray(), counts, cv::cuda::Stream::Null());
    EXPECT_TRUE(counts.empty() && l.empty());
}

TEST(CUDACCA_Batch, TooManyLabelsFor16UNamesTheImage)
{
    // A 512x512 checkerboard (131072 labels with 4-connectivity) after a small frame (one kernel per frame) and
    // after a frame of its size (one kernel for the batch).
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    for (const cv::Size first : { cv::Size(64, 64), cv::Size(512, 512) })
    {
        SCOPED_TRACE(cv::format("first frame %dx%d", first.width, first.height));
        const std::vector<cv::cuda::GpuMat> images = { cv::cuda::GpuMat(randomBlockImage(first, 0.5, 4, rng)),
                                                       cv::cuda::GpuMat(checkerboard(cv::Size(512, 512))) };
        cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT, 4, CV_16U);
        std::vector<cv::cuda::GpuMat> labels(2), stats, centroids;
        labels[1].upload(poisonedLabels(cv::Size(512, 512), CV_16U));
        std::vector<int> counts;
        try
        {
            a->applyBatch(images, labels, stats, centroids, counts, cv::cuda::Stream::Null());
            ADD_FAILURE() << "no exception";
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(cv::Error::StsOutOfRange, e.code) << e.what();
            EXPECT_NE(std::string::npos, e.err.find("images[1]")) << e.err;
        }
        cv::Mat l1;
        labels[1].download(l1);
        EXPECT_TRUE(bytesEqual(poisonedLabels(cv::Size(512, 512), CV_16U), l1)) << "the refused frame's labels are untouched";
    }
}

TEST(CUDACCA_Batch, NoDeviceAllocationInSteadyState)
{
    // 16 frames of 512x512 whose label counts change: once the analyzer has seen the batch, a batch call makes
    // no CUDA, GpuMat or Mat allocation (its host bookkeeping, a few std::vectors, is not counted).
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    std::vector<cv::cuda::GpuMat> frames;
    for (int k = 0; k < 16; ++k)
        frames.emplace_back(randomBlockImage(cv::Size(512, 512), 0.05 + 0.06 * k, 1 + k % 3, rng));
    for (bool hostOutputs : { false, true })
    {
        SCOPED_TRACE(hostOutputs ? "host outputs" : "GpuMat outputs");
        cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
        cv::cuda::Stream stream;
        std::vector<cv::cuda::GpuMat> labels, stats, centroids;
        std::vector<cv::Mat> hostStats, hostCentroids;
        std::vector<int> counts;
        auto call = [&] {
            if (hostOutputs)
                a->applyBatch(frames, labels, hostStats, hostCentroids, counts, stream);
            else
                a->applyBatch(frames, labels, stats, centroids, counts, stream);
        };
        for (int round = 0; round < 3; ++round)
            call();
        CountingAllocators& counting = CountingAllocators::installed();
        const size_t gpu0 = counting.gpu.calls.load(), host0 = counting.host.calls.load();
        const size_t cuda0 = cv::cuda::cudacca::cudaAllocationCount();
        const size_t memory = a->getMemoryBytes();
        for (int round = 0; round < 3; ++round)
            call();
        stream.waitForCompletion();
        EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - cuda0) << "cudacca's device or pinned allocations";
        EXPECT_EQ(0u, counting.gpu.calls.load() - gpu0) << "GpuMat allocations";
        EXPECT_EQ(0u, counting.host.calls.load() - host0) << "Mat allocations";
        EXPECT_EQ(memory, a->getMemoryBytes());
        std::cout << "[ MEMORY   ] analyzer DEFAULT batch of 16 512x512 frames, " << (hostOutputs ? "host" : "GpuMat")
                  << " outputs: holds " << memory << " bytes" << std::endl;
    }
}

TEST(CUDACCA_HostMem, OutputsAccepted)
{
    // cv::cuda::HostMem outputs (pinned: the downloads are asynchronous copies) pass the argument checks;
    // without a device the call then reports the missing device, not a bad argument.
    if (cudaDeviceCount() > 0)
        return; // CUDACCA_HostMem.SameAsTheCpu covers the GPU
    cv::cuda::HostMem l, s, c;
    try
    {
        cv::cuda::connectedComponentsWithStats(cv::Mat(8, 8, CV_8UC1, cv::Scalar(1)), l, s, c);
        ADD_FAILURE() << "no exception without a device";
    }
    catch (const cv::Exception& e)
    {
        EXPECT_EQ(cv::Error::GpuNotSupported, e.code) << e.what();
    }
}

TEST(CUDACCA_HostMem, SameAsTheCpu)
{
    // Labels, stats and centroids into HostMem, from the function and from an analyzer, every label type.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    for (int i = 0; i < 4; ++i)
    {
        const cv::Mat img = randomBlockImage(cv::Size(300 + 17 * i, 200), 0.2 + 0.2 * i, 1 + i, rng);
        for (int ltype : testedLabelTypes())
        {
            const CCResult ref = cpuReference(img, 8);
            if (overflows(ref, ltype))
                continue;
            SCOPED_TRACE(cv::format("image %d, %s", i, ltypeName(ltype).c_str()));
            cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(
                cv::cuda::CCA_DEFAULT, 8, ltype);
            for (bool analyzer : { false, true })
            {
                cv::cuda::HostMem l, s, c;
                HostResult got;
                got.n = analyzer ? a->apply(img, l, s, c)
                                 : cv::cuda::connectedComponentsWithStats(img, l, s, c, 8, ltype);
                got.labels = l.createMatHeader().clone();
                got.stats = s.createMatHeader().clone();
                got.centroids = c.createMatHeader().clone();
                EXPECT_TRUE(matchesCpu(ref, ltype, got)) << (analyzer ? "analyzer" : "function");
            }
        }
    }
}

TEST(CUDACCA_HostMem, ImageSameAsTheCpu)
{
    // A HostMem image (pinned already: uploaded from where it is, not through a staging copy) below and above the
    // staging's 512 KB, into host and GpuMat outputs; the image unchanged.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { cv::Size(400, 300), cv::Size(1024, 600), cv::Size(1500, 1100) };
    for (const cv::Size& size : sizes)
    {
        const cv::Mat img = randomBlockImage(size, 0.45, 1 + static_cast<int>(rng() % 4), rng);
        cv::cuda::HostMem pinned(size, CV_8UC1);
        img.copyTo(pinned.createMatHeader());
        const CCResult ref = cpuReference(img, 8);
        SCOPED_TRACE(cv::format("%dx%d", size.width, size.height));
        for (int algorithm : { cv::cuda::CCA_DEFAULT, cv::cuda::CCA_BKE })
        {
            HostResult got;
            got.n = cv::cuda::connectedComponentsWithStats(pinned, got.labels, got.stats, got.centroids, 8, CV_32S,
                                                           algorithm);
            EXPECT_TRUE(matchesCpu(ref, CV_32S, got)) << "host outputs, algorithm " << algorithm;
            cv::cuda::GpuMat l, s, c;
            const int n = cv::cuda::connectedComponentsWithStats(pinned, l, s, c, 8, CV_32S, algorithm);
            EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, l, s, c))) << "GpuMat outputs, algorithm " << algorithm;
        }
        EXPECT_EQ(0, cvtest::norm(img, pinned.createMatHeader(), cv::NORM_INF)) << "the image was changed";
    }
}

}} // namespace opencv_test::<anonymous>
