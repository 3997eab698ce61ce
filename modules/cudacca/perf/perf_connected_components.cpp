// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Performance of cv::cuda::connectedComponentsWithStats on YACCLAB-style random images
// (protocol: doc/benchmarks.md). Every case
//   - times the call as a user sees it with all outputs on the GPU, stream synchronization included,
//     after one warm-up call that also allocates the outputs;
//   - prints its throughput (pixels / median time, Gpix/s) on a "[ GPIX/S ]" line;
//   - checks the result exactly against the CPU cv::connectedComponentsWithStats(..., CCL_SAUF)
//     (N, label image, statistics, centroids bitwise) and fails on any difference.
// At the end of the run a summary prints the mean Gpix/s over the densities, per granularity.
//
// Useful filters: --gtest_filter=*Full* / *LabelsOnly*; CUDACCA_PERF_SIZES="8192,2048" and
// CUDACCA_PERF_ALGORITHMS="BKE,HA" select sizes and algorithms (the rest SKIP).

#include "perf_precomp.hpp"

#include <cstring>
#include <tuple>
#include <map>
#include <random>
#include <sstream>
#include <iomanip>

namespace opencv_test { namespace {

// ---------------------------------------------------------------------------------------------------------
// Parameters, each defined in one place.

//! An algorithm of the module's one list (src/algorithm_list.hpp), or CCA_DEFAULT; printed as its name.
struct CCAAlgo
{
    int id;
    operator int() const { return id; }
};

static std::string algorithmName(int id)
{
    if (id == cv::cuda::CCA_DEFAULT)
        return "CCA_DEFAULT";
    const cv::cuda::cudacca::AlgorithmRow* row = cv::cuda::cudacca::findAlgorithmRow(id);
    return row ? row->name : cv::format("CCA_%d", id);
}

static void PrintTo(const CCAAlgo& a, std::ostream* os) { *os << algorithmName(a.id); }

//! Every algorithm that supports `connectivity` (the row says), and CCA_DEFAULT.
static std::vector<CCAAlgo> algorithmsWith(int connectivity)
{
    std::vector<CCAAlgo> v;
    for (const cv::cuda::cudacca::AlgorithmRow& row : cv::cuda::cudacca::kAlgorithmRows)
        if (row.supports(connectivity))
            v.push_back(CCAAlgo{ row.id });
    v.push_back(CCAAlgo{ cv::cuda::CCA_DEFAULT });
    return v;
}

//! YACCLAB pattern: granularity g and foreground density d (percent); d = 100 is the "full" image.
struct Pattern
{
    int g;
    int d;
    bool full() const { return d >= 100; }
};

static inline void PrintTo(const Pattern& p, std::ostream* os)
{
    if (p.full())
        *os << "full";
    else
        *os << "g" << p.g << "_d" << p.d;
}

static const int kDensities[] = { 5, 25, 50, 60, 75, 95 };
static const int kGranularities[] = { 1, 4, 16 };
static const uint32_t kSeed = 20240917u;   // fixed: every run draws the same images

static std::vector<Pattern> allPatterns()
{
    std::vector<Pattern> v;
    for (int g : kGranularities)
        for (int d : kDensities)
            v.push_back(Pattern{ g, d });
    v.push_back(Pattern{ 1, 100 });
    return v;
}

static std::vector<Pattern> subsetPatterns()   // for 4-connectivity
{
    std::vector<Pattern> v;
    for (int g : kGranularities)
        v.push_back(Pattern{ g, 50 });
    v.push_back(Pattern{ 1, 100 });
    return v;
}

typedef tuple<Size, Pattern, int /*connectivity*/, CCAAlgo> CCAParams;
typedef TestBaseWithParam<CCAParams> CCA;

// ---------------------------------------------------------------------------------------------------------
// Helpers

//! CUDACCA_PERF_ALGORITHMS="BKE,HA,..." (names without CCA_) measures only those; the others SKIP.
static void skipUnlessSelected(int algo)
{
    const char* env = std::getenv("CUDACCA_PERF_ALGORITHMS");
    if (!env || !*env)
        return;
    const std::string n = algorithmName(algo).substr(4); // without CCA_
    if ((std::string(",") + env + ",").find("," + n + ",") == std::string::npos)
        throw cvtest::SkipTestException("not in CUDACCA_PERF_ALGORITHMS");
}

static void skipWithoutDevice()
{
    const int n = cv::cuda::getCudaEnabledDeviceCount();
    if (n <= 0)
        throw cvtest::SkipTestException(cv::format("no CUDA device (cv::cuda::getCudaEnabledDeviceCount() = %d%s)",
                                           n, n < 0 ? ": no CUDA driver, or OpenCV built without CUDA" : ""));
}

//! YACCLAB-style image: a ceil(H/g) x ceil(W/g) grid of blocks, each foreground (255) with probability d %
//! (std::mt19937, fixed seed), every block blown up to g x g pixels. d >= 100: all foreground.
static Mat makeImage(Size sz, const Pattern& p)
{
    Mat img(sz, CV_8UC1, Scalar::all(p.full() ? 255 : 0));
    if (p.full())
        return img;
    const int g = p.g;
    const int gw = (sz.width + g - 1) / g, gh = (sz.height + g - 1) / g;
    const uint32_t thr = (uint32_t)(((uint64_t)p.d << 32) / 100);   // P(rng() < thr) = d / 100
    std::mt19937 rng(kSeed);
    std::vector<uchar> blocks(gw);
    for (int by = 0; by < gh; ++by)
    {
        for (int bx = 0; bx < gw; ++bx)
            blocks[bx] = rng() < thr ? 255 : 0;
        for (int y = by * g; y < std::min(sz.height, (by + 1) * g); ++y)
        {
            uchar* row = img.ptr<uchar>(y);
            for (int x = 0; x < sz.width; ++x)
                row[x] = blocks[x / g];
        }
    }
    return img;
}

//! Image and CPU reference of the last case; consecutive cases (the algorithms) share them.
struct Reference
{
    Size size;
    int g = -1, d = -1, conn = -1;
    Mat img, labels, stats, centroids;
    int n = -1;
};

static const Reference& getReference(Size sz, const Pattern& p, int conn)
{
    static Reference ref;
    if (ref.size == sz && ref.g == p.g && ref.d == p.d && ref.conn == conn)
        return ref;
    ref = Reference();
    ref.img = makeImage(sz, p);
    ref.n = cv::connectedComponentsWithStats(ref.img, ref.labels, ref.stats, ref.centroids, conn, CV_32S,
                                             cv::CCL_SAUF);
    ref.size = sz; ref.g = p.g; ref.d = p.d; ref.conn = conn;
    return ref;
}

//! Empty when a and b are bytewise identical (same size and type); else where and how they first differ.
static std::string firstDifference(const Mat& a, const Mat& b, const char* what)
{
    if (a.size() != b.size() || a.type() != b.type())
        return cv::format("%s: GPU %dx%d type %d, CPU %dx%d type %d", what, a.cols, a.rows, a.type(),
                          b.cols, b.rows, b.type());
    const size_t rowBytes = (size_t)a.cols * a.elemSize(), es = a.elemSize();
    long long count = 0;
    int fy = -1, fx = -1;
    for (int y = 0; y < a.rows; ++y)
    {
        const uchar* pa = a.ptr<uchar>(y);
        const uchar* pb = b.ptr<uchar>(y);
        if (std::memcmp(pa, pb, rowBytes) == 0)
            continue;
        for (int x = 0; x < a.cols; ++x)
            if (std::memcmp(pa + x * es, pb + x * es, es) != 0)
            {
                if (fy < 0) { fy = y; fx = x; }
                ++count;
            }
    }
    if (fy < 0)
        return std::string();
    std::ostringstream s;
    s << what << ": " << count << " element(s) differ, first at (row " << fy << ", col " << fx << "): GPU ";
    if (a.depth() == CV_64F)
        s << std::setprecision(17) << a.at<double>(fy, fx) << ", CPU " << b.at<double>(fy, fx);
    else if (a.depth() == CV_32S)
        s << a.at<int>(fy, fx) << ", CPU " << b.at<int>(fy, fx);
    else
        s << "(type " << a.type() << ")";
    return s.str();
}

// ---------------------------------------------------------------------------------------------------------
// Throughput bookkeeping: one line per case, a summary at the end.

struct Record
{
    std::string variant, algo;
    Size size;
    int conn, g, d;
    double gpixs;
};

static std::vector<Record>& records()
{
    static std::vector<Record> r;
    return r;
}

static std::string caseName(const char* variant, Size sz, const Pattern& p, int conn, int algo)
{
    std::ostringstream s;
    s << variant << " " << sz.width << "x" << sz.height << " ";
    PrintTo(p, &s);
    s << " conn" << conn << " " << algorithmName(algo);
    return s.str();
}

static double report(const char* variant, Size sz, const Pattern& p, int conn, int algo, int n,
                     double medianSec, const std::string& extra)
{
    const double gpixs = (double)sz.area() / medianSec * 1e-9;
    printf("[ GPIX/S   ] %-44s N=%-9d median %9.4f ms  %8.2f Gpix/s%s\n",
           caseName(variant, sz, p, conn, algo).c_str(), n, medianSec * 1e3, gpixs, extra.c_str());
    fflush(stdout);
    records().push_back(Record{ variant, algorithmName(algo), sz, conn, p.g, p.d, gpixs });
    return gpixs;
}

class ThroughputSummary : public ::testing::Environment
{
public:
    void TearDown() CV_OVERRIDE
    {
        const std::vector<Record>& r = records();
        if (r.empty())
            return;
        // key: variant, conn, algo, size (ordered); value per granularity / full: sum and count
        typedef std::tuple<std::string, int, std::string, int, int> Key;
        struct Acc { double sum[4] = { 0, 0, 0, 0 }; int cnt[4] = { 0, 0, 0, 0 }; };
        std::map<Key, Acc> table;
        for (const Record& e : r)
        {
            Acc& a = table[Key(e.variant, e.conn, e.algo, e.size.width, e.size.height)];
            int col = e.d >= 100 ? 3 : (e.g == 1 ? 0 : e.g == 4 ? 1 : e.g == 16 ? 2 : -1);
            if (col < 0) continue;
            a.sum[col] += e.gpixs;
            a.cnt[col]++;
        }
        printf("[ SUMMARY  ] mean throughput in Gpix/s (pixels / median time) over the measured densities;\n"
               "[ SUMMARY  ] '*' = fewer than %d densities measured for that column\n", (int)(sizeof(kDensities) / sizeof(int)));
        printf("[ SUMMARY  ] %-10s %-5s %-12s %-11s %10s %10s %10s %10s\n",
               "variant", "conn", "algorithm", "size", "g=1", "g=4", "g=16", "full");
        for (const auto& kv : table)
        {
            const Key& k = kv.first;
            printf("[ SUMMARY  ] %-10s %-5d %-12s %5dx%-5d", std::get<0>(k).c_str(), std::get<1>(k),
                   std::get<2>(k).c_str(), std::get<3>(k), std::get<4>(k));
            for (int c = 0; c < 4; ++c)
            {
                if (kv.second.cnt[c] == 0)
                    printf(" %10s", "-");
                else
                {
                    const bool partial = c < 3 && kv.second.cnt[c] < (int)(sizeof(kDensities) / sizeof(int));
                    printf(" %9.2f%c", kv.second.sum[c] / kv.second.cnt[c], partial ? '*' : ' ');
                }
            }
            printf("\n");
        }
        fflush(stdout);
    }
};

static double medianSeconds(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---------------------------------------------------------------------------------------------------------
// Full CCA: labels + stats + centroids, all outputs GpuMat.

PERF_TEST_P_(CCA, Full)
{
    const Size sz = get<0>(GetParam());
    const Pattern pat = get<1>(GetParam());
    const int conn = get<2>(GetParam());
    const int algo = (int)get<3>(GetParam());

    skipWithoutDevice();
    skipUnlessSelected(algo);

    const Reference& ref = getReference(sz, pat, conn);

    cv::cuda::Stream stream;
    cv::cuda::GpuMat d_img(ref.img), d_labels, d_stats, d_centroids;

    // warm-up (also allocates the outputs, which the timed calls then reuse)
    cv::cuda::connectedComponentsWithStats(d_img, d_labels, d_stats, d_centroids, conn, CV_32S, algo, stream);
    stream.waitForCompletion();

    int n = -1;
    TEST_CYCLE()
    {
        n = cv::cuda::connectedComponentsWithStats(d_img, d_labels, d_stats, d_centroids, conn, CV_32S, algo,
                                                   stream);
        stream.waitForCompletion();
    }
    const performance_metrics& m = calcMetrics();
    const double medianSec = m.median / m.frequency;

    // Time to bring the statistics to the host, reported separately as in the papers: the same call with
    // host Mat stats and centroids (labels stay on the GPU), minus the median above.
    Mat h_stats, h_centroids;
    std::vector<double> withHost;
    for (int i = 0; i < 5; ++i)
    {
        const int64 t0 = cv::getTickCount();
        cv::cuda::connectedComponentsWithStats(d_img, d_labels, h_stats, h_centroids, conn, CV_32S, algo, stream);
        withHost.push_back((double)(cv::getTickCount() - t0) / cv::getTickFrequency());
    }
    report("Full", sz, pat, conn, algo, n, medianSec,
           cv::format("  (stats+centroids to host +%.4f ms)", (medianSeconds(withHost) - medianSec) * 1e3));

    // exact check against the CPU (CCL_SAUF)
    ASSERT_EQ(ref.n, n) << "number of labels";
    Mat h_labels;
    d_labels.download(h_labels);
    std::string diff = firstDifference(h_labels, ref.labels, "labels");
    ASSERT_TRUE(diff.empty()) << diff;
    diff = firstDifference(h_stats, ref.stats, "stats");
    ASSERT_TRUE(diff.empty()) << diff;
    diff = firstDifference(h_centroids, ref.centroids, "centroids (bitwise)");
    ASSERT_TRUE(diff.empty()) << diff;

    SANITY_CHECK_NOTHING();
}

// ---------------------------------------------------------------------------------------------------------
// Labels only: stats = centroids = noArray().

PERF_TEST_P_(CCA, LabelsOnly)
{
    const Size sz = get<0>(GetParam());
    const Pattern pat = get<1>(GetParam());
    const int conn = get<2>(GetParam());
    const int algo = (int)get<3>(GetParam());

    skipWithoutDevice();
    skipUnlessSelected(algo);

    const Reference& ref = getReference(sz, pat, conn);

    cv::cuda::Stream stream;
    cv::cuda::GpuMat d_img(ref.img), d_labels;

    cv::cuda::connectedComponentsWithStats(d_img, d_labels, noArray(), noArray(), conn, CV_32S, algo, stream);
    stream.waitForCompletion();

    int n = -1;
    TEST_CYCLE()
    {
        n = cv::cuda::connectedComponentsWithStats(d_img, d_labels, noArray(), noArray(), conn, CV_32S, algo,
                                                   stream);
        stream.waitForCompletion();
    }
    const performance_metrics& m = calcMetrics();
    report("LabelsOnly", sz, pat, conn, algo, n, m.median / m.frequency, std::string());

    ASSERT_EQ(ref.n, n) << "number of labels";
    Mat h_labels;
    d_labels.download(h_labels);
    const std::string diff = firstDifference(h_labels, ref.labels, "labels");
    ASSERT_TRUE(diff.empty()) << diff;

    SANITY_CHECK_NOTHING();
}

//! The image sizes: 512^2, 2048^2, 8192^2, or the N x N sizes listed in CUDACCA_PERF_SIZES ("8192,2048").
static std::vector<Size> perfSizes(std::vector<int> sides)
{
    if (const char* env = std::getenv("CUDACCA_PERF_SIZES"))
    {
        sides.clear();
        for (const char* p = env; *p;)
        {
            char* end = nullptr;
            const long n = std::strtol(p, &end, 10);
            if (end == p) { ++p; continue; }
            if (n > 0) sides.push_back((int)n);
            p = end;
        }
    }
    std::vector<Size> v;
    for (int s : sides)
        v.push_back(Size(s, s));
    return v;
}

// 8-connectivity: every size, every pattern (3 granularities x 6 densities + full), every algorithm.
INSTANTIATE_TEST_CASE_P(Conn8, CCA,
    Combine(ValuesIn(perfSizes({ 512, 2048, 8192 })),
            ValuesIn(allPatterns()),
            Values(8),
            ValuesIn(algorithmsWith(8))));

// 4-connectivity: a subset (d = 50 % per granularity + full) on the two large sizes, the algorithms that
// do 4-connectivity.
INSTANTIATE_TEST_CASE_P(Conn4, CCA,
    Combine(ValuesIn(perfSizes({ 2048, 8192 })),
            ValuesIn(subsetPatterns()),
            Values(4),
            ValuesIn(algorithmsWith(4))));

} // namespace

void registerThroughputSummary()
{
    ::testing::AddGlobalTestEnvironment(new ThroughputSummary);
}

} // namespace opencv_test
