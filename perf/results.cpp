// cudacca_bench: results.csv rows, notes, mismatch bookkeeping, the Case helpers and the host-side comparison.

#include "bench.hpp"

#include <cstring>
#include <iomanip>
#include <sstream>

namespace bench {

static std::string csvField(std::string s)
{
    for (char& ch : s)
        if (ch == ',' || ch == '\n' || ch == '"')
            ch = ' ';
    return s;
}

bool Csv::open(const std::string& path, const std::string& gpu, const std::string& commit, const std::string& date)
{
    f_ = std::fopen(path.c_str(), "w");
    if (!f_)
        return false;
    std::fprintf(f_, "gpu,commit,date,library,algorithm,variant,width,height,g,density,connectivity,"
                     "n_labels,median_us,p99_us,gpix_s\n");
    std::fflush(f_);
    prefix_ = csvField(gpu) + "," + csvField(commit) + "," + csvField(date);
    return true;
}

void Csv::write(const Row& r)
{
    if (!f_)
        return;
    const double gpix = r.medianUs > 0 ? (double)r.width * r.height * r.frames / r.medianUs * 1e-3 : 0;
    std::fprintf(f_, "%s,%s,%s,%s,%d,%d,%d,%d,%d,%lld,%.3f,%.3f,%.4f\n", prefix_.c_str(), r.library.c_str(),
                 r.algorithm.c_str(), r.variant.c_str(), r.width, r.height, r.g, r.density, r.connectivity,
                 r.nLabels, r.medianUs, r.p99Us, gpix);
    std::fflush(f_);   // a run cut short keeps every row written so far
}

void Report::row(const Row& row)
{
    Row r = row;
    if (busyGpu() > 0) // a diagnostic run (--busy-gpu-us): its rows are marked, never read as the protocol's
        r.variant += "_busy";
    csv.write(r);
    const double gpix = r.medianUs > 0 ? (double)r.width * r.height * r.frames / r.medianUs * 1e-3 : 0;
    std::printf("  %-18s %-9s %-7s N=%-9lld median %10.1f us  p99 %10.1f us  %8.2f Gpix/s\n", r.library.c_str(),
                r.algorithm.c_str(), r.variant.c_str(), r.nLabels, r.medianUs, r.p99Us, gpix);
    std::fflush(stdout);
}

void Report::mismatch(const std::string& what)
{
    ++mismatches;
    std::printf("  MISMATCH %s\n", what.c_str());
    std::fflush(stdout);
    note("MISMATCH " + what);
}

void Report::peerDisagrees(const std::string& what)
{
    ++peerDisagreements;
    std::printf("  PEER DIFFERS %s\n", what.c_str());
    std::fflush(stdout);
    note("PEER DIFFERS " + what);
}

void Report::note(const std::string& what)
{
    if (notes)
    {
        std::fprintf(notes, "%s\n", what.c_str());
        std::fflush(notes);
    }
}

const cv::cuda::GpuMat& Case::ensureRefLabels()
{
    if (d_refLabels.empty())
        d_refLabels.upload(refLabels);   // synchronous
    return d_refLabels;
}

Row Case::baseRow(const char* library, const std::string& algorithm, const char* variant) const
{
    Row r;
    r.library = library;
    r.algorithm = algorithm;
    r.variant = variant;
    r.width = input->img.cols;
    r.height = input->img.rows;
    r.g = input->g;
    r.density = input->density;
    r.connectivity = connectivity;
    return r;
}

std::string Case::describe() const
{
    std::ostringstream s;
    s << input->img.cols << "x" << input->img.rows << " ";
    if (input->name == "random")
        s << "g" << input->g << " d" << input->density;
    else
        s << input->name << " (g" << input->g << " d" << input->density << ")";
    s << " conn" << connectivity;
    return s.str();
}

std::string PartitionCheck::describe() const
{
    std::ostringstream s;
    s << "conflicts " << conflicts << ", foreground labelled 0: " << fgZero << ", background labelled: " << bgNonZero
      << ", background sharing a foreground label: " << bgSharedWithFg << ", out of range: " << outOfRange;
    return s.str();
}

std::string firstDifference(const cv::Mat& a, const cv::Mat& b, const char* what)
{
    if (a.size() != b.size() || a.type() != b.type())
        return cv::format("%s: %dx%d type %d, CPU %dx%d type %d", what, a.cols, a.rows, a.type(), b.cols, b.rows,
                          b.type());
    const size_t es = a.elemSize();
    for (int y = 0; y < a.rows; ++y)
    {
        const uchar* pa = a.ptr<uchar>(y);
        const uchar* pb = b.ptr<uchar>(y);
        if (std::memcmp(pa, pb, es * a.cols) == 0)
            continue;
        for (int x = 0; x < a.cols; ++x)
            if (std::memcmp(pa + x * es, pb + x * es, es) != 0)
            {
                std::ostringstream s;
                s << what << ": first difference at (row " << y << ", col " << x << "): got ";
                if (a.depth() == CV_64F)
                    s << std::setprecision(17) << a.at<double>(y, x) << ", CPU " << b.at<double>(y, x);
                else if (a.depth() == CV_32S)
                    s << a.at<int>(y, x) << ", CPU " << b.at<int>(y, x);
                else
                    s << "(type " << a.type() << ")";
                return s.str();
            }
    }
    return std::string();
}

} // namespace bench
