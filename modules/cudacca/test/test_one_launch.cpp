// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_DEFAULT's one-launch path (src/one_launch.hpp) where it differs from the pipelines: the size limit
// that chooses it, statistics that outgrow the host staging, CV_16U labels written straight into the
// caller's GpuMat (or not at all). Everything else is covered by the DEFAULT rows of every suite.

#include "test_precomp.hpp"
#include "test_utils.hpp"
#include "../src/one_launch.hpp"

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
    // smallest it leaves to FLSL_CD: random images, both connectivities, GpuMat and host outputs.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const int limit = static_cast<int>(cv::cuda::cudacca::kOneLaunchMaxPixels);
    const cv::Size sizes[] = { { 2048, limit / 2048 }, { 2048, limit / 2048 + 1 }, { limit, 1 }, { 1, limit + 1 } };
    for (const cv::Size& size : sizes)
        for (int connectivity : { 4, 8 })
        {
            SCOPED_TRACE(cv::format("%dx%d, %d-connectivity", size.width, size.height, connectivity));
            const cv::Mat img = randomBlockImage(size, 0.45, 1 + static_cast<int>(rng() % 3), rng);
            EXPECT_TRUE(defaultMatchesCpu(img, connectivity, CV_32S, connectivity == 8));
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
