// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Argument validation of cv::cuda::connectedComponentsWithStats. These tests need NO GPU: inputs are host
// Mats or GpuMat headers over a fake device pointer (no allocation), the stream is a wrapper of the null
// stream made without any CUDA call, and the function must validate before touching the device.
// Each bad argument must raise cv::Exception with the expected code, a message naming the argument, and
// leave every output object exactly as the caller passed it.

#include "test_precomp.hpp"
#include "test_utils.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace opencv_test { namespace {

using namespace cudacca_test;

// Fake device addresses: never dereferenced by a correct implementation on these paths.
static void* const kFakeImage     = (void*)(uintptr_t)0x100000;
static void* const kFakeLabels    = (void*)(uintptr_t)0x200000;
static void* const kFakeStats     = (void*)(uintptr_t)0x300000;
static void* const kFakeCentroids = (void*)(uintptr_t)0x400000;

//! The stream argument: NOT Stream::Null(), which calls cudaGetDevice() in the caller and throws (or worse)
//! where there is no driver. wrapStream(0) wraps the legacy default stream without any CUDA call.
static cv::cuda::Stream& nullStreamWrapper()
{
    static cv::cuda::Stream s = cv::cuda::wrapStream(0);
    return s;
}

static std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return (char)std::tolower(ch); });
    return s;
}

static const char* codeName(int code)
{
    switch (code)
    {
    case cv::Error::StsBadArg:             return "StsBadArg";
    case cv::Error::StsBadSize:            return "StsBadSize";
    case cv::Error::StsUnsupportedFormat:  return "StsUnsupportedFormat";
    case cv::Error::StsOutOfRange:         return "StsOutOfRange";
    case cv::Error::StsAssert:             return "StsAssert";
    case cv::Error::GpuApiCallError:       return "GpuApiCallError";
    case cv::Error::GpuNotSupported:       return "GpuNotSupported";
    case cv::Error::StsNotImplemented:     return "StsNotImplemented";
    case cv::Error::StsNoMem:              return "StsNoMem";
    default:                               return "other";
    }
}

// ---------------------------------------------------------------------------------------------------
// Output objects as the caller passed them, and the check that they are unchanged after a throw
// ---------------------------------------------------------------------------------------------------

enum OutStyle
{
    OUTS_GPU_HEADERS, //!< GpuMat headers over fake device pointers (sizes of a plausible result)
    OUTS_GPU_EMPTY,   //!< empty GpuMats
    OUTS_HOST,        //!< allocated host Mats with known contents
    OUTS_HOST_EMPTY,  //!< empty Mats
};

static const char* outStyleName(OutStyle s)
{
    switch (s)
    {
    case OUTS_GPU_HEADERS: return "outputs: GpuMat headers";
    case OUTS_GPU_EMPTY:   return "outputs: empty GpuMats";
    case OUTS_HOST:        return "outputs: host Mats";
    case OUTS_HOST_EMPTY:  return "outputs: empty Mats";
    }
    return "?";
}

struct GpuHeaderState
{
    const void* data; int rows, cols, type; size_t step;
    explicit GpuHeaderState(const cv::cuda::GpuMat& m) : data(m.data), rows(m.rows), cols(m.cols), type(m.type()), step(m.step) {}
    bool same(const cv::cuda::GpuMat& m) const
    {
        return data == (const void*)m.data && rows == m.rows && cols == m.cols && type == m.type() && step == m.step;
    }
    std::string str() const { return cv::format("%p %dx%d %s step %zu", data, cols, rows, cv::typeToString(type).c_str(), step); }
};

struct Outputs
{
    OutStyle style;
    cv::cuda::GpuMat gl, gs, gc;
    cv::Mat hl, hs, hc;
    cv::Mat hl0, hs0, hc0; // copies of the host contents

    Outputs(OutStyle s, cv::Size labelsSize, int labelsType) : style(s)
    {
        const cv::Size ls(std::max(1, labelsSize.width), std::max(1, labelsSize.height));
        switch (style)
        {
        case OUTS_GPU_HEADERS:
            gl = cv::cuda::GpuMat(ls.height, ls.width, labelsType, kFakeLabels);
            gs = cv::cuda::GpuMat(3, 5, CV_32SC1, kFakeStats);
            gc = cv::cuda::GpuMat(3, 2, CV_64FC1, kFakeCentroids);
            break;
        case OUTS_HOST:
            hl = poisonedLabels(ls, labelsType == CV_16U ? CV_16U : CV_32S);
            hs = poisonedStats(3);
            hc = poisonedCentroids(3);
            hl0 = hl.clone(); hs0 = hs.clone(); hc0 = hc.clone();
            break;
        default:
            break;
        }
    }

    bool gpu() const { return style == OUTS_GPU_HEADERS || style == OUTS_GPU_EMPTY; }
    cv::_OutputArray labels() { return gpu() ? cv::_OutputArray(gl) : cv::_OutputArray(hl); }
    cv::_OutputArray stats() { return gpu() ? cv::_OutputArray(gs) : cv::_OutputArray(hs); }
    cv::_OutputArray centroids() { return gpu() ? cv::_OutputArray(gc) : cv::_OutputArray(hc); }
};

//! Snapshot of the outputs before the call; check() after.
struct OutputsSnapshot
{
    GpuHeaderState l, s, c;
    const void* hld; const void* hsd; const void* hcd;
    explicit OutputsSnapshot(const Outputs& o) : l(o.gl), s(o.gs), c(o.gc), hld(o.hl.data), hsd(o.hs.data), hcd(o.hc.data) {}

    void check(const Outputs& o) const
    {
        EXPECT_TRUE(l.same(o.gl)) << "labels GpuMat header changed: was " << l.str() << ", now " << GpuHeaderState(o.gl).str();
        EXPECT_TRUE(s.same(o.gs)) << "stats GpuMat header changed: was " << s.str() << ", now " << GpuHeaderState(o.gs).str();
        EXPECT_TRUE(c.same(o.gc)) << "centroids GpuMat header changed: was " << c.str() << ", now " << GpuHeaderState(o.gc).str();
        EXPECT_EQ(hld, (const void*)o.hl.data) << "labels Mat reallocated";
        EXPECT_EQ(hsd, (const void*)o.hs.data) << "stats Mat reallocated";
        EXPECT_EQ(hcd, (const void*)o.hc.data) << "centroids Mat reallocated";
        EXPECT_TRUE(bytesEqual(o.hl0, o.hl)) << "labels Mat modified (size, type or contents)";
        EXPECT_TRUE(bytesEqual(o.hs0, o.hs)) << "stats Mat modified (size, type or contents)";
        EXPECT_TRUE(bytesEqual(o.hc0, o.hc)) << "centroids Mat modified (size, type or contents)";
    }
};

//! Runs call, expects a cv::Exception with code and a message (e.err) naming word. Non-fatal failures.
static void expectCvError(const std::function<void()>& call, int code, const std::string& word)
{
    try
    {
        call();
        ADD_FAILURE() << "no exception; expected " << codeName(code) << " naming \"" << word << "\"";
    }
    catch (const cvtest::details::SkipTestExceptionBase&)
    {
        throw;
    }
    catch (const cv::Exception& e)
    {
        EXPECT_EQ(code, e.code) << "expected " << codeName(code) << " (" << code << "), got " << codeName(e.code)
                                << " (" << e.code << "): " << e.what();
        EXPECT_NE(std::string::npos, lower(e.err).find(lower(word)))
            << "the message does not name \"" << word << "\": " << e.err;
    }
    catch (const std::exception& e)
    {
        ADD_FAILURE() << "a std::exception that is not a cv::Exception: " << e.what();
    }
    catch (...)
    {
        ADD_FAILURE() << "an exception that is not a cv::Exception";
    }
}

// ---------------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------------

enum Alias
{
    NO_ALIAS = 0,
    ALIAS_LABELS,         //!< labels: same pointer as the image, the image's size, type ltype
    ALIAS_LABELS_OVERLAP, //!< labels start in the middle of the image's memory
    ALIAS_STATS,          //!< stats inside the image's memory
    ALIAS_CENTROIDS,      //!< centroids inside the image's memory
};

struct BadArgCase
{
    const char* name;
    cv::Size imageSize;   // (0,0): empty image
    int imageType;
    int connectivity;
    int ltype;
    int algorithm;
    int alias;            // an output GpuMat header over the image's own device memory (Alias)
    int code;
    const char* word;     // the argument the message must name
};

static const BadArgCase kBadArgs[] = {
    // name                        size        type      conn ltype   algorithm             alias  code                             word
    { "empty image",               {0, 0},     CV_8UC1,  8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsBadArg,            "image" },
    { "3 channels",                {64, 48},   CV_8UC3,  8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "2 channels",                {64, 48},   CV_8UC2,  8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "4 channels",                {64, 48},   CV_8UC4,  4,   CV_32S, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "depth CV_16U",              {64, 48},   CV_16UC1, 8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "depth CV_16S",              {64, 48},   CV_16SC1, 8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "depth CV_32F",              {64, 48},   CV_32FC1, 4,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "depth CV_32S",              {64, 48},   CV_32SC1, 8,   CV_16U, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "depth CV_64F",              {64, 48},   CV_64FC1, 8,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "image" },
    { "connectivity 0",            {64, 48},   CV_8UC1,  0,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsBadArg,            "connectivity" },
    { "connectivity 6",            {64, 48},   CV_8UC1,  6,   CV_32S, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsBadArg,            "connectivity" },
    { "connectivity -8",           {64, 48},   CV_8SC1, -8,   CV_16U, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsBadArg,            "connectivity" },
    { "connectivity 16",           {64, 48},   CV_8UC1,  16,  CV_32S, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsBadArg,            "connectivity" },
    { "ltype CV_8U",               {64, 48},   CV_8UC1,  8,   CV_8U,  cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "ltype" },
    { "ltype CV_32F",              {64, 48},   CV_8UC1,  4,   CV_32F, cv::cuda::CCA_DEFAULT, NO_ALIAS, cv::Error::StsUnsupportedFormat, "ltype" },
    { "ltype CV_16S",              {64, 48},   CV_8UC1,  8,   CV_16S, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsUnsupportedFormat, "ltype" },
    { "ltype CV_64F",              {64, 48},   CV_8SC1,  8,   CV_64F, cv::cuda::CCA_UF,      NO_ALIAS, cv::Error::StsUnsupportedFormat, "ltype" },
    { "algorithm 99",              {64, 48},   CV_8UC1,  8,   CV_32S, 99,                    NO_ALIAS, cv::Error::StsBadArg,            "algorithm" },
    { "algorithm -1",              {64, 48},   CV_8UC1,  4,   CV_32S, -1,                    NO_ALIAS, cv::Error::StsBadArg,            "algorithm" },
    { "algorithm 1000000",         {64, 48},   CV_8UC1,  8,   CV_16U, 1000000,               NO_ALIAS, cv::Error::StsBadArg,            "algorithm" },
    { "labels alias the image",    {64, 48},   CV_8UC1,  8,   CV_32S, cv::cuda::CCA_DEFAULT, ALIAS_LABELS,         cv::Error::StsBadArg, "labels" },
    { "labels alias the image 16U",{64, 48},   CV_8UC1,  4,   CV_16U, cv::cuda::CCA_UF,      ALIAS_LABELS,         cv::Error::StsBadArg, "labels" },
    { "labels alias an 8S image",  {31, 7},    CV_8SC1,  8,   CV_32S, cv::cuda::CCA_UF,      ALIAS_LABELS,         cv::Error::StsBadArg, "labels" },
    { "labels overlap the image",  {64, 48},   CV_8UC1,  8,   CV_32S, cv::cuda::CCA_UF,      ALIAS_LABELS_OVERLAP, cv::Error::StsBadArg, "labels" },
    { "stats inside the image",    {64, 48},   CV_8UC1,  8,   CV_32S, cv::cuda::CCA_UF,      ALIAS_STATS,          cv::Error::StsBadArg, "stats" },
    { "centroids inside the image",{64, 48},   CV_8UC1,  4,   CV_16U, cv::cuda::CCA_DEFAULT, ALIAS_CENTROIDS,      cv::Error::StsBadArg, "centroids" },
};

static void runBadArgCase(const BadArgCase& c, bool gpuImage, OutStyle style)
{
    SCOPED_TRACE(cv::format("%s; image as %s; %s", c.name, gpuImage ? "GpuMat header" : "host Mat", outStyleName(style)));
    const bool empty = c.imageSize.area() == 0;

    // the image
    cv::cuda::GpuMat gimg;
    cv::Mat himg;
    const size_t imgStep = (size_t)c.imageSize.width * CV_ELEM_SIZE(c.imageType) + 64;
    if (gpuImage)
    {
        if (!empty)
            gimg = cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, c.imageType, kFakeImage, imgStep);
    }
    else if (!empty)
        himg = cv::Mat(c.imageSize, c.imageType, cv::Scalar::all(1));
    const GpuHeaderState imgState(gimg);

    // the outputs (labels of the image's size; of CV_32S where ltype itself is the bad argument)
    const int labelsType = (c.ltype == CV_16U) ? CV_16U : CV_32S;
    Outputs out(style, c.imageSize, labelsType);
    uchar* const fake = (uchar*)kFakeImage;
    switch (c.alias)
    {
    case ALIAS_LABELS: // a header over the very same device memory as the image, of the right size and type
        out.gl = cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, labelsType, fake); break;
    case ALIAS_LABELS_OVERLAP:
        out.gl = cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, labelsType, fake + imgStep * (c.imageSize.height / 2) + 8); break;
    case ALIAS_STATS:
        out.gs = cv::cuda::GpuMat(3, 5, CV_32SC1, fake + imgStep * 2); break;
    case ALIAS_CENTROIDS:
        out.gc = cv::cuda::GpuMat(3, 2, CV_64FC1, fake + imgStep * 3 + 16); break;
    default: break;
    }
    const OutputsSnapshot before(out);

    cv::_InputArray in = gpuImage ? cv::_InputArray(gimg) : cv::_InputArray(himg);
    expectCvError([&]() {
        cv::cuda::connectedComponentsWithStats(in, out.labels(), out.stats(), out.centroids(),
                                               c.connectivity, c.ltype, c.algorithm, nullStreamWrapper());
    }, c.code, c.word);

    before.check(out);
    EXPECT_TRUE(imgState.same(gimg)) << "the image header changed";
}

TEST(CUDACCA_Arguments, BadArguments)
{
    // no GPU needed
    for (const BadArgCase& c : kBadArgs)
    {
        if (c.alias != NO_ALIAS)
        {
            // aliasing is about device memory: image and outputs all GpuMat headers
            runBadArgCase(c, true, OUTS_GPU_HEADERS);
            continue;
        }
        for (bool gpuImage : { true, false })
            for (OutStyle style : { OUTS_GPU_HEADERS, OUTS_GPU_EMPTY, OUTS_HOST, OUTS_HOST_EMPTY })
                runBadArgCase(c, gpuImage, style);
    }
}

TEST(CUDACCA_Arguments, BadArgumentsWithStatsAndCentroidsOmitted)
{
    // the same checks when only labels are asked for (stats = centroids = noArray())
    for (const BadArgCase& c : kBadArgs)
    {
        if (c.alias == ALIAS_STATS || c.alias == ALIAS_CENTROIDS)
            continue; // not passed here
        SCOPED_TRACE(c.name);
        const bool empty = c.imageSize.area() == 0;
        cv::cuda::GpuMat gimg;
        if (!empty)
            gimg = cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, c.imageType, kFakeImage);
        const int labelsType = (c.ltype == CV_16U) ? CV_16U : CV_32S;
        uchar* const fake = (uchar*)kFakeImage;
        cv::cuda::GpuMat labels =
            c.alias == ALIAS_LABELS ? cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, labelsType, fake)
          : c.alias == ALIAS_LABELS_OVERLAP ? cv::cuda::GpuMat(c.imageSize.height, c.imageSize.width, labelsType,
                                                               fake + gimg.step * (c.imageSize.height / 2))
          : cv::cuda::GpuMat(std::max(1, c.imageSize.height), std::max(1, c.imageSize.width), labelsType, kFakeLabels);
        const GpuHeaderState before(labels);
        expectCvError([&]() {
            cv::cuda::connectedComponentsWithStats(gimg, labels, cv::noArray(), cv::noArray(),
                                                   c.connectivity, c.ltype, c.algorithm, nullStreamWrapper());
        }, c.code, c.word);
        EXPECT_TRUE(before.same(labels)) << "labels header changed: was " << before.str() << ", now " << GpuHeaderState(labels).str();
    }
}

TEST(CUDACCA_Arguments, ValidArgumentsWithoutGpuThrowCvException)
{
    // Where there is no device, a valid call must fail with a cv::Exception, not crash.
    if (cudaDeviceCount() > 0)
        throw cvtest::SkipTestException("a CUDA device is present: this test is for machines without one");
    cv::Mat img(48, 64, CV_8UC1, cv::Scalar(0));
    img(cv::Rect(5, 5, 10, 10)).setTo(1);
    const cv::cuda::GpuMat fake(48, 64, CV_8UC1, kFakeImage);
    struct { const char* what; std::function<int()> call; } calls[] = {
        { "host Mat in, host Mat out", [&]() {
            cv::Mat l, s, c;
            return cv::cuda::connectedComponentsWithStats(img, l, s, c, 8, CV_32S, cv::cuda::CCA_DEFAULT, nullStreamWrapper()); } },
        { "host Mat in, GpuMat out", [&]() {
            cv::cuda::GpuMat l, s, c;
            return cv::cuda::connectedComponentsWithStats(img, l, s, c, 4, CV_16U, cv::cuda::CCA_UF, nullStreamWrapper()); } },
        { "GpuMat header in, GpuMat out", [&]() {
            cv::cuda::GpuMat l, s, c;
            return cv::cuda::connectedComponentsWithStats(fake, l, s, c, 8, CV_32S, cv::cuda::CCA_UF, nullStreamWrapper()); } },
        { "GpuMat header in, labels only", [&]() {
            cv::cuda::GpuMat l;
            return cv::cuda::connectedComponentsWithStats(fake, l, cv::noArray(), cv::noArray(), 8, CV_32S,
                                                          cv::cuda::CCA_DEFAULT, nullStreamWrapper()); } },
        { "the overload without a stream (Stream::Null())", [&]() {
            cv::Mat l, s, c;
            return cv::cuda::connectedComponentsWithStats(img, l, s, c); } },
    };
    for (auto& c : calls)
    {
        SCOPED_TRACE(c.what);
        try
        {
            const int n = c.call();
            ADD_FAILURE() << "returned " << n << " without a GPU";
        }
        catch (const cv::Exception& e)
        {
            std::cout << "[ cudacca  ] " << c.what << ": cv::Exception " << codeName(e.code) << " (" << e.code << "): " << e.err << std::endl;
        }
        catch (const std::exception& e)
        {
            ADD_FAILURE() << "a std::exception that is not a cv::Exception: " << e.what();
        }
        catch (...)
        {
            ADD_FAILURE() << "an exception that is not a cv::Exception";
        }
    }
}

TEST(CUDACCA_Arguments, TooManyPixels)
{
    // Past 2^31 - 2 pixels the int32 label forest cannot index the image: a clear error, before any
    // device work (the headers point at nothing; no GPU needed).
    // (65536 x 65536: cv::Size::area(), an int, wraps to 0; the image must not be called empty)
    const cv::Size sizes[] = { {46341, 46341}, {65536, 32768}, {65536, 65536}, {2147483647, 1}, {1, 2147483647} };
    for (const cv::Size& sz : sizes)
    {
        SCOPED_TRACE(cv::format("%dx%d", sz.width, sz.height));
        const cv::cuda::GpuMat gimg(sz.height, sz.width, CV_8UC1, kFakeImage, (size_t)sz.width);
        const cv::Mat himg(sz.height, sz.width, CV_8UC1, kFakeImage, (size_t)sz.width);
        cv::cuda::GpuMat gl;
        cv::Mat hl;
        expectCvError([&]() { cv::cuda::connectedComponentsWithStats(gimg, gl, cv::noArray(), cv::noArray(), 8, CV_32S,
                                                                     cv::cuda::CCA_DEFAULT, nullStreamWrapper()); },
                      cv::Error::StsOutOfRange, "image");
        expectCvError([&]() { cv::cuda::connectedComponentsWithStats(himg, hl, cv::noArray(), cv::noArray(), 4, CV_16U,
                                                                     cv::cuda::CCA_DEFAULT, nullStreamWrapper()); },
                      cv::Error::StsOutOfRange, "image");
        EXPECT_TRUE(gl.empty());
        EXPECT_TRUE(hl.empty());
    }
}

TEST(CUDACCA_Arguments, ConnectivityNotSupportedByTheAlgorithm)
{
    // An algorithm that cannot do a connectivity refuses it, naming it (no GPU needed).
    int refused = 0;
    const cv::cuda::GpuMat gimg(48, 64, CV_8UC1, kFakeImage);
    for (int a : testedAlgorithms())
        for (int conn : { 4, 8 })
        {
            const std::vector<int> ok = supportedConnectivities(a);
            if (std::find(ok.begin(), ok.end(), conn) != ok.end())
                continue;
            SCOPED_TRACE(algorithmName(a) + cv::format(" with connectivity %d", conn));
            cv::cuda::GpuMat l, st, c;
            expectCvError([&]() { cv::cuda::connectedComponentsWithStats(gimg, l, st, c, conn, CV_32S, a, nullStreamWrapper()); },
                          cv::Error::StsBadArg, "connectivity");
            EXPECT_TRUE(l.empty() && st.empty() && c.empty());
            ++refused;
        }
    std::cout << "[ cudacca  ] " << refused << " algorithm/connectivity pairs refused as documented" << std::endl;
}

// ---------------------------------------------------------------------------------------------------
// Output objects the result cannot be written to: fixed type (Mat_<T>), fixed size (const Mat&),
// arrays that are not a Mat or a GpuMat. Checked before any device work (no GPU needed), except the
// fixed size of stats and centroids, which depends on the number of labels (GPU test below).
// ---------------------------------------------------------------------------------------------------

TEST(CUDACCA_Arguments, HostOutputsOfWrongTypeOrKind)
{
    const cv::Mat img(48, 64, CV_8UC1, cv::Scalar(1));
    const cv::cuda::GpuMat gimg(48, 64, CV_8UC1, kFakeImage);
    cv::Mat l0 = poisonedLabels(img.size(), CV_32S), s0 = poisonedStats(3), c0 = poisonedCentroids(3);
    struct Case
    {
        const char* name;
        int ltype;
        int code;
        const char* word;
        std::function<void(cv::_InputArray)> call; // calls the function with the bad output, checks it unchanged
    };
    auto run = [&](cv::_InputArray in, cv::_OutputArray l, cv::_OutputArray st, cv::_OutputArray c, int ltype) {
        cv::cuda::connectedComponentsWithStats(in, l, st, c, 8, ltype, cv::cuda::CCA_DEFAULT, nullStreamWrapper());
    };
    cv::Mat1b l8 = cv::Mat1b(48, 64, (uchar)7);
    cv::Mat_<int> l32 = l0.clone();
    cv::Mat_<ushort> l16(48, 64, (ushort)kPoisonLabel16);
    cv::Mat1f s32f(3, 5, -1.f);
    cv::Mat1d s64f(3, 5, -1.0);
    cv::Mat1f c32f(3, 2, -1.f);
    cv::Mat_<int> c32s(3, 2, -1);
    std::vector<int> vec(7, 42);
    std::vector<cv::Point2d> vecPts(3, cv::Point2d(1, 2));
    const cv::Mat fixedLabels = poisonedLabels(cv::Size(10, 10), CV_32S);
    cv::Matx<int, 4, 4> matx = cv::Matx<int, 4, 4>::all(5);
    cv::Mat ls = l0.clone(), ss = s0.clone(), cs = c0.clone();

    const Case cases[] = {
        { "labels Mat1b (fixed CV_8U), ltype CV_32S", CV_32S, cv::Error::StsUnsupportedFormat, "labels",
          [&](cv::_InputArray in) { run(in, l8, ss, cs, CV_32S); EXPECT_EQ(7, l8(0, 0)); } },
        { "labels Mat_<int>, ltype CV_16U", CV_16U, cv::Error::StsUnsupportedFormat, "labels",
          [&](cv::_InputArray in) { run(in, l32, ss, cs, CV_16U); EXPECT_TRUE(bytesEqual(l32, l0)); } },
        { "labels Mat_<ushort>, ltype CV_32S", CV_32S, cv::Error::StsUnsupportedFormat, "labels",
          [&](cv::_InputArray in) { run(in, l16, ss, cs, CV_32S); EXPECT_EQ(kPoisonLabel16, l16(0, 0)); } },
        { "stats Mat1f", CV_32S, cv::Error::StsUnsupportedFormat, "stats",
          [&](cv::_InputArray in) { run(in, ls, s32f, cs, CV_32S); EXPECT_EQ(-1.f, s32f(0, 0)); } },
        { "stats Mat1d", CV_32S, cv::Error::StsUnsupportedFormat, "stats",
          [&](cv::_InputArray in) { run(in, ls, s64f, cs, CV_32S); EXPECT_EQ(-1.0, s64f(0, 0)); } },
        { "centroids Mat1f", CV_32S, cv::Error::StsUnsupportedFormat, "centroids",
          [&](cv::_InputArray in) { run(in, ls, ss, c32f, CV_32S); EXPECT_EQ(-1.f, c32f(0, 0)); } },
        { "centroids Mat_<int>", CV_16U, cv::Error::StsUnsupportedFormat, "centroids",
          [&](cv::_InputArray in) { run(in, ls, ss, c32s, CV_16U); EXPECT_EQ(-1, c32s(0, 0)); } },
        { "labels std::vector<int>", CV_32S, cv::Error::StsBadArg, "labels",
          [&](cv::_InputArray in) { run(in, vec, ss, cs, CV_32S); EXPECT_EQ(7u, vec.size()); } },
        { "stats std::vector<int>", CV_32S, cv::Error::StsBadArg, "stats",
          [&](cv::_InputArray in) { run(in, ls, vec, cs, CV_32S); EXPECT_EQ(7u, vec.size()); } },
        { "centroids std::vector<Point2d>", CV_32S, cv::Error::StsBadArg, "centroids",
          [&](cv::_InputArray in) { run(in, ls, ss, vecPts, CV_32S); EXPECT_EQ(3u, vecPts.size()); } },
        { "labels Matx<int,4,4>", CV_32S, cv::Error::StsBadArg, "labels",
          [&](cv::_InputArray in) { run(in, matx, ss, cs, CV_32S); EXPECT_EQ(5, matx(0, 0)); } },
        { "labels const Mat 10x10 (fixed size)", CV_32S, cv::Error::StsBadSize, "labels",
          [&](cv::_InputArray in) { run(in, fixedLabels, ss, cs, CV_32S);
                                    EXPECT_TRUE(bytesEqual(fixedLabels, poisonedLabels(cv::Size(10, 10), CV_32S))); } },
    };
    for (const Case& c : cases)
        for (bool gpuImage : { true, false })
        {
            SCOPED_TRACE(cv::format("%s; image as %s", c.name, gpuImage ? "GpuMat header" : "host Mat"));
            expectCvError([&]() { c.call(gpuImage ? cv::_InputArray(gimg) : cv::_InputArray(img)); }, c.code, c.word);
            EXPECT_TRUE(bytesEqual(ls, l0) && bytesEqual(ss, s0) && bytesEqual(cs, c0)) << "another output was modified";
        }
}

TEST(CUDACCA_Arguments, FixedSizeStatsOfTheWrongSize)
{
    // The number of labels is known only on the GPU: a fixed-size stats or centroids output of the wrong
    // size is refused then, and nothing is written (the labels neither).
    skipIfNoCudaDevice();
    cv::Mat img = cv::Mat::zeros(48, 64, CV_8UC1);
    img(cv::Rect(2, 2, 5, 5)).setTo(1);
    img(cv::Rect(20, 20, 5, 5)).setTo(1); // 3 labels
    cv::cuda::GpuMat gimg;
    gimg.upload(img);
    for (int which = 0; which < 2; ++which)
        for (int a : testedAlgorithms())
        {
            SCOPED_TRACE(algorithmName(a) + (which ? ": centroids" : ": stats"));
            const int connectivity = supportedConnectivities(a).back(); // 8 where supported (CCA_DPL: 4 only)
            const cv::Mat fixedStats = poisonedStats(4);         // 4 rows, the result has 3
            const cv::Mat fixedCentroids = poisonedCentroids(2); // 2 rows
            cv::cuda::GpuMat gl;
            gl.upload(poisonedLabels(img.size(), CV_32S));
            cv::Mat st, c;
            expectCvError([&]() {
                if (which == 0)
                    cv::cuda::connectedComponentsWithStats(gimg, gl, fixedStats, c, connectivity, CV_32S, a);
                else
                    cv::cuda::connectedComponentsWithStats(gimg, gl, st, fixedCentroids, connectivity, CV_32S, a);
            }, cv::Error::StsBadSize, which ? "centroids" : "stats");
            cv::Mat l;
            gl.download(l);
            EXPECT_TRUE(bytesEqual(l, poisonedLabels(img.size(), CV_32S))) << "labels modified";
            EXPECT_TRUE(bytesEqual(fixedStats, poisonedStats(4)));
            EXPECT_TRUE(bytesEqual(fixedCentroids, poisonedCentroids(2)));
            EXPECT_TRUE(st.empty() && c.empty());
        }
}

TEST(CUDACCA_Arguments, EnumValues)
{
    // The documented values (Python and saved configurations depend on them).
    EXPECT_EQ(0, (int)cv::cuda::CCA_DEFAULT);
    EXPECT_EQ(1, (int)cv::cuda::CCA_UF);
    for (int a : testedAlgorithms())
        EXPECT_FALSE(supportedConnectivities(a).empty()) << algorithmName(a);
}

}} // namespace opencv_test::<anonymous>
