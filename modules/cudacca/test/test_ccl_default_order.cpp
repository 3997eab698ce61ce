// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_ORDER_CCL_DEFAULT: with it, every algorithm's result equals the CPU's cv::connectedComponentsWithStats with
// its default ccltype (cv::CCL_DEFAULT: with 8-connectivity components numbered by their first 2x2 block), for
// the free function, an analyzer's apply and applyBatch, every output kind and label type; the flag's argument
// checks (no device needed) and the CV_16U refusal with the caller's outputs untouched.

#include "test_precomp.hpp"
#include "test_utils.hpp"

#include "opencv2/core/cuda_stream_accessor.hpp"

namespace opencv_test { namespace {

using namespace cudacca_test;

const int kOrder = cv::cuda::CCA_ORDER_CCL_DEFAULT;

//! The CPU with OpenCV's defaults (ccltype CCL_DEFAULT), CV_32S.
CCResult cpuDefaultReference(const cv::Mat& img, int connectivity)
{
    CCResult r;
    r.n = cv::connectedComponentsWithStats(img, r.labels, r.stats, r.centroids, connectivity, CV_32S);
    return r;
}

//! Images where raster order of first pixels and of first 2x2 blocks differ, and the usual random ones.
std::vector<std::pair<std::string, cv::Mat>> orderImages(std::mt19937& rng)
{
    std::vector<std::pair<std::string, cv::Mat>> v;
    // A's first pixel (row 2, column 10) comes before B's (row 2, column 20), but B reaches column 2 in row 3
    // through rows below, so B's first block (1, 1) comes before A's (1, 5).
    cv::Mat ab(12, 32, CV_8UC1, cv::Scalar(0));
    ab.at<uchar>(2, 10) = 1;                                    // A
    ab(cv::Rect(20, 2, 1, 6)).setTo(1);                         // B: down from (2, 20)
    ab(cv::Rect(2, 7, 19, 1)).setTo(1);                         //    along row 7
    ab(cv::Rect(2, 3, 1, 5)).setTo(1);                          //    up to (3, 2)
    v.emplace_back("first block before first pixel", ab);
    cv::Mat u(9, 9, CV_8UC1, cv::Scalar(0)); // a U whose right arm starts in row 1, a dot in row 1 between them
    u(cv::Rect(1, 1, 1, 7)).setTo(1);
    u(cv::Rect(7, 0, 1, 8)).setTo(1);
    u(cv::Rect(1, 7, 7, 1)).setTo(1);
    u.at<uchar>(1, 4) = 1;
    v.emplace_back("U", u);
    v.emplace_back("empty", cv::Mat(37, 23, CV_8UC1, cv::Scalar(0)));
    v.emplace_back("full", cv::Mat(23, 37, CV_8UC1, cv::Scalar(1)));
    v.emplace_back("1x61", randomBlockImage(cv::Size(61, 1), 0.5, 1, rng));
    v.emplace_back("61x1", randomBlockImage(cv::Size(1, 61), 0.5, 1, rng));
    for (double d : { 0.05, 0.3, 0.5, 0.75 })
        for (int g : { 1, 3 })
            v.emplace_back(cv::format("random 257x193 d=%.2f g=%d", d, g), randomBlockImage(cv::Size(257, 193), d, g, rng));
    v.emplace_back("random 1031x517 d=0.45 g=1", randomBlockImage(cv::Size(1031, 517), 0.45, 1, rng));
    return v;
}

TEST(CUDACCA_CclDefaultOrder, EveryAlgorithmEqualsTheCpuDefault)
{
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const auto images = orderImages(rng);
    // The test can fail: on the first image the two numberings differ.
    {
        cv::Mat sauf, byBlock;
        cv::connectedComponents(images[0].second, sauf, 8, CV_32S, cv::CCL_SAUF);
        cv::connectedComponents(images[0].second, byBlock, 8, CV_32S);
        ASSERT_FALSE(bytesEqual(sauf, byBlock)) << "the CPU's default numbered the test image as SAUF does";
    }
    for (const auto& ac : algorithmConnectivities())
    {
        const int algorithm = ac.first, connectivity = ac.second;
        for (size_t k = 0; k < images.size(); ++k)
        {
            const cv::Mat& img = images[k].second;
            SCOPED_TRACE(cv::format("%s, %d-connectivity, %s", algorithmName(algorithm).c_str(), connectivity,
                                    images[k].first.c_str()));
            const CCResult ref = cpuDefaultReference(img, connectivity);
            cv::cuda::GpuMat d(img), l, s, c;
            // GpuMat outputs, CV_32S
            HostResult got;
            got.n = cv::cuda::connectedComponentsWithStats(d, l, s, c, connectivity, CV_32S, algorithm | kOrder);
            got = download(got.n, l, s, c);
            EXPECT_TRUE(matchesCpu(ref, CV_32S, got));
            if (k % 4 != 1)
                continue;
            // host outputs, CV_16U (the reference derived from the CV_32S one), written in place
            if (!overflows(ref, CV_16U))
            {
                HostResult host;
                host.labels = poisonedLabels(img.size(), CV_16U);
                const uchar* data = host.labels.data;
                host.n = cv::cuda::connectedComponentsWithStats(img, host.labels, host.stats, host.centroids,
                                                                connectivity, CV_16U, algorithm | kOrder);
                EXPECT_EQ(data, host.labels.data) << "the caller's Mat was not written in place";
                EXPECT_TRUE(matchesCpu(ref, CV_16U, host));
            }
            // statistics only, and labels only
            cv::cuda::GpuMat s2, c2, l2;
            EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(d, cv::noArray(), s2, c2, connectivity, CV_32S,
                                                                    algorithm | kOrder));
            EXPECT_TRUE(bytesEqual(ref.stats, cv::Mat(s2)));
            EXPECT_TRUE(bytesEqual(ref.centroids, cv::Mat(c2)));
            EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(d, l2, cv::noArray(), cv::noArray(), connectivity,
                                                                    CV_32S, algorithm | kOrder));
            EXPECT_TRUE(labelsEqual(ref.labels, cv::Mat(l2)));
        }
    }
}

TEST(CUDACCA_CclDefaultOrder, AnalyzerApplyAndBatch)
{
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    const auto images = orderImages(rng);
    for (int algorithm : { cv::cuda::CCA_DEFAULT, cv::cuda::CCA_BKE, cv::cuda::CCA_FLSL_CD })
    {
        SCOPED_TRACE(algorithmName(algorithm));
        cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> a =
            cv::cuda::createConnectedComponentsAnalyzer(algorithm | kOrder, 8, CV_32S);
        EXPECT_EQ(algorithm | kOrder, a->getAlgorithm());
        std::vector<cv::cuda::GpuMat> frames;
        std::vector<CCResult> refs;
        for (size_t k = 0; k < images.size(); ++k)
        {
            SCOPED_TRACE(images[k].first);
            const CCResult ref = cpuDefaultReference(images[k].second, 8);
            HostResult got;
            got.n = a->apply(images[k].second, got.labels, got.stats, got.centroids);
            EXPECT_TRUE(matchesCpu(ref, CV_32S, got));
            frames.emplace_back(images[k].second);
            refs.push_back(ref);
        }
        // a batch of one size (the batched kernel's case without the flag) and the mixed ones
        frames.push_back(frames.back());
        refs.push_back(refs.back());
        std::vector<cv::cuda::GpuMat> labels, stats, centroids;
        std::vector<int> counts;
        a->applyBatch(frames, labels, stats, centroids, counts, cv::cuda::Stream::Null());
        ASSERT_EQ(frames.size(), counts.size());
        for (size_t k = 0; k < frames.size(); ++k)
        {
            SCOPED_TRACE(cv::format("batch frame %zu", k));
            EXPECT_TRUE(matchesCpu(refs[k], CV_32S, download(counts[k], labels[k], stats[k], centroids[k])));
        }
    }
}

TEST(CUDACCA_CclDefaultOrder, TooManyLabelsFor16ULeavesTheOutputsUntouched)
{
    // A 600x600 image of isolated pixels two apart: 90 000 components, more than CV_16U holds.
    skipIfNoCudaDevice();
    cv::Mat img(600, 600, CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < img.rows; y += 2)
        for (int x = 0; x < img.cols; x += 2)
            img.at<uchar>(y, x) = 1;
    for (int algorithm : { cv::cuda::CCA_DEFAULT, cv::cuda::CCA_FLSL_CD, cv::cuda::CCA_BKE })
    {
        SCOPED_TRACE(algorithmName(algorithm));
        cv::cuda::GpuMat l(poisonedLabels(img.size(), CV_16U)), s(poisonedStats(3)), c(poisonedCentroids(3));
        try
        {
            cv::cuda::connectedComponentsWithStats(img, l, s, c, 8, CV_16U, algorithm | kOrder);
            ADD_FAILURE() << "no exception";
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(cv::Error::StsOutOfRange, e.code) << e.what();
        }
        EXPECT_TRUE(bytesEqual(poisonedLabels(img.size(), CV_16U), cv::Mat(l)));
        EXPECT_TRUE(bytesEqual(poisonedStats(3), cv::Mat(s)));
        EXPECT_TRUE(bytesEqual(poisonedCentroids(3), cv::Mat(c)));
    }
}

TEST(CUDACCA_CclDefaultOrder, BadFlagsRefusedWithoutADevice)
{
    // Checked before anything needs a device: an unknown bit, the flag with a connectivity its algorithm lacks,
    // and applyAsync, which never learns N on the host.
    const cv::Mat img(8, 8, CV_8UC1, cv::Scalar(1));
    cv::Mat l;
    cv::cuda::Stream null = cv::cuda::StreamAccessor::wrapStream(nullptr); // Stream::Null() needs a driver
    expectRefusals({
        { "an unknown bit", [&] { cv::cuda::connectedComponentsWithStats(img, l, cv::noArray(), cv::noArray(), 8, CV_32S, 0x200); },
          cv::Error::StsBadArg, "algorithm" },
        { "the flag and an unknown bit", [&] { cv::cuda::connectedComponentsWithStats(img, l, cv::noArray(), cv::noArray(), 8, CV_32S, kOrder | 0x400); },
          cv::Error::StsBadArg, "CCA_ORDER_CCL_DEFAULT" },
        { "BKE with 4-connectivity", [&] { cv::cuda::connectedComponentsWithStats(img, l, cv::noArray(), cv::noArray(), 4, CV_32S, cv::cuda::CCA_BKE | kOrder); },
          cv::Error::StsBadArg, "connectivity 4" },
        { "an analyzer with an unknown bit", [&] { cv::cuda::createConnectedComponentsAnalyzer(kOrder | 0x1000, 8, CV_32S); },
          cv::Error::StsBadArg, "algorithm" },
        { "applyAsync", [&] {
              cv::cuda::GpuMat image = fakeGpuMat(8, 8, CV_8UC1, 0x1000), labels = fakeGpuMat(8, 8, CV_32SC1, 0x100000),
                               count = fakeGpuMat(1, 2, CV_32SC1, 0x200000);
              cv::cuda::createConnectedComponentsAnalyzer(cv::cuda::CCA_DEFAULT | kOrder, 8, CV_32S)
                  ->applyAsync(image, labels, cv::noArray(), cv::noArray(), count, null);
          },
          cv::Error::StsNotImplemented, "CCA_ORDER_CCL_DEFAULT" },
    });
    EXPECT_TRUE(l.empty()) << "an output was written by a refused call";
}

}} // namespace opencv_test::<anonymous>
