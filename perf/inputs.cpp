// cudacca_bench: the benchmark images. YACCLAB-style random images (the module perf suite's generator and seed),
// the all-foreground image, and two real binary images: cells.png (samples/data) tiled to the side, and a text
// page rendered with cv::putText and thresholded.

#include "bench.hpp"

#include <algorithm>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

namespace bench {

static const int kGranularities[] = { 1, 4, 16 };
static const int kDensities[] = { 5, 25, 50, 60, 75, 95 };
static const uint32_t kSeed = 20240917u;   // the module perf suite's seed: the same images
static const int kSubsetDensity = 50;   // --quick, the latency variant and the 8192^2 4-connectivity subset

cv::Mat makeRandomImage(int side, int g, int density)
{
    cv::Mat img(side, side, CV_8UC1, cv::Scalar::all(density >= 100 ? 255 : 0));
    if (density >= 100)
        return img;
    const int blocks = (side + g - 1) / g;
    const uint32_t thr = (uint32_t)(((uint64_t)density << 32) / 100);   // P(rng() < thr) = d / 100
    std::mt19937 rng(kSeed);
    std::vector<uchar> row(blocks);
    for (int by = 0; by < blocks; ++by)
    {
        for (int bx = 0; bx < blocks; ++bx)
            row[bx] = rng() < thr ? 255 : 0;
        uchar* first = img.ptr<uchar>(by * g);
        for (int x = 0; x < side; ++x)
            first[x] = row[x / g];
        for (int y = by * g + 1; y < std::min(side, (by + 1) * g); ++y)
            std::memcpy(img.ptr<uchar>(y), first, side);
    }
    return img;
}

//! Whether `v` is empty (no filter) or holds `x`.
static bool allows(const std::vector<int>& v, int x)
{
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<Input> listInputs(const Options& opt)
{
    std::vector<Input> v;
    for (int g : kGranularities)
        for (int d : kDensities)
        {
            if ((opt.quick && d != kSubsetDensity) || !allows(opt.granularities, g) || !allows(opt.densities, d))
                continue;
            Input in;
            in.name = "random";
            in.g = g;
            in.density = d;
            in.conn4 = d == kSubsetDensity;
            in.latency = in.conn4 || opt.latencyAllDensities; // (8-connectivity only at the other densities)
            v.push_back(in);
        }
    if (!allows(opt.granularities, 0))   // the full image and the real images count as g = 0
        return v;
    Input full;
    full.name = "full";
    full.g = 1;
    full.density = 100;
    full.latency = full.conn4 = true;
    v.push_back(full);
    for (const char* name : { "cells", "text" })
    {
        if (opt.quick && std::string(name) == "text")
            continue;
        Input in;
        in.name = name;
        in.conn4 = true;
        v.push_back(in);
    }
    return v;
}

//! cells.png: --data, then samples/data below the working directory, then the source tree's.
static std::string findCells(const Options& opt)
{
    std::vector<std::string> dirs;
    if (!opt.dataDir.empty())
        dirs.push_back(opt.dataDir);
    dirs.push_back("samples/data");
#ifdef CUDACCA_BENCH_DATA_DIR
    dirs.push_back(CUDACCA_BENCH_DATA_DIR);
#endif
    for (const std::string& d : dirs)
        if (std::ifstream(d + "/cells.png").good())
            return d + "/cells.png";
    return std::string();
}

//! cells.png thresholded at 128 (Otsu would also do: the picture is nearly binary), repeated to side x side.
static cv::Mat makeCells(int side, const Options& opt)
{
    const std::string path = findCells(opt);
    cv::Mat cells = path.empty() ? cv::Mat() : cv::imread(path, cv::IMREAD_GRAYSCALE);
    if (cells.empty())
        return cv::Mat();
    cv::threshold(cells, cells, 127, 255, cv::THRESH_BINARY);
    cv::Mat tiled;
    cv::repeat(cells, (side + cells.rows - 1) / cells.rows, (side + cells.cols - 1) / cells.cols, tiled);
    return tiled(cv::Rect(0, 0, side, side)).clone();
}

//! A page of text: about 80 characters a line, anti-aliased cv::putText, then thresholded (like a scan).
static cv::Mat makeText(int side)
{
    static const char* const kWords[] = {
        "connected", "components", "label", "every", "pixel", "of", "the", "binary", "image", "and", "count",
        "area", "with", "a", "bounding", "box", "per", "region", "GPU", "stream", "in", "raster", "order",
        "the", "same", "as", "on", "CPU", "2026", "figure", "table", "page", "ink", "paper", "scan", "#42",
    };
    cv::Mat img(side, side, CV_8UC1, cv::Scalar::all(0));
    const double scale = side / 1700.0;   // FONT_HERSHEY_SIMPLEX: ~20 * scale px a character
    const int thickness = std::max(1, (int)std::lround(scale * 2));
    int baseline = 0;
    const cv::Size glyph = cv::getTextSize("Mg", cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &baseline);
    const int lineHeight = (int)std::lround(glyph.height * 1.9) + 1;
    const int margin = side / 20;
    size_t word = 0;
    for (int y = margin + glyph.height; y < side - margin; y += lineHeight)
    {
        std::string line;
        while (true)
        {
            const std::string next = (line.empty() ? "" : line + " ") + kWords[word % (sizeof(kWords) / sizeof(*kWords))];
            if (cv::getTextSize(next, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &baseline).width > side - 2 * margin)
                break;
            line = next;
            word += 7;   // 7 is coprime with the word count: the lines differ
        }
        cv::putText(img, line, cv::Point(margin, y), cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar::all(255), thickness,
                    cv::LINE_AA);
    }
    cv::threshold(img, img, 127, 255, cv::THRESH_BINARY);
    return img;
}

static int densityPercent(const cv::Mat& img)
{
    return (int)std::lround(100.0 * cv::countNonZero(img) / (double)img.total());
}

bool materialize(Input& in, int side, const Options& opt)
{
    if (in.name == "random" || in.name == "full")
    {
        in.img = makeRandomImage(side, in.g, in.density);
        return true;
    }
    in.img = in.name == "cells" ? makeCells(side, opt) : makeText(side);
    if (in.img.empty())
    {
        std::printf("  %s: skipped (samples/data/cells.png not found; run from the repository root or pass --data)\n",
                    in.name.c_str());
        return false;
    }
    in.g = 0;
    in.density = densityPercent(in.img);
    return true;
}

} // namespace bench
