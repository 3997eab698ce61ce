// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Differential fuzzing: every algorithm x connectivity on generated images, compared EXACTLY with the
// CPU's cv::connectedComponentsWithStats (N, labels, stats, centroids bitwise), by several host threads,
// each with its own cv::cuda::Stream (so the fuzz run is also a concurrency test).
//
// Every image comes from one 64-bit image seed, which also decides how the call is made (input GpuMat,
// ROI of a larger GpuMat with garbage around it, or host Mat; CV_8U or CV_8S; label type; outputs as
// GpuMat, ROI of a poisoned GpuMat whose margin must stay untouched, host Mat or noArray()).
// A failure prints its image seed. A seed that ever failed goes into kRegressionSeeds below, so that it
// runs in every accuracy run.
// Environment (defaults and meanings at envInt): CUDACCA_TEST_SEED and
// CUDACCA_FUZZ_{IMAGES, SECONDS, ALGOS_PER_IMAGE, THREADS, REPLAY}.

#include "test_precomp.hpp"

#include <algorithm>
#include "test_utils.hpp"
#include "../src/one_launch.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace opencv_test { namespace {

using namespace cudacca_test;

// Image seeds that once failed (with the date and what was wrong); they run in every accuracy run.
static const uint64_t kRegressionSeeds[] = {
    0x5eed0001ULL, 0x5eed0002ULL, 0x5eed0003ULL, // smoke: not failures, they keep the test non-empty
};

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/** An integer from the environment (strtoll, base 0: decimal or 0x...), dflt when unset or empty. The
environment this file reads:
  CUDACCA_TEST_SEED=<n>        base seed of the run (image seeds derive from it); printed; read by testSeed
  CUDACCA_FUZZ_IMAGES=<n>      images in DifferentialAgainstCpu (default 300; the GPU run uses 100000+)
  CUDACCA_FUZZ_SECONDS=<s>     stop after s seconds (0: no limit); the count reached is printed
  CUDACCA_FUZZ_ALGOS_PER_IMAGE=<k>  each image runs k algorithms drawn at random (0: all; default)
  CUDACCA_FUZZ_THREADS=<n>     host threads (default: hardware threads, at most 16)
  CUDACCA_FUZZ_REPLAY=<seed>   run just that image seed, verbosely (RegressionSeeds test) */
static long long envInt(const char* name, long long dflt)
{
    const char* v = std::getenv(name);
    return (v && *v) ? std::strtoll(v, nullptr, 0) : dflt;
}

//! The algorithms the fuzzer runs: every tested one. CCA_DEFAULT is more than an alias: images of up to
//! kOneLaunchMaxPixels take its own one-launch path (almost every fuzzed image).
static std::vector<int> fuzzedAlgorithms() { return testedAlgorithms(); }

// ---------------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------------

static int primeNear(int n)
{
    auto isPrime = [](int k) {
        if (k < 2) return false;
        for (int d = 2; d * d <= k; ++d) if (k % d == 0) return false;
        return true;
    };
    while (!isPrime(n)) ++n;
    return n;
}

//! One side length: log-uniform in [1, maxSide] (small sizes are common, which keeps the run fast),
//! sometimes a power of two (+-1) or a prime.
static int randomSide(std::mt19937_64& rng, int maxSide)
{
    std::uniform_real_distribution<double> u(0.0, std::log((double)maxSide));
    int n = std::max(1, std::min(maxSide, (int)std::exp(u(rng))));
    switch (rng() % 8)
    {
    case 0: { int p = 1; while (p * 2 <= n) p *= 2; n = std::max(1, std::min(maxSide, p + (int)(rng() % 3) - 1)); break; }
    case 1: n = std::min(maxSide, primeNear(n)); break;
    default: break;
    }
    return n;
}

static cv::Size randomSize(std::mt19937_64& rng)
{
    const int kMaxSide = 3000;
    switch (rng() % 16)
    {
    case 0: return cv::Size(randomSide(rng, kMaxSide), 1 + (int)(rng() % 3));   // very wide
    case 1: return cv::Size(1 + (int)(rng() % 3), randomSide(rng, kMaxSide));   // very tall
    default: return cv::Size(randomSide(rng, kMaxSide), randomSide(rng, kMaxSide));
    }
}

//! Density: uniform, or around the percolation threshold (55-65 %), or extreme.
static double randomDensity(std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    switch (rng() % 4)
    {
    case 0: return 0.55 + 0.1 * u(rng);
    case 1: return (rng() % 2) ? 0.02 * u(rng) : 1.0 - 0.02 * u(rng);
    default: return u(rng);
    }
}

//! A frame of 1-pixel lines along the four borders and random lines touching them.
static cv::Mat borderTouching(cv::Size size, std::mt19937_64& rng)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    if (rng() % 2)
        cv::rectangle(img, cv::Point(0, 0), cv::Point(size.width - 1, size.height - 1), cv::Scalar(255), 1, cv::LINE_4);
    const int lines = 1 + (int)(rng() % 12);
    for (int i = 0; i < lines; ++i)
    {
        const int x = (int)(rng() % size.width), y = (int)(rng() % size.height);
        switch (rng() % 4)
        {
        case 0: cv::line(img, cv::Point(0, y), cv::Point(x, y), cv::Scalar(255)); break;
        case 1: cv::line(img, cv::Point(size.width - 1, y), cv::Point(x, y), cv::Scalar(255)); break;
        case 2: cv::line(img, cv::Point(x, 0), cv::Point(x, y), cv::Scalar(255)); break;
        default: cv::line(img, cv::Point(x, size.height - 1), cv::Point(x, y), cv::Scalar(255)); break;
        }
    }
    return img;
}

//! Diagonal-only contacts: pixels on a sparse grid joined to the next one by a diagonal step only, so
//! that 4- and 8-connectivity disagree everywhere.
static cv::Mat diagonalChains(cv::Size size, std::mt19937_64& rng)
{
    cv::Mat img = cv::Mat::zeros(size, CV_8UC1);
    const int period = 2 + (int)(rng() % 6);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
            if (((x + y) % period == 0 && (y % 2 == 0)) || ((x - y) % period == 0 && (y % 2 == 1)))
                img.at<uchar>(y, x) = 1;
    return img;
}

struct FuzzImage
{
    std::string kind;
    cv::Mat img;      //!< CV_8UC1, or CV_8SC1 (same bytes)
    bool longPaths = false; //!< a spiral or serpentine: only for algorithms with takesLongPathImage (test_utils.hpp)
};

static FuzzImage generateImage(std::mt19937_64& rng)
{
    const cv::Size size = randomSize(rng);
    std::mt19937 rng32((uint32_t)rng());
    FuzzImage f;
    const int kind = (int)(rng() % 20);
    switch (kind)
    {
    case 0: f.kind = "spiral"; f.img = spiral(size); f.longPaths = true; break;
    case 1: f.kind = "serpentine"; f.img = (rng() % 2) ? serpentine(size) : cv::Mat(serpentine(cv::Size(size.height, size.width)).t()); f.longPaths = true; break;
    case 2: f.kind = "nested square rings"; f.img = nestedSquareRings(size); break;
    case 3: f.kind = "nested circles"; f.img = nestedCircles(size, 2 + (int)(rng() % 4), (rng() % 2) ? cv::LINE_4 : cv::LINE_8); break;
    case 4: { const int k = (int)(rng() % 4); f.kind = cv::format("comb %d", k); f.img = comb(size, (CombKind)k); break; }
    case 5: f.kind = "checkerboard"; f.img = checkerboard(size, (int)(rng() % 2)); break;
    case 6: f.kind = "border touching"; f.img = borderTouching(size, rng); break;
    case 7: f.kind = "full"; f.img = cv::Mat(size, CV_8UC1, cv::Scalar(1 + (int)(rng() % 255))); break;
    case 8: f.kind = "diagonal chains"; f.img = diagonalChains(size, rng); break;
    case 9:
    {
        const int k = (int)(rng() % 4), period = 2 + (int)(rng() % 7);
        f.kind = cv::format("stripes %d/%d", k, period);
        f.img = stripes(size, (StripeKind)k, period, 1 + (int)(rng() % (period - 1)));
        break;
    }
    case 10:
    {
        cv::Mat gray = drawnScene(size, rng32);
        f.kind = "drawn scene";
        cv::threshold(gray, f.img, (double)(rng() % 200 + 20), 255, cv::THRESH_BINARY);
        break;
    }
    default:
    {
        const double d = randomDensity(rng);
        const int g = (rng() % 3) ? 1 : 1 + (int)(rng() % 16);
        f.kind = cv::format("random d=%.3f g=%d", d, g);
        f.img = randomBlockImage(size, d, g, rng32, (rng() % 2) != 0);
        break;
    }
    }
    // Sometimes flip a few random pixels of a structured image: breaks long paths into near-misses.
    if (kind <= 10 && rng() % 3 == 0)
    {
        const int flips = 1 + (int)(rng() % 8);
        for (int i = 0; i < flips; ++i)
        {
            uchar& px = f.img.at<uchar>((int)(rng() % size.height), (int)(rng() % size.width));
            px = px ? 0 : 255;
        }
        f.kind += cv::format(" +%d flips", flips);
    }
    CV_Assert(f.img.size() == size && f.img.type() == CV_8UC1);
    if (rng() % 8 == 0)
    {
        f.img = f.img.clone();
        f.img.flags = (f.img.flags & ~CV_MAT_TYPE_MASK) | CV_8SC1; // same bytes: any nonzero is foreground
        f.kind += " (CV_8S)";
    }
    return f;
}

// ---------------------------------------------------------------------------------------------------
// One image: every algorithm x connectivity, exact comparison
// ---------------------------------------------------------------------------------------------------

//! The image as CV_8UC1 for OpenCV's CPU function (a CV_8SC1 image's bytes reinterpreted: nonzero stays nonzero).
cv::Mat asUnsigned(const cv::Mat& img)
{
    if (img.type() != CV_8SC1)
        return img;
    cv::Mat u8 = img.clone();
    u8.flags = (u8.flags & ~CV_MAT_TYPE_MASK) | CV_8UC1;
    return u8;
}

//! The CPU with its default ccltype (CCL_DEFAULT), 8-connectivity, CV_32S: CCA_ORDER_CCL_DEFAULT's reference.
CCResult cpuDefaultNumbering(const cv::Mat& img)
{
    CCResult r;
    r.n = cv::connectedComponentsWithStats(img, r.labels, r.stats, r.centroids, 8, CV_32S);
    return r;
}

struct FuzzStats
{
    std::atomic<long long> images{ 0 }, calls{ 0 }, mismatches{ 0 }, pixels{ 0 }, overflowCalls{ 0 };
    std::atomic<long long> orderedCalls{ 0 }; //!< with CCA_ORDER_CCL_DEFAULT
    std::atomic<long long> callsPerAlgorithm[64] = {};  //!< indexed by the algorithm's value (below 64)
};

/** The algorithms one image runs: all of them, or (CUDACCA_FUZZ_ALGOS_PER_IMAGE = k > 0) k of them drawn
from the image's own generator, so that a run of a fixed length covers more images while every algorithm
still meets about k / (number of algorithms) of them; the [ FUZZ ] line prints the calls per algorithm. */
static std::vector<int> algorithmsForImage(std::mt19937_64& rng, int perImage)
{
    std::vector<int> all = fuzzedAlgorithms();
    if (perImage <= 0 || perImage >= (int)all.size())
        return all;
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(perImage);
    std::sort(all.begin(), all.end());
    return all;
}

/** Device buffers of one fuzzing thread, allocated once: every GpuMat the fuzzer passes is a header
into them. (cudaMalloc/cudaFree per call would synchronize the whole device and serialize the threads.)
The function itself still allocates when it gets an empty GpuMat; the fuzzer does that sometimes. */
struct FuzzWorkspace
{
    static const int kMaxSide = 3000 + 16;
    cv::cuda::GpuMat input, labels, stats, centroids, count, onePixel;

    FuzzWorkspace()
    {
        count.create(1, 2, CV_32SC1); // applyAsync's N and status
        onePixel.upload(cv::Mat(1, 1, CV_8UC1, cv::Scalar(255))); // applyBatch's third frame
        input.create(kMaxSide, kMaxSide, CV_8UC1);
        labels.create(kMaxSide, kMaxSide, CV_32SC1);
        const int maxLabels = (3000 * 3000 + 1) / 2 + 2;
        stats.create(1, maxLabels * 5, CV_32SC1);       // continuous: headers of n x 5 over it
        centroids.create(1, maxLabels * 2, CV_64FC1);
    }
    //! A rows x cols matrix of `type` at (x, y) of the 2D buffer `big` (its step, no allocation).
    static cv::cuda::GpuMat view(const cv::cuda::GpuMat& big, int x, int y, int cols, int rows, int type)
    {
        CV_Assert(y + rows <= big.rows && (size_t)(x + cols) * CV_ELEM_SIZE(type) <= big.cols * big.elemSize());
        return cv::cuda::GpuMat(rows, cols, type, const_cast<uchar*>(big.ptr(y)) + (size_t)x * CV_ELEM_SIZE(type), big.step);
    }
    cv::cuda::GpuMat statsView(int n) { return cv::cuda::GpuMat(n, 5, CV_32SC1, stats.data, 5 * sizeof(int)); }
    cv::cuda::GpuMat centroidsView(int n) { return cv::cuda::GpuMat(n, 2, CV_64FC1, centroids.data, 2 * sizeof(double)); }

    /** One ConnectedComponentsAnalyzer per setting, kept for the thread's whole run: it sees images of every
    size and label count, so its memory grows, merges and is reused as in an application. With it, the GpuMat
    stats and centroids it handed out last (views of its memory, valid until its next call), which half of
    its calls are given back. */
    struct KeptAnalyzer
    {
        cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> analyzer;
        cv::cuda::GpuMat statsOut, centroidsOut;
    };
    std::map<int, KeptAnalyzer> analyzers;
    KeptAnalyzer& analyzer(int algorithm, int connectivity, int ltype)
    {
        KeptAnalyzer& a = analyzers[algorithm * 64 + connectivity * 2 + (ltype == CV_16U)];
        if (!a.analyzer)
            a.analyzer = cv::cuda::createConnectedComponentsAnalyzer(algorithm, connectivity, ltype);
        return a;
    }
};

static cv::Mat download(const cv::cuda::GpuMat& g, cv::cuda::Stream& stream)
{
    cv::Mat h;
    g.download(h, stream);
    stream.waitForCompletion();
    return h;
}

/** A region of `big` holding a `size` matrix with random margins around it, all set to `fill`;
`roi` is where the matrix is inside `whole`. `tight`: no margins left and right and rows packed (`whole` and the
matrix are continuous: the run-table pipeline then keeps its run table in CV_32S labels; the rows around must
stay `fill`). */
static void placeWithMargins(const cv::cuda::GpuMat& big, cv::Size size, int type, std::mt19937_64& rng,
                             const cv::Scalar& fill, cv::cuda::Stream& stream, cv::cuda::GpuMat& whole, cv::Rect& roi,
                             bool tight = false)
{
    int l = (int)(rng() % 9), t = (int)(rng() % 5), r = (int)(rng() % 7), b = (int)(rng() % 5);
    if (tight)
    {
        l = r = 0;
        const size_t step = (size_t)size.width * CV_ELEM_SIZE(type);
        CV_Assert((size.height + t + b) * step <= big.rows * big.step);
        whole = cv::cuda::GpuMat(size.height + t + b, size.width, type, big.data, step);
    }
    else
        whole = FuzzWorkspace::view(big, 0, 0, size.width + l + r, size.height + t + b, type);
    whole.setTo(fill, stream);
    roi = cv::Rect(l, t, size.width, size.height);
}

//! The part of `whole` outside `roi` still holds `fill`?
static bool marginIntact(const cv::cuda::GpuMat& whole, const cv::Rect& roi, const cv::Scalar& fill, cv::cuda::Stream& stream)
{
    cv::Mat h = download(whole, stream), expected(whole.size(), whole.type(), fill);
    h(roi).copyTo(expected(roi));
    return bytesEqual(h, expected);
}

//! Runs every algorithm x connectivity on the image of `seed`; returns "" or a description of the
//! first mismatch. Thread-safe: uses only its own objects, `ws` and `stream`.
static std::string fuzzOne(uint64_t seed, FuzzWorkspace& ws, cv::cuda::Stream& stream, FuzzStats& st, bool verbose)
{
    std::mt19937_64 rng(seed);
    const FuzzImage f = generateImage(rng);
    const cv::Mat& img = f.img;
    st.pixels += (long long)img.total();
    if (verbose)
        std::cout << cv::format("[ fuzz     ] seed 0x%016llx: %s %dx%d", (unsigned long long)seed, f.kind.c_str(),
                                img.cols, img.rows) << std::endl;

    // Input: 0 GpuMat (header into the workspace), 1 ROI with garbage around it, 2 host Mat.
    const int inputMode = (rng() % 4 == 0) ? 2 : (int)(rng() % 2);
    const cv::Scalar inputFill(0x5a);
    cv::cuda::GpuMat inWhole, in;
    cv::Rect inRoi(0, 0, img.cols, img.rows);
    if (inputMode == 1)
        placeWithMargins(ws.input, img.size(), img.type(), rng, inputFill, stream, inWhole, inRoi);
    else
        inWhole = FuzzWorkspace::view(ws.input, 0, 0, img.cols, img.rows, img.type());
    if (inputMode != 2)
    {
        in = inWhole(inRoi);
        in.upload(img, stream);
    }

    CCResult ref[2], blockOrderRef; // CCL_SAUF's per connectivity; CCL_DEFAULT's (8-connectivity)
    for (int algorithm : algorithmsForImage(rng, (int)envInt("CUDACCA_FUZZ_ALGOS_PER_IMAGE", 0)))
        for (int connectivity : supportedConnectivities(algorithm))
        {
            if (f.longPaths && !takesLongPathImage(algorithm, (long long)img.total()))
                continue; // its rounds grow with the path (kLongPathTestMaxPixels)
            CCResult& saufRef = ref[connectivity == 8];
            if (saufRef.n < 0)
                saufRef = cpuReference(asUnsigned(img), connectivity);
            const CCResult& r0 = saufRef; // (N is the same in either numbering)
            const int ltype = (rng() % 3 == 0) ? CV_16U : CV_32S;
            const CCAParams p{ algorithm, connectivity, ltype };
            const bool ovf = overflows(r0, ltype);

            // labels: 0 ROI of a poisoned GpuMat, 1 empty GpuMat (the function allocates), 2 host Mat,
            // 3 noArray(). stats and centroids: 0 poisoned GpuMat, 1 poisoned host Mat, 2 noArray().
            // (Mode 1 is rare: the GpuMat it allocates is freed with cudaFree, which waits for the whole
            // device and so stalls every fuzzing thread.)
            const int lr = (int)(rng() % 64);
            const int labelsMode = lr < 38 ? 0 : lr < 39 ? 1 : lr < 56 ? 2 : 3;
            const int statsMode = (int)(rng() % 3), centroidsMode = (int)(rng() % 3);
            static const char* lNames[] = { "GpuMat ROI", "empty GpuMat", "Mat", "noArray" };
            static const char* sNames[] = { "GpuMat", "Mat", "noArray" };
            // One call in four goes through the thread's ConnectedComponentsAnalyzer for this setting (decided
            // by a hash of the seed and the setting, so the image's own draws stay as they were); half of those
            // pass back the GpuMat stats and centroids the analyzer handed out last time (views of its memory).
            const uint64_t route = splitmix64(seed ^ (uint64_t)(algorithm * 64 + connectivity * 2 + (ltype == CV_16U)));
            const bool viaAnalyzer = route % 4 == 0;
            const bool analyzerOutputs = viaAnalyzer && (route >> 8) % 2 == 0;
            // Half of the other analyzer calls of CCA_DEFAULT go through applyAsync where it applies (GpuMat input
            // of at most kOneLaunchMaxPixels, GpuMat or no outputs): the stats views hold exactly N rows, so the
            // capacity is N and everything must be written (status 0), or nothing but the count (status 2: CV_16U).
            const bool viaAsync = viaAnalyzer && !analyzerOutputs && algorithm == cv::cuda::CCA_DEFAULT &&
                                  (route >> 16) % 2 == 0 && inputMode != 2 &&
                                  (long long)img.total() <= cv::cuda::cudacca::kOneLaunchMaxPixels &&
                                  (labelsMode == 0 || labelsMode == 3) && statsMode != 1 && centroidsMode != 1;
            // A third of the other analyzer calls with a GpuMat input and no host labels go through applyBatch, as
            // a batch of this image, then the same image again into fresh elements (both checked): two frames of
            // one size (one kernel for the batch), or with a third frame of 1x1 (one kernel per frame).
            const bool viaBatch = viaAnalyzer && !analyzerOutputs && !viaAsync && (route >> 17) % 3 == 0 &&
                                  inputMode != 2 && labelsMode != 2;
            const bool batchOf3 = viaBatch && (route >> 20) % 2 == 0;
            // A third of the label ROIs are bands of whole rows of a continuous matrix (placeWithMargins).
            const bool tightLabels = (route >> 28) % 3 == 0;
            // One in eight of the free function's 8-connectivity calls asks for the CPU's default numbering
            // (CCA_ORDER_CCL_DEFAULT) and is compared with cv::connectedComponentsWithStats' default (CCL_DEFAULT).
            const bool ordered = connectivity == 8 && !viaAnalyzer && (route >> 24) % 8 == 0;
            if (ordered && blockOrderRef.n < 0)
                blockOrderRef = cpuDefaultNumbering(asUnsigned(img));
            const CCResult& r = ordered ? blockOrderRef : saufRef;
            const std::string what = cv::format(
                "seed 0x%016llx (replay: CUDACCA_FUZZ_REPLAY=0x%016llx): %s %dx%d %s, %s, input %s, labels %s, "
                "stats %s, centroids %s%s", (unsigned long long)seed, (unsigned long long)seed, f.kind.c_str(), img.cols,
                img.rows, cv::typeToString(img.type()).c_str(), paramsName(p).c_str(),
                inputMode == 0 ? "GpuMat" : inputMode == 1 ? "GpuMat ROI" : "Mat",
                labelsMode == 0 && tightLabels ? "GpuMat band of whole rows (continuous)" : lNames[labelsMode],
                analyzerOutputs && statsMode == 0 ? "the analyzer's" : sNames[statsMode],
                analyzerOutputs && centroidsMode == 0 ? "the analyzer's" : sNames[centroidsMode],
                viaAsync ? ", through ConnectedComponentsAnalyzer::applyAsync"
                         : viaBatch ? (batchOf3 ? ", through ConnectedComponentsAnalyzer::applyBatch (3 frames, mixed sizes)"
                                               : ", through ConnectedComponentsAnalyzer::applyBatch (2 frames of one size)")
                         : viaAnalyzer ? ", through a ConnectedComponentsAnalyzer"
                         : ordered ? ", CCA_ORDER_CCL_DEFAULT (against the CPU's CCL_DEFAULT)" : "");

            const cv::Scalar labelPoison(ltype == CV_16U ? kPoisonLabel16 : kPoisonLabel32);
            cv::cuda::GpuMat lWhole, lGpu, lAlloc, sGpu, cGpu;
            cv::Rect lRoi;
            cv::Mat lHost, sHost, cHost;
            if (labelsMode == 0)
            {
                placeWithMargins(ws.labels, img.size(), ltype, rng, labelPoison, stream, lWhole, lRoi, tightLabels);
                lGpu = lWhole(lRoi);
            }
            else if (labelsMode == 2)
                lHost = poisonedLabels(img.size(), ltype);
            // (uploads, not setTo: an N x 5 setTo launches N / 8 blocks in y, past CUDA's limit of 65535)
            FuzzWorkspace::KeptAnalyzer* kept = viaAnalyzer ? &ws.analyzer(algorithm, connectivity, ltype) : nullptr;
            if (statsMode == 0 && analyzerOutputs) sGpu = kept->statsOut;
            else if (statsMode == 0) { sGpu = ws.statsView(r.n); sGpu.upload(poisonedStats(r.n), stream); }
            else if (statsMode == 1) sHost = poisonedStats(r.n);
            if (centroidsMode == 0 && analyzerOutputs) cGpu = kept->centroidsOut;
            else if (centroidsMode == 0) { cGpu = ws.centroidsView(r.n); cGpu.upload(poisonedCentroids(r.n), stream); }
            else if (centroidsMode == 1) cHost = poisonedCentroids(r.n);

            cv::_InputArray inArr = inputMode == 2 ? cv::_InputArray(img) : cv::_InputArray(in);
            cv::_OutputArray lArr = labelsMode == 0 ? cv::_OutputArray(lGpu) : labelsMode == 1 ? cv::_OutputArray(lAlloc)
                                  : labelsMode == 2 ? cv::_OutputArray(lHost) : cv::_OutputArray(cv::noArray());
            cv::_OutputArray sArr = statsMode == 0 ? cv::_OutputArray(sGpu) : statsMode == 1 ? cv::_OutputArray(sHost)
                                                                                               : cv::_OutputArray(cv::noArray());
            cv::_OutputArray cArr = centroidsMode == 0 ? cv::_OutputArray(cGpu) : centroidsMode == 1 ? cv::_OutputArray(cHost)
                                                                                                       : cv::_OutputArray(cv::noArray());
            const uchar* lData0 = lGpu.data;
            int n = -12345;
            std::string error;
            if (kept) // the views it handed out are valid until this call only (whether it succeeds or throws)
                kept->statsOut = kept->centroidsOut = cv::cuda::GpuMat();
            try
            {
                if (viaAsync)
                {
                    cv::cuda::GpuMat noLabels, noStats, noCentroids;
                    kept->analyzer->applyAsync(in, labelsMode == 0 ? cv::_InputOutputArray(lGpu) : cv::noArray(),
                                               statsMode == 0 ? cv::_InputOutputArray(sGpu) : cv::noArray(),
                                               centroidsMode == 0 ? cv::_InputOutputArray(cGpu) : cv::noArray(),
                                               ws.count, stream);
                    const cv::Mat c = download(ws.count, stream);
                    n = c.at<int>(0);
                    if (c.at<int>(1) == 2)
                        CV_Error(cv::Error::StsOutOfRange, "applyAsync: status 2 (more labels than CV_16U holds)");
                    if (c.at<int>(1) != 0)
                        CV_Error_(cv::Error::StsError, ("applyAsync: status %d with a capacity of N", c.at<int>(1)));
                }
                else if (viaBatch)
                {
                    std::vector<cv::cuda::GpuMat> images{ in, in }, lv, sv, cv_;
                    if (batchOf3)
                        images.push_back(ws.onePixel);
                    std::vector<cv::Mat> sh, ch;
                    if (labelsMode == 0 || labelsMode == 1) lv = { labelsMode == 0 ? lGpu : lAlloc, cv::cuda::GpuMat() };
                    if (statsMode == 0) sv = { sGpu, cv::cuda::GpuMat() };
                    if (statsMode == 1) sh = { sHost, cv::Mat() };
                    if (centroidsMode == 0) cv_ = { cGpu, cv::cuda::GpuMat() };
                    if (centroidsMode == 1) ch = { cHost, cv::Mat() };
                    std::vector<int> counts;
                    kept->analyzer->applyBatch(images, labelsMode == 3 ? cv::_OutputArray(cv::noArray()) : cv::_OutputArray(lv),
                                               statsMode == 0 ? cv::_OutputArray(sv) : statsMode == 1 ? cv::_OutputArray(sh)
                                                                                                      : cv::_OutputArray(cv::noArray()),
                                               centroidsMode == 0 ? cv::_OutputArray(cv_) : centroidsMode == 1 ? cv::_OutputArray(ch)
                                                                                                              : cv::_OutputArray(cv::noArray()),
                                               counts, stream);
                    stream.waitForCompletion();
                    // frame 0 is checked below through the usual variables, frame 1 here
                    n = counts.size() == images.size() ? counts[0] : -1;
                    std::ostringstream second;
                    if (counts.size() != images.size() || counts[1] != r.n)
                        second << " frame 1: N " << (counts.size() == images.size() ? counts[1] : -1) << ";";
                    if (batchOf3 && counts.size() == 3 && counts[2] != 2)
                        second << " frame 2 (one foreground pixel): N " << counts[2] << ";";
                    if (labelsMode == 0 || labelsMode == 1)
                    {
                        if (labelsMode == 0) lGpu = lv[0]; else lAlloc = lv[0];
                        ::testing::AssertionResult a = labelsEqual(expectedLabels(r, ltype), download(lv[1], stream));
                        if (!a) second << " frame 1: " << a.message() << ";";
                    }
                    if (statsMode != 2)
                    {
                        if (statsMode == 0) sGpu = sv[0]; else sHost = sh[0];
                        ::testing::AssertionResult a = statsEqual(r.stats, statsMode == 0 ? download(sv[1], stream) : sh[1]);
                        if (!a) second << " frame 1: " << a.message() << ";";
                    }
                    if (centroidsMode != 2)
                    {
                        if (centroidsMode == 0) cGpu = cv_[0]; else cHost = ch[0];
                        ::testing::AssertionResult a = centroidsEqual(r.centroids, centroidsMode == 0 ? download(cv_[1], stream) : ch[1]);
                        if (!a) second << " frame 1: " << a.message() << ";";
                    }
                    if (!second.str().empty())
                    {
                        ++st.mismatches;
                        return what + ":" + second.str();
                    }
                }
                else if (viaAnalyzer)
                    n = kept->analyzer->apply(inArr, lArr, sArr, cArr, stream);
                else
                    n = cv::cuda::connectedComponentsWithStats(inArr, lArr, sArr, cArr, connectivity, ltype,
                                                               ordered ? algorithm | cv::cuda::CCA_ORDER_CCL_DEFAULT : algorithm,
                                                               stream);
                stream.waitForCompletion();
                if (analyzerOutputs && statsMode == 0)
                    kept->statsOut = sGpu;
                if (analyzerOutputs && centroidsMode == 0)
                    kept->centroidsOut = cGpu;
            }
            catch (const cv::Exception& e)
            {
                error = e.what();
                if (!ovf || e.code != cv::Error::StsOutOfRange)
                {
                    ++st.mismatches;
                    return what + ": threw " + error;
                }
            }
            ++st.calls;
            ++st.callsPerAlgorithm[algorithm & 63];
            if (ordered)
                ++st.orderedCalls;
            if (ovf)
            {
                ++st.overflowCalls;
                if (error.empty())
                {
                    ++st.mismatches;
                    return what + cv::format(": %d labels do not fit CV_16U, yet the call returned %d", r.n, n);
                }
                const cv::Mat poison = poisonedLabels(img.size(), ltype);
                if ((labelsMode == 0 && !(marginIntact(lWhole, lRoi, labelPoison, stream) && bytesEqual(download(lGpu, stream), poison))) ||
                    (labelsMode == 2 && !bytesEqual(lHost, poison)) || (labelsMode == 1 && !lAlloc.empty()))
                {
                    ++st.mismatches;
                    return what + ": a call that threw StsOutOfRange modified the labels";
                }
                continue;
            }

            std::ostringstream bad;
            if (n != r.n)
                bad << " N: GPU " << n << ", CPU " << r.n << ";";
            if (labelsMode != 3)
            {
                cv::Mat got = labelsMode == 0 ? download(lGpu, stream) : labelsMode == 1 ? download(lAlloc, stream) : lHost;
                if (labelsMode == 0 && lGpu.data != lData0)
                    bad << " the preallocated labels ROI was reallocated;";
                if (labelsMode == 0 && !marginIntact(lWhole, lRoi, labelPoison, stream))
                    bad << " labels written outside the output ROI;";
                ::testing::AssertionResult a = labelsEqual(expectedLabels(r, ltype), got);
                if (!a) bad << " " << a.message() << ";";
            }
            if (statsMode != 2)
            {
                ::testing::AssertionResult a = statsEqual(r.stats, statsMode == 0 ? download(sGpu, stream) : sHost);
                if (!a) bad << " " << a.message() << ";";
            }
            if (centroidsMode != 2)
            {
                ::testing::AssertionResult a = centroidsEqual(r.centroids, centroidsMode == 0 ? download(cGpu, stream) : cHost);
                if (!a) bad << " " << a.message() << ";";
            }
            if (inputMode != 2 && !bytesEqual(download(in, stream), img))
                bad << " the input was modified;";
            if (inputMode == 1 && !marginIntact(inWhole, inRoi, inputFill, stream))
                bad << " the GpuMat around the input ROI was modified;";
            if (!bad.str().empty())
            {
                ++st.mismatches;
                return what + ":" + bad.str();
            }
        }
    ++st.images;
    return std::string();
}

// ---------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------

TEST(CUDACCA_Fuzz, DifferentialAgainstCpu)
{
    skipIfNoCudaDevice();
    const uint64_t base = testSeed();
    const long long images = envInt("CUDACCA_FUZZ_IMAGES", 300);
    const double seconds = (double)envInt("CUDACCA_FUZZ_SECONDS", 0);
    const int threads = (int)std::max(1LL, envInt("CUDACCA_FUZZ_THREADS",
                                                  std::min(16, (int)std::max(1u, std::thread::hardware_concurrency()))));
    std::cout << cv::format("[ fuzz     ] %lld images, %d threads, algorithms:", images, threads);
    for (int a : fuzzedAlgorithms())
        std::cout << " " << algorithmName(a);
    std::cout << (seconds > 0 ? cv::format(", stop after %.0f s", seconds) : std::string()) << std::endl;

    FuzzStats st;
    std::atomic<long long> next{ 0 };
    std::atomic<bool> stop{ false };
    std::mutex mutex;
    std::vector<std::string> failures;
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

    auto worker = [&]() {
        cv::cuda::Stream stream;
        FuzzWorkspace ws;
        while (!stop)
        {
            const long long i = next++;
            if (i >= images || (seconds > 0 && elapsed() > seconds))
                break;
            const uint64_t seed = splitmix64(base + (uint64_t)i);
            std::string msg;
            try { msg = fuzzOne(seed, ws, stream, st, false); }
            catch (const std::exception& e) { msg = cv::format("seed 0x%016llx: unexpected exception %s", (unsigned long long)seed, e.what()); ++st.mismatches; }
            if (!msg.empty())
            {
                std::lock_guard<std::mutex> lock(mutex);
                failures.push_back(msg);
                if (failures.size() >= 5)
                    stop = true;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    for (auto& t : pool)
        t.join();

    const double secs = elapsed();
    std::cout << cv::format("[ FUZZ     ] images=%lld calls=%lld mismatches=%lld overflow16U=%lld pixels=%.3g seconds=%.1f base_seed=%llu",
                            (long long)st.images, (long long)st.calls, (long long)st.mismatches, (long long)st.overflowCalls,
                            (double)st.pixels, secs, (unsigned long long)base) << std::endl;
    std::cout << "[ FUZZ     ] calls per algorithm:";
    for (int a : fuzzedAlgorithms())
        std::cout << " " << algorithmName(a) << "=" << (long long)st.callsPerAlgorithm[a & 63];
    std::cout << "; with CCA_ORDER_CCL_DEFAULT: " << (long long)st.orderedCalls << std::endl;
    for (const std::string& m : failures)
        ADD_FAILURE() << m;
    EXPECT_EQ(0, (long long)st.mismatches);
    if (seconds <= 0)
    {
        EXPECT_EQ(images, (long long)st.images + (long long)failures.size()) << "not every image ran";
    }
}

TEST(CUDACCA_Fuzz, RegressionSeeds)
{
    skipIfNoCudaDevice();
    std::vector<uint64_t> seeds(std::begin(kRegressionSeeds), std::end(kRegressionSeeds));
    const char* replay = std::getenv("CUDACCA_FUZZ_REPLAY");
    if (replay && *replay)
        seeds.assign(1, (uint64_t)std::strtoull(replay, nullptr, 0));
    FuzzStats st;
    cv::cuda::Stream stream;
    FuzzWorkspace ws;
    for (uint64_t seed : seeds)
    {
        const std::string msg = fuzzOne(seed, ws, stream, st, true);
        EXPECT_TRUE(msg.empty()) << msg;
    }
}

}} // namespace opencv_test::<anonymous>
