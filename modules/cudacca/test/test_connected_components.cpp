// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// GPU accuracy of cv::cuda::connectedComponentsWithStats: every case is compared EXACTLY with the CPU's
// cv::connectedComponentsWithStats(..., cv::CCL_SAUF): N, every label, every stats element, centroids
// bitwise. Outputs are preallocated and poisoned so that an element the GPU forgets is caught.
// Every case runs for algorithm x connectivity x ltype (see testedAlgorithms() in test_utils.hpp).
// Random images: the seed is printed; CUDACCA_TEST_SEED=<seed> replays a run.

#include "test_precomp.hpp"
#include "test_utils.hpp"

#include "../src/contracts.hpp" // statsAreaShift

namespace opencv_test { namespace {

using namespace cudacca_test;

class CudaCCA : public ::testing::TestWithParam<CCAParams>
{
protected:
    CCAParams p{};
    void SetUp() CV_OVERRIDE
    {
        skipIfNoCudaDevice(); // SKIP with the reason where there is no GPU
        p = GetParam();
    }
};

// ---------------------------------------------------------------------------------------------------
// Trivial images
// ---------------------------------------------------------------------------------------------------

static const cv::Size kSmallSizes[] = { {1, 1}, {2, 1}, {1, 2}, {7, 5}, {32, 32}, {33, 31}, {64, 64},
                                        {1000, 3}, {3, 1000}, {640, 480} };

TEST_P(CudaCCA, AllZero)
{
    FailureBudget budget;
    for (const cv::Size& s : kSmallSizes)
    {
        cv::Mat img = cv::Mat::zeros(s, CV_8UC1);
        ASSERT_EQ(1, cpuReference(img, p.connectivity).n);
        if (!budget.record(checkImage(img, p, "all zero"))) break;
    }
}

TEST_P(CudaCCA, AllForeground)
{
    FailureBudget budget;
    std::mt19937 rng(testSeed());
    for (const cv::Size& s : kSmallSizes)
    {
        // the background row is empty: LEFT=-1, TOP=INT_MAX, WIDTH=HEIGHT=AREA=0, centroid (NaN, NaN)
        cv::Mat img(s, CV_8UC1, cv::Scalar(255));
        CCResult ref = cpuReference(img, p.connectivity);
        ASSERT_EQ(2, ref.n);
        EXPECT_EQ(0, ref.stats.at<int>(0, cv::CC_STAT_AREA));
        EXPECT_TRUE(cvIsNaN(ref.centroids.at<double>(0, 0)) && cvIsNaN(ref.centroids.at<double>(0, 1)));
        if (!budget.record(checkImage(img, p, "all 255"))) break;
        // any nonzero value is foreground
        cv::Mat vals = randomBlockImage(s, 1.0, 1, rng, true);
        if (!budget.record(checkImage(vals, p, "all foreground, random nonzero values"))) break;
    }
}

TEST_P(CudaCCA, SinglePixel)
{
    FailureBudget budget;
    const cv::Size sizes[] = { {1, 1}, {2, 2}, {3, 3}, {31, 17}, {33, 65}, {128, 128}, {257, 129} };
    for (const cv::Size& s : sizes)
    {
        const int W = s.width, H = s.height;
        const cv::Point pts[] = { {0, 0}, {W - 1, 0}, {0, H - 1}, {W - 1, H - 1}, {W / 2, H / 2},
                                  {W / 2, 0}, {0, H / 2}, {W - 1, H / 2}, {W / 2, H - 1} };
        for (const cv::Point& pt : pts)
        {
            cv::Mat img = cv::Mat::zeros(s, CV_8UC1);
            img.at<uchar>(pt) = 1;
            if (!budget.record(checkImage(img, p, cv::format("single foreground pixel at (%d,%d)", pt.x, pt.y)))) return;
            // the inverse: a single background pixel (a hole) in a full image
            cv::Mat hole(s, CV_8UC1, cv::Scalar(255));
            hole.at<uchar>(pt) = 0;
            if (!budget.record(checkImage(hole, p, cv::format("single background pixel at (%d,%d)", pt.x, pt.y)))) return;
        }
    }
}

TEST_P(CudaCCA, SingleRowAndColumn)
{
    FailureBudget budget;
    std::mt19937 rng(testSeed());
    const int lengths[] = { 1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                            1000, 1023, 1024, 1025, 4097, 100003 };
    for (int n : lengths)
    {
        std::vector<std::pair<std::string, cv::Mat>> rows;
        rows.emplace_back("random d=0.5", randomBlockImage(cv::Size(n, 1), 0.5, 1, rng, true));
        rows.emplace_back("random runs g=7 d=0.6", randomBlockImage(cv::Size(n, 1), 0.6, 7, rng));
        rows.emplace_back("alternating", checkerboard(cv::Size(n, 1), 0));
        rows.emplace_back("alternating, phase 1", checkerboard(cv::Size(n, 1), 1));
        rows.emplace_back("all foreground", cv::Mat(1, n, CV_8UC1, cv::Scalar(1)));
        for (auto& r : rows)
        {
            if (!budget.record(checkImage(r.second, p, "1xN " + r.first))) return;
            if (!budget.record(checkImage(r.second.t(), p, "Nx1 " + r.first))) return;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Every size from 1x1 to 67x67: block/warp/tile borders at every position
// ---------------------------------------------------------------------------------------------------

// CV_32S takes every size. CV_16U's labeling is CV_32S's; only the label stores differ, by row: it takes every
// width at heights around the tile and warp borders (1-5, 15-17, 31-33, 63-65, 67) and every height at those
// widths, 1785 images instead of 4489 (the test took 41 % of the whole suite's time in session 22's run:
// doc/verification.md).
static bool nearTileBorder(int n)
{
    return n <= 5 || (n >= 15 && n <= 17) || (n >= 31 && n <= 33) || (n >= 63 && n <= 65) || n == 67;
}

TEST_P(CudaCCA, AllSizesUpTo67)
{
    FailureBudget budget;
    std::mt19937 rng(testSeed());
    for (int h = 1; h <= 67; ++h)
        for (int w = 1; w <= 67; ++w)
        {
            if (p.ltype == CV_16U && !nearTileBorder(h) && !nearTileBorder(w))
                continue;
            const int variant = (w * 67 + h) % 4;
            const double d = variant <= 1 ? 0.5 : (variant == 2 ? 0.55 : 0.65);
            const int g = variant <= 1 ? 1 : variant;  // g = 1, 1, 2, 3
            cv::Mat img = randomBlockImage(cv::Size(w, h), d, g, rng, variant == 1);
            if (!budget.record(checkImage(img, p, cv::format("random d=%.2f g=%d", d, g)))) return;
        }
}

TEST_P(CudaCCA, OddLargeSizes)
{
    FailureBudget budget(3);
    std::mt19937 rng(testSeed());
    struct { cv::Size s; double d; int g; } cases[] = {
        { {1021, 769}, 0.5, 1 }, { {1021, 769}, 0.55, 4 }, { {4099, 3}, 0.5, 1 }, { {3, 4099}, 0.5, 1 },
        { {4099, 3}, 0.8, 1 }, { {3, 4099}, 0.8, 1 }, { {1920, 1080}, 0.6, 1 }, { {2053, 2053}, 0.6, 1 },
        { {2053, 2053}, 0.45, 16 },
    };
    for (auto& c : cases)
        if (!budget.record(checkImage(randomBlockImage(c.s, c.d, c.g, rng), p,
                                      cv::format("random d=%.2f g=%d", c.d, c.g)))) return;
}

// ---------------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, Checkerboard)
{
    // 8-conn: all foreground pixels connected diagonally; 4-conn: every foreground pixel its own component
    // (512x512 4-conn: 131073 labels, beyond CV_16U: StsOutOfRange expected there).
    FailureBudget budget;
    const cv::Size sizes[] = { {1, 1}, {2, 2}, {3, 2}, {16, 16}, {17, 17}, {63, 65}, {64, 64}, {255, 257}, {512, 512} };
    for (const cv::Size& s : sizes)
        for (int phase = 0; phase < 2; ++phase)
        {
            cv::Mat img = checkerboard(s, phase);
            if (p.connectivity == 4)
            {
                ASSERT_EQ(cv::countNonZero(img) + 1, cpuReference(img, 4).n);
            }
            if (!budget.record(checkImage(img, p, cv::format("checkerboard phase %d", phase)))) return;
        }
}

TEST_P(CudaCCA, Stripes)
{
    FailureBudget budget;
    const cv::Size sizes[] = { {64, 64}, {129, 67}, {1024, 512} };
    const StripeKind kinds[] = { STRIPE_HORIZONTAL, STRIPE_VERTICAL, STRIPE_DIAGONAL, STRIPE_ANTIDIAGONAL };
    const char* kindNames[] = { "horizontal", "vertical", "diagonal", "antidiagonal" };
    const int pt[][2] = { {2, 1}, {3, 1}, {3, 2}, {5, 3}, {8, 4} };
    for (const cv::Size& s : sizes)
        for (int k = 0; k < 4; ++k)
            for (auto& q : pt)
                if (!budget.record(checkImage(stripes(s, kinds[k], q[0], q[1]), p,
                                              cv::format("%s stripes period %d thickness %d", kindNames[k], q[0], q[1])))) return;
}

TEST_P(CudaCCA, Spiral)
{
    FailureBudget budget(3);
    const cv::Size sizes[] = { {5, 5}, {6, 6}, {7, 4}, {64, 64}, {65, 33}, {33, 65}, {255, 257}, {1024, 1024}, {2048, 2048} };
    for (const cv::Size& s : sizes)
    {
        if (!takesLongPathImage(p.algorithm, s.area()))
        {
            std::cout << "[ cudacca  ] " << algorithmName(p.algorithm) << ": no spiral of " << sz(s)
                      << " (rounds grow with the path: kLongPathTestMaxPixels)" << std::endl;
            continue;
        }
        cv::Mat img = spiral(s);
        ASSERT_EQ(2, cpuReference(img, 4).n) << "the spiral generator must draw one 4-connected path, size " << sz(s);
        if (!budget.record(checkImage(img, p, "spiral"))) return;
        cv::Mat inv = 255 - img; // the gaps between the turns: one more spiral
        if (!budget.record(checkImage(inv, p, "inverted spiral"))) return;
    }
}

TEST_P(CudaCCA, Serpentine)
{
    FailureBudget budget(3);
    const cv::Size sizes[] = { {2, 3}, {64, 64}, {1000, 999}, {2048, 2048} };
    for (const cv::Size& s : sizes)
    {
        if (!takesLongPathImage(p.algorithm, s.area()))
        {
            std::cout << "[ cudacca  ] " << algorithmName(p.algorithm) << ": no serpentine of " << sz(s)
                      << " (rounds grow with the path: kLongPathTestMaxPixels)" << std::endl;
            continue;
        }
        cv::Mat img = serpentine(s);
        ASSERT_EQ(2, cpuReference(img, 4).n) << "the serpentine generator must draw one path, size " << sz(s);
        if (!budget.record(checkImage(img, p, "serpentine (rows)"))) return;
        if (!budget.record(checkImage(img.t(), p, "serpentine (columns)"))) return;
    }
}

TEST_P(CudaCCA, NestedRings)
{
    FailureBudget budget(3);
    const cv::Size squares[] = { {5, 5}, {64, 64}, {257, 129}, {1024, 1024} };
    for (const cv::Size& s : squares)
        if (!budget.record(checkImage(nestedSquareRings(s), p, "nested square rings"))) return;
    const cv::Size circles[] = { {64, 64}, {512, 512}, {1023, 769} };
    for (const cv::Size& s : circles)
    {
        if (!budget.record(checkImage(nestedCircles(s, 3, cv::LINE_8), p, "nested circles LINE_8 step 3"))) return;
        if (!budget.record(checkImage(nestedCircles(s, 2, cv::LINE_4), p, "nested circles LINE_4 step 2"))) return;
    }
}

TEST_P(CudaCCA, Combs)
{
    FailureBudget budget(3);
    const cv::Size sizes[] = { {3, 3}, {64, 64}, {127, 33}, {1024, 1024}, {2048, 512} };
    const CombKind kinds[] = { COMB_UP, COMB_DOWN, COMB_INTERLEAVED, COMB_SIDEWAYS };
    const char* names[] = { "comb, teeth up (joined at the bottom)", "comb, teeth down (joined at the top)",
                            "two interleaved combs", "comb, sideways" };
    for (const cv::Size& s : sizes)
        for (int k = 0; k < 4; ++k)
            if (!budget.record(checkImage(comb(s, kinds[k]), p, names[k]))) return;
}

// ---------------------------------------------------------------------------------------------------
// YACCLAB-style random images: granularity g in {1, 4, 16}, densities from 0 to 100 %
// ---------------------------------------------------------------------------------------------------

static void runYacclab(const CCAParams& p, cv::Size size, const std::vector<int>& densities)
{
    FailureBudget budget(4);
    std::mt19937 rng(testSeed());
    for (int g : { 1, 4, 16 })
        for (int d : densities)
        {
            cv::Mat img = randomBlockImage(size, d / 100.0, g, rng);
            if (!budget.record(checkImage(img, p, cv::format("YACCLAB random g=%d d=%d%%", g, d)))) return;
        }
}

TEST_P(CudaCCA, RandomYACCLAB_512)
{
    std::vector<int> d;
    for (int i = 0; i <= 100; i += 5) d.push_back(i); // includes 55, 60, 65 and 100 (full image)
    runYacclab(p, cv::Size(512, 512), d);
}

TEST_P(CudaCCA, RandomYACCLAB_2048)
{
    runYacclab(p, cv::Size(2048, 2048), { 0, 5, 25, 50, 55, 60, 65, 75, 95, 100 });
}

// ---------------------------------------------------------------------------------------------------
// "Real" images: drawn shapes and text, noisy, thresholded
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, DrawnScenes)
{
    FailureBudget budget(3);
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { {333, 257}, {640, 480}, {1920, 1080} };
    for (const cv::Size& s : sizes)
        for (int scene = 0; scene < 2; ++scene)
        {
            cv::Mat gray = drawnScene(s, rng);
            for (double t : { 60.0, 128.0, 200.0 })
            {
                cv::Mat bin;
                cv::threshold(gray, bin, t, 255, cv::THRESH_BINARY);
                if (!budget.record(checkImage(bin, p, cv::format("scene %d threshold %.0f", scene, t)))) return;
            }
            cv::Mat inv;
            cv::threshold(gray, inv, 128, 255, cv::THRESH_BINARY_INV);
            if (!budget.record(checkImage(inv, p, cv::format("scene %d inverse threshold 128", scene)))) return;
            cv::Mat ad;
            cv::adaptiveThreshold(gray, ad, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, 11, 2);
            if (!budget.record(checkImage(ad, p, cv::format("scene %d adaptive threshold", scene)))) return;
        }
}

// ---------------------------------------------------------------------------------------------------
// CV_8SC1 input: every nonzero value, negative ones included, is foreground
// ---------------------------------------------------------------------------------------------------

static cv::Mat randomSigned(cv::Size s, double zeroProb, bool negativeOnly, std::mt19937& rng)
{
    cv::Mat img(s, CV_8SC1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> v(negativeOnly ? -128 : -128, negativeOnly ? -1 : 126);
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
        {
            int val = 0;
            if (u(rng) >= zeroProb) { val = v(rng); if (!negativeOnly && val >= 0) ++val; } // skip 0
            img.at<schar>(y, x) = (schar)val;
        }
    return img;
}

TEST_P(CudaCCA, SignedInput8S)
{
    FailureBudget budget(3);
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { {1, 1}, {67, 61}, {512, 512}, {1021, 769} };
    for (const cv::Size& s : sizes)
    {
        std::vector<std::pair<std::string, cv::Mat>> imgs;
        imgs.emplace_back("8S random, half zero", randomSigned(s, 0.5, false, rng));
        imgs.emplace_back("8S random negative values only", randomSigned(s, 0.45, true, rng));
        imgs.emplace_back("8S all -1", cv::Mat(s, CV_8SC1, cv::Scalar(-1)));
        imgs.emplace_back("8S all -128", cv::Mat(s, CV_8SC1, cv::Scalar(-128)));
        for (auto& im : imgs)
        {
            // sanity of the reference: the 8S image labels like its nonzero mask
            cv::Mat mask = (im.second != 0);
            ASSERT_EQ(cpuReference(mask, p.connectivity).n, cpuReference(im.second, p.connectivity).n);
            if (!budget.record(checkImage(im.second, p, im.first))) return;
            RunSpec hostIn; hostIn.input = IN_HOST;
            if (!budget.record(checkImage(im.second, p, im.first, hostIn))) return;
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// ROIs
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, InputRoi)
{
    // The input is a non-continuous ROI of a larger image whose other pixels are foreground: a kernel that
    // reads outside the ROI, or assumes step == width, merges components or misplaces labels.
    FailureBudget budget(3);
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { {1, 1}, {5, 3}, {67, 61}, {512, 300}, {1021, 769} };
    const cv::Point offsets[] = { {1, 1}, {3, 5}, {13, 0}, {0, 7} };
    for (const cv::Size& s : sizes)
        for (const cv::Point& o : offsets)
            for (int surround = 0; surround < 2; ++surround)
            {
                cv::Mat big = surround ? cv::Mat(s.height + 9, s.width + 17, CV_8UC1, cv::Scalar(255))
                                       : randomBlockImage(cv::Size(s.width + 17, s.height + 9), 0.5, 1, rng, true);
                const cv::Rect r(o, s);
                randomBlockImage(s, 0.55, 1, rng).copyTo(big(r));
                const cv::Mat hostRoi = big(r);
                cv::cuda::GpuMat dBig;
                dBig.upload(big);
                cv::cuda::GpuMat dRoi = dBig(r);
                if (s.height > 1)
                {
                    ASSERT_FALSE(dRoi.isContinuous());
                }
                const std::string what = cv::format("input ROI at (%d,%d) of %dx%d, surround %s", o.x, o.y, big.cols, big.rows,
                                                    surround ? "foreground" : "random");
                if (!budget.record(checkImage(hostRoi, p, what, RunSpec(), cv::cuda::Stream::Null(), &dRoi))) return;
                RunSpec hostIn; hostIn.input = IN_HOST;
                if (!budget.record(checkImage(hostRoi, p, what + " (host Mat ROI)", hostIn))) return;
                // the input must not be modified
                cv::Mat after;
                dBig.download(after);
                ASSERT_TRUE(bytesEqual(big, after)) << "the input GpuMat was modified, " << what;
            }
}

TEST_P(CudaCCA, LabelsOutputRoi)
{
    // labels given as a preallocated ROI of a larger poisoned GpuMat (and Mat): written in place, exact inside,
    // untouched outside.
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { {1, 1}, {31, 7}, {67, 61}, {640, 480} };
    for (const cv::Size& s : sizes)
    {
        cv::Mat img = randomBlockImage(s, 0.55, 1, rng);
        CCResult ref = cpuReference(img, p.connectivity);
        if (overflows(ref, p.ltype)) continue;
        const cv::Rect r(3, 5, s.width, s.height);
        const cv::Mat bigPoison = poisonedLabels(cv::Size(s.width + 10, s.height + 9), p.ltype);
        cv::Mat expectedBig = bigPoison.clone();
        expectedLabels(ref, p.ltype).copyTo(expectedBig(r));
        SCOPED_TRACE(cv::format("labels ROI (3,5) %s of %s, %s", sz(s).c_str(), sz(bigPoison.size()).c_str(), paramsName(p).c_str()));

        // GpuMat
        cv::cuda::GpuMat dImg, dBig, dStats, dCentroids;
        dImg.upload(img);
        dBig.upload(bigPoison);
        cv::cuda::GpuMat dRoi = dBig(r);
        const void* roiData = dRoi.data;
        int n = cv::cuda::connectedComponentsWithStats(dImg, dRoi, dStats, dCentroids, p.connectivity, p.ltype, p.algorithm);
        EXPECT_EQ(ref.n, n);
        EXPECT_EQ(roiData, (const void*)dRoi.data) << "the labels ROI was reallocated";
        cv::Mat bigAfter, st, ce;
        dBig.download(bigAfter);
        dStats.download(st);
        dCentroids.download(ce);
        EXPECT_TRUE(labelsEqual(expectedBig, bigAfter)) << "(whole parent: the ROI must be exact, the rest poison)";
        EXPECT_TRUE(statsEqual(ref.stats, st));
        EXPECT_TRUE(centroidsEqual(ref.centroids, ce));

        // host Mat
        cv::Mat hBig = bigPoison.clone();
        cv::Mat hRoi = hBig(r);
        const void* hRoiData = hRoi.data;
        cv::Mat hSt, hCe;
        n = cv::cuda::connectedComponentsWithStats(dImg, hRoi, hSt, hCe, p.connectivity, p.ltype, p.algorithm);
        EXPECT_EQ(ref.n, n);
        EXPECT_EQ(hRoiData, (const void*)hRoi.data) << "the host labels ROI was reallocated";
        EXPECT_TRUE(labelsEqual(expectedBig, hBig)) << "(whole host parent)";
        EXPECT_TRUE(statsEqual(ref.stats, hSt));
        EXPECT_TRUE(centroidsEqual(ref.centroids, hCe));
    }
}

TEST_P(CudaCCA, ContinuousLabelsHoldTheRunTable)
{
    // The run-table pipeline (CCA_FLSL*, CCA_DEFAULT above 2^21 pixels) keeps its run table inside a CV_32S
    // GpuMat whose pixels are contiguous until it writes the labels, over the table last (runPipeline;
    // flsl_labeling.cu, LabelRows), when it has counted the runs (FLSL_OTF always; the others when the run
    // table's bound passes 16 MiB: rows * ceil(cols / 2) > 2^22, e.g. 4096 x 2100) and they are more than one per
    // 8 pixels (here g = 1 at d = 25 % and 50 %, g = 2 at d = 50 % on the edge). Labels given as a continuous
    // GpuMat of their own, with stats, and as a band of whole rows of a continuous parent whose other rows are
    // poisoned (they must stay so), labels only. Sizes on both sides of the one-launch path's limit (2^21
    // pixels) and of the bound; g = 1, d = 25 % has more labels than the statistics' early capacity (a guess of
    // 0.15 bytes per pixel, at least 16384 labels: accumulated again after N, before the rows over the table are
    // written); 4096^2 at g = 4, d = 5 % (runs too few for the table to move into the labels) has 40-50 k labels,
    // more than 16384 but fewer than that guess (69 905): accumulated while N travels.
    if (p.ltype != CV_32S)
        return; // only CV_32S labels hold the table
    const bool runTable = p.algorithm == cv::cuda::CCA_DEFAULT || p.algorithm == cv::cuda::CCA_FLSL ||
                          p.algorithm == cv::cuda::CCA_FLSL_CD || p.algorithm == cv::cuda::CCA_FLSL_OTF;
    struct Case { cv::Size size; double density; int granularity; bool large; bool betweenGuesses = false; };
    const Case cases[] = { { {1, 1}, 0.5, 1, false },       { {1531, 1}, 0.5, 1, false },
                           { {1, 2001}, 0.5, 1, false },    { {640, 480}, 0.5, 1, false },
                           { {1531, 997}, 0.25, 1, false }, { {1500, 1500}, 0.25, 1, true },
                           { {2048, 2048}, 0.6, 4, true },  { {4096, 2100}, 0.25, 1, true },
                           { {4099, 2100}, 0.5, 2, true },  { {4096, 2100}, 0.95, 1, true },
                           { {9000000, 1}, 0.5, 1, true },  { {1, 9000000}, 0.5, 1, true },
                           { {4096, 4096}, 0.05, 4, true, true } };
    std::mt19937 rng(testSeed());
    for (const Case& k : cases)
    {
        if (k.large && !runTable)
            continue;
        const cv::Mat img = randomBlockImage(k.size, k.density, k.granularity, rng);
        const CCResult ref = cpuReference(img, p.connectivity);
        SCOPED_TRACE(cv::format("%s d=%.2f g=%d, N=%d, %s", sz(k.size).c_str(), k.density, k.granularity, ref.n,
                                paramsName(p).c_str()));
        if (k.betweenGuesses) // the case is there for this many labels
        {
            ASSERT_TRUE(ref.n > 16385 && ref.n < 69905) << "N between the old and the new early statistics' guess";
        }
        cv::cuda::GpuMat dImg, dS, dC;
        dImg.upload(img);

        // (uploads, not setTo: setTo launches rows / 8 blocks in y, past CUDA's limit of 65535 at 1 x 9000000)
        cv::cuda::GpuMat own = cv::cuda::createContinuous(k.size, CV_32SC1);
        own.upload(poisonedLabels(k.size, CV_32S));
        const void* ownData = own.data;
        int n = cv::cuda::connectedComponentsWithStats(dImg, own, dS, dC, p.connectivity, CV_32S, p.algorithm);
        EXPECT_EQ(ref.n, n);
        EXPECT_EQ(ownData, (const void*)own.data) << "the labels were reallocated";
        cv::Mat l, st, ce;
        own.download(l);
        dS.download(st);
        dC.download(ce);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, CV_32S), l)) << "(continuous GpuMat)";
        EXPECT_TRUE(statsEqual(ref.stats, st));
        EXPECT_TRUE(centroidsEqual(ref.centroids, ce));

        const cv::Mat parentPoison = poisonedLabels(cv::Size(k.size.width, k.size.height + 3), CV_32S);
        cv::cuda::GpuMat parent = cv::cuda::createContinuous(parentPoison.size(), CV_32SC1);
        parent.upload(parentPoison);
        const cv::Rect band(0, 2, k.size.width, k.size.height);
        cv::cuda::GpuMat dBand = parent(band);
        ASSERT_TRUE(dBand.isContinuous());
        n = cv::cuda::connectedComponentsWithStats(dImg, dBand, cv::noArray(), cv::noArray(), p.connectivity, CV_32S,
                                                   p.algorithm);
        EXPECT_EQ(ref.n, n);
        cv::Mat expectedParent = parentPoison.clone(), parentAfter;
        expectedLabels(ref, CV_32S).copyTo(expectedParent(band));
        parent.download(parentAfter);
        EXPECT_TRUE(labelsEqual(expectedParent, parentAfter)) << "(rows 2.. of a continuous parent, labels only: "
                                                                  "the band exact, the rows around it poison)";
    }
}

TEST_P(CudaCCA, EarlyRunTableAtItsGuess)
{
    // Where the run pipeline counts its runs (here 4096^2), its up-link pass is queued before the host waits for the
    // count, into a table guessed at a slot per 16 pixels: the kernel reads the count on the device and links, taking
    // 1, 2 or 4 bitmap words a thread as the pass after the wait would, or does nothing where the runs overflow the
    // guess (flsl_labeling.cu, queueEarlyUpLinks, linkUpRunsEarlyKernel). One-pixel runs every `period` pixels of a
    // row, shifted by one every 7 rows (8-connected: diagonal chains; 4-connected: pieces of 7 rows): exactly the
    // guess (1 048 576 runs, one word a thread), one run more (an isolated pixel in row 0: the counted table's path),
    // 65 536 runs (two words a thread) and 4096 (four).
    if (p.ltype != CV_32S)
        return;
    if (p.algorithm != cv::cuda::CCA_DEFAULT && p.algorithm != cv::cuda::CCA_FLSL && p.algorithm != cv::cuda::CCA_FLSL_CD &&
        p.algorithm != cv::cuda::CCA_FLSL_OTF)
        return;
    const cv::Size size(4096, 4096);
    struct Case { int period; bool extra; long long runs; };
    const Case cases[] = { { 16, false, 1048576 }, { 16, true, 1048577 }, { 256, false, 65536 }, { 4096, false, 4096 } };
    for (const Case& k : cases)
    {
        cv::Mat img(size, CV_8UC1, cv::Scalar(0));
        for (int y = 0; y < size.height; ++y)
            for (int x = (y / 7) % k.period; x < size.width; x += k.period)
                img.at<uchar>(y, x) = 255;
        if (k.extra)
            img.at<uchar>(0, k.period / 2) = 255; // row 0's runs start at 0: this one is 8 pixels from them
        long long runs = 0;
        for (int y = 0; y < size.height; ++y)
            for (int x = 0; x < size.width; ++x)
                runs += img.at<uchar>(y, x) && (x == 0 || !img.at<uchar>(y, x - 1));
        ASSERT_EQ(k.runs, runs) << "the pattern's run count (the case is there for it)";
        const CCResult ref = cpuReference(img, p.connectivity);
        SCOPED_TRACE(cv::format("period %d%s, %lld runs, N=%d, %s", k.period, k.extra ? " + 1" : "", runs, ref.n,
                                paramsName(p).c_str()));
        cv::cuda::GpuMat dImg, dL, dS, dC;
        dImg.upload(img);
        const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, p.connectivity, CV_32S, p.algorithm);
        EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, dL, dS, dC))) << "(full CCA)";
        cv::cuda::GpuMat dL2(size, CV_32SC1);
        dL2.upload(poisonedLabels(size, CV_32S));
        EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(dImg, dL2, cv::noArray(), cv::noArray(), p.connectivity,
                                                                CV_32S, p.algorithm));
        cv::Mat l;
        dL2.download(l);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, CV_32S), l)) << "(labels only)";
    }
}

TEST_P(CudaCCA, FewRunsChainAtCountedSizes)
{
    // Where the early up-link table holds the runs and they are at most 8192 (flsl_labeling.cu, kFewRuns), the chain
    // after the run-count wait is one block (fewRunsChainKernel): compressions, the unions over the runs recorded by
    // the up-link pass, the ranking; 6 slots a thread up to 6144 runs (kFewRunsSmall), 8 above. 4096^2 (a counted
    // table): random short lines, filled circles and a patch of random pixels (unions of every kind, 8-connected
    // diagonals; at most 4000 + 1200 + 4608 runs, so any path), then one-pixel runs four a row from the first row, at
    // exactly 6144 runs and one more (the block's two shapes), and at exactly 8192 and one more (the block, then the
    // kernels' path). Each image's run count is asserted on the host.
    if (p.algorithm != cv::cuda::CCA_DEFAULT && p.algorithm != cv::cuda::CCA_FLSL && p.algorithm != cv::cuda::CCA_FLSL_CD &&
        p.algorithm != cv::cuda::CCA_FLSL_OTF)
        return;
    const cv::Size size(4096, 4096);
    const long long fewRunsSmall = 6144, fewRuns = 8192; // kFewRunsSmall, kFewRuns
    const unsigned seed = testSeed();
    std::mt19937 rng(seed);
    auto countRuns = [&](const cv::Mat& img) {
        long long runs = 0;
        for (int y = 0; y < img.rows; ++y)
            for (int x = 0; x < img.cols; ++x)
                runs += img.at<uchar>(y, x) && (x == 0 || !img.at<uchar>(y, x - 1));
        return runs;
    };
    struct Case { const char* name; cv::Mat img; long long minRuns, maxRuns; };
    std::vector<Case> cases;
    {
        cv::Mat img(size, CV_8UC1, cv::Scalar(0));
        std::uniform_int_distribution<int> px(0, size.width - 1), len(-200, 200), th(1, 3), r(3, 60);
        for (int i = 0; i < 20; ++i)
        {
            const cv::Point a(px(rng), px(rng));
            cv::line(img, a, a + cv::Point(len(rng), len(rng)), cv::Scalar(255), th(rng), cv::LINE_8);
        }
        for (int i = 0; i < 10; ++i)
            cv::circle(img, cv::Point(px(rng), px(rng)), r(rng), cv::Scalar(255), cv::FILLED);
        cv::Mat patch = img(cv::Rect(px(rng) % (size.width - 96), px(rng) % (size.height - 96), 96, 96));
        for (int y = 0; y < patch.rows; ++y)
            for (int x = 0; x < patch.cols; ++x)
                patch.at<uchar>(y, x) = (rng() & 1) ? 255 : 0;
        cases.push_back({ "random lines, circles and a noise patch", img, 1000, 10240 });
    }
    for (const long long limit : { fewRunsSmall, fewRuns })
        for (int extra = 0; extra < 2; ++extra)
        {
            cv::Mat img(size, CV_8UC1, cv::Scalar(0));
            for (int y = 0; y < limit / 4; ++y)
                for (int x = (y / 7) % 1024; x < size.width; x += 1024)
                    img.at<uchar>(y, x) = 255;
            if (extra)
                img.at<uchar>(4000, 512) = 255;
            cases.push_back({ limit == fewRuns ? (extra ? "kFewRuns + 1 periodic runs" : "kFewRuns periodic runs")
                                               : (extra ? "kFewRunsSmall + 1 periodic runs" : "kFewRunsSmall periodic runs"),
                              img, limit + extra, limit + extra });
        }
    for (const Case& k : cases)
    {
        const long long runs = countRuns(k.img);
        ASSERT_GE(runs, k.minRuns) << k.name << " (seed " << seed << ")";
        ASSERT_LE(runs, k.maxRuns) << k.name << " (seed " << seed << ")";
        const CCResult ref = cpuReference(k.img, p.connectivity);
        SCOPED_TRACE(cv::format("%s, %lld runs, N=%d, seed %u, %s", k.name, runs, ref.n, seed, paramsName(p).c_str()));
        cv::cuda::GpuMat dImg, dL, dS, dC;
        dImg.upload(k.img);
        const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, p.connectivity, p.ltype, p.algorithm);
        EXPECT_TRUE(matchesCpu(ref, p.ltype, download(n, dL, dS, dC))) << "(full CCA)";
        cv::cuda::GpuMat dL2(size, p.ltype == CV_32S ? CV_32SC1 : CV_16UC1);
        dL2.upload(poisonedLabels(size, p.ltype));
        EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(dImg, dL2, cv::noArray(), cv::noArray(), p.connectivity,
                                                                p.ltype, p.algorithm));
        cv::Mat l;
        dL2.download(l);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, p.ltype), l)) << "(labels only)";
    }
}

/** img's full CCA into CV_32S GpuMats, its statistics alone (labels = noArray()) and its host outputs, each against
the CPU's `ref`: the three ways the run pipeline queues its statistics (beside the label write; alone, before the
host waits for N where they fit the early accumulators; alone, after it). */
static void expectOutputKindsMatchCpu(const cv::Mat& img, const CCResult& ref, const CCAParams& p)
{
    cv::cuda::GpuMat dImg, dL, dS, dC;
    dImg.upload(img);
    const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, p.connectivity, CV_32S, p.algorithm);
    EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, dL, dS, dC))) << "(full CCA)";
    cv::cuda::GpuMat dS2, dC2;
    EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(dImg, cv::noArray(), dS2, dC2, p.connectivity, CV_32S,
                                                            p.algorithm));
    cv::Mat s2, c2;
    dS2.download(s2);
    dC2.download(c2);
    EXPECT_TRUE(statsEqual(ref.stats, s2)) << "(statistics only)";
    EXPECT_TRUE(centroidsEqual(ref.centroids, c2)) << "(statistics only)";
    cv::Mat hL, hS, hC;
    EXPECT_EQ(ref.n, cv::cuda::connectedComponentsWithStats(dImg, hL, hS, hC, p.connectivity, CV_32S, p.algorithm));
    EXPECT_TRUE(labelsEqual(expectedLabels(ref, CV_32S), hL)) << "(host outputs)";
    EXPECT_TRUE(statsEqual(ref.stats, hS)) << "(host outputs)";
    EXPECT_TRUE(centroidsEqual(ref.centroids, hC)) << "(host outputs)";
}

TEST_P(CudaCCA, RunStatsAtRecordedSizes)
{
    // Where the early up-link pass records the runs (at most 65536: flsl_labeling.cu, kRecordedRuns), CCA_DEFAULT's
    // statistics come from them (runStatsBlock): each run's set, and the background from the gaps between the runs
    // and from the rows without any. Counted tables (4096^2 and 4099 x 4097, so that runs end inside a row's last
    // word as well as at a word boundary): blobs with rows that are all foreground, rows that are all background and
    // runs that touch both sides; then periodic one-pixel runs at exactly 65536 and one more (the row segments' path).
    // Full CCA into GpuMats (the statistics beside the label write), statistics only and host outputs (the statistics
    // alone), each against the CPU. Each image's run count is asserted on the host.
    if (p.algorithm != cv::cuda::CCA_DEFAULT && p.algorithm != cv::cuda::CCA_FLSL_CD)
        return;
    if (p.ltype != CV_32S)
        return;
    const long long recorded = 65536; // kRecordedRuns
    const unsigned seed = testSeed();
    std::mt19937 rng(seed);
    auto countRuns = [](const cv::Mat& img) {
        long long runs = 0;
        for (int y = 0; y < img.rows; ++y)
            for (int x = 0; x < img.cols; ++x)
                runs += img.at<uchar>(y, x) && (x == 0 || !img.at<uchar>(y, x - 1));
        return runs;
    };
    struct Case { std::string name; cv::Mat img; long long minRuns, maxRuns; };
    std::vector<Case> cases;
    for (const cv::Size size : { cv::Size(4096, 4096), cv::Size(4099, 4097) })
    {
        cv::Mat img(size, CV_8UC1, cv::Scalar(0));
        std::uniform_int_distribution<int> px(0, size.width - 1), r(2, 80), side(1, 200);
        for (int i = 0; i < 40; ++i)
            cv::circle(img, cv::Point(px(rng), px(rng)), r(rng), cv::Scalar(255), cv::FILLED);
        for (int i = 0; i < 40; ++i)
            cv::rectangle(img, cv::Rect(px(rng), px(rng), side(rng), side(rng)), cv::Scalar(255), cv::FILLED);
        img.row(size.height / 3).setTo(255);     // a row that is one run
        img.rowRange(10, 14).setTo(255);         // and four under one another
        img.row(0).setTo(0);                     // the first row without runs
        cv::line(img, cv::Point(0, 200), cv::Point(size.width - 1, 260), cv::Scalar(255)); // runs at both sides
        cv::rectangle(img, cv::Rect(size.width - 40, 500, 40, 30), cv::Scalar(255), cv::FILLED); // to the last column
        cases.push_back({ cv::format("blobs %dx%d", size.width, size.height), img, 100, recorded });
    }
    for (int extra = 0; extra < 2; ++extra)
    {
        cv::Mat img(cv::Size(4096, 4096), CV_8UC1, cv::Scalar(0));
        for (int y = 0; y < 4096; ++y)
            for (int x = (y / 5) % 256; x < img.cols; x += 256)
                img.at<uchar>(y, x) = 255;
        if (extra)
            img.at<uchar>(3000, 128 + (3000 / 5) % 256) = 255; // 128 pixels from its row's runs
        cases.push_back({ extra ? "kRecordedRuns + 1 periodic runs" : "kRecordedRuns periodic runs", img,
                          recorded + extra, recorded + extra });
    }
    for (const Case& k : cases)
    {
        const long long runs = countRuns(k.img);
        ASSERT_GE(runs, k.minRuns) << k.name << " (seed " << seed << ")";
        ASSERT_LE(runs, k.maxRuns) << k.name << " (seed " << seed << ")";
        const CCResult ref = cpuReference(k.img, p.connectivity);
        SCOPED_TRACE(cv::format("%s, %lld runs, N=%d, seed %u, %s", k.name.c_str(), runs, ref.n, seed, paramsName(p).c_str()));
        expectOutputKindsMatchCpu(k.img, ref, p);
    }
}

TEST_P(CudaCCA, StatsTableAtManyLabels)
{
    // Where the image has millions of runs of many small components (flsl_labeling.cu, tableWanted: at least 2^21
    // runs, 2^17 labels, at most 32 runs a label), CCA_DEFAULT's statistics keep a table of labels per block in
    // shared memory (StatsTable: 960 labels from the block's first run's segment). Random g = 1 images of 2^24
    // pixels at d = 25 % (about 3.1 M runs, 1 M labels), which take it: 2048 x 8192 (a warp per row: about 1000
    // roots in a block's 8 rows, more than the table holds) and an odd width (4099 x 4097: two row segments a row);
    // components go on from the blocks above and into the blocks below. And two the rule leaves without it: d = 5 %
    // (0.8 M runs) and d = 50 % (one component holds most runs). Full CCA into GpuMats, statistics only and host
    // outputs, each against the CPU.
    if (p.algorithm != cv::cuda::CCA_DEFAULT && p.algorithm != cv::cuda::CCA_FLSL_CD)
        return;
    if (p.ltype != CV_32S)
        return;
    const unsigned seed = testSeed();
    std::mt19937 rng(seed);
    struct Case { cv::Size size; double density; };
    const Case cases[] = { { { 2048, 8192 }, 0.25 }, { { 2048, 8192 }, 0.05 }, { { 4099, 4097 }, 0.25 },
                           { { 4099, 4097 }, 0.5 } };
    for (const Case& k : cases)
    {
        const cv::Mat img = randomBlockImage(k.size, k.density, 1, rng);
        const CCResult ref = cpuReference(img, p.connectivity);
        SCOPED_TRACE(cv::format("%s, d = %.2f, N=%d, seed %u, %s", sz(k.size).c_str(), k.density, ref.n, seed,
                                paramsName(p).c_str()));
        expectOutputKindsMatchCpu(img, ref, p);
    }
}

TEST_P(CudaCCA, StatsCentroidsOutputRoi)
{
    // stats and centroids given as preallocated ROIs (N x 5, N x 2) of larger poisoned matrices.
    std::mt19937 rng(testSeed());
    const cv::Size sizes[] = { {1, 1}, {67, 61}, {300, 200} };
    for (const cv::Size& s : sizes)
    {
        cv::Mat img = randomBlockImage(s, 0.5, 1, rng);
        CCResult ref = cpuReference(img, p.connectivity);
        if (overflows(ref, p.ltype)) continue;
        SCOPED_TRACE(cv::format("stats/centroids ROIs, image %s, N=%d, %s", sz(s).c_str(), ref.n, paramsName(p).c_str()));
        const int n = ref.n;
        // parents wider than the outputs: the ROIs are not continuous
        const cv::Mat sBig(n + 4, 9, CV_32SC1, cv::Scalar(kPoisonStat));
        const cv::Mat cPoison = poisonedCentroids(n + 3, 5);
        const cv::Rect sr(2, 1, 5, n), cr(1, 2, 2, n);
        cv::Mat sExpected = sBig.clone(), cExpected = cPoison.clone();
        ref.stats.copyTo(sExpected(sr));
        ref.centroids.copyTo(cExpected(cr));

        cv::cuda::GpuMat dImg, dLabels, dS, dC;
        dImg.upload(img);
        dS.upload(sBig);
        dC.upload(cPoison);
        cv::cuda::GpuMat dSr = dS(sr), dCr = dC(cr);
        const void* sp = dSr.data; const void* cp = dCr.data;
        const int got = cv::cuda::connectedComponentsWithStats(dImg, dLabels, dSr, dCr, p.connectivity, p.ltype, p.algorithm);
        EXPECT_EQ(n, got);
        EXPECT_EQ(sp, (const void*)dSr.data) << "the stats ROI was reallocated";
        EXPECT_EQ(cp, (const void*)dCr.data) << "the centroids ROI was reallocated";
        cv::Mat sAfter, cAfter, lAfter;
        dS.download(sAfter);
        dC.download(cAfter);
        dLabels.download(lAfter);
        EXPECT_TRUE(bytesEqual(sExpected, sAfter)) << "stats parent: ROI exact, rest poison. ROI: " << statsEqual(ref.stats, sAfter(sr)).message();
        EXPECT_TRUE(bytesEqual(cExpected, cAfter)) << "centroids parent: ROI exact, rest poison. ROI: " << centroidsEqual(ref.centroids, cAfter(cr)).message();
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, p.ltype), lAfter));
    }
}

// ---------------------------------------------------------------------------------------------------
// Output kinds: GpuMat / Mat / empty / noArray(), host input
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, OutputKinds)
{
    std::mt19937 rng(testSeed());
    std::vector<std::pair<std::string, cv::Mat>> imgs;
    imgs.emplace_back("random d=0.5", randomBlockImage(cv::Size(300, 200), 0.5, 1, rng));
    imgs.emplace_back("random 67x1", randomBlockImage(cv::Size(67, 1), 0.5, 1, rng));
    imgs.emplace_back("full (empty background row)", cv::Mat(cv::Size(129, 65), CV_8UC1, cv::Scalar(7)));
    imgs.emplace_back("random g=4 d=0.6", randomBlockImage(cv::Size(1024, 768), 0.6, 4, rng));
    struct K { InputKind in; OutKind l, s, c; } specs[] = {
        { IN_GPU,  OUT_GPU,        OUT_GPU,        OUT_GPU },
        { IN_HOST, OUT_GPU,        OUT_GPU,        OUT_GPU },
        { IN_GPU,  OUT_HOST,       OUT_HOST,       OUT_HOST },
        { IN_HOST, OUT_HOST,       OUT_HOST,       OUT_HOST },
        { IN_GPU,  OUT_GPU,        OUT_HOST,       OUT_GPU },
        { IN_GPU,  OUT_HOST,       OUT_GPU,        OUT_HOST },
        { IN_GPU,  OUT_GPU_EMPTY,  OUT_GPU_EMPTY,  OUT_GPU_EMPTY },
        { IN_HOST, OUT_HOST_EMPTY, OUT_HOST_EMPTY, OUT_HOST_EMPTY },
        { IN_GPU,  OUT_GPU_EMPTY,  OUT_HOST_EMPTY, OUT_GPU },
        { IN_GPU,  OUT_GPU,        OUT_NONE,       OUT_NONE },   // labels only: still exact, N still right
        { IN_HOST, OUT_HOST,       OUT_NONE,       OUT_NONE },
        { IN_GPU,  OUT_GPU_EMPTY,  OUT_NONE,       OUT_NONE },
        { IN_GPU,  OUT_GPU,        OUT_GPU,        OUT_NONE },   // stats without centroids
        { IN_HOST, OUT_HOST,       OUT_HOST,       OUT_NONE },
    };
    FailureBudget budget(6);
    for (auto& im : imgs)
        for (auto& k : specs)
        {
            RunSpec spec; spec.input = k.in; spec.labels = k.l; spec.stats = k.s; spec.centroids = k.c;
            if (!budget.record(checkImage(im.second, p, im.first, spec))) return;
        }
}

// ---------------------------------------------------------------------------------------------------
// CV_16U: more than 65536 labels (label 65536 and up) -> StsOutOfRange, outputs untouched; up to 65536 -> exact
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, LabelCountLimit16U)
{
    // For CV_32S params these are plain exact checks with many labels.
    struct C { std::string what; cv::Mat img; int expectedN; };
    std::vector<C> cases;
    cases.push_back({ "checkerboard 512x512", checkerboard(cv::Size(512, 512)), p.connectivity == 4 ? 131073 : 2 });
    cases.push_back({ "isolated pixels 1024x1024", isolatedPixels(cv::Size(1024, 1024), 512 * 512), 512 * 512 + 1 });
    // the boundary, as cudacca.hpp documents it (kMaxLabels16U)
    cases.push_back({ cv::format("%d isolated pixels: N = %d, the most CV_16U allows", kMaxLabels16U - 1, kMaxLabels16U),
                      isolatedPixels(cv::Size(512, 512), kMaxLabels16U - 1), kMaxLabels16U });
    cases.push_back({ cv::format("%d isolated pixels: N = %d, one too many for CV_16U", kMaxLabels16U, kMaxLabels16U + 1),
                      isolatedPixels(cv::Size(512, 512), kMaxLabels16U), kMaxLabels16U + 1 });
    const OutKind kinds[][3] = {
        { OUT_GPU, OUT_GPU, OUT_GPU }, { OUT_HOST, OUT_HOST, OUT_HOST }, { OUT_GPU, OUT_NONE, OUT_NONE },
        { OUT_GPU_EMPTY, OUT_GPU_EMPTY, OUT_GPU_EMPTY }, { OUT_HOST_EMPTY, OUT_HOST_EMPTY, OUT_HOST_EMPTY },
        { OUT_HOST, OUT_GPU, OUT_HOST },
    };
    FailureBudget budget(4);
    for (auto& c : cases)
    {
        ASSERT_EQ(c.expectedN, cpuReference(c.img, p.connectivity).n) << c.what;
        for (auto& k : kinds)
        {
            RunSpec spec; spec.labels = k[0]; spec.stats = k[1]; spec.centroids = k[2];
            if (!budget.record(checkImage(c.img, p, c.what, spec))) return;
        }
    }
}

TEST(CUDACCA_16U, Labels16U_SameAsCpu16U)
{
    // Direct comparison with the CPU's own CV_16U run (not the converted CV_32S one), on images with few enough
    // provisional labels for the CPU's 16-bit union-find.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    std::vector<std::pair<std::string, cv::Mat>> imgs;
    imgs.emplace_back("random 300x300 d=0.5", randomBlockImage(cv::Size(300, 300), 0.5, 1, rng));
    imgs.emplace_back("random 1000x1000 g=4 d=0.6", randomBlockImage(cv::Size(1000, 1000), 0.6, 4, rng));
    imgs.emplace_back("spiral 256x256", spiral(cv::Size(256, 256)));
    imgs.emplace_back("full", cv::Mat(40, 30, CV_8UC1, cv::Scalar(1)));
    for (int algorithm : testedAlgorithms())
        for (int connectivity : supportedConnectivities(algorithm))
            for (auto& im : imgs)
            {
                const CCAParams p{ algorithm, connectivity, CV_16U };
                SCOPED_TRACE(im.first + ", " + paramsName(p));
                cv::Mat l16, s16, c16;
                const int n16 = cv::connectedComponentsWithStats(im.second, l16, s16, c16, connectivity, CV_16U, cv::CCL_SAUF);
                ASSERT_LE(n16, kMaxLabels16U);
                ASSERT_EQ(CV_16UC1, l16.type());
                cv::cuda::GpuMat dImg, dL, dS, dC;
                dImg.upload(im.second);
                const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, connectivity, CV_16U, algorithm);
                EXPECT_EQ(n16, n);
                cv::Mat l, s, c;
                dL.download(l); dS.download(s); dC.download(c);
                EXPECT_TRUE(labelsEqual(l16, l));
                EXPECT_TRUE(statsEqual(s16, s));
                EXPECT_TRUE(centroidsEqual(c16, c));
            }
}

// ---------------------------------------------------------------------------------------------------
// Repeated calls, streams
// ---------------------------------------------------------------------------------------------------

TEST_P(CudaCCA, RepeatedCallsSameOutputs)
{
    // The same output objects reused without re-poisoning: many labels, then few (stats shrink), then many again.
    std::mt19937 rng(testSeed());
    std::vector<std::pair<std::string, cv::Mat>> seq;
    seq.emplace_back("random 640x480 d=0.5", randomBlockImage(cv::Size(640, 480), 0.5, 1, rng));
    seq.emplace_back("random 640x480 g=16 d=0.3", randomBlockImage(cv::Size(640, 480), 0.3, 16, rng));
    seq.emplace_back("full 640x480", cv::Mat(480, 640, CV_8UC1, cv::Scalar(1)));
    seq.emplace_back("random 333x222 d=0.6", randomBlockImage(cv::Size(333, 222), 0.6, 1, rng));
    seq.emplace_back("random 640x480 d=0.5 again", seq[0].second);
    seq.emplace_back("all zero 640x480", cv::Mat::zeros(480, 640, CV_8UC1));
    cv::cuda::GpuMat dImg, dL, dS, dC;
    cv::Mat hL, hS, hC;
    for (auto& im : seq)
    {
        SCOPED_TRACE(im.first + ", " + paramsName(p));
        CCResult ref = cpuReference(im.second, p.connectivity);
        if (overflows(ref, p.ltype)) continue;
        dImg.upload(im.second);
        int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, p.connectivity, p.ltype, p.algorithm);
        EXPECT_EQ(ref.n, n);
        cv::Mat l, s, c;
        dL.download(l); dS.download(s); dC.download(c);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, p.ltype), l));
        EXPECT_TRUE(statsEqual(ref.stats, s));
        EXPECT_TRUE(centroidsEqual(ref.centroids, c));
        n = cv::cuda::connectedComponentsWithStats(im.second, hL, hS, hC, p.connectivity, p.ltype, p.algorithm);
        EXPECT_EQ(ref.n, n);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, p.ltype), hL)) << "(host outputs)";
        EXPECT_TRUE(statsEqual(ref.stats, hS)) << "(host outputs)";
        EXPECT_TRUE(centroidsEqual(ref.centroids, hC)) << "(host outputs)";
    }
}

static std::vector<std::pair<std::string, cv::Mat>> streamImages(std::mt19937& rng)
{
    std::vector<std::pair<std::string, cv::Mat>> v;
    v.emplace_back("random 1024x1024 d=0.5", randomBlockImage(cv::Size(1024, 1024), 0.5, 1, rng));
    v.emplace_back("random 333x777 d=0.6", randomBlockImage(cv::Size(333, 777), 0.6, 1, rng));
    v.emplace_back("spiral 512x512", spiral(cv::Size(512, 512)));
    v.emplace_back("full 256x256", cv::Mat(256, 256, CV_8UC1, cv::Scalar(1)));
    v.emplace_back("random 2048x1024 g=4 d=0.55", randomBlockImage(cv::Size(2048, 1024), 0.55, 4, rng));
    v.emplace_back("all zero 100x100", cv::Mat::zeros(100, 100, CV_8UC1));
    v.emplace_back("comb 1024x512", comb(cv::Size(1024, 512), COMB_UP));
    v.emplace_back("random 17x1 d=0.5", randomBlockImage(cv::Size(17, 1), 0.5, 1, rng));
    v.emplace_back("random 1500x900 g=16 d=0.65", randomBlockImage(cv::Size(1500, 900), 0.65, 16, rng));
    return v;
}

TEST_P(CudaCCA, OneStreamQueued)
{
    // Several different images queued on one stream with GpuMat outputs (the call need not wait again),
    // checked only after stream.waitForCompletion().
    std::mt19937 rng(testSeed());
    auto imgs = streamImages(rng);
    cv::cuda::Stream stream;
    std::vector<PendingCase> cases(imgs.size());
    for (size_t i = 0; i < imgs.size(); ++i)
    {
        RunSpec spec;
        spec.input = (i % 3 == 2) ? IN_HOST : IN_GPU; // a host input is uploaded on the stream
        cases[i].what = caseName("queued on one stream: " + imgs[i].first, imgs[i].second, p, spec);
        launchCase(cases[i], imgs[i].second, p, spec, stream);
    }
    stream.waitForCompletion();
    for (auto& c : cases)
        finishCase(c, p);
}

TEST_P(CudaCCA, SeveralStreams)
{
    std::mt19937 rng(testSeed());
    auto imgs = streamImages(rng);
    std::vector<cv::cuda::Stream> streams(3);
    std::vector<PendingCase> cases(imgs.size());
    for (size_t i = 0; i < imgs.size(); ++i)
    {
        RunSpec spec;
        cases[i].what = caseName(cv::format("stream %d of 3: ", (int)(i % 3)) + imgs[i].first, imgs[i].second, p, spec);
        launchCase(cases[i], imgs[i].second, p, spec, streams[i % 3]);
    }
    for (auto& s : streams)
        s.waitForCompletion();
    for (auto& c : cases)
        finishCase(c, p);
}

TEST_P(CudaCCA, NullStream)
{
    std::mt19937 rng(testSeed());
    auto imgs = streamImages(rng);
    for (size_t i = 0; i < 4; ++i)
    {
        EXPECT_TRUE(checkImage(imgs[i].second, p, "explicit Stream::Null(): " + imgs[i].first, RunSpec(), cv::cuda::Stream::Null()));
        // default stream argument
        CCResult ref = cpuReference(imgs[i].second, p.connectivity);
        if (overflows(ref, p.ltype)) continue;
        cv::cuda::GpuMat dImg, dL, dS, dC;
        dImg.upload(imgs[i].second);
        const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC, p.connectivity, p.ltype, p.algorithm);
        cv::Mat l, s, c;
        dL.download(l); dS.download(s); dC.download(c);
        SCOPED_TRACE("default stream argument: " + imgs[i].first + ", " + paramsName(p));
        EXPECT_EQ(ref.n, n);
        EXPECT_TRUE(labelsEqual(expectedLabels(ref, p.ltype), l));
        EXPECT_TRUE(statsEqual(ref.stats, s));
        EXPECT_TRUE(centroidsEqual(ref.centroids, c));
    }
}

INSTANTIATE_TEST_CASE_P(CUDACCA, CudaCCA, ::testing::ValuesIn(allParams()), CCAParamsName());

// ---------------------------------------------------------------------------------------------------
// Defaults: connectivity 8, CV_32S, CCA_DEFAULT
// ---------------------------------------------------------------------------------------------------

TEST(CUDACCA_Defaults, DefaultArgumentsAre8ConnCV32S)
{
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    cv::Mat img = randomBlockImage(cv::Size(257, 129), 0.55, 1, rng);
    CCResult ref = cpuReference(img, 8);
    cv::cuda::GpuMat dImg, dL, dS, dC;
    dImg.upload(img);
    const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC);
    cv::Mat l, s, c;
    dL.download(l); dS.download(s); dC.download(c);
    EXPECT_EQ(ref.n, n);
    EXPECT_TRUE(labelsEqual(ref.labels, l));
    EXPECT_TRUE(statsEqual(ref.stats, s));
    EXPECT_TRUE(centroidsEqual(ref.centroids, c));
}

TEST(CUDACCA_Defaults, NarrowGpuOutputsArePacked)
{
    // stats and centroids into GpuMats that do not fit them yet (empty, or pitched of another size): they
    // come back continuous (20- and 16-byte rows), not pitched row by row, and exact.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    cv::Mat img = randomBlockImage(cv::Size(301, 257), 0.3, 1, rng);
    CCResult ref = cpuReference(img, 8);
    ASSERT_GT(ref.n, 2);
    for (int pre = 0; pre < 2; ++pre)
    {
        SCOPED_TRACE(pre ? "pitched GpuMats of another size" : "empty GpuMats");
        cv::cuda::GpuMat dImg, dL, dS, dC;
        dImg.upload(img);
        if (pre)
        {
            dS.create(ref.n + 3, 5, CV_32SC1);
            dC.create(ref.n + 3, 2, CV_64FC1);
        }
        const int n = cv::cuda::connectedComponentsWithStats(dImg, dL, dS, dC);
        EXPECT_EQ(ref.n, n);
        EXPECT_TRUE(dS.isContinuous()) << "stats step " << dS.step;
        EXPECT_TRUE(dC.isContinuous()) << "centroids step " << dC.step;
        cv::Mat s, c;
        dS.download(s); dC.download(c);
        EXPECT_TRUE(statsEqual(ref.stats, s));
        EXPECT_TRUE(centroidsEqual(ref.centroids, c));
    }
}

//! The run pipeline's algorithms among those tested here (CUDACCA_TEST_ALGORITHMS: a shard's list); says so when none.
static std::vector<int> runPipelineAlgorithms()
{
    std::vector<int> algorithms;
    for (int a : testedAlgorithms())
        if (a == cv::cuda::CCA_DEFAULT || a == cv::cuda::CCA_FLSL || a == cv::cuda::CCA_FLSL_CD || a == cv::cuda::CCA_FLSL_OTF)
            algorithms.push_back(a);
    if (algorithms.empty())
        std::cout << "[ cudacca  ] none of the run pipeline's algorithms is tested in this run" << std::endl;
    return algorithms;
}

/** `img` through each of `algorithms` with both connectivities, exact against the CPU; false once the budget says
to stop. */
static bool checkWithBothConnectivities(const cv::Mat& img, const std::vector<int>& algorithms, int ltype,
                                        const std::string& what, FailureBudget& budget, const RunSpec& spec = RunSpec())
{
    for (int algorithm : algorithms)
        for (int connectivity : { 4, 8 })
            if (!budget.record(checkImage(img, CCAParams{ algorithm, connectivity, ltype }, what, spec)))
                return false;
    return true;
}

TEST(CUDACCA_Labels, UpLinkTreesCompressedByBands)
{
    // FLSL and FLSL_CD (and CCA_DEFAULT above 2^21 pixels) compress the up-link trees of a table of at least 2^21
    // counted runs by bands of 16 rows (flsl_labeling.cu, compressBandRowsKernel and compressBandTopsKernel; the
    // runs are counted where the table's bound passes 16 MiB). Random images of 2.15 M to 4.2 M runs: the smallest
    // first (4096 x 2100, d = 50 %: just over 2^21 runs; a sanitizer run cut off by its time limit has done it),
    // deep trees (d = 95 %, up to hundreds of rows), shallow ones with many roots (d = 50 %), a last band of 4 or 7
    // rows, a tall image of 9001 rows; FLSL_OTF (no up links) as a control. Both connectivities, exact against the
    // CPU (labels, stats, centroids). Each image's runs are counted here: at least 2^21, else the test would miss
    // the path.
    skipIfNoCudaDevice();
    const std::vector<int> algorithms = runPipelineAlgorithms();
    if (algorithms.empty())
        return;
    struct Case { cv::Size size; double density; };
    const Case cases[] = { { { 4096, 2100 }, 0.5 }, { { 8192, 6007 }, 0.95 }, { { 4096, 4096 }, 0.5 }, { { 1500, 9001 }, 0.6 } };
    const uint32_t seed = testSeed();
    std::mt19937 rng(seed);
    FailureBudget budget;
    for (const Case& k : cases)
    {
        const cv::Mat img = randomBlockImage(k.size, k.density, 1, rng);
        long long runs = 0;
        for (int y = 0; y < img.rows; ++y)
        {
            const uchar* row = img.ptr<uchar>(y);
            for (int x = 0; x < img.cols; ++x)
                runs += row[x] != 0 && (x == 0 || row[x - 1] == 0);
        }
        ASSERT_GE(runs, 1LL << 21) << sz(k.size) << ": too few runs for the band compression (seed " << seed << ")";
        if (!checkWithBothConnectivities(img, algorithms, CV_32S,
                                         cv::format("d = %.2f, %lld runs, seed %u", k.density, runs, seed), budget))
            return;
        std::cout << "[ cudacca  ] " << sz(k.size) << ", " << runs << " runs: done" << std::endl;
    }
}

TEST(CUDACCA_Labels, LabelWriteOfLargeImages)
{
    // From 2^24 pixels the run pipeline writes its labels with a kernel of its own (flsl_labeling.cu,
    // writeLabelsKernel<LabelT, kWriteMinBlocks>: registers capped for 5 blocks per SM) wherever the labels are not
    // written together with the statistics: labels only (CV_32S: the rows past the run table, then those over it;
    // CV_16U) and CV_16U with statistics. Images of 2^24 pixels and more, a width that is not a multiple of 32,
    // both connectivities, exact against the CPU; the smaller image below the threshold as the control.
    skipIfNoCudaDevice();
    const std::vector<int> algorithms = runPipelineAlgorithms();
    if (algorithms.empty())
        return;
    struct Case { cv::Size size; double density; int granularity; int ltype; bool stats; };
    const Case cases[] = { { { 4096, 4096 }, 0.5, 1, CV_32S, false },  { { 4103, 4099 }, 0.6, 2, CV_32S, false },
                           { { 4096, 4096 }, 0.5, 16, CV_16U, false }, { { 4103, 4099 }, 0.5, 16, CV_16U, true },
                           { { 4095, 4096 }, 0.5, 1, CV_32S, false } };
    const uint32_t seed = testSeed();
    std::mt19937 rng(seed);
    FailureBudget budget;
    for (const Case& k : cases)
    {
        const cv::Mat img = randomBlockImage(k.size, k.density, k.granularity, rng);
        RunSpec spec;
        if (!k.stats)
            spec.stats = spec.centroids = OUT_NONE;
        if (!checkWithBothConnectivities(img, algorithms, k.ltype,
                                         cv::format("d = %.2f, g = %d, seed %u", k.density, k.granularity, seed), budget,
                                         spec))
            return;
    }
}

TEST(CUDACCA_Labels, LinkPassesOverSparseRuns)
{
    // Where the runs were counted (a run table of more than 16 MB at its bound: over about 2^23 pixels), the run
    // pipeline's two link passes take 4 bitmap words a thread for at most a run per 16 words and 2 for at most one
    // per 6 (flsl_labeling.cu, linkWordsPerThread). Images that take each, with 129 and 1 words per row (a thread's
    // words then cross rows), both connectivities, exact against the CPU; the CPU's run count shows the share.
    skipIfNoCudaDevice();
    const std::vector<int> algorithms = runPipelineAlgorithms();
    if (algorithms.empty())
        return;
    struct Case { cv::Size size; double density; int granularity; int wordsPerRun; };
    const Case cases[] = { { { 4099, 2051 }, 1.0, 1, 16 },   { { 4099, 2051 }, 0.5, 256, 16 },
                           { { 4099, 2051 }, 0.5, 64, 6 },   { { 17, 600001 }, 0.002, 1, 16 },
                           { { 4099, 2051 }, 0.0, 1, 16 } };
    const uint32_t seed = testSeed();
    std::mt19937 rng(seed);
    FailureBudget budget;
    for (const Case& k : cases)
    {
        const cv::Mat img = k.density >= 1.0 ? cv::Mat(k.size, CV_8UC1, cv::Scalar(1))
                                             : randomBlockImage(k.size, k.density, k.granularity, rng);
        long long runs = 0;
        for (int y = 0; y < img.rows; ++y)
            for (int x = 0; x < img.cols; ++x)
                runs += img.at<uchar>(y, x) != 0 && (x == 0 || img.at<uchar>(y, x - 1) == 0);
        const long long words = static_cast<long long>(img.rows) * ((img.cols + 31) / 32);
        const long long bound = static_cast<long long>(img.rows) * ((img.cols + 1) / 2);
        ASSERT_GT(bound * 4, 16ll << 20) << "the image must be large enough for its runs to be counted";
        ASSERT_LE(k.wordsPerRun * runs, words) << "the image must have at most a run per " << k.wordsPerRun << " words";
        if (k.wordsPerRun == 6)
        {
            ASSERT_GT(16 * runs, words) << "this image is for two words a thread";
        }
        const std::string what = cv::format("%dx%d, d = %.3f, g = %d, %lld runs in %lld words, seed %u", k.size.width,
                                            k.size.height, k.density, k.granularity, runs, words, seed);
        if (!checkWithBothConnectivities(img, algorithms, CV_32S, what, budget))
            return;
    }
}

TEST(CUDACCA_Stats, RowSegmentsOfManyRuns)
{
    // The run pipeline's statistics cut the rows of an image with fewer than 8192 rows into segments of bitmap words,
    // a warp each, where the runs are dense (flsl_labeling.cu, statsSegments); a segment that starts inside a run
    // drops that run's end, its first edge (forEachRunRound). Found by the fuzzer (session 38, replay
    // 0x0ad25d1e5f012e38): a 1601 x 2126 checkerboard, 3 segments of 17 words a row; row 1's last segment starts
    // after the open run at x = 1087 and holds 256 one-pixel runs, 513 edges in one store, whose dropped first
    // edge shared the ring's last slot with the last run's end (that run's width came out -511). Both phases, both
    // connectivities, statistics with and without labels, exact against the CPU.
    skipIfNoCudaDevice();
    const std::vector<int> algorithms = runPipelineAlgorithms();
    if (algorithms.empty())
        return;
    FailureBudget budget;
    for (int phase : { 0, 1 })
    {
        const cv::Mat img = checkerboard(cv::Size(1601, 2126), phase);
        for (OutKind labels : { OUT_GPU, OUT_NONE })
        {
            RunSpec spec;
            spec.labels = labels;
            if (!checkWithBothConnectivities(img, algorithms, CV_32S,
                                             cv::format("checkerboard 1601x2126, phase %d, %s", phase, specName(spec).c_str()),
                                             budget, spec))
                return;
        }
    }
}

TEST(CUDACCA_Stats, AreaSharingTheSumOfXWord)
{
    // The run pipeline (CCA_FLSL, CCA_FLSL_CD, CCA_FLSL_OTF, and CCA_DEFAULT above 2^21 pixels) keeps a label's
    // area in the top bits of its sum of x's 64-bit word where the image allows (statsAreaShift, analysis.hpp).
    // At 16 x 524288 (2^23 pixels, sums of x below 2^41) and 2 x 2097152 (2^22, below 2^42) a label of every
    // pixel has an area of exactly 2^(64 - shift), which wraps those bits to 0 (statistics.cuh, areaAndSumXOf,
    // reads it back from the label's box): all foreground (label 1) and all background (label 0); then one pixel
    // flipped at a corner and in the middle (an area one short, and a label of one pixel). Exact against the CPU.
    skipIfNoCudaDevice();
    const std::vector<int> algorithms = runPipelineAlgorithms();
    if (algorithms.empty())
        return;
    const cv::Size sizes[] = { { 524288, 16 }, { 2097152, 2 } };
    FailureBudget budget;
    for (const cv::Size& size : sizes)
        for (int fill : { 0, 255 })
            for (int flipped = 0; flipped < 3; ++flipped)
            {
                cv::Mat img(size, CV_8UC1, cv::Scalar(fill));
                if (flipped == 1)
                    img.at<uchar>(0, 0) = static_cast<uchar>(255 - fill);
                if (flipped == 2)
                    img.at<uchar>(size.height / 2, size.width / 2) = static_cast<uchar>(255 - fill);
                if (!checkWithBothConnectivities(img, algorithms, CV_32S,
                                                 cv::format("fill %d, %d pixel(s) flipped", fill, flipped > 0), budget))
                    return;
            }
}

TEST(CUDACCA_Stats, AreaShiftBounds)
{
    // statsAreaShift (contracts.hpp; host arithmetic, no GPU) decides whether a label's area may share its sum of
    // x's 64-bit word. Where it gives a shift, the image's largest sum of x (every pixel's) must stay below
    // 2^shift, no smaller shift may do, and the pixels must number at most 2^(64 - shift); where it gives 0, no
    // shift may meet both. Checked with 128-bit integers on the sizes named in its comment and the test above,
    // and on random image sizes up to the module's 2^31 - 2 pixels (seed printed).
#ifdef __SIZEOF_INT128__
    using cv::cuda::cudacca::statsAreaShift;
    typedef unsigned __int128 u128;
    auto check = [](int rows, int cols) -> int {
        SCOPED_TRACE(cv::format("%d x %d", cols, rows));
        const int shift = statsAreaShift(rows, cols);
        const u128 sumX = static_cast<u128>(rows) * static_cast<u128>(cols) * static_cast<u128>(cols - 1) / 2;
        const u128 pixels = static_cast<u128>(rows) * static_cast<u128>(cols);
        auto holds = [&](int s) { return sumX < (static_cast<u128>(1) << s) && pixels <= (static_cast<u128>(1) << (64 - s)); };
        if (shift >= 64 || shift < 0)
            ADD_FAILURE() << "shift " << shift;
        else if (shift > 0)
        {
            EXPECT_TRUE(holds(shift));
            EXPECT_TRUE(shift == 1 || sumX >= (static_cast<u128>(1) << (shift - 1))) << "a smaller shift would do";
        }
        else
            for (int s = 1; s < 64; ++s)
                EXPECT_FALSE(holds(s)) << "shift " << s << " would do";
        return shift;
    };
    EXPECT_EQ(32, check(2048, 2048));
    EXPECT_EQ(38, check(8192, 8192)); // 2^26 pixels = 2^(64 - 38): the wrap areaAndSumXOf undoes
    EXPECT_EQ(41, check(16, 524288));
    EXPECT_EQ(42, check(2, 2097152));
    EXPECT_EQ(0, check(16384, 16384));
    EXPECT_EQ(0, check(8193, 8192));
    EXPECT_EQ(1, check(1, 1));
    std::mt19937 rng(testSeed());
    for (int i = 0; i < 20000; ++i)
    {
        const int rowBits = static_cast<int>(rng() % 31);
        const int rows = 1 + static_cast<int>(rng() % (1u << rowBits));
        const int maxCols = static_cast<int>(std::min<long long>(INT_MAX, (2147483646ll) / rows));
        const int colBits = static_cast<int>(rng() % 32);
        const int cols = 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min<long long>(maxCols, 1ll << std::min(colBits, 30))));
        check(rows, cols);
        if (HasFailure())
            return;
    }
#else
    throw SkipTestException("no 128-bit integers to check statsAreaShift with");
#endif
}

TEST(CUDACCA_Scans, SizesAroundTheSingleBlockRounds)
{
    // The pipelines' prefix sums (exclusive_sum.cuh): one block in rounds of 8192 items up to four rounds, CUB
    // above. FLSL_CD's row scan (as many items as rows) and its ranking's segment scan (a run table of R slots:
    // ceil(R / 256) segments; R is the bound rows x ceil(cols / 2) up to 16 MiB, else the runs counted) at
    // 1, 2, 4 and 5 rounds and one item either side of a round. Random images (seed printed), or vertical
    // stripes (a run per 2 columns, so R is known when the runs are counted); exact against the CPU.
    skipIfNoCudaDevice();
    std::mt19937 rng(testSeed());
    struct Case
    {
        cv::Size size;
        bool stripes;
        const char* what;
    };
    const Case cases[] = {
        { { 5, 8191 }, false, "8191 rows" }, { { 5, 8192 }, false, "8192 rows" }, { { 5, 8193 }, false, "8193 rows" },
        { { 5, 32768 }, false, "32768 rows" }, { { 5, 32769 }, false, "32769 rows (CUB)" },
        { { 1024, 4096 }, false, "8192 segments" }, { { 1024, 4097 }, false, "8193 segments" },
        { { 1024, 8192 }, false, "16384 segments" },
        { { 2048, 8192 }, true, "32768 segments (runs counted)" }, { { 2048, 8193 }, true, "32772 segments (CUB)" },
    };
    for (const Case& k : cases)
    {
        SCOPED_TRACE(cv::format("%dx%d: %s", k.size.width, k.size.height, k.what));
        cv::Mat img;
        if (k.stripes)
        {
            img = cv::Mat(k.size, CV_8UC1);
            for (int x = 0; x < img.cols; ++x)
                img.col(x).setTo(x % 2 == 0 ? 1 : 0);
        }
        else
            img = randomBlockImage(k.size, 0.5, 1, rng);
        const CCResult ref = cpuReference(img, 8);
        cv::cuda::GpuMat d(img), l, st, c;
        const int n = cv::cuda::connectedComponentsWithStats(d, l, st, c, 8, CV_32S, cv::cuda::CCA_FLSL_CD);
        EXPECT_TRUE(matchesCpu(ref, CV_32S, download(n, l, st, c)));
    }
}

}} // namespace opencv_test::<anonymous>
