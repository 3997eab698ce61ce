// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Reliability on the GPU: concurrency (host threads x streams, the null stream, many calls queued on one
// stream), determinism over 100 runs, running out of device memory, peak temporary memory per
// algorithm, and large images (16384^2, 32768^2 and 46340^2, just under the 2^31 - 2 pixel limit).
// Every result is compared exactly with the CPU, or with a serial GPU run that was.
// The large-image tests take minutes and tens of GB of host memory: they run only with
// CUDACCA_LARGE_TESTS=1 (else they SKIP, saying so).

#include "test_precomp.hpp"
#include "test_utils.hpp"
#include "../src/allocation_count.hpp"

#include <atomic>
#include <mutex>
#include <thread>

namespace opencv_test { namespace {

using namespace cudacca_test;

static std::vector<std::pair<std::string, cv::Mat>> concurrencyImages(std::mt19937& rng)
{
    std::vector<std::pair<std::string, cv::Mat>> v;
    v.emplace_back("random 1024x768 d=0.6", randomBlockImage(cv::Size(1024, 768), 0.6, 1, rng));
    v.emplace_back("random 777x333 d=0.45", randomBlockImage(cv::Size(777, 333), 0.45, 1, rng));
    v.emplace_back("spiral 300x300", spiral(cv::Size(300, 300)));
    v.emplace_back("full 512x512", cv::Mat(512, 512, CV_8UC1, cv::Scalar(1)));
    v.emplace_back("random 1500x900 g=8 d=0.6", randomBlockImage(cv::Size(1500, 900), 0.6, 8, rng));
    v.emplace_back("comb 640x480", comb(cv::Size(640, 480), COMB_UP));
    v.emplace_back("random 61x4093 d=0.6", randomBlockImage(cv::Size(61, 4093), 0.6, 1, rng));
    v.emplace_back("all zero 128x64", cv::Mat::zeros(64, 128, CV_8UC1));
    return v;
}

/** Threads x iterations, each call on `streamOf(thread)`, against a serial run (itself checked
against the CPU). Call j of thread t uses image (t + j) % images and algorithm/connectivity (t + 3j). */
static void runConcurrently(int threads, int iterations, const std::function<cv::cuda::Stream(int)>& streamOf)
{
    std::mt19937 rng(testSeed());
    const auto imgs = concurrencyImages(rng);
    const auto configs = algorithmConnectivities();
    const int ltype = CV_32S;

    // Serial results on the null stream, each checked against the CPU.
    std::vector<std::vector<HostResult>> serial(imgs.size(), std::vector<HostResult>(configs.size()));
    for (size_t i = 0; i < imgs.size(); ++i)
    {
        cv::cuda::GpuMat d, l, s, c;
        d.upload(imgs[i].second);
        CCResult ref[2] = { cpuReference(imgs[i].second, 4), cpuReference(imgs[i].second, 8) };
        for (size_t k = 0; k < configs.size(); ++k)
        {
            const int n = cv::cuda::connectedComponentsWithStats(d, l, s, c, configs[k].second, ltype, configs[k].first);
            serial[i][k] = download(n, l, s, c);
            ASSERT_TRUE(matchesCpu(ref[configs[k].second == 8], ltype, serial[i][k]))
                << "serial run: " << imgs[i].first << ", " << algorithmName(configs[k].first) << " " << configs[k].second << "-conn";
        }
    }

    std::mutex mutex;
    std::vector<std::string> failures;
    std::atomic<long long> calls{ 0 };
    auto worker = [&](int t) {
        cv::cuda::Stream stream = streamOf(t);
        std::vector<cv::cuda::GpuMat> in(imgs.size());
        for (size_t i = 0; i < imgs.size(); ++i)
            in[i].upload(imgs[i].second, stream);
        cv::cuda::GpuMat l, s, c;
        for (int j = 0; j < iterations; ++j)
        {
            const size_t i = (size_t)(t + j) % imgs.size();
            const size_t k = (size_t)(t + 3 * j) % configs.size();
            HostResult r;
            try
            {
                r.n = cv::cuda::connectedComponentsWithStats(in[i], l, s, c, configs[k].second, ltype, configs[k].first, stream);
                l.download(r.labels, stream);
                s.download(r.stats, stream);
                c.download(r.centroids, stream);
                stream.waitForCompletion();
            }
            catch (const cv::Exception& e)
            {
                std::lock_guard<std::mutex> lock(mutex);
                failures.push_back(cv::format("thread %d call %d: threw %s", t, j, e.what()));
                return;
            }
            ++calls;
            ::testing::AssertionResult ok = sameResult(serial[i][k], r);
            if (!ok)
            {
                std::lock_guard<std::mutex> lock(mutex);
                failures.push_back(cv::format("thread %d call %d (%s, %s %d-conn): ", t, j, imgs[i].first.c_str(),
                                              algorithmName(configs[k].first).c_str(), configs[k].second) + ok.message());
                if (failures.size() > 5)
                    return;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker, t);
    for (auto& th : pool)
        th.join();
    std::cout << cv::format("[ cudacca  ] %d threads x %d calls: %lld calls compared with the serial run, %d differ",
                            threads, iterations, (long long)calls, (int)failures.size()) << std::endl;
    for (const std::string& f : failures)
        ADD_FAILURE() << f;
    EXPECT_EQ((long long)threads * iterations, (long long)calls);
}

TEST(CUDACCA_Concurrency, ThreadsWithOwnStreamsEqualSerial)
{
    skipIfNoCudaDevice();
    runConcurrently(8, 40, [](int) { return cv::cuda::Stream(); });
}

TEST(CUDACCA_Concurrency, ThreadsOnNullStreamEqualSerial)
{
    skipIfNoCudaDevice();
    runConcurrently(6, 30, [](int) { return cv::cuda::Stream::Null(); });
}

TEST(CUDACCA_Concurrency, ThreadsSharingOneStreamEqualSerial)
{
    // One cv::cuda::Stream used by several host threads at once: calls interleave on it.
    skipIfNoCudaDevice();
    cv::cuda::Stream shared;
    runConcurrently(4, 30, [&](int) { return shared; });
}

TEST(CUDACCA_Concurrency, ManyCallsQueuedOnOneStream)
{
    // 64 calls with GpuMat outputs queued on one stream, then a single waitForCompletion().
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const auto imgs = concurrencyImages(rng);
    const auto configs = algorithmConnectivities();
    const int kCalls = 64;
    cv::cuda::Stream stream;
    std::vector<cv::cuda::GpuMat> in(imgs.size());
    for (size_t i = 0; i < imgs.size(); ++i)
        in[i].upload(imgs[i].second, stream);
    std::vector<cv::cuda::GpuMat> l(kCalls), s(kCalls), c(kCalls);
    std::vector<int> n(kCalls);
    for (int j = 0; j < kCalls; ++j)
    {
        const auto& cfg = configs[(size_t)j % configs.size()];
        n[j] = cv::cuda::connectedComponentsWithStats(in[(size_t)j % imgs.size()], l[j], s[j], c[j], cfg.second,
                                                      (j % 3 == 0) ? CV_16U : CV_32S, cfg.first, stream);
    }
    stream.waitForCompletion();
    for (int j = 0; j < kCalls; ++j)
    {
        const auto& cfg = configs[(size_t)j % configs.size()];
        const auto& im = imgs[(size_t)j % imgs.size()];
        const int ltype = (j % 3 == 0) ? CV_16U : CV_32S;
        EXPECT_TRUE(matchesCpu(cpuReference(im.second, cfg.second), ltype, download(n[j], l[j], s[j], c[j])))
            << "call " << j << ": " << im.first << ", " << algorithmName(cfg.first) << " " << cfg.second << "-conn";
    }
}

// ---------------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------------

TEST(CUDACCA_Determinism, HundredRunsBitIdentical)
{
    // Atomics and races decide the order of unions; the output must not depend on it.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const cv::Mat img = randomBlockImage(cv::Size(2048, 2048), 0.6, 1, rng);
    cv::cuda::GpuMat d;
    d.upload(img);
    for (const auto& cfg : algorithmConnectivities())
    {
        SCOPED_TRACE(algorithmName(cfg.first) + cv::format(" %d-conn", cfg.second));
        const CCResult ref = cpuReference(img, cfg.second);
        cv::cuda::GpuMat l, s, c;
        HostResult first;
        int differing = 0;
        for (int run = 0; run < 100; ++run)
        {
            const int n = cv::cuda::connectedComponentsWithStats(d, l, s, c, cfg.second, CV_32S, cfg.first);
            const HostResult r = download(n, l, s, c);
            if (run == 0)
            {
                first = r;
                ASSERT_TRUE(matchesCpu(ref, CV_32S, first));
            }
            else if (!sameResult(first, r))
                ++differing;
        }
        EXPECT_EQ(0, differing) << "runs (of 99) whose output differs from the first";
    }
}

// ---------------------------------------------------------------------------------------------------
// Device memory: running out of it, and the peak temporary memory per algorithm
// ---------------------------------------------------------------------------------------------------

static size_t freeDeviceMemory()
{
    size_t freeBytes = 0, total = 0;
    cv::cuda::DeviceInfo().queryMemory(total, freeBytes);
    return freeBytes;
}

TEST(CUDACCA_Memory, OutOfDeviceMemory)
{
    // Leave 64 MiB free and ask for a CV_16U labeling whose int32 forest alone needs 1.6 GB (more than
    // the 1 GiB cudacca's pool may keep from earlier calls): a cv::Exception (StsNoMem), no device memory
    // leaked, and the next call works.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const cv::Mat img = randomBlockImage(cv::Size(20000, 20000), 0.5, 16, rng);
    const CCResult ref = cpuReference(img, 8);
    cv::cuda::GpuMat d, l, s, c;
    d.upload(img);
    l.create(img.size(), CV_16UC1);
    for (const auto& cfg : algorithmConnectivities())
    {
        if (cfg.second != 8)
            continue;
        SCOPED_TRACE(algorithmName(cfg.first));
        // warm-up: cudacca's pool reaches its steady size
        int n = cv::cuda::connectedComponentsWithStats(d, l, s, c, 8, CV_16U, cfg.first);
        ASSERT_EQ(ref.n, n);
        // cudacca's pool gives back what it keeps between calls: the next call must allocate afresh
        // (the FLSL family's whole call needs less than the pool keeps).
        cv::cuda::releaseConnectedComponentsPool();
        const size_t free0 = freeDeviceMemory();

        std::vector<cv::cuda::GpuMat> hog;
        while (freeDeviceMemory() > (size_t(1) << 30) + (64u << 20))
            hog.emplace_back(1, 1 << 30, CV_8UC1);
        const size_t left = freeDeviceMemory();
        if (left > (64u << 20))
            hog.emplace_back(1, (int)(left - (64u << 20)), CV_8UC1);
        const size_t freeHogged = freeDeviceMemory();
        const uchar* labelsData = l.data;
        s.release();
        c.release();
        bool threw = false;
        try
        {
            cv::cuda::connectedComponentsWithStats(d, l, s, c, 8, CV_16U, cfg.first);
        }
        catch (const cv::Exception& e)
        {
            threw = true;
            EXPECT_EQ(cv::Error::StsNoMem, e.code) << e.what();
            std::cout << "[ cudacca  ] " << algorithmName(cfg.first) << " with " << (freeHogged >> 20)
                      << " MiB free: " << e.err << std::endl;
        }
        EXPECT_TRUE(threw) << "no exception with " << (freeHogged >> 20) << " MiB of device memory free";
        cv::cuda::Stream::Null().waitForCompletion();
        EXPECT_TRUE(s.empty() && c.empty()) << "stats or centroids allocated by the call that failed";
        EXPECT_GE(freeDeviceMemory() + (2u << 20), freeHogged) << "device memory lost by the failed call";
        EXPECT_EQ(labelsData, l.data);
        hog.clear();
        EXPECT_GE(freeDeviceMemory() + (2u << 20), free0) << "device memory lost after the hog was released";

        // the next call works
        n = cv::cuda::connectedComponentsWithStats(d, l, s, c, 8, CV_16U, cfg.first);
        EXPECT_TRUE(matchesCpu(ref, CV_16U, download(n, l, s, c))) << "the call after running out of memory";
    }
}

TEST(CUDACCA_Memory, PoolLimitSetAndGet)
{
    // Runs without a GPU too: the limit is a setting, and the queries need no pool.
    const size_t before = cv::cuda::getConnectedComponentsPoolLimit();
    if (!std::getenv("OPENCV_CUDACCA_POOL_LIMIT"))
    {
        EXPECT_EQ(size_t(1) << 30, before) << "the documented default";
    }
    cv::cuda::setConnectedComponentsPoolLimit(12345);
    EXPECT_EQ(12345u, cv::cuda::getConnectedComponentsPoolLimit());
    cv::cuda::setConnectedComponentsPoolLimit(before);
    EXPECT_EQ(before, cv::cuda::getConnectedComponentsPoolLimit());
    EXPECT_NO_THROW(cv::cuda::releaseConnectedComponentsPool());
    if (cv::cuda::getCudaEnabledDeviceCount() <= 0)
    {
        EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPoolBytes());
        EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPeakBytes());
    }
}

TEST(CUDACCA_Memory, PoolKeepsUpToItsLimit)
{
    // With the default limit the pool keeps a call's buffers for the next one; with 0 it keeps nothing once
    // the stream has synchronized; releaseConnectedComponentsPool() empties it. Results exact throughout.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const cv::Mat img = randomBlockImage(cv::Size(2048, 2048), 0.5, 1, rng);
    const CCResult ref = cpuReference(img, 8);
    cv::cuda::GpuMat d, l, s, c;
    d.upload(img);
    const size_t before = cv::cuda::getConnectedComponentsPoolLimit();
    auto callAndWait = [&](const char* what) {
        SCOPED_TRACE(what);
        const int n = cv::cuda::connectedComponentsWithStats(d, l, s, c);
        cv::cuda::Stream::Null().waitForCompletion();
        EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, l, s, c)));
    };
    cv::cuda::setConnectedComponentsPoolLimit(size_t(1) << 30);
    callAndWait("limit 1 GiB, first call");
    cv::cuda::getConnectedComponentsPeakBytes(true);
    callAndWait("limit 1 GiB");
    const size_t peak = cv::cuda::getConnectedComponentsPeakBytes();
    const size_t kept = cv::cuda::getConnectedComponentsPoolBytes();
    std::cout << "[ MEMORY   ] 2048x2048 CCA_DEFAULT: peak " << peak << " bytes, kept " << kept << " bytes" << std::endl;
    EXPECT_GT(peak, 0u);
    EXPECT_GE(kept, peak) << "the pool keeps what the call used, up to the limit";
    cv::cuda::setConnectedComponentsPoolLimit(0);
    callAndWait("limit 0");
    EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPoolBytes()) << "limit 0: nothing kept after a synchronization";
    cv::cuda::setConnectedComponentsPoolLimit(size_t(1) << 30);
    callAndWait("limit 1 GiB again");
    EXPECT_GT(cv::cuda::getConnectedComponentsPoolBytes(), 0u);
    cv::cuda::releaseConnectedComponentsPool();
    EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPoolBytes()) << "after releaseConnectedComponentsPool()";
    cv::cuda::setConnectedComponentsPoolLimit(before);
}

/** A way of the free function through the module, as the memory tests below take them: an algorithm and a size. */
struct CallPath
{
    const char* what;
    int algorithm;
    cv::Size size;
    bool oneLaunch; //!< CCA_DEFAULT's one-launch path (else one of the pipelines)
};

TEST(CUDACCA_Memory, FreeFunctionKeepsItsSmallImageScratch)
{
    // On images of up to 2^22 pixels the free function keeps its device buffers between calls on this thread (the
    // one-launch path's scratch, and the pipelines' buffers), so that a steady stream of calls asks CUDA for no
    // memory; releaseConnectedComponentsPool() gives them back, and with a pool limit of 0 nothing is kept. Results
    // exact throughout, on two streams; GpuMat and host Mat outputs. The one-launch path (CCA_DEFAULT, 512x384), the
    // run pipeline (CCA_DEFAULT, 2048x2048; CCA_FLSL_OTF with its run count wait, 1024x768) and the forest pipeline
    // (CCA_BKE, 640x480). With host outputs the image is a host Mat too (Python's arrays): its upload buffer and the
    // one-launch path's buffer for host Mat labels come from the kept arena as well.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const CallPath paths[] = { { "one launch", cv::cuda::CCA_DEFAULT, cv::Size(512, 384), true },
                               { "run pipeline", cv::cuda::CCA_DEFAULT, cv::Size(2048, 2048), false },
                               { "run pipeline, run count", cv::cuda::CCA_FLSL_OTF, cv::Size(1024, 768), false },
                               { "forest pipeline", cv::cuda::CCA_BKE, cv::Size(640, 480), false } };
    const size_t before = cv::cuda::getConnectedComponentsPoolLimit();
    for (const CallPath& path : paths)
        for (bool hostOutputs : { false, true })
        {
            SCOPED_TRACE(cv::format("%s, %s outputs", path.what, hostOutputs ? "host Mat" : "GpuMat"));
            const cv::Mat img = randomBlockImage(path.size, 0.5, 1, rng);
            const CCResult ref = cpuReference(img, 8);
            cv::cuda::GpuMat d, l, s, c;
            cv::Mat hl, hs, hc;
            d.upload(img);
            cv::cuda::Stream streams[2];
            auto callAndWait = [&](int k, const char* what) {
                SCOPED_TRACE(what);
                cv::cuda::Stream& stream = streams[k % 2];
                HostResult got;
                if (hostOutputs)
                    got.n = cv::cuda::connectedComponentsWithStats(img, hl, hs, hc, 8, CV_32S, path.algorithm, stream);
                else
                    got.n = cv::cuda::connectedComponentsWithStats(d, l, s, c, 8, CV_32S, path.algorithm, stream);
                stream.waitForCompletion(); // (the frees the call queued at its end are done: the pool may trim)
                if (hostOutputs)
                {
                    got.labels = hl;
                    got.stats = hs;
                    got.centroids = hc;
                }
                EXPECT_TRUE(matchesCpu(ref, CV_32S, hostOutputs ? got : download(got.n, l, s, c)));
            };
            cv::cuda::setConnectedComponentsPoolLimit(size_t(1) << 30);
            callAndWait(0, "first call");
            callAndWait(1, "second call"); // (an arena that grew in a call merges its chunks at the next)
            const size_t allocations = cv::cuda::cudacca::cudaAllocationCount();
            for (int k = 2; k <= 7; ++k)
                callAndWait(k, "steady calls, alternating streams");
            EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - allocations) << "cudacca's device or pinned allocations";
            EXPECT_GT(cv::cuda::getConnectedComponentsPoolBytes(), 0u) << "the buffers are kept";
            cv::cuda::releaseConnectedComponentsPool();
            EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPoolBytes()) << "after releaseConnectedComponentsPool()";
            callAndWait(8, "after the release");
            cv::cuda::setConnectedComponentsPoolLimit(0);
            callAndWait(9, "limit 0");
            EXPECT_EQ(0u, cv::cuda::getConnectedComponentsPoolBytes()) << "limit 0: nothing kept after a synchronization";
            cv::cuda::setConnectedComponentsPoolLimit(before);
            cv::cuda::releaseConnectedComponentsPool();
        }
}

/** The paths the pinned-Mat tests take: the one-launch path (CCA_DEFAULT, 512x512), the run pipeline (CCA_DEFAULT,
2048x1536), the forest pipeline (CCA_BKE, 640x480). */
const CallPath kPinnedMatPaths[] = { { "one launch", cv::cuda::CCA_DEFAULT, cv::Size(512, 512), true },
                                     { "run pipeline", cv::cuda::CCA_DEFAULT, cv::Size(2048, 1536), false },
                                     { "forest pipeline", cv::cuda::CCA_BKE, cv::Size(640, 480), false } };

TEST(CUDACCA_Memory, HostStatsInPinnedMats)
{
    // Host stats and centroids given as default cv::Mats get pinned memory of cudacca's, which the GPU writes
    // directly (pinned_mats.hpp). Passed again alone, a Mat is written in place (the same memory; on the one-launch
    // path no allocation at all); shared with another Mat, that one keeps the old results, unless the new ones have
    // its size (then both see them, as with Mat::create); a frame with more labels grows it; a released Mat's
    // memory serves the next call; Mats the caller keeps hold at most 8 pinned blocks; a CV_16U call refused for
    // too many labels leaves it as it was. On each of kPinnedMatPaths.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    for (const CallPath& path : kPinnedMatPaths)
    {
        SCOPED_TRACE(path.what);
        const cv::Mat few = randomBlockImage(path.size, 0.5, 16, rng);
        const CCResult refFew = cpuReference(few, 8);
        ASSERT_GE(refFew.n, 3);
        // `few` without its last component: always one label fewer. (Two random images could have the same N, and a
        // Mat shared but already of the result's size is written in place, as Mat::create leaves it: tested below.)
        cv::Mat fewer = few.clone();
        fewer.setTo(0, refFew.labels == refFew.n - 1);
        const cv::Mat many = isolatedPixels(path.size, 20000); // more than the 16384 rows a new Mat starts with
        const cv::Mat tooMany = isolatedPixels(path.size, kMaxLabels16U); // 65537 labels: refused for CV_16U
        cv::cuda::GpuMat labels;
        auto call = [&](const cv::Mat& img, cv::Mat& s, cv::Mat& c, const char* what) {
            SCOPED_TRACE(what);
            const CCResult ref = cpuReference(img, 8);
            const cv::cuda::GpuMat d(img);
            const int n = cv::cuda::connectedComponentsWithStats(d, labels, s, c, 8, CV_32S, path.algorithm);
            EXPECT_EQ(ref.n, n);
            EXPECT_TRUE(statsEqual(ref.stats, s));
            EXPECT_TRUE(centroidsEqual(ref.centroids, c));
            return ref;
        };
        const CCResult refMany = cpuReference(many, 8);
        ASSERT_GT(refMany.n, 16384);
        ASSERT_LT(refFew.n, 16384);
        ASSERT_EQ(refFew.n - 1, cpuReference(fewer, 8).n);

        cv::Mat s, c;
        call(few, s, c, "empty Mats");
        ASSERT_GE(cv::cuda::cudacca::pinnedMatRows(s), refFew.n) << "stats: not in pinned memory";
        ASSERT_GE(cv::cuda::cudacca::pinnedMatRows(c), refFew.n) << "centroids: not in pinned memory";
        const uchar* const sData = s.data;
        const uchar* const cData = c.data;
        const size_t allocations = cv::cuda::cudacca::cudaAllocationCount();
        call(fewer, s, c, "fewer labels, in place");
        call(few, s, c, "as many again, in place");
        EXPECT_EQ(sData, s.data);
        EXPECT_EQ(cData, c.data);
        if (path.oneLaunch)
        {
            EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - allocations) << "cudacca's device or pinned allocations";
        }

        // Shared: the other Mat keeps the old results; then new results of its very size reach it too.
        const cv::Mat sKept = s, cKept = c, sOld = s.clone(), cOld = c.clone();
        call(fewer, s, c, "shared with another Mat");
        EXPECT_NE(sData, s.data) << "the stats shared with another Mat were overwritten";
        EXPECT_TRUE(statsEqual(sOld, sKept));
        EXPECT_TRUE(centroidsEqual(cOld, cKept));
        cv::Mat s2 = sKept, c2 = cKept; // of `few`'s size, shared with sKept / cKept
        call(few, s2, c2, "shared, and already of the result's size");
        EXPECT_EQ(sData, s2.data);
        EXPECT_EQ(cData, c2.data);
        EXPECT_TRUE(statsEqual(refFew.stats, sKept));
        EXPECT_TRUE(centroidsEqual(refFew.centroids, cKept));

        // More labels than the Mats hold, then few again in the grown memory.
        call(many, s, c, "more labels than the Mats held");
        EXPECT_GE(cv::cuda::cudacca::pinnedMatRows(s), refMany.n);
        EXPECT_GE(cv::cuda::cudacca::pinnedMatRows(c), refMany.n);
        const uchar* const grown = s.data;
        call(few, s, c, "few again in the grown Mats");
        EXPECT_EQ(grown, s.data);

        // Released: the next call takes memory from the pool, not from CUDA (the one-launch path asks for nothing).
        s.release();
        c.release();
        const size_t beforeRelease = cv::cuda::cudacca::cudaAllocationCount();
        call(few, s, c, "after the Mats were released");
        EXPECT_GT(cv::cuda::cudacca::pinnedMatRows(s), 0);
        if (path.oneLaunch)
        {
            EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - beforeRelease) << "the released memory was not reused";
        }

        // Kept: a caller who keeps every frame's Mats holds at most 8 pinned ones; the others are ordinary Mats.
        {
            std::vector<cv::Mat> keptStats, keptCentroids;
            for (int k = 0; k < 12; ++k)
            {
                cv::Mat ks, kc;
                call(k % 2 ? few : fewer, ks, kc, "a frame whose Mats the caller keeps");
                keptStats.push_back(ks);
                keptCentroids.push_back(kc);
            }
            int pinned = 0;
            for (int k = 0; k < 12; ++k)
                pinned += (cv::cuda::cudacca::pinnedMatRows(keptStats[k]) > 0) + (cv::cuda::cudacca::pinnedMatRows(keptCentroids[k]) > 0);
            EXPECT_LE(pinned, 8) << "pinned Mats held by the caller";
        }

        // One output a Mat, the other a HostMem or a GpuMat: each exact (the HostMem is not a pinned Mat to take, so
        // both go the staging's way; a GpuMat is the device's).
        {
            const CCResult ref = cpuReference(few, 8);
            const cv::cuda::GpuMat d(few);
            cv::Mat ms, mc;
            cv::cuda::HostMem hs, hc;
            cv::cuda::GpuMat gs, gc;
            auto host = [](const cv::cuda::GpuMat& g) { cv::Mat m; g.download(m); return m; };
            int n = cv::cuda::connectedComponentsWithStats(d, labels, ms, hc, 8, CV_32S, path.algorithm);
            EXPECT_EQ(ref.n, n);
            EXPECT_TRUE(statsEqual(ref.stats, ms)) << "Mat stats with HostMem centroids";
            EXPECT_TRUE(centroidsEqual(ref.centroids, hc.createMatHeader())) << "HostMem centroids with Mat stats";
            n = cv::cuda::connectedComponentsWithStats(d, labels, hs, mc, 8, CV_32S, path.algorithm);
            EXPECT_EQ(ref.n, n);
            EXPECT_TRUE(statsEqual(ref.stats, hs.createMatHeader())) << "HostMem stats with Mat centroids";
            EXPECT_TRUE(centroidsEqual(ref.centroids, mc)) << "Mat centroids with HostMem stats";
            cv::Mat ms2, mc2;
            n = cv::cuda::connectedComponentsWithStats(d, labels, ms2, gc, 8, CV_32S, path.algorithm);
            EXPECT_EQ(ref.n, n);
            EXPECT_TRUE(statsEqual(ref.stats, ms2)) << "Mat stats with GpuMat centroids";
            EXPECT_TRUE(centroidsEqual(ref.centroids, host(gc))) << "GpuMat centroids with Mat stats";
            n = cv::cuda::connectedComponentsWithStats(d, labels, gs, mc2, 8, CV_32S, path.algorithm);
            EXPECT_EQ(ref.n, n);
            EXPECT_TRUE(statsEqual(ref.stats, host(gs))) << "GpuMat stats with Mat centroids";
            EXPECT_TRUE(centroidsEqual(ref.centroids, mc2)) << "Mat centroids with GpuMat stats";
        }

        // Refused (CV_16U, too many labels): the Mats as they were, memory and contents.
        const cv::Mat sBefore = s.clone(), cBefore = c.clone();
        const uchar* const sAt = s.data;
        const cv::cuda::GpuMat d(tooMany);
        cv::cuda::GpuMat l16;
        EXPECT_THROW(cv::cuda::connectedComponentsWithStats(d, l16, s, c, 8, CV_16U, path.algorithm), cv::Exception);
        EXPECT_EQ(sAt, s.data);
        EXPECT_TRUE(statsEqual(sBefore, s)) << "stats changed by a refused call";
        EXPECT_TRUE(centroidsEqual(cBefore, c)) << "centroids changed by a refused call";
    }
    cv::cuda::releaseConnectedComponentsPool();
}

TEST(CUDACCA_Memory, HostLabelsInPinnedMats)
{
    // Host labels given as a default cv::Mat get pinned memory of cudacca's, filled by one copy (pinned_mats.hpp), as
    // host stats and centroids do. Passed again, the Mat is written in place (shared with another Mat too, which then
    // sees the new labels, as Mat::create leaves it); a Mat the caller allocated itself stays its own (written in
    // place, not pinned); CV_16U too. Results exact throughout; on the one-launch path no allocation once the Mats
    // are in place. On each of kPinnedMatPaths.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    for (const CallPath& path : kPinnedMatPaths)
    {
        SCOPED_TRACE(path.what);
        const cv::Mat first = randomBlockImage(path.size, 0.5, 1, rng);
        const cv::Mat second = randomBlockImage(path.size, 0.3, 4, rng);
        const CCResult refFirst = cpuReference(first, 8), refSecond = cpuReference(second, 8);
        cv::Mat stats, centroids; // host, pinned after the first call (their own test: HostStatsInPinnedMats)
        auto call = [&](const cv::Mat& img, const CCResult& ref, cv::Mat& labels, int ltype, const char* what) {
            SCOPED_TRACE(what);
            HostResult got;
            got.n = cv::cuda::connectedComponentsWithStats(cv::cuda::GpuMat(img), labels, stats, centroids, 8, ltype,
                                                           path.algorithm);
            got.labels = labels;
            got.stats = stats;
            got.centroids = centroids;
            EXPECT_TRUE(matchesCpu(ref, ltype, got));
        };
        cv::Mat labels;
        call(first, refFirst, labels, CV_32S, "an empty Mat");
        ASSERT_EQ(path.size.height, cv::cuda::cudacca::pinnedMatRows(labels)) << "labels: not in pinned memory";
        const uchar* const data = labels.data;
        call(second, refSecond, labels, CV_32S, "in place"); // (a kept arena that grew in a call merges at the next)
        const size_t allocations = cv::cuda::cudacca::cudaAllocationCount();
        call(first, refFirst, labels, CV_32S, "in place again");
        call(second, refSecond, labels, CV_32S, "and again");
        EXPECT_EQ(data, labels.data);
        if (path.oneLaunch)
        {
            EXPECT_EQ(0u, cv::cuda::cudacca::cudaAllocationCount() - allocations) << "cudacca's device or pinned allocations";
        }

        // Shared with another Mat: labels always have the Mat's size, so (as Mat::create leaves such a Mat, and as
        // the CPU function writes it) the shared memory gets the new labels, which the other Mat sees too.
        const cv::Mat kept = labels;
        call(second, refSecond, labels, CV_32S, "shared with another Mat");
        EXPECT_EQ(data, labels.data);
        EXPECT_TRUE(bytesEqual(labels, kept));

        // The caller's own Mat of the result's size and type: written in place (Mat::create keeps it), not pinned.
        cv::Mat own(path.size, CV_32S, cv::Scalar(-7));
        const uchar* const ownData = own.data;
        call(first, refFirst, own, CV_32S, "the caller's own Mat");
        EXPECT_EQ(ownData, own.data);
        EXPECT_EQ(0, cv::cuda::cudacca::pinnedMatRows(own));

        // CV_16U, into an empty Mat and then in place.
        cv::Mat labels16;
        call(second, refSecond, labels16, CV_16U, "CV_16U, an empty Mat");
        EXPECT_EQ(path.size.height, cv::cuda::cudacca::pinnedMatRows(labels16));
        const uchar* const data16 = labels16.data;
        call(first, refFirst, labels16, CV_16U, "CV_16U, in place");
        EXPECT_EQ(data16, labels16.data);
    }
}

TEST(CUDACCA_Memory, PeakTemporaryBytesPerPixel)
{
    // The most temporary device memory a call holds at once (cudacca's pool high-water mark; the
    // caller's GpuMat outputs excluded), per pixel, on a 4096x4096 image at 60 % density (granularity
    // 1 for CV_32S; 8 for CV_16U, whose labels must fit 16 bits).
    // Printed as [ MEMORY ] lines for doc/verification.md, and bounded so that a regression fails.
    skipIfNoCudaDevice();
    // What earlier calls on this thread keep (the free function's kept arena of small images) is not these calls'
    // memory, but it is the pool's in use: given back first, so that the peak is this test's alone.
    cv::cuda::releaseConnectedComponentsPool();
    std::mt19937 rng(testSeed());
    const cv::Mat img32 = randomBlockImage(cv::Size(4096, 4096), 0.6, 1, rng);
    const cv::Mat img16 = randomBlockImage(cv::Size(4096, 4096), 0.6, 8, rng);
    cv::cuda::GpuMat d32, d16;
    d32.upload(img32);
    d16.upload(img16);
    const double pixels = (double)img32.total();
    for (const auto& cfg : algorithmConnectivities())
        for (int ltype : { CV_32S, CV_16U })
            for (bool hostOutputs : { false, true })
            {
                const cv::cuda::GpuMat& d = ltype == CV_16U ? d16 : d32;
                cv::cuda::GpuMat l, s, c;
                cv::Mat hl, hs, hc;
                // outputs allocated by a first call, so the measured call allocates none of them
                if (hostOutputs)
                    cv::cuda::connectedComponentsWithStats(d, hl, hs, hc, cfg.second, ltype, cfg.first);
                else
                    cv::cuda::connectedComponentsWithStats(d, l, s, c, cfg.second, ltype, cfg.first);
                cv::cuda::Stream::Null().waitForCompletion();
                cv::cuda::getConnectedComponentsPeakBytes(true);
                if (hostOutputs)
                    cv::cuda::connectedComponentsWithStats(d, hl, hs, hc, cfg.second, ltype, cfg.first);
                else
                    cv::cuda::connectedComponentsWithStats(d, l, s, c, cfg.second, ltype, cfg.first);
                cv::cuda::Stream::Null().waitForCompletion();
                const size_t peak = cv::cuda::getConnectedComponentsPeakBytes(true);
                const double perPixel = peak / pixels;
                std::cout << cv::format("[ MEMORY   ] %-4s %d-conn %s %-8s outputs: peak temporary %.3f bytes/pixel (%.1f MiB at 4096x4096)",
                                        algorithmName(cfg.first).c_str(), cfg.second, ltypeName(ltype).c_str(),
                                        hostOutputs ? "host Mat" : "GpuMat", perPixel, peak / 1048576.0) << std::endl;
                // int32 forest (4) + device copy of CV_16U labels (2) + per-label scratch: under 8;
                // FLSL_OTF adds its per-run feature table (32 bytes per run, at most 16 per pixel);
                // TMK its dense node array (32 per pixel), valid list (2) and compact tree (64 bytes per
                // component, at most 32 per pixel); LE its equivalence array H (4 per pixel); 8DLS and
                // M8DLS the previous round's labels (4 per pixel; M8DLS a byte per line more).
                const double bound = cfg.first == cv::cuda::CCA_FLSL_OTF ? 24.0
                                   : cfg.first == cv::cuda::CCA_TMK      ? 8.0 + 34.0 + 32.0
                                   : cfg.first == cv::cuda::CCA_LE       ? 8.0 + 4.0
                                   : cfg.first == cv::cuda::CCA_8DLS || cfg.first == cv::cuda::CCA_M8DLS ? 8.0 + 4.0
                                                                         : 8.0;
                EXPECT_LT(perPixel, bound) << algorithmName(cfg.first) << " " << ltypeName(ltype);
                // Issue 12's target for the run-table pipeline, 8-connectivity, CV_32S GpuMat labels (4096 columns:
                // contiguous, so the run table lives in them until the labels are written): at most 1 byte per
                // pixel. (With 4-connectivity this image has more labels than the early capacity: 36 bytes each.)
                const bool runTable = cfg.first == cv::cuda::CCA_DEFAULT || cfg.first == cv::cuda::CCA_FLSL ||
                                      cfg.first == cv::cuda::CCA_FLSL_CD;
                if (runTable && cfg.second == 8 && ltype == CV_32S && !hostOutputs)
                {
                    EXPECT_LE(perPixel, 1.0) << algorithmName(cfg.first) << ": issue 12's target";
                }
            }
}

// ---------------------------------------------------------------------------------------------------
// The representative subset that scripts/gpu_verify.sh runs under compute-sanitizer (memcheck,
// racecheck, synccheck, initcheck), one algorithm at a time (CUDACCA_TEST_ALGORITHMS): few, small
// calls that still reach every code path (tile borders, partial tiles, ROIs, both label types, host
// and GpuMat outputs, stats omitted).
// ---------------------------------------------------------------------------------------------------

TEST(CUDACCA_Sanitizer, RepresentativeSubset)
{
    skipIfNoCudaDevice();
    // Under a sanitizer a part may take minutes: say where the run is, so that a run stopped by its time limit
    // shows how far it got.
    const int64 t0 = cv::getTickCount();
    auto progress = [&](const CCAParams& p, const char* part) {
        std::cout << cv::format("[ cudacca  ] %s: %s done, %.1f s", paramsName(p).c_str(), part,
                                (cv::getTickCount() - t0) / cv::getTickFrequency()) << std::endl;
    };
    std::mt19937 rng(testSeed());
    // The algorithms whose rounds grow with the longest path (`paths` long: NP, LNP, RASMUSSEN) get a smaller
    // spiral and a smaller percolating image: each of their rounds is a launch, and racecheck makes a launch
    // of shared-memory tiles slow enough that the 97x61 spiral's thousands of rounds do not finish in a
    // device command. The smaller images still cross several tiles of every tile size (16 to 32).
    auto makeImages = [&](bool longPaths)
    {
        std::vector<std::pair<std::string, cv::Mat>> v;
        const cv::Size randomSize = longPaths ? cv::Size(100, 70) : cv::Size(300, 200);
        const cv::Size spiralSize = longPaths ? cv::Size(41, 37) : cv::Size(97, 61);
        v.emplace_back("random " + sz(randomSize) + " d=0.6", randomBlockImage(randomSize, 0.6, 1, rng));
        v.emplace_back("random 129x67 d=0.45", randomBlockImage(cv::Size(129, 67), 0.45, 1, rng));
        v.emplace_back("spiral " + sz(spiralSize), spiral(spiralSize));
        v.emplace_back("full 65x33", cv::Mat(33, 65, CV_8UC1, cv::Scalar(1)));
        v.emplace_back("checkerboard 64x64", checkerboard(cv::Size(64, 64)));
        v.emplace_back("1x1", cv::Mat(1, 1, CV_8UC1, cv::Scalar(1)));
        v.emplace_back("1x77", randomBlockImage(cv::Size(77, 1), 0.5, 1, rng));
        return v;
    };
    const std::vector<std::pair<std::string, cv::Mat>> shortPathImgs = makeImages(false), longPathImgs = makeImages(true);
    // CCA_DEFAULT's one-launch kernel flattens the tile roots of a block of more than 64 words of root bits through a
    // list in shared memory (one_launch.cu, phase 3): an image large enough for that on a GPU of up to 192
    // multiprocessors (two blocks each: 1024 x 1536 pixels, 49 152 words), once per connectivity and label type.
    const cv::Mat listedWordsImg = randomBlockImage(cv::Size(1024, 1536), 0.7, 1, rng);
    for (int a : testedAlgorithms())
    {
        const AlgorithmRow* row = cv::cuda::cudacca::findAlgorithmRow(a);
        const std::vector<std::pair<std::string, cv::Mat>>& imgs = row && row->longPathRounds ? longPathImgs : shortPathImgs;
        for (int conn : supportedConnectivities(a))
            for (int ltype : testedLabelTypes())
            {
                const CCAParams p{ a, conn, ltype };
                for (size_t i = 0; i < imgs.size(); ++i)
                {
                    RunSpec spec;
                    if (i % 3 == 1) { spec.input = IN_HOST; spec.labels = OUT_HOST; spec.stats = OUT_HOST_EMPTY; }
                    if (i % 4 == 2) { spec.stats = OUT_NONE; spec.centroids = OUT_NONE; }
                    EXPECT_TRUE(checkImage(imgs[i].second, p, imgs[i].first, spec));
                }
                if (a == cv::cuda::CCA_DEFAULT)
                    EXPECT_TRUE(checkImage(listedWordsImg, p, "random 1024x1536 d=0.7 (listed words)"));
                // an ROI input
                const cv::Mat& img = imgs[0].second;
                cv::cuda::GpuMat big(img.rows + 3, img.cols + 5, CV_8UC1, cv::Scalar(255));
                cv::cuda::GpuMat roi = big(cv::Rect(3, 1, img.cols, img.rows));
                roi.upload(img);
                EXPECT_TRUE(checkImage(img, p, "ROI input", RunSpec(), cv::cuda::Stream::Null(), &roi));
                progress(p, "the free function");

                // the same images through one ConnectedComponentsAnalyzer (its arena grows, merges, is reused;
                // stats and centroids come back as views of its memory), GpuMat then host outputs
                cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> analyzer =
                    cv::cuda::createConnectedComponentsAnalyzer(a, conn, ltype);
                cv::cuda::GpuMat dl, ds, dc;
                cv::Mat hl, hs, hc;
                for (size_t i = 0; i < imgs.size(); ++i)
                {
                    const CCResult ref = cpuReference(imgs[i].second, conn);
                    if (overflows(ref, ltype))
                        continue;
                    cv::cuda::GpuMat d;
                    d.upload(imgs[i].second);
                    HostResult got;
                    if (i % 2 == 0)
                    {
                        got.n = analyzer->apply(d, dl, ds, dc);
                        got = download(got.n, dl, ds, dc);
                    }
                    else
                    {
                        got.n = analyzer->apply(d, hl, hs, hc);
                        got.labels = hl.clone();
                        got.stats = hs.clone();
                        got.centroids = hc.clone();
                    }
                    EXPECT_TRUE(matchesCpu(ref, ltype, got)) << "analyzer, " << imgs[i].first << ", " << paramsName(p);
                }
                progress(p, "the analyzer");

                // applyBatch: frames of one size (one kernel for the batch with CCA_DEFAULT) and of mixed sizes
                // (one kernel each), GpuMat then host statistics
                for (int mixed = 0; mixed < 2; ++mixed)
                {
                    std::vector<cv::cuda::GpuMat> frames;
                    std::vector<CCResult> refs;
                    for (size_t i : { size_t(1), size_t(mixed ? 0 : 1), size_t(1), size_t(mixed ? 2 : 1) })
                    {
                        refs.push_back(cpuReference(imgs[i].second, conn));
                        frames.emplace_back(imgs[i].second);
                    }
                    std::vector<cv::cuda::GpuMat> bl, bs, bc;
                    std::vector<cv::Mat> hbs, hbc;
                    std::vector<int> counts;
                    if (mixed)
                        analyzer->applyBatch(frames, bl, hbs, hbc, counts, cv::cuda::Stream::Null());
                    else
                        analyzer->applyBatch(frames, bl, bs, bc, counts, cv::cuda::Stream::Null());
                    for (size_t k = 0; k < frames.size(); ++k)
                    {
                        HostResult got;
                        got.n = counts[k];
                        bl[k].download(got.labels);
                        if (mixed)
                        {
                            got.stats = hbs[k];
                            got.centroids = hbc[k];
                        }
                        else
                        {
                            bs[k].download(got.stats);
                            bc[k].download(got.centroids);
                        }
                        EXPECT_TRUE(matchesCpu(refs[k], ltype, got)) << "applyBatch frame " << k << ", " << paramsName(p);
                    }
                }
                progress(p, "applyBatch");
            }
    }
}

// ---------------------------------------------------------------------------------------------------
// Large images
// ---------------------------------------------------------------------------------------------------

static void skipUnlessLargeTests()
{
    skipIfNoCudaDevice();
    const char* env = std::getenv("CUDACCA_LARGE_TESTS");
    if (!env || std::string(env) != "1")
        throw cvtest::SkipTestException("large-image test: minutes and tens of GB of host memory; set CUDACCA_LARGE_TESTS=1 to run it");
}

//! A large image fast to make: random 8x8 blocks at 60 % with a spiral over the top-left 4096^2 corner
//! and a full-width serpentine band at the bottom (long paths across the whole width).
static cv::Mat largeImage(cv::Size size, std::mt19937& rng)
{
    cv::Mat small = randomBlockImage(cv::Size((size.width + 7) / 8, (size.height + 7) / 8), 0.6, 1, rng);
    cv::Mat img;
    cv::resize(small, img, cv::Size(small.cols * 8, small.rows * 8), 0, 0, cv::INTER_NEAREST);
    img = img(cv::Rect(0, 0, size.width, size.height)).clone();
    const int s = std::min(4096, std::min(size.width, size.height));
    spiral(cv::Size(s, s)).copyTo(img(cv::Rect(0, 0, s, s)));
    const int band = std::min(64, size.height);
    serpentine(cv::Size(size.width, band)).copyTo(img(cv::Rect(0, size.height - band, size.width, band)));
    return img;
}

//! The large image of the algorithms whose rounds grow with the longest path (takesLongPathImage): the same
//! size and indices, random 8x8 blocks at 30 % (below the percolation threshold of either connectivity: the
//! longest path is some hundreds of pixels), no spiral, no serpentine; the last pixel foreground.
static cv::Mat largeShortPathImage(cv::Size size, std::mt19937& rng)
{
    cv::Mat small = randomBlockImage(cv::Size((size.width + 7) / 8, (size.height + 7) / 8), 0.3, 1, rng);
    cv::Mat img;
    cv::resize(small, img, cv::Size(small.cols * 8, small.rows * 8), 0, 0, cv::INTER_NEAREST);
    img = img(cv::Rect(0, 0, size.width, size.height)).clone();
    img.at<uchar>(size.height - 1, size.width - 1) = 255;
    return img;
}

static void checkLarge(cv::Size size, bool allConnectivities)
{
    skipUnlessLargeTests();
    std::mt19937 rng(testSeed());
    const int64 t0 = cv::getTickCount();
    const cv::Mat longPathImg = largeImage(size, rng);
    bool anyShortPathOnly = false;
    for (const auto& cfg : algorithmConnectivities())
        anyShortPathOnly |= !takesLongPathImage(cfg.first, (long long)longPathImg.total());
    const cv::Mat shortPathImg = anyShortPathOnly ? largeShortPathImage(size, rng) : cv::Mat();
    for (int conn : { 8, 4 })
    for (int shortPaths = 0; shortPaths < 2; ++shortPaths)
    {
        if (conn == 4 && !allConnectivities)
            continue;
        if (shortPaths && shortPathImg.empty())
            continue;
        const cv::Mat& img = shortPaths ? shortPathImg : longPathImg;
        bool anyHere = false;
        for (const auto& cfg : algorithmConnectivities())
            anyHere |= cfg.second == conn && shortPaths == !takesLongPathImage(cfg.first, (long long)img.total());
        if (!anyHere)
            continue;
        if (shortPaths)
            std::cout << "[ cudacca  ] " << conn << "-conn: the short-path image (random 8x8 blocks at 30 %) for the "
                      << "algorithms whose rounds grow with the path" << std::endl;
        cv::cuda::GpuMat d, l, s, c;
        d.upload(img);
        const CCResult ref = cpuReference(img, conn);
        for (const auto& cfg : algorithmConnectivities())
        {
            if (cfg.second != conn || shortPaths != !takesLongPathImage(cfg.first, (long long)img.total()))
                continue;
            SCOPED_TRACE(cv::format("%dx%d ", size.width, size.height) + algorithmName(cfg.first) + cv::format(" %d-conn", conn));
            l.release(); s.release(); c.release();
            int n = -1;
            try
            {
                n = cv::cuda::connectedComponentsWithStats(d, l, s, c, conn, CV_32S, cfg.first);
            }
            catch (const cv::Exception& e)
            {
                // TMK needs about 34 bytes per pixel besides the outputs (cudacca.hpp): past about 2 Gpixel
                // that is more than an 80 GB GPU has. Its documented answer is a clean StsNoMem, and the
                // next call must work.
                if (cfg.first != cv::cuda::CCA_TMK || e.code != cv::Error::StsNoMem)
                    throw;
                std::cout << "[ cudacca  ] " << algorithmName(cfg.first) << ": out of device memory at this size, "
                          << "clean cv::Exception (StsNoMem): " << e.err << std::endl;
                cv::cuda::GpuMat small;
                d(cv::Rect(0, 0, 64, 64)).copyTo(small);
                cv::cuda::GpuMat sl, ss, sc;
                const int smallN = cv::cuda::connectedComponentsWithStats(small, sl, ss, sc, conn, CV_32S, cfg.first);
                EXPECT_TRUE(matchesCpu(cpuReference(cv::Mat(img, cv::Rect(0, 0, 64, 64)).clone(), conn), CV_32S,
                                       download(smallN, sl, ss, sc)));
                continue;
            }
            EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, l, s, c)));
        }
    }
    std::cout << cv::format("[ cudacca  ] %dx%d (%.2f Gpixel): %.1f s", size.width, size.height, longPathImg.total() / 1e9,
                            (cv::getTickCount() - t0) / cv::getTickFrequency()) << std::endl;
}

//! Which large image each algorithm gets (no GPU needed): the documented bounds of doc/algorithms.md, "Long
//! paths", by name, so that a change of a row's `paths` or of the bounds shows here.
TEST(CUDACCA_Large, LongPathImageBounds)
{
    const long long n16384 = 16384LL * 16384, n32768 = 32768LL * 32768, n46340 = 46340LL * 46340;
    for (const AlgorithmRow& row : kAlgorithmRows)
    {
        const std::string name = row.shortName();
        SCOPED_TRACE(name);
        const bool isLong = name == "NP" || name == "LNP" || name == "RASMUSSEN";
        const bool isTurns = name == "DPL" || name == "8DLS" || name == "M8DLS";
        EXPECT_EQ(isLong, row.longPathRounds);
        EXPECT_EQ(isTurns, row.turnRounds);
        EXPECT_TRUE(takesLongPathImage(row.id, 512 * 512));           // the suites' spirals up to 2^18 pixels
        EXPECT_EQ(!isLong, takesLongPathImage(row.id, 512 * 512 + 1));
        EXPECT_EQ(!isLong, takesLongPathImage(row.id, n16384));       // the 16384^2 spiral: all but `long`
        EXPECT_EQ(!isLong && !isTurns, takesLongPathImage(row.id, n32768));
        EXPECT_EQ(!isLong && !isTurns, takesLongPathImage(row.id, n46340));
    }
}

TEST(CUDACCA_Large, Image16384) { checkLarge(cv::Size(16384, 16384), true); }
TEST(CUDACCA_Large, Image32768) { checkLarge(cv::Size(32768, 32768), true); }
//! 46340^2 = 2147395600 pixels: just under the documented limit of 2^31 - 2.
TEST(CUDACCA_Large, Image46340JustUnderTheLimit) { checkLarge(cv::Size(46340, 46340), false); }

}} // namespace opencv_test::<anonymous>
