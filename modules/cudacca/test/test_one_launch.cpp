// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_DEFAULT's one-launch path (src/one_launch.hpp) where it differs from the pipelines: the size limit
// that chooses it, statistics that outgrow the host staging, CV_16U labels written straight into the
// caller's GpuMat (or not at all). Everything else is covered by the DEFAULT rows of every suite.

#include "test_precomp.hpp"
#include "test_utils.hpp"
#include "../src/one_launch.hpp"

#include "opencv2/core/cuda_stream_accessor.hpp"

#include <cuda_runtime_api.h>

#include <functional>

namespace opencv_test { namespace {

using namespace cudacca_test;

//! The free function with CCA_DEFAULT, GpuMat or host outputs, checked against the CPU.
::testing::AssertionResult defaultMatchesCpu(const cv::Mat& img, int connectivity, int ltype, bool hostOutputs)
{
    const CCResult ref = cpuReference(img, connectivity);
    HostResult got;
    if (hostOutputs)
    {
        got.n = cv::cuda::connectedComponentsWithStats(img, got.labels, got.stats, got.centroids, connectivity, ltype);
    }
    else
    {
        cv::cuda::GpuMat d(img), l, s, c;
        got = download(cv::cuda::connectedComponentsWithStats(d, l, s, c, connectivity, ltype), l, s, c);
    }
    return matchesCpu(ref, ltype, got);
}

TEST(CUDACCA_OneLaunch, BothSidesOfTheSizeLimit)
{
    // The largest images the path takes (kOneLaunchMaxPixels, as a band and as a single row), and the
    // smallest it leaves to FLSL_CD; a column of one pixel on both sides of the forest's limit (rows padded to 32
    // slots, at most 2 kOneLaunchMaxPixels): random images, both connectivities, GpuMat and host outputs.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const int limit = static_cast<int>(cv::cuda::cudacca::kOneLaunchMaxPixels);
    const cv::Size sizes[] = { { 2048, limit / 2048 }, { 2048, limit / 2048 + 1 }, { limit, 1 }, { 1, limit + 1 },
                               { 1, limit / 16 }, { 1, limit / 16 + 1 } };
    for (const cv::Size& size : sizes)
        for (int connectivity : { 4, 8 })
        {
            SCOPED_TRACE(cv::format("%dx%d, %d-connectivity", size.width, size.height, connectivity));
            const cv::Mat img = randomBlockImage(size, 0.45, 1 + static_cast<int>(rng() % 3), rng);
            EXPECT_TRUE(defaultMatchesCpu(img, connectivity, CV_32S, connectivity == 8));
        }
}

TEST(CUDACCA_OneLaunch, DeviceOutputsFollowedOnTheStream)
{
    // With every output a GpuMat, the call returns once the kernel has published N, while it may still be writing
    // the labels and statistics (connected_components.cpp, publishedCount): what is queued on the stream after the
    // call must see them whole. Calls chained on one stream into the same outputs, each followed at once by
    // asynchronous downloads into pinned memory (no wait in between), then one wait: every download equals the
    // CPU, and every N returned is right.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    cv::cuda::Stream stream;
    const int calls = 6;
    for (int connectivity : { 4, 8 })
        for (int ltype : { CV_32S, CV_16U })
        {
            SCOPED_TRACE(cv::format("%d-connectivity, %s", connectivity, ltypeName(ltype).c_str()));
            std::vector<cv::cuda::GpuMat> inputs;
            std::vector<CCResult> refs;
            for (int k = 0; k < calls; ++k)
            {
                const cv::Mat img = randomBlockImage(cv::Size(512, 384), 0.15 * (k + 1), 1 + k % 3, rng);
                refs.push_back(cpuReference(img, connectivity));
                inputs.emplace_back(img);
            }
            cv::cuda::GpuMat labels, stats, centroids;
            std::vector<cv::cuda::HostMem> hostLabels(calls), hostStats(calls), hostCentroids(calls);
            std::vector<int> counts(calls);
            for (int k = 0; k < calls; ++k)
            {
                counts[k] = cv::cuda::connectedComponentsWithStats(inputs[k], labels, stats, centroids, connectivity, ltype,
                                                                   cv::cuda::CCA_DEFAULT, stream);
                labels.download(hostLabels[k], stream);
                stats.download(hostStats[k], stream);
                centroids.download(hostCentroids[k], stream);
            }
            stream.waitForCompletion();
            for (int k = 0; k < calls; ++k)
            {
                HostResult got;
                got.n = counts[k];
                got.labels = hostLabels[k].createMatHeader();
                got.stats = hostStats[k].createMatHeader();
                got.centroids = hostCentroids[k].createMatHeader();
                EXPECT_TRUE(matchesCpu(refs[k], ltype, got)) << "call " << k;
            }
        }
}

TEST(CUDACCA_OneLaunch, MoreLabelsThanTheHostStaging)
{
    // 65 536 isolated pixels: more labels than the host staging's first size (16 384 rows), so the
    // statistics come from the device staging; the staging then grows (the function's, of this thread, and an
    // analyzer's), and the next call takes them from the host staging. Host Mat, HostMem and GpuMat outputs.
    skipIfNoCudaDevice();
    const cv::Mat img = isolatedPixels(cv::Size(512, 512), 256 * 256);
    const CCResult ref = cpuReference(img, 8);
    ASSERT_EQ(65537, ref.n);
    EXPECT_TRUE(defaultMatchesCpu(img, 8, CV_32S, true)) << "host outputs";
    EXPECT_TRUE(defaultMatchesCpu(img, 8, CV_32S, true)) << "host outputs again (the staging has grown)";
    EXPECT_TRUE(defaultMatchesCpu(img, 8, CV_32S, false));
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
    for (int call = 0; call < 3; ++call)
    {
        SCOPED_TRACE(cv::format("analyzer call %d", call));
        HostResult got;
        if (call < 2)
            got.n = a->apply(img, got.labels, got.stats, got.centroids);
        else
        {
            cv::cuda::HostMem l, s, c;
            got.n = a->apply(img, l, s, c);
            got.labels = l.createMatHeader().clone();
            got.stats = s.createMatHeader().clone();
            got.centroids = c.createMatHeader().clone();
        }
        EXPECT_TRUE(matchesCpu(ref, CV_32S, got));
    }
}

TEST(CUDACCA_OneLaunch, HostOutputsCopiedInPieces)
{
    // The free function copies large host stats and centroids out of its pinned staging in pieces on OpenCV's
    // threads (connected_components.cpp, HostCopies). Poisoned Mats of the right size (so every byte must be
    // copied over, none reallocated), a HostMem, then fresh Mats; one thread and many; label counts whose bytes
    // do not split evenly. The one-launch path (at most 2^21 pixels); over that limit the pipelines' staging of
    // few rows (at most 16384), and past it (40001 labels, and a 4-connected checkerboard of over 2^20: copied
    // into pageable memory).
    skipIfNoCudaDevice();
    const int threads = cv::getNumThreads();
    struct Case
    {
        cv::Size size;
        int pixels;        //!< isolated pixels; 0: a checkerboard
        int connectivity;
    };
    const Case cases[] = { { { 512, 512 }, 65536, 8 }, { { 1024, 1024 }, 40001, 8 }, { { 2048, 1025 }, 16383, 8 },
                           { { 2048, 1025 }, 40001, 8 }, { { 2048, 1100 }, 0, 4 } };
    for (const Case& k : cases)
    {
        cv::Mat img = k.pixels ? isolatedPixels(k.size, k.pixels) : cv::Mat(k.size, CV_8UC1);
        if (!k.pixels)
            for (int y = 0; y < img.rows; ++y)
                for (int x = 0; x < img.cols; ++x)
                    img.at<uchar>(y, x) = static_cast<uchar>((x + y) & 1);
        const CCResult ref = cpuReference(img, k.connectivity);
        if (k.pixels)
            ASSERT_EQ(k.pixels + 1, ref.n);
        else
            ASSERT_GT(ref.n, 1 << 20);
        for (int t : { 1, std::max(2, threads) })
        {
            SCOPED_TRACE(cv::format("%dx%d, %d labels, %d threads", k.size.width, k.size.height, ref.n, t));
            cv::setNumThreads(t);
            HostResult got;
            got.stats = cv::Mat(ref.n, cv::CC_STAT_MAX, CV_32S, cv::Scalar(0x5a5a5a5a));
            got.centroids = cv::Mat(ref.n, 2, CV_64F, cv::Scalar(-7.5));
            const uchar* statsData = got.stats.data;
            got.n = cv::cuda::connectedComponentsWithStats(img, got.labels, got.stats, got.centroids, k.connectivity, CV_32S);
            EXPECT_EQ(statsData, got.stats.data) << "the caller's stats were reallocated";
            EXPECT_TRUE(matchesCpu(ref, CV_32S, got)) << "poisoned Mats of the right size";
            cv::cuda::HostMem s, c;
            HostResult pinned;
            pinned.n = cv::cuda::connectedComponentsWithStats(img, pinned.labels, s, c, k.connectivity, CV_32S);
            pinned.stats = s.createMatHeader().clone();
            pinned.centroids = c.createMatHeader().clone();
            EXPECT_TRUE(matchesCpu(ref, CV_32S, pinned)) << "HostMem";
            HostResult fresh;
            fresh.n = cv::cuda::connectedComponentsWithStats(img, fresh.labels, fresh.stats, fresh.centroids, k.connectivity, CV_32S);
            EXPECT_TRUE(matchesCpu(ref, CV_32S, fresh)) << "fresh Mats";
        }
    }
    cv::setNumThreads(threads);
}

TEST(CUDACCA_OneLaunch, TooManyLabelsFor16UWritesNothing)
{
    // A 4-connected checkerboard has 131 073 labels: CV_16U refuses. The caller's CV_16U GpuMat of the right
    // size (which the kernel would write in place) and its stats keep their bytes, through the function
    // and an analyzer; the analyzer then still works.
    skipIfNoCudaDevice();
    const cv::Mat img = checkerboard(cv::Size(512, 512));
    cv::cuda::GpuMat d(img);
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT, 4, CV_16U);
    for (bool analyzer : { false, true })
    {
        SCOPED_TRACE(analyzer ? "analyzer" : "function");
        cv::cuda::GpuMat l(poisonedLabels(img.size(), CV_16U)), s(poisonedStats(7));
        const uchar* l0 = l.data;
        try
        {
            if (analyzer)
                a->apply(d, l, s, cv::noArray());
            else
                cv::cuda::connectedComponentsWithStats(d, l, s, cv::noArray(), 4, CV_16U);
            ADD_FAILURE() << "no exception";
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(cv::Error::StsOutOfRange, e.code) << e.what();
        }
        EXPECT_EQ(l0, l.data);
        cv::Mat hl, hs;
        l.download(hl);
        s.download(hs);
        EXPECT_TRUE(bytesEqual(poisonedLabels(img.size(), CV_16U), hl)) << "labels modified";
        EXPECT_TRUE(bytesEqual(poisonedStats(7), hs)) << "stats modified";
    }
    const cv::Mat small = checkerboard(cv::Size(64, 64));
    HostResult got;
    got.n = a->apply(small, got.labels, got.stats, got.centroids);
    EXPECT_TRUE(matchesCpu(cpuReference(small, 4), CV_16U, got)) << "after the refused call";
}

}} // namespace opencv_test

// ---- ConnectedComponentsAnalyzer::applyAsync (issue 13, item 5) -------------------------------------------

namespace opencv_test { namespace {

using namespace cudacca_test;

TEST(CUDACCA_Async, BadArgumentsNamedBeforeAnyGpuWork)
{
    // Runs with and without a device: every case is refused by the argument check, naming the argument.
    const cv::cuda::GpuMat image = fakeGpuMat(48, 64, CV_8UC1, 0x100000);
    const cv::cuda::GpuMat labels = fakeGpuMat(48, 64, CV_32SC1, 0x200000);
    const cv::cuda::GpuMat stats = fakeGpuMat(100, 5, CV_32SC1, 0x300000);
    const cv::cuda::GpuMat centroids = fakeGpuMat(100, 2, CV_64FC1, 0x400000);
    const cv::cuda::GpuMat count = fakeGpuMat(1, 2, CV_32SC1, 0x500000);
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
    cv::cuda::Stream null = cv::cuda::StreamAccessor::wrapStream(nullptr); // Stream::Null() needs a driver
    const cv::Mat hostImage(48, 64, CV_8UC1, cv::Scalar(1));
    cv::Mat hostLabels(48, 64, CV_32SC1);
    const std::vector<RefusalCase> cases = {
        { "another algorithm", [&] { cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_BKE)->applyAsync(
              image, labels, stats, centroids, count, null); }, cv::Error::StsNotImplemented, "CCA_DEFAULT" },
        { "host image", [&] { a->applyAsync(hostImage, labels, stats, centroids, count, null); }, cv::Error::StsBadArg, "image" },
        { "image too large", [&] { a->applyAsync(fakeGpuMat(1025, 2048, CV_8UC1, 0x100000), cv::noArray(), cv::noArray(),
              cv::noArray(), count, null); }, cv::Error::StsOutOfRange, "image" },
        { "labels of another type", [&] { a->applyAsync(image, fakeGpuMat(48, 64, CV_16UC1, 0x200000), stats, centroids,
              count, null); }, cv::Error::StsUnsupportedFormat, "labels" },
        { "labels of another size", [&] { a->applyAsync(image, fakeGpuMat(47, 64, CV_32SC1, 0x200000), stats, centroids,
              count, null); }, cv::Error::StsBadSize, "labels" },
        { "host labels", [&] { a->applyAsync(image, hostLabels, stats, centroids, count, null); }, cv::Error::StsBadArg, "labels" },
        { "stats of 4 columns", [&] { a->applyAsync(image, labels, fakeGpuMat(100, 4, CV_32SC1, 0x300000), centroids,
              count, null); }, cv::Error::StsBadSize, "stats" },
        { "capacities differ", [&] { a->applyAsync(image, labels, stats, fakeGpuMat(99, 2, CV_64FC1, 0x400000), count,
              null); }, cv::Error::StsBadSize, "centroids" },
        { "no count", [&] { a->applyAsync(image, labels, stats, centroids, cv::noArray(), null); }, cv::Error::StsBadArg, "count" },
        { "count 1x1", [&] { a->applyAsync(image, labels, stats, centroids, fakeGpuMat(1, 1, CV_32SC1, 0x500000), null); },
          cv::Error::StsBadSize, "count" },
        { "labels over the image", [&] { a->applyAsync(image, fakeGpuMat(48, 64, CV_32SC1, 0x100000), stats, centroids,
              count, null); }, cv::Error::StsBadArg, "labels" },
    };
    expectRefusals(cases);
}

struct AsyncOutputs
{
    cv::cuda::GpuMat labels, stats, centroids, count;
    AsyncOutputs(cv::Size size, int ltype, int capacity)
        : labels(poisonedLabels(size, ltype)), stats(poisonedStats(capacity)), centroids(poisonedCentroids(capacity)),
          count(cv::Mat(1, 2, CV_32SC1, cv::Scalar(-7)))
    {
    }
    cv::Mat countHost() const { cv::Mat h; count.download(h); return h; }
};

//! The outputs against the CPU: labels (unless `labelsKept`: still poisoned), N and status, and the stats rows
//! 0..N-1 when written (rows past N, or all of them when not written, still poisoned).
::testing::AssertionResult asyncMatchesCpu(const CCResult& ref, int ltype, const AsyncOutputs& o, int status)
{
    const cv::Mat count = o.countHost();
    if (count.at<int>(0) != ref.n || count.at<int>(1) != status)
        return ::testing::AssertionFailure() << "count [" << count.at<int>(0) << ", " << count.at<int>(1) << "], expected ["
                                             << ref.n << ", " << status << "]";
    cv::Mat labels, stats, centroids;
    o.labels.download(labels);
    o.stats.download(stats);
    o.centroids.download(centroids);
    const cv::Mat expectedLabels_ = status == 2 ? poisonedLabels(labels.size(), ltype) : expectedLabels(ref, ltype);
    if (!bytesEqual(expectedLabels_, labels))
        return ::testing::AssertionFailure() << "labels: " << labelsEqual(expectedLabels_, labels).message();
    const int capacity = stats.rows;
    cv::Mat expectedStats = poisonedStats(capacity), expectedCentroids = poisonedCentroids(capacity);
    if (status == 0)
    {
        ref.stats.copyTo(expectedStats.rowRange(0, ref.n));
        ref.centroids.copyTo(expectedCentroids.rowRange(0, ref.n));
    }
    if (!bytesEqual(expectedStats, stats))
        return ::testing::AssertionFailure() << "stats: " << statsEqual(expectedStats, stats).message();
    if (!bytesEqual(expectedCentroids, centroids))
        return ::testing::AssertionFailure() << "centroids differ (bitwise)";
    return ::testing::AssertionSuccess();
}

TEST(CUDACCA_Async, SameAsTheCpuAndCapacityRespected)
{
    // Random images of several sizes, both connectivities, both label types: with room for every label (the
    // rows past N keep their poison), and with one row too few (stats and centroids untouched, labels written).
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const size_t inUse = poolBytesInUse();
    for (int connectivity : { 4, 8 })
        for (int ltype : testedLabelTypes())
        {
            cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
                cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT, connectivity, ltype);
            cv::cuda::Stream stream;
            for (const cv::Size size : { cv::Size(640, 480), cv::Size(17, 1), cv::Size(333, 777), cv::Size(640, 480) })
                for (bool roomForAll : { true, false })
                {
                    const cv::Mat img = randomBlockImage(size, 0.3 + 0.1 * (rng() % 5), 1 + static_cast<int>(rng() % 4), rng);
                    const CCResult ref = cpuReference(img, connectivity);
                    if (overflows(ref, ltype) || (!roomForAll && ref.n < 2))
                        continue;
                    SCOPED_TRACE(cv::format("%d-connectivity, %s, %dx%d, N = %d, %s", connectivity, ltypeName(ltype).c_str(),
                                            size.width, size.height, ref.n, roomForAll ? "room for all" : "capacity N - 1"));
                    AsyncOutputs o(size, ltype, roomForAll ? ref.n + 3 : ref.n - 1);
                    const cv::cuda::GpuMat d(img);
                    a->applyAsync(d, o.labels, o.stats, o.centroids, o.count, stream);
                    stream.waitForCompletion();
                    EXPECT_TRUE(asyncMatchesCpu(ref, ltype, o, roomForAll ? 0 : 1));
                }
        }    EXPECT_EQ(inUse, poolBytesInUse()) << "the analyzers gave their memory back to the pool";
}

TEST(CUDACCA_Async, TooManyLabelsFor16UWritesOnlyTheCount)
{
    skipIfNoCudaDevice();
    const cv::Mat img = checkerboard(cv::Size(512, 512));
    const CCResult ref = cpuReference(img, 4);
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT, 4, CV_16U);
    AsyncOutputs o(img.size(), CV_16U, 10);
    a->applyAsync(cv::cuda::GpuMat(img), o.labels, o.stats, o.centroids, o.count, cv::cuda::Stream::Null());
    cv::cuda::Stream::Null().waitForCompletion();
    EXPECT_TRUE(asyncMatchesCpu(ref, CV_16U, o, 2));
}

TEST(CUDACCA_Async, ReplayedInACudaGraph)
{
    // The call captured once into a CUDA graph (after a first call outside capture sized the object's memory),
    // then the graph replayed on new images uploaded into the same input: each replay equals the CPU. A
    // captured call that would need more memory is refused.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const size_t inUse = poolBytesInUse();
    const cv::Size size(700, 500);
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a = cv::cuda::createConnectedComponentsAnalyzer();
    cudaStream_t raw = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
    cv::cuda::Stream stream = cv::cuda::StreamAccessor::wrapStream(raw);
    cv::cuda::GpuMat input(size, CV_8UC1);
    const int capacity = 20000;
    AsyncOutputs o(size, CV_32S, capacity);
    input.upload(randomBlockImage(size, 0.4, 2, rng));
    // The uploads above ran on the legacy default stream, which a non-blocking stream does not wait for, and an
    // upload from pageable memory may return before its copy has landed: without this wait the call could read
    // an image (or overwrite poison) still being copied, seen as "centroids differ" and an illegal address in
    // shards run side by side (sessions 20 and 21).
    cv::cuda::Stream::Null().waitForCompletion();
    a->applyAsync(input, o.labels, o.stats, o.centroids, o.count, stream); // outside capture: sizes the memory
    stream.waitForCompletion();

    // more scratch than the first call's (its forest alone, 4 bytes a pixel, exceeds the first call's forest and
    // statistics); allocated before the capture begins
    const cv::cuda::GpuMat larger(1440, 1440, CV_8UC1, cv::Scalar(0));
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(raw, cudaStreamCaptureModeThreadLocal));
    int refusal = 0;
    try
    {
        a->applyAsync(larger, cv::noArray(), cv::noArray(), cv::noArray(), o.count, stream);
    }
    catch (const cv::Exception& e)
    {
        refusal = e.code;
    }
    EXPECT_EQ(cv::Error::StsBadArg, refusal) << "a captured call that needs more memory must be refused";
    a->applyAsync(input, o.labels, o.stats, o.centroids, o.count, stream);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(raw, &graph));
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 4; ++replay)
    {
        const cv::Mat img = randomBlockImage(size, 0.2 + 0.15 * replay, 1 + replay, rng);
        const CCResult ref = cpuReference(img, 8);
        // On the graph's stream, so that the replay follows them (see the wait above); the host Mats outlive
        // the stream's synchronization below.
        const cv::Mat statsPoison = poisonedStats(capacity), centroidsPoison = poisonedCentroids(capacity);
        input.upload(img, stream);
        o.stats.upload(statsPoison, stream);
        o.centroids.upload(centroidsPoison, stream);
        ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, raw));
        ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(raw));
        SCOPED_TRACE(cv::format("replay %d, N = %d", replay, ref.n));
        EXPECT_TRUE(asyncMatchesCpu(ref, CV_32S, o, ref.n <= capacity ? 0 : 1));
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    a->releaseMemory();
    EXPECT_EQ(inUse, poolBytesInUse()) << "releaseMemory() gave the object's memory back to the pool";
    cudaStreamDestroy(raw);
}

}} // namespace opencv_test
