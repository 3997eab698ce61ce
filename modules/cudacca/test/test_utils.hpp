// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Shared helpers of the cudacca accuracy tests: what is tested (algorithms, connectivities, label
// types), device detection and skipping, seeds, image generators, the CPU reference, poisoned outputs
// and exact comparisons with short diagnostics.

#ifndef OPENCV_CUDACCA_TEST_UTILS_HPP
#define OPENCV_CUDACCA_TEST_UTILS_HPP

#include "test_precomp.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <iomanip>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace opencv_test { namespace cudacca_test {

// =====================================================================================================
// What is tested: every row of the module's one algorithm list (src/algorithm_list.hpp), plus
// CCA_DEFAULT. Every GPU accuracy case runs for algorithm x supported connectivity x ltype.
// =====================================================================================================

using cv::cuda::cudacca::AlgorithmRow;
using cv::cuda::cudacca::kAlgorithmRows;

//! The row of `algorithm`; CCA_DEFAULT is the row it resolves to for `connectivity`.
inline const AlgorithmRow& algorithmRow(int algorithm, int connectivity = 8)
{
    const int id = algorithm == cv::cuda::CCA_DEFAULT ? cv::cuda::cudacca::defaultAlgorithm(connectivity) : algorithm;
    const AlgorithmRow* row = cv::cuda::cudacca::findAlgorithmRow(id);
    CV_Assert(row);
    return *row;
}

inline std::string algorithmName(int algorithm)
{
    if (algorithm == cv::cuda::CCA_DEFAULT)
        return "DEFAULT";
    const AlgorithmRow* row = cv::cuda::cudacca::findAlgorithmRow(algorithm);
    return row ? row->shortName() : cv::format("ALGO%d", algorithm);
}

//! Every algorithm of the module (CCA_DEFAULT included, last).
inline std::vector<int> allAlgorithms()
{
    std::vector<int> v;
    for (const AlgorithmRow& row : kAlgorithmRows)
        v.push_back(row.id);
    v.push_back(cv::cuda::CCA_DEFAULT);
    return v;
}

//! allAlgorithms(), or those named in CUDACCA_TEST_ALGORITHMS (comma-separated names, e.g. "UF,BKE";
//! used to run a suite, such as the sanitizer runs, per algorithm).
inline std::vector<int> testedAlgorithms()
{
    const char* env = std::getenv("CUDACCA_TEST_ALGORITHMS");
    const std::vector<int> all = allAlgorithms();
    if (!env || !*env)
        return all;
    const std::string wanted = std::string(",") + env + ",";
    std::vector<int> v;
    for (int a : all)
        if (wanted.find("," + algorithmName(a) + ",") != std::string::npos)
            v.push_back(a);
    return v;
}

inline std::vector<int> supportedConnectivities(int algorithm)
{
    std::vector<int> v;
    for (int c : { 4, 8 })
        if (algorithmRow(algorithm, c).supports(c))
            v.push_back(c);
    return v;
}

inline std::vector<int> testedLabelTypes()
{
    return { CV_32S, CV_16U };
}

inline std::string ltypeName(int ltype)
{
    switch (ltype)
    {
    case CV_32S: return "32S";
    case CV_16U: return "16U";
    default:     return cv::format("TYPE%d", ltype);
    }
}

struct CCAParams
{
    int algorithm;
    int connectivity;
    int ltype;
};

inline std::string paramsName(const CCAParams& p)
{
    return algorithmName(p.algorithm) + "_" + cv::format("%dconn", p.connectivity) + "_" + ltypeName(p.ltype);
}

inline std::ostream& operator<<(std::ostream& os, const CCAParams& p) { return os << paramsName(p); }
inline void PrintTo(const CCAParams& p, std::ostream* os) { *os << paramsName(p); }

inline std::vector<CCAParams> allParams()
{
    std::vector<CCAParams> v;
    for (int a : testedAlgorithms())
        for (int c : supportedConnectivities(a))
            for (int t : testedLabelTypes())
                v.push_back(CCAParams{ a, c, t });
    return v;
}

struct CCAParamsName
{
    std::string operator()(const ::testing::TestParamInfo<CCAParams>& info) const { return paramsName(info.param); }
};

// =====================================================================================================
// Device
// =====================================================================================================

inline int cudaDeviceCount()
{
    try { return cv::cuda::getCudaEnabledDeviceCount(); }
    catch (const cv::Exception&) { return -1; }
}

inline std::string noDeviceReason()
{
    const int n = cudaDeviceCount();
    if (n == 0)
        return "no CUDA device: getCudaEnabledDeviceCount() = 0 (OpenCV built without CUDA, or no GPU visible)";
    if (n < 0)
        return cv::format("no CUDA device: getCudaEnabledDeviceCount() = %d (no NVIDIA driver, or the driver is too old "
                          "for this CUDA runtime)", n);
    return std::string();
}

inline std::string cudaDeviceDescription()
{
    const int n = cudaDeviceCount();
    if (n <= 0)
        return noDeviceReason() + ": GPU tests will SKIP, argument tests run";
    std::ostringstream os;
    os << n << " CUDA device(s); tests use device " << cv::cuda::getDevice();
    try
    {
        cv::cuda::DeviceInfo info;
        os << ": " << info.name() << ", compute capability " << info.majorVersion() << "." << info.minorVersion()
           << ", " << (info.totalMemory() >> 20) << " MiB";
    }
    catch (const cv::Exception& e) { os << " (device info failed: " << e.err << ")"; }
    return os.str();
}

//! Every GPU test starts with this (the fixtures call it in SetUp): SKIP with a reason when there is no device.
inline void skipIfNoCudaDevice()
{
    if (cudaDeviceCount() <= 0)
        throw cvtest::SkipTestException(noDeviceReason());
}

//! A call that must be refused by an argument check: cv::Exception `code`, its message naming `names`.
struct RefusalCase
{
    const char* what;
    std::function<void()> call;
    int code;
    const char* names;
};

//! Runs every case, expecting its refusal; `after` (optional) checks what must hold after each.
inline void expectRefusals(const std::vector<RefusalCase>& cases, const std::function<void()>& after = {})
{
    for (const RefusalCase& c : cases)
    {
        SCOPED_TRACE(c.what);
        try
        {
            c.call();
            ADD_FAILURE() << "no exception";
        }
        catch (const cv::Exception& e)
        {
            EXPECT_EQ(c.code, e.code) << e.what();
            EXPECT_NE(std::string::npos, e.err.find(c.names)) << e.err;
        }
        if (after)
            after();
    }
}

//! A GpuMat header over an address that is never dereferenced (argument checks that run without a device).
inline cv::cuda::GpuMat fakeGpuMat(int rows, int cols, int type, uintptr_t address)
{
    return cv::cuda::GpuMat(rows, cols, type, reinterpret_cast<void*>(address), cols * CV_ELEM_SIZE(type));
}

//! Bytes of cudacca's pool in use now (its high-water mark reset, then read): memory an object forgot to give
//! back shows here.
inline size_t poolBytesInUse()
{
    cv::cuda::getConnectedComponentsPeakBytes(true);
    return cv::cuda::getConnectedComponentsPeakBytes();
}

// =====================================================================================================
// Seeds: a fresh one per test from std::random_device, printed; CUDACCA_TEST_SEED=<n> replays it.
// =====================================================================================================

inline uint32_t testSeed()
{
    uint32_t seed;
    const char* env = std::getenv("CUDACCA_TEST_SEED");
    if (env && *env)
    {
        seed = (uint32_t)std::strtoul(env, nullptr, 0);
        std::cout << "[ cudacca  ] seed " << seed << " (from CUDACCA_TEST_SEED)" << std::endl;
    }
    else
    {
        std::random_device rd;
        seed = rd();
        std::cout << "[ cudacca  ] seed " << seed << " (replay with CUDACCA_TEST_SEED=" << seed << ")" << std::endl;
    }
    return seed;
}

// =====================================================================================================
// Image generators (CV_8UC1; foreground nonzero). Values of foreground pixels vary on purpose: any
// nonzero value is foreground.
// =====================================================================================================

//! YACCLAB-style: a ceil(H/g) x ceil(W/g) grid of blocks, each foreground with probability density,
//! blown up to g x g pixels (cropped at the right and bottom). density 1 gives the full image.
inline cv::Mat randomBlockImage(cv::Size size, double density, int granularity, std::mt19937& rng,
                                bool randomValues = false)
{
    CV_Assert(granularity >= 1);
    const int bw = (size.width + granularity - 1) / granularity;
    const int bh = (size.height + granularity - 1) / granularity;
    cv::Mat blocks(bh, bw, CV_8UC1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> v(1, 255);
    for (int y = 0; y < bh; ++y)
        for (int x = 0; x < bw; ++x)
        {
            const bool fg = u(rng) < density;
            blocks.at<uchar>(y, x) = fg ? (uchar)(randomValues ? v(rng) : 255) : 0;
        }
    if (granularity == 1)
        return blocks;
    cv::Mat img(size, CV_8UC1);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
            img.at<uchar>(y, x) = blocks.at<uchar>(y / granularity, x / granularity);
    return img;
}

inline cv::Mat checkerboard(cv::Size size, int phase = 0)
{
    cv::Mat img(size, CV_8UC1);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
            img.at<uchar>(y, x) = ((x + y + phase) % 2 == 0) ? 255 : 0;
    return img;
}

enum StripeKind { STRIPE_HORIZONTAL, STRIPE_VERTICAL, STRIPE_DIAGONAL, STRIPE_ANTIDIAGONAL };

//! Foreground where (coordinate % period) < thickness.
inline cv::Mat stripes(cv::Size size, StripeKind kind, int period, int thickness)
{
    cv::Mat img(size, CV_8UC1);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
        {
            int c = 0;
            switch (kind)
            {
            case STRIPE_HORIZONTAL:   c = y; break;
            case STRIPE_VERTICAL:     c = x; break;
            case STRIPE_DIAGONAL:     c = x + y; break;
            case STRIPE_ANTIDIAGONAL: c = x - y + 4 * period * (size.height + 1); break;
            }
            img.at<uchar>(y, x) = (c % period) < thickness ? 255 : 0;
        }
    return img;
}

//! "WxH", for messages.
inline std::string sz(const cv::Size& s) { return cv::format("%dx%d", s.width, s.height); }

//! The largest long-path image (spiral, serpentine) the suites give an algorithm whose rounds grow with the
//! longest path (AlgorithmRow::longPathRounds, algorithm_list.hpp; doc/algorithms.md, "Long paths"): a
//! 1-pixel spiral of this many pixels is a path of about half of them, as many rounds of neighbour propagation.
constexpr long long kLongPathTestMaxPixels = 1 << 18;

//! The same bound for an algorithm whose rounds grow with the turns of the longest path (AlgorithmRow::
//! turnRounds): the large-image tests' 4096^2 spiral takes it thousands of passes over the whole image, so the
//! long-path large image goes to it up to 16384^2 only (32768^2 and 46340^2 get the short-path image).
constexpr long long kTurnPathTestMaxPixels = 1LL << 28;

//! Whether the suites give `algorithm` a long-path image of `pixels` pixels (see kLongPathTestMaxPixels and
//! kTurnPathTestMaxPixels).
inline bool takesLongPathImage(int algorithm, long long pixels)
{
    const AlgorithmRow* row = cv::cuda::cudacca::findAlgorithmRow(algorithm);
    if (pixels <= kLongPathTestMaxPixels || !row)
        return true;
    return row->turnRounds ? pixels <= kTurnPathTestMaxPixels : !row->longPathRounds;
}

//! One 1-pixel-wide square spiral from the top-left corner inwards, 1-pixel gaps between its turns:
//! a single component that is one very long path (Kalentev's hard case for label propagation).
inline cv::Mat spiral(cv::Size size)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    const int dx[4] = { 1, 0, -1, 0 }, dy[4] = { 0, 1, 0, -1 };
    auto inside = [&](int x, int y) { return x >= 0 && y >= 0 && x < size.width && y < size.height; };
    auto isSet = [&](int x, int y) { return inside(x, y) && img.at<uchar>(y, x) != 0; };
    int x = 0, y = 0, d = 0;
    img.at<uchar>(0, 0) = 255;
    int turnsWithoutMove = 0;
    while (turnsWithoutMove < 2)
    {
        const int nx = x + dx[d], ny = y + dy[d];
        if (inside(nx, ny) && !isSet(nx, ny) && !isSet(nx + dx[d], ny + dy[d]))
        {
            x = nx; y = ny;
            img.at<uchar>(y, x) = 255;
            turnsWithoutMove = 0;
        }
        else
        {
            d = (d + 1) % 4;
            ++turnsWithoutMove;
        }
    }
    return img;
}

//! Boustrophedon: full rows every other row, linked alternately at the right and the left end. One path.
inline cv::Mat serpentine(cv::Size size)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    for (int y = 0; y < size.height; y += 2)
    {
        img.row(y).setTo(255);
        if (y + 1 < size.height)
            img.at<uchar>(y + 1, ((y / 2) % 2 == 0) ? size.width - 1 : 0) = 255;
    }
    return img;
}

//! Concentric 1-pixel square rings with 1-pixel gaps.
inline cv::Mat nestedSquareRings(cv::Size size)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    for (int k = 0; 2 * k < size.width && 2 * k < size.height; k += 2)
        cv::rectangle(img, cv::Point(k, k), cv::Point(size.width - 1 - k, size.height - 1 - k), cv::Scalar(255), 1, cv::LINE_4);
    return img;
}

inline cv::Mat nestedCircles(cv::Size size, int step, int lineType)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    const cv::Point c(size.width / 2, size.height / 2);
    for (int r = 1; r < std::max(size.width, size.height); r += step)
        cv::circle(img, c, r, cv::Scalar(200), 1, lineType);
    return img;
}

enum CombKind { COMB_UP, COMB_DOWN, COMB_INTERLEAVED, COMB_SIDEWAYS };

//! COMB_UP: teeth at every other column joined by the bottom row (many provisional labels merged only at
//! the end of a raster scan); COMB_DOWN: joined by the top row; COMB_INTERLEAVED: both, teeth alternating,
//! not touching in 4-connectivity; COMB_SIDEWAYS: COMB_UP transposed.
inline cv::Mat comb(cv::Size size, CombKind kind)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    const int w = size.width, h = size.height;
    switch (kind)
    {
    case COMB_UP:
        for (int x = 0; x < w; x += 2) img.col(x).setTo(255);
        img.row(h - 1).setTo(255);
        break;
    case COMB_DOWN:
        for (int x = 0; x < w; x += 2) img.col(x).setTo(255);
        img.row(0).setTo(255);
        break;
    case COMB_INTERLEAVED:
        img.row(0).setTo(255);
        if (h > 2) img.row(h - 1).setTo(255);
        for (int x = 0; x < w; x += 4) img(cv::Rect(x, 0, 1, std::max(1, h - 2))).setTo(255);
        for (int x = 2; x < w; x += 4) if (h > 2) img(cv::Rect(x, 2, 1, h - 2)).setTo(255);
        break;
    case COMB_SIDEWAYS:
        for (int y = 0; y < h; y += 2) img.row(y).setTo(255);
        img.col(w - 1).setTo(255);
        break;
    }
    return img;
}

//! Isolated single pixels on the even grid, the first count ones in raster order (count components).
inline cv::Mat isolatedPixels(cv::Size size, int count)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    int k = 0;
    for (int y = 0; y < size.height && k < count; y += 2)
        for (int x = 0; x < size.width && k < count; x += 2, ++k)
            img.at<uchar>(y, x) = 1;
    CV_Assert(k == count);
    return img;
}

//! A "real" scene: shapes and text drawn in various grays over a textured background, with noise;
//! threshold it to get a binary image.
inline cv::Mat drawnScene(cv::Size size, std::mt19937& rng)
{
    cv::RNG cvrng((uint64)rng() | ((uint64)rng() << 32));
    cv::Mat gray(size, CV_8UC1, cv::Scalar(40));
    const int W = size.width, H = size.height, S = std::max(4, std::min(W, H));
    auto pt = [&]() { return cv::Point(cvrng.uniform(-W / 8, W + W / 8), cvrng.uniform(-H / 8, H + H / 8)); };
    auto col = [&]() { return cv::Scalar(cvrng.uniform(0, 256)); };
    const int nshapes = 30 + (int)((double)W * H / 20000.0);
    static const char* words[] = { "OpenCV", "cudacca", "CCL 4/8", "Wu SAUF", "#%&@!", "labels", "0123456789" };
    for (int i = 0; i < nshapes; ++i)
    {
        const int thick = cvrng.uniform(0, 3) == 0 ? cv::FILLED : cvrng.uniform(1, 6);
        const int lt = cvrng.uniform(0, 2) ? cv::LINE_8 : cv::LINE_4;
        switch (cvrng.uniform(0, 6))
        {
        case 0: cv::circle(gray, pt(), cvrng.uniform(1, S / 4 + 2), col(), thick, lt); break;
        case 1: cv::rectangle(gray, pt(), pt(), col(), thick, lt); break;
        case 2: cv::ellipse(gray, pt(), cv::Size(cvrng.uniform(1, S / 3 + 2), cvrng.uniform(1, S / 6 + 2)),
                            cvrng.uniform(0.0, 180.0), 0, cvrng.uniform(90, 361), col(), thick, lt); break;
        case 3: cv::line(gray, pt(), pt(), col(), std::max(1, thick), lt); break;
        case 4: cv::putText(gray, words[cvrng.uniform(0, 7)], pt(), cvrng.uniform(0, 8),
                            cvrng.uniform(0.3, 3.0), col(), std::max(1, thick % 4), lt); break;
        case 5:
        {
            std::vector<cv::Point> poly;
            for (int k = 0; k < 5; ++k) poly.push_back(pt());
            cv::fillConvexPoly(gray, poly, col(), lt);
            break;
        }
        }
    }
    cv::Mat noise(size, CV_16SC1);
    cvrng.fill(noise, cv::RNG::NORMAL, 0, 18);
    cv::Mat g16;
    gray.convertTo(g16, CV_16SC1);
    g16 += noise;
    g16.convertTo(gray, CV_8UC1);
    return gray;
}

// =====================================================================================================
// The CPU reference: cv::connectedComponentsWithStats(..., cv::CCL_SAUF), always run with CV_32S labels.
// For CV_16U the expected result is the CV_32S one converted when N <= 65536 (labels 0..65535), and an
// StsOutOfRange error when N > 65536. (The CPU's own CV_16U run has no overflow check and counts provisional labels in 16 bits;
// where it is right it equals the converted CV_32S result: test Labels16U_SameAsCpu16U checks that directly.)
// =====================================================================================================

struct CCResult
{
    int n = -1;
    cv::Mat labels;    // CV_32S
    cv::Mat stats;     // N x 5 CV_32S
    cv::Mat centroids; // N x 2 CV_64F
};

inline CCResult cpuReference(const cv::Mat& img, int connectivity)
{
    CCResult r;
    r.n = cv::connectedComponentsWithStats(img, r.labels, r.stats, r.centroids, connectivity, CV_32S, cv::CCL_SAUF);
    CV_Assert(r.labels.type() == CV_32SC1 && r.stats.type() == CV_32SC1 && r.centroids.type() == CV_64FC1);
    CV_Assert(r.stats.rows == r.n && r.centroids.rows == r.n);
    return r;
}

//! The most labels (background included) a CV_16U call may return: labels 0..65535. cudacca.hpp: "CV_16U holds
//! labels up to 65535, i.e. at most 65536 labels with the background. Past that ... throws StsOutOfRange".
static const int kMaxLabels16U = 65536;

inline bool overflows(const CCResult& ref, int ltype) { return ltype == CV_16U && ref.n > kMaxLabels16U; }

//! The label image the GPU must produce for ltype (not to be called when it overflows).
inline cv::Mat expectedLabels(const CCResult& ref, int ltype)
{
    if (ltype == CV_32S)
        return ref.labels;
    CV_Assert(ltype == CV_16U && ref.n <= kMaxLabels16U);
    cv::Mat l16;
    ref.labels.convertTo(l16, CV_16U);
    return l16;
}

// =====================================================================================================
// Poison: preallocated outputs are filled with values no correct result contains.
// =====================================================================================================

static const int      kPoisonLabel32  = 0x7f7f7f7f;
static const int      kPoisonLabel16  = 0xBEEF;
static const int      kPoisonStat     = -777;
static const uint64_t kPoisonCentroid = 0x7FF0DEAD0BADF00DULL; // a signalling NaN, unlike the CPU's quiet NaN

inline cv::Mat poisonedLabels(cv::Size size, int ltype)
{
    return cv::Mat(size, ltype, cv::Scalar(ltype == CV_16U ? kPoisonLabel16 : kPoisonLabel32));
}
inline cv::Mat poisonedStats(int n) { return cv::Mat(n, 5, CV_32SC1, cv::Scalar(kPoisonStat)); }
inline cv::Mat poisonedCentroids(int n, int cols = 2)
{
    cv::Mat m(n, cols, CV_64FC1);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < cols; ++x)
            std::memcpy(m.ptr<double>(y) + x, &kPoisonCentroid, sizeof(double));
    return m;
}

//! Byte-equal (size, type and every byte of every row)?
inline bool bytesEqual(const cv::Mat& a, const cv::Mat& b)
{
    if (a.size() != b.size() || a.type() != b.type())
        return false;
    const size_t rowBytes = (size_t)a.cols * a.elemSize();
    for (int y = 0; y < a.rows; ++y)
        if (std::memcmp(a.ptr(y), b.ptr(y), rowBytes) != 0)
            return false;
    return true;
}

// =====================================================================================================
// Exact comparisons with short diagnostics.
// =====================================================================================================

inline std::string describeMat(const cv::Mat& m)
{
    return cv::format("%dx%d %s", m.cols, m.rows, cv::typeToString(m.type()).c_str());
}

inline double labelAt(const cv::Mat& m, int y, int x)
{
    return m.depth() == CV_16U ? (double)m.at<ushort>(y, x) : (double)m.at<int>(y, x);
}

//! Label images: same size, same type, every pixel.
inline ::testing::AssertionResult labelsEqual(const cv::Mat& expected, const cv::Mat& actual)
{
    if (expected.size() != actual.size() || expected.type() != actual.type())
        return ::testing::AssertionFailure() << "labels: expected " << describeMat(expected) << ", got " << describeMat(actual);
    const size_t rowBytes = (size_t)expected.cols * expected.elemSize();
    long long ndiff = 0;
    int fy = -1, fx = -1;
    for (int y = 0; y < expected.rows; ++y)
    {
        if (std::memcmp(expected.ptr(y), actual.ptr(y), rowBytes) == 0)
            continue;
        for (int x = 0; x < expected.cols; ++x)
            if (labelAt(expected, y, x) != labelAt(actual, y, x))
            {
                if (fy < 0) { fy = y; fx = x; }
                ++ndiff;
            }
    }
    if (ndiff == 0)
        return ::testing::AssertionSuccess();
    auto out = ::testing::AssertionFailure();
    out << "labels differ at " << ndiff << " of " << expected.total() << " pixels; first at (x=" << fx << ", y=" << fy
        << "): expected " << labelAt(expected, fy, fx) << ", got " << labelAt(actual, fy, fx);
    if (labelAt(actual, fy, fx) == (expected.depth() == CV_16U ? kPoisonLabel16 : kPoisonLabel32))
        out << " (the poison: pixel never written)";
    // a few neighbours of the first difference, expected/got
    out << "\n  row " << fy << " from x=" << std::max(0, fx - 3) << " (expected/got):";
    for (int x = std::max(0, fx - 3); x < std::min(expected.cols, fx + 5); ++x)
        out << " " << labelAt(expected, fy, x) << "/" << labelAt(actual, fy, x);
    return out;
}

inline ::testing::AssertionResult statsEqual(const cv::Mat& expected, const cv::Mat& actual)
{
    if (expected.size() != actual.size() || expected.type() != actual.type())
        return ::testing::AssertionFailure() << "stats: expected " << describeMat(expected) << ", got " << describeMat(actual);
    int first = -1, ndiff = 0;
    for (int y = 0; y < expected.rows; ++y)
        if (std::memcmp(expected.ptr(y), actual.ptr(y), 5 * sizeof(int)) != 0)
        {
            if (first < 0) first = y;
            ++ndiff;
        }
    if (ndiff == 0)
        return ::testing::AssertionSuccess();
    auto row = [](const cv::Mat& m, int y) {
        const int* p = m.ptr<int>(y);
        return cv::format("[left %d, top %d, width %d, height %d, area %d]", p[0], p[1], p[2], p[3], p[4]);
    };
    return ::testing::AssertionFailure() << "stats differ in " << ndiff << " of " << expected.rows << " rows; first row "
        << first << ": expected " << row(expected, first) << ", got " << row(actual, first)
        << (actual.at<int>(first, 0) == kPoisonStat ? " (the poison: row never written)" : "");
}

//! Centroids compared bitwise (memcmp): NaN rows of an empty background must match too.
inline ::testing::AssertionResult centroidsEqual(const cv::Mat& expected, const cv::Mat& actual)
{
    if (expected.size() != actual.size() || expected.type() != actual.type())
        return ::testing::AssertionFailure() << "centroids: expected " << describeMat(expected) << ", got " << describeMat(actual);
    int first = -1, ndiff = 0;
    for (int y = 0; y < expected.rows; ++y)
        if (std::memcmp(expected.ptr(y), actual.ptr(y), 2 * sizeof(double)) != 0)
        {
            if (first < 0) first = y;
            ++ndiff;
        }
    if (ndiff == 0)
        return ::testing::AssertionSuccess();
    auto row = [](const cv::Mat& m, int y) {
        const double* p = m.ptr<double>(y);
        uint64_t bx, by;
        std::memcpy(&bx, p, 8); std::memcpy(&by, p + 1, 8);
        return cv::format("(%.17g, %.17g) [0x%016llx, 0x%016llx]", p[0], p[1], (unsigned long long)bx, (unsigned long long)by);
    };
    return ::testing::AssertionFailure() << "centroids differ (bitwise) in " << ndiff << " of " << expected.rows
        << " rows; first row " << first << ": expected " << row(expected, first) << ", got " << row(actual, first);
}

// =====================================================================================================
// Running the GPU function on one image against the reference
// =====================================================================================================

enum InputKind { IN_GPU, IN_HOST };

//! How one output is given to the function.
enum OutKind
{
    OUT_GPU,         //!< GpuMat preallocated with the result's size and type, poisoned
    OUT_HOST,        //!< Mat preallocated, poisoned
    OUT_GPU_EMPTY,   //!< empty GpuMat: the function allocates it
    OUT_HOST_EMPTY,  //!< empty Mat
    OUT_NONE         //!< noArray()
};

inline const char* outKindName(OutKind k)
{
    switch (k)
    {
    case OUT_GPU: return "GpuMat";
    case OUT_HOST: return "Mat";
    case OUT_GPU_EMPTY: return "empty GpuMat";
    case OUT_HOST_EMPTY: return "empty Mat";
    case OUT_NONE: return "noArray()";
    }
    return "?";
}

//! One output argument: prepared (poisoned), passed, fetched back to the host.
struct OutSlot
{
    OutKind kind = OUT_GPU;
    cv::cuda::GpuMat g;
    cv::Mat h;
    const void* data0 = nullptr;

    OutSlot() {}
    explicit OutSlot(OutKind k) : kind(k) {}

    void prepare(const cv::Mat& poison)
    {
        g.release(); h.release(); data0 = nullptr;
        if (kind == OUT_GPU) { g.upload(poison); data0 = g.data; }
        else if (kind == OUT_HOST) { h = poison.clone(); data0 = h.data; }
    }

    cv::_OutputArray arr()
    {
        switch (kind)
        {
        case OUT_GPU: case OUT_GPU_EMPTY: return cv::_OutputArray(g);
        case OUT_HOST: case OUT_HOST_EMPTY: return cv::_OutputArray(h);
        default: return cv::_OutputArray(cv::noArray());
        }
    }

    bool isGpu() const { return kind == OUT_GPU || kind == OUT_GPU_EMPTY; }

    cv::Mat fetch() const
    {
        if (isGpu()) { cv::Mat m; if (!g.empty()) g.download(m); return m; }
        return h;
    }

    //! A preallocated output of the right size and type must be written in place, not reallocated.
    ::testing::AssertionResult inPlace(const char* what) const
    {
        if (kind != OUT_GPU && kind != OUT_HOST)
            return ::testing::AssertionSuccess();
        const void* now = isGpu() ? (const void*)g.data : (const void*)h.data;
        if (now == data0)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << what << " (" << outKindName(kind)
            << ") was reallocated although it was preallocated with the result's size and type";
    }
};

struct RunSpec
{
    InputKind input = IN_GPU;
    OutKind labels = OUT_GPU, stats = OUT_GPU, centroids = OUT_GPU;
};

inline std::string specName(const RunSpec& s)
{
    return cv::format("input %s, labels %s, stats %s, centroids %s", s.input == IN_GPU ? "GpuMat" : "Mat",
                      outKindName(s.labels), outKindName(s.stats), outKindName(s.centroids));
}

//! A call prepared and launched, checked later (lets tests queue several calls on streams).
struct PendingCase
{
    std::string what;
    CCResult ref;
    cv::Mat hostInput;
    cv::cuda::GpuMat gpuInput;
    OutSlot labels, stats, centroids;
    int n = -12345;
    bool threw = false;
    std::string exceptionText;
    int exceptionCode = 0;
};

//! Prepares inputs/outputs (poisoned, with the sizes the CPU found), launches the GPU call on stream.
//! Does not wait: call finishCase() after the stream has completed. img is the host copy of the input
//! (the CPU reference runs on it); gpuInput, when given, is the GpuMat passed instead of uploading img.
inline void launchCase(PendingCase& c, const cv::Mat& img, const CCAParams& p, const RunSpec& spec,
                       cv::cuda::Stream& stream, const cv::cuda::GpuMat* gpuInput = nullptr)
{
    c.ref = cpuReference(img, p.connectivity);
    const int n = c.ref.n;
    c.labels = OutSlot(spec.labels);
    c.stats = OutSlot(spec.stats);
    c.centroids = OutSlot(spec.centroids);
    c.labels.prepare(poisonedLabels(img.size(), p.ltype));
    c.stats.prepare(poisonedStats(n));
    c.centroids.prepare(poisonedCentroids(n));
    c.hostInput = img;
    if (spec.input == IN_GPU)
    {
        if (gpuInput)
            c.gpuInput = *gpuInput; // e.g. an ROI of a larger GpuMat holding img
        else
            c.gpuInput.upload(img);
    }
    try
    {
        cv::_InputArray in = spec.input == IN_GPU ? cv::_InputArray(c.gpuInput) : cv::_InputArray(c.hostInput);
        c.n = cv::cuda::connectedComponentsWithStats(in, c.labels.arr(), c.stats.arr(), c.centroids.arr(),
                                                     p.connectivity, p.ltype, p.algorithm, stream);
    }
    catch (const cv::Exception& e)
    {
        c.threw = true;
        c.exceptionCode = e.code;
        c.exceptionText = e.what();
    }
}

//! Checks a launched case (its stream must have completed). Returns true when everything matched.
inline bool finishCase(PendingCase& c, const CCAParams& p)
{
    SCOPED_TRACE(c.what);
    const bool ovf = overflows(c.ref, p.ltype);
    if (ovf)
    {
        // CV_16U and more than 65536 labels: StsOutOfRange, outputs untouched.
        bool ok = true;
        if (!c.threw)
        {
            ADD_FAILURE() << "CV_16U with " << c.ref.n << " labels (CPU, CV_32S; more than kMaxLabels16U = " << kMaxLabels16U
                          << ") must throw StsOutOfRange; it returned " << c.n;
            return false;
        }
        if (c.exceptionCode != cv::Error::StsOutOfRange)
        {
            ADD_FAILURE() << "CV_16U overflow (" << c.ref.n << " labels) threw code " << c.exceptionCode
                          << " instead of StsOutOfRange (" << (int)cv::Error::StsOutOfRange << "): " << c.exceptionText;
            ok = false;
        }
        const OutSlot* slots[3] = { &c.labels, &c.stats, &c.centroids };
        const char* names[3] = { "labels", "stats", "centroids" };
        const cv::Mat poisons[3] = { poisonedLabels(c.hostInput.size(), p.ltype), poisonedStats(c.ref.n), poisonedCentroids(c.ref.n) };
        for (int i = 0; i < 3; ++i)
        {
            const OutSlot& s = *slots[i];
            if (s.kind == OUT_NONE) continue;
            if (s.kind == OUT_GPU_EMPTY || s.kind == OUT_HOST_EMPTY)
            {
                const bool empty = s.isGpu() ? s.g.empty() : s.h.empty();
                if (!empty) { ADD_FAILURE() << names[i] << " (" << outKindName(s.kind) << ") modified by a call that threw"; ok = false; }
                continue;
            }
            ::testing::AssertionResult r = s.inPlace(names[i]);
            if (!r) { ADD_FAILURE() << r.message() << " by a call that threw"; ok = false; continue; }
            if (!bytesEqual(s.fetch(), poisons[i]))
            {
                ADD_FAILURE() << names[i] << " (" << outKindName(s.kind) << ") modified by a call that threw StsOutOfRange";
                ok = false;
            }
        }
        return ok;
    }

    if (c.threw)
    {
        ADD_FAILURE() << "threw: " << c.exceptionText;
        return false;
    }
    bool ok = true;
    if (c.n != c.ref.n)
    {
        ADD_FAILURE() << "number of labels: GPU " << c.n << ", CPU " << c.ref.n;
        ok = false;
    }
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    if (c.labels.kind != OUT_NONE)  // statistics only: N, stats and centroids are checked, no label image exists
    {
        r = c.labels.inPlace("labels");
        if (!r) { ADD_FAILURE() << r.message(); ok = false; }
        r = labelsEqual(expectedLabels(c.ref, p.ltype), c.labels.fetch());
        if (!r) { ADD_FAILURE() << r.message() << "\n  (N: GPU " << c.n << ", CPU " << c.ref.n << ")"; ok = false; }
    }
    if (c.stats.kind != OUT_NONE)
    {
        r = c.stats.inPlace("stats");
        if (!r) { ADD_FAILURE() << r.message(); ok = false; }
        r = statsEqual(c.ref.stats, c.stats.fetch());
        if (!r) { ADD_FAILURE() << r.message(); ok = false; }
    }
    if (c.centroids.kind != OUT_NONE)
    {
        r = c.centroids.inPlace("centroids");
        if (!r) { ADD_FAILURE() << r.message(); ok = false; }
        r = centroidsEqual(c.ref.centroids, c.centroids.fetch());
        if (!r) { ADD_FAILURE() << r.message(); ok = false; }
    }
    return ok;
}

//! One image, one call, checked exactly against the CPU. Returns true on a full match.
inline std::string caseName(const std::string& what, const cv::Mat& img, const CCAParams& p, const RunSpec& spec)
{
    return cv::format("%s [%dx%d %s, %s, %s]", what.c_str(), img.cols, img.rows, cv::typeToString(img.type()).c_str(),
                      paramsName(p).c_str(), specName(spec).c_str());
}

inline bool checkImage(const cv::Mat& img, const CCAParams& p, const std::string& what,
                       const RunSpec& spec = RunSpec(), cv::cuda::Stream& stream = cv::cuda::Stream::Null(),
                       const cv::cuda::GpuMat* gpuInput = nullptr)
{
    PendingCase c;
    c.what = caseName(what, img, p, spec);
    launchCase(c, img, p, spec, stream, gpuInput);
    stream.waitForCompletion();
    return finishCase(c, p);
}

//! Stops a long loop of cases after a few failures so a broken kernel does not print megabytes.
struct FailureBudget
{
    int failures = 0;
    int limit;
    explicit FailureBudget(int limit_ = 5) : limit(limit_) {}
    //! record one result; returns false when the loop should stop
    bool record(bool ok)
    {
        if (!ok && ++failures >= limit)
        {
            ADD_FAILURE() << "stopping after " << failures << " failing images";
            return false;
        }
        return true;
    }
};

//! Every tested algorithm with each connectivity it supports; CCA_DEFAULT included (small images take its
//! one-launch path, others its row's).
inline std::vector<std::pair<int, int>> algorithmConnectivities()
{
    std::vector<std::pair<int, int>> v;
    for (int a : testedAlgorithms())
        for (int c : supportedConnectivities(a))
            v.emplace_back(a, c);
    return v;
}

//! A result downloaded to the host (labels, stats, centroids; N).
struct HostResult
{
    int n = -1;
    cv::Mat labels, stats, centroids;
};

inline HostResult download(int n, const cv::cuda::GpuMat& l, const cv::cuda::GpuMat& s, const cv::cuda::GpuMat& c)
{
    HostResult r;
    r.n = n;
    l.download(r.labels);
    s.download(r.stats);
    c.download(r.centroids);
    return r;
}

//! Bit-identical results?
inline ::testing::AssertionResult sameResult(const HostResult& expected, const HostResult& got)
{
    if (expected.n != got.n)
        return ::testing::AssertionFailure() << "N " << got.n << " instead of " << expected.n;
    if (!bytesEqual(expected.labels, got.labels))
        return ::testing::AssertionFailure() << "labels differ: " << labelsEqual(expected.labels, got.labels).message();
    if (!bytesEqual(expected.stats, got.stats))
        return ::testing::AssertionFailure() << "stats differ: " << statsEqual(expected.stats, got.stats).message();
    if (!bytesEqual(expected.centroids, got.centroids))
        return ::testing::AssertionFailure() << "centroids differ (bitwise)";
    return ::testing::AssertionSuccess();
}

//! Equal to the CPU reference (labels as ltype)?
inline ::testing::AssertionResult matchesCpu(const CCResult& ref, int ltype, const HostResult& got)
{
    HostResult expected;
    expected.n = ref.n;
    expected.labels = expectedLabels(ref, ltype);
    expected.stats = ref.stats;
    expected.centroids = ref.centroids;
    return sameResult(expected, got);
}

}} // namespace opencv_test::cudacca_test

#endif // OPENCV_CUDACCA_TEST_UTILS_HPP
