// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cudacca sample: threshold an image, label its connected components on the GPU with
// cv::cuda::connectedComponentsWithStats, print the largest components and write a color-coded label image.
//
//   cudacca_sample [image] [--threshold=T] [--invert] [--connectivity=8|4] [--algorithm=NAME]
//                  [--output=cudacca_labels.png] [--boxes=FILE] [--repeat=N] [--check]
//   NAME: default, uf, bke, buf, ke, ole, rcu, ha, flsl, flsl_cd, flsl_otf, tmk, lbuf, dlp (cv::cuda::CCA_*)
//   (cv::CommandLineParser syntax: values follow "=", also for short names: -c=4, -t=100)
//
// Exit codes: 0 success, 1 error (bad argument, unreadable image, OpenCV error), 2 no CUDA device,
// 3 --check found a difference from the CPU's cv::connectedComponentsWithStats(..., CCL_SAUF).

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/core/cuda.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/cudacca.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#ifndef CUDACCA_SAMPLE_DEFAULT_IMAGE
#define CUDACCA_SAMPLE_DEFAULT_IMAGE "data/cells.png"
#endif

static const char* const keys =
    "{@image        |                   | input image (default: the bundled " CUDACCA_SAMPLE_DEFAULT_IMAGE ")}"
    "{threshold t   | otsu              | binarization: 'otsu' or a fixed value 0..254 (foreground: pixel > value)}"
    "{invert        |                   | foreground is dark (pixel <= threshold)}"
    "{connectivity c| 8                 | 8 or 4}"
    "{algorithm a   | default           | default, uf, bke, buf, ke, ole, rcu, ha, flsl, flsl_cd, flsl_otf, tmk, lbuf or dlp (cv::cuda::CCA_*)}"
    "{output o      | cudacca_labels.png| color-coded label image to write}"
    "{boxes b       |                   | also write the label image with every bounding box and centroid drawn}"
    "{repeat r      | 10                | timed calls after the warm-up (the median is printed)}"
    "{check         |                   | compare with the CPU cv::connectedComponentsWithStats (CCL_SAUF), print MATCH or MISMATCH}"
    "{help h        |                   | print this help}";

// The algorithms of cv::cuda::CCAAlgorithmTypes by the name --algorithm takes.
struct NamedAlgorithm
{
    const char* name;
    int id;
};
static const NamedAlgorithm kAlgorithms[] = {
    { "default", cv::cuda::CCA_DEFAULT }, { "uf", cv::cuda::CCA_UF },   { "bke", cv::cuda::CCA_BKE },
    { "buf", cv::cuda::CCA_BUF },         { "ke", cv::cuda::CCA_KE },   { "ole", cv::cuda::CCA_OLE },
    { "rcu", cv::cuda::CCA_RCU },         { "ha", cv::cuda::CCA_HA },   { "flsl", cv::cuda::CCA_FLSL },
    { "flsl_cd", cv::cuda::CCA_FLSL_CD }, { "flsl_otf", cv::cuda::CCA_FLSL_OTF }, { "tmk", cv::cuda::CCA_TMK },
    { "lbuf", cv::cuda::CCA_LBUF },       { "dlp", cv::cuda::CCA_DLP },
    { "le", cv::cuda::CCA_LE },           { "be", cv::cuda::CCA_BE },
    { "np", cv::cuda::CCA_NP },           { "lnp", cv::cuda::CCA_LNP },
    { "dpl", cv::cuda::CCA_DPL },         { "stava", cv::cuda::CCA_STAVA },
    { "brb", cv::cuda::CCA_BRB },         { "rasmussen", cv::cuda::CCA_RASMUSSEN },
    { "8dls", cv::cuda::CCA_8DLS },       { "m8dls", cv::cuda::CCA_M8DLS },
    { "accl", cv::cuda::CCA_ACCL },       { "c_sauf", cv::cuda::CCA_C_SAUF },
    { "c_bbdt", cv::cuda::CCA_C_BBDT },   { "c_drag", cv::cuda::CCA_C_DRAG },
};

// The algorithm named `arg` (case-insensitive, "CCA_" optional), or -1.
static int algorithmByName(std::string arg, std::string& canonical)
{
    std::transform(arg.begin(), arg.end(), arg.begin(), [](unsigned char c) { return (char)std::tolower(c); });
    if (arg.rfind("cca_", 0) == 0)
        arg = arg.substr(4);
    for (const NamedAlgorithm& a : kAlgorithms)
        if (arg == a.name)
        {
            canonical = "CCA_" + arg;
            std::transform(canonical.begin(), canonical.end(), canonical.begin(),
                           [](unsigned char c) { return (char)std::toupper(c); });
            return a.id;
        }
    return -1;
}

// Same color for a label in the C++ and the Python sample; background (0) is black.
static cv::Vec3b labelColor(int label)
{
    if (label == 0)
        return cv::Vec3b(0, 0, 0);
    const uint32_t h = (uint32_t)label * 2654435761u;
    return cv::Vec3b((uchar)(64 + ((h & 255u) * 3) / 4), (uchar)(64 + (((h >> 8) & 255u) * 3) / 4),
                     (uchar)(64 + (((h >> 16) & 255u) * 3) / 4));
}

// Empty when a and b have the same size, type and bytes; else a description of the first difference.
static std::string compareExact(const cv::Mat& a, const cv::Mat& b, const char* what)
{
    if (a.size() != b.size() || a.type() != b.type())
        return cv::format("%s: GPU %dx%d (type %d) vs CPU %dx%d (type %d)", what, a.cols, a.rows, a.type(),
                          b.cols, b.rows, b.type());
    const size_t es = a.elemSize();
    for (int y = 0; y < a.rows; ++y)
    {
        const uchar* pa = a.ptr<uchar>(y);
        const uchar* pb = b.ptr<uchar>(y);
        if (std::memcmp(pa, pb, es * a.cols) == 0)
            continue;
        for (int x = 0; x < a.cols; ++x)
            if (std::memcmp(pa + es * x, pb + es * x, es) != 0)
            {
                if (a.depth() == CV_64F)
                    return cv::format("%s differ at (row %d, col %d): GPU %.17g, CPU %.17g", what, y, x,
                                      a.at<double>(y, x), b.at<double>(y, x));
                return cv::format("%s differ at (row %d, col %d): GPU %d, CPU %d", what, y, x, a.at<int>(y, x),
                                  b.at<int>(y, x));
            }
    }
    return std::string();
}

int main(int argc, char** argv)
{
    cv::CommandLineParser parser(argc, argv, keys);
    parser.about("cudacca sample: GPU connected components with statistics");
    if (parser.has("help"))
    {
        parser.printMessage();
        return 0;
    }
    std::string path = parser.get<std::string>("@image");
    const std::string thrArg = parser.get<std::string>("threshold");
    const bool invert = parser.has("invert");
    const int connectivity = parser.get<int>("connectivity");
    const std::string algoArg = parser.get<std::string>("algorithm");
    const std::string output = parser.get<std::string>("output");
    const std::string boxesOutput = parser.get<std::string>("boxes");
    const int repeat = parser.get<int>("repeat");
    const bool check = parser.has("check");
    if (!parser.check())
    {
        parser.printErrors();
        return 1;
    }
    if (path.empty())
        path = CUDACCA_SAMPLE_DEFAULT_IMAGE;
    if (connectivity != 4 && connectivity != 8)
    {
        std::cerr << "error: --connectivity must be 4 or 8, got " << connectivity << std::endl;
        return 1;
    }
    std::string algoName;
    const int algorithm = algorithmByName(algoArg, algoName);
    if (algorithm < 0)
    {
        std::cerr << "error: --algorithm must be one of";
        for (const NamedAlgorithm& a : kAlgorithms)
            std::cerr << " " << a.name;
        std::cerr << ", got '" << algoArg << "'" << std::endl;
        return 1;
    }
    if (repeat < 1)
    {
        std::cerr << "error: --repeat must be at least 1, got " << repeat << std::endl;
        return 1;
    }
    int fixedThreshold = -1;
    if (thrArg != "otsu")
    {
        char* end = nullptr;
        const long v = std::strtol(thrArg.c_str(), &end, 10);
        if (thrArg.empty() || *end != '\0' || v < 0 || v > 254)
        {
            std::cerr << "error: --threshold must be 'otsu' or an integer 0..254, got '" << thrArg << "'" << std::endl;
            return 1;
        }
        fixedThreshold = (int)v;
    }

    try
    {
        // 1. read and binarize (on the CPU: a fixed threshold or Otsu's)
        cv::Mat gray = cv::imread(path, cv::IMREAD_GRAYSCALE);
        if (gray.empty())
        {
            std::cerr << "error: cannot read image '" << path << "'" << std::endl;
            return 1;
        }
        cv::Mat binary;
        const int type = invert ? cv::THRESH_BINARY_INV : cv::THRESH_BINARY;
        const double t = fixedThreshold < 0 ? cv::threshold(gray, binary, 0, 255, type | cv::THRESH_OTSU)
                                            : cv::threshold(gray, binary, fixedThreshold, 255, type);
        std::cout << "image: " << path << " (" << gray.cols << "x" << gray.rows << "), threshold "
                  << (fixedThreshold < 0 ? "Otsu = " : "fixed = ") << t << (invert ? ", inverted" : "")
                  << ", foreground " << cv::countNonZero(binary) << " pixels" << std::endl;

        // 2. a GPU is needed from here on
        const int devices = cv::cuda::getCudaEnabledDeviceCount();
        if (devices <= 0)
        {
            std::cout << "no CUDA device available: cv::cuda::getCudaEnabledDeviceCount() returned " << devices
                      << (devices < 0 ? " (no CUDA driver, or OpenCV built without CUDA)" : "") << std::endl;
            return 2;
        }

        // 3. label on the GPU; all outputs stay on the GPU until downloaded
        cv::cuda::Stream stream;
        cv::cuda::GpuMat d_binary, d_labels, d_stats, d_centroids;
        d_binary.upload(binary, stream);
        // warm-up call (CUDA context, kernels, output allocation), then --repeat timed ones
        int n = cv::cuda::connectedComponentsWithStats(d_binary, d_labels, d_stats, d_centroids, connectivity,
                                                       CV_32S, algorithm, stream);
        stream.waitForCompletion();
        std::vector<double> ms;
        for (int i = 0; i < repeat; ++i)
        {
            cv::TickMeter tm;
            tm.start();
            n = cv::cuda::connectedComponentsWithStats(d_binary, d_labels, d_stats, d_centroids, connectivity,
                                                       CV_32S, algorithm, stream);
            stream.waitForCompletion();
            tm.stop();
            ms.push_back(tm.getTimeMilli());
        }
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        cv::Mat labels, stats, centroids;
        d_labels.download(labels, stream);
        d_stats.download(stats, stream);
        d_centroids.download(centroids, stream);
        stream.waitForCompletion();

        std::cout << "GPU: " << cv::cuda::DeviceInfo().name() << ", connectivity " << connectivity
                  << ", algorithm " << algoName << std::endl;
        std::cout << "N = " << n << " labels (background included): " << n - 1 << " components, in "
                  << cv::format("%.3f", ms[ms.size() / 2]) << " ms per call (median of " << repeat
                  << " calls after a warm-up, outputs on the GPU)" << std::endl;

        // 4. the five largest components
        std::vector<int> order(std::max(0, n - 1));
        std::iota(order.begin(), order.end(), 1);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return stats.at<int>(a, cv::CC_STAT_AREA) > stats.at<int>(b, cv::CC_STAT_AREA);
        });
        const int shown = std::min<int>(5, (int)order.size());
        std::cout << "largest " << shown << " components:" << std::endl;
        std::cout << cv::format("  %8s %10s  %-24s %s", "label", "area", "bbox (x, y, w, h)", "centroid (x, y)")
                  << std::endl;
        for (int i = 0; i < shown; ++i)
        {
            const int l = order[i];
            const int* s = stats.ptr<int>(l);
            const std::string box = cv::format("(%d, %d, %d, %d)", s[cv::CC_STAT_LEFT], s[cv::CC_STAT_TOP],
                                               s[cv::CC_STAT_WIDTH], s[cv::CC_STAT_HEIGHT]);
            std::cout << cv::format("  %8d %10d  %-24s (%.2f, %.2f)", l, s[cv::CC_STAT_AREA], box.c_str(),
                                    centroids.at<double>(l, 0), centroids.at<double>(l, 1))
                      << std::endl;
        }

        // 5. color-coded label image
        std::vector<cv::Vec3b> colors(std::max(n, 1));
        for (int l = 0; l < n; ++l)
            colors[l] = labelColor(l);
        cv::Mat color(labels.size(), CV_8UC3);
        for (int y = 0; y < labels.rows; ++y)
        {
            const int* lr = labels.ptr<int>(y);
            cv::Vec3b* cr = color.ptr<cv::Vec3b>(y);
            for (int x = 0; x < labels.cols; ++x)
                cr[x] = colors[lr[x]];
        }
        if (!cv::imwrite(output, color))
        {
            std::cerr << "error: cannot write '" << output << "'" << std::endl;
            return 1;
        }
        std::cout << "wrote " << output << std::endl;
        if (!boxesOutput.empty())
        {
            // every component's bounding box (white) and centroid (red cross) on the label image
            for (int l = 1; l < n; ++l)
            {
                const int* s = stats.ptr<int>(l);
                cv::rectangle(color, cv::Rect(s[cv::CC_STAT_LEFT], s[cv::CC_STAT_TOP], s[cv::CC_STAT_WIDTH],
                                              s[cv::CC_STAT_HEIGHT]), cv::Scalar(255, 255, 255), 1);
                cv::drawMarker(color, cv::Point(cvRound(centroids.at<double>(l, 0)), cvRound(centroids.at<double>(l, 1))),
                               cv::Scalar(0, 0, 255), cv::MARKER_CROSS, 7, 1);
            }
            if (!cv::imwrite(boxesOutput, color))
            {
                std::cerr << "error: cannot write '" << boxesOutput << "'" << std::endl;
                return 1;
            }
            std::cout << "wrote " << boxesOutput << " (bounding boxes and centroids)" << std::endl;
        }

        // 6. optional exact comparison with the CPU
        if (check)
        {
            cv::Mat cLabels, cStats, cCentroids;
            const int cn = cv::connectedComponentsWithStats(binary, cLabels, cStats, cCentroids, connectivity,
                                                            CV_32S, cv::CCL_SAUF);
            std::string diff;
            if (cn != n)
                diff = cv::format("number of labels: GPU %d, CPU %d", n, cn);
            if (diff.empty()) diff = compareExact(labels, cLabels, "labels");
            if (diff.empty()) diff = compareExact(stats, cStats, "stats");
            if (diff.empty()) diff = compareExact(centroids, cCentroids, "centroids (bitwise)");
            if (!diff.empty())
            {
                std::cout << "MISMATCH with the CPU (CCL_SAUF): " << diff << std::endl;
                return 3;
            }
            std::cout << "MATCH: labels, stats and centroids equal the CPU's (CCL_SAUF)" << std::endl;
        }
    }
    catch (const cv::Exception& e)
    {
        std::cerr << "OpenCV error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
