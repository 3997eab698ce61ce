// cudacca_bench: command line, the run over image sides and inputs, per-section timing, exit code.
//   cudacca_bench [--out DIR] [--quick] [--sizes 512,2048,8192] [--algorithms FLSL_CD,BKE,...] [--latency-all-densities]
//                 [--libraries cudacca,opencv_contrib_bke,opencv_cpu,npp] [--connectivity 8,4] [--full-conn4]
//                 [--commit STR] [--data DIR] [--inputs-dir DIR] [--max-seconds S] [--gpu-calls N]
//                 [--granularities 1,4,16,0] [--densities 5,25,...] [--interleave] [--busy-gpu-us US]
// Exit code: 0 all checks passed, 1 a result differs from the CPU, 2 no CUDA device, 3 stopped at
// --max-seconds, 4 bad arguments or output folder.
// Protocol and outputs: doc/benchmarks.md.

#include "bench.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "algorithm_list.hpp"   // modules/cudacca/src: the one list of cudacca's algorithms

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>

namespace bench {
namespace {

const char* const kUsage =
    "usage: cudacca_bench [--out DIR] [--quick] [--sizes 512,2048,8192] [--algorithms FLSL_CD,BKE,...]\n"
    "                     [--libraries cudacca,opencv_contrib_bke,opencv_cpu,npp] [--connectivity 8,4]\n"
    "                     [--full-conn4] [--latency-all-densities] [--commit STR] [--data DIR] [--inputs-dir DIR]\n"
    "                     [--max-seconds S] [--gpu-calls N (>= 10; for slow algorithms)]\n"
    "                     [--granularities 1,4,16,0 (0: the full and real images)] [--densities 5,25,50,60,75,95]\n"
    "                     [--interleave (a case's cudacca rows timed call by call in turn)]\n"
    "                     [--busy-gpu-us US (diagnostic: the GPU kept busy before each event-timed call, rows\n"
    "                      marked _busy: the calls' GPU work without the launch gaps)]\n"
    "Times cudacca (every algorithm; full, labels, stats, latency) against OpenCV contrib's BKE, OpenCV's CPU\n"
    "and NPP on identical images, checks every result against the CPU, writes DIR/results.csv (default\n"
    "bench-results/), DIR/inputs.csv, DIR/notes.txt; the real images go to --inputs-dir (default DIR/inputs)\n"
    "for perf/peers.py. --commit defaults to $CUDACCA_BENCH_COMMIT. See doc/benchmarks.md.\n";

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> v;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty())
            v.push_back(item);
    return v;
}

bool parseInts(const std::string& s, std::vector<int>& out)
{
    out.clear();
    for (const std::string& item : splitList(s))
    {
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (*end || v <= 0 || v > 46340)
            return false;
        out.push_back((int)v);
    }
    return !out.empty();
}

//! Parses argv; returns false (message printed) on a bad argument.
bool parseOptions(int argc, char** argv, Options& o)
{
    if (const char* env = std::getenv("CUDACCA_BENCH_COMMIT"))
        o.commit = env;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--help" || a == "-h")
        {
            std::printf("%s", kUsage);
            std::exit(0);
        }
        else if (a == "--quick")
            o.quick = true;
        else if (a == "--full-conn4")
            o.fullConn4 = true;
        else if (a == "--latency-all-densities")
            o.latencyAllDensities = true;
        else if (a == "--interleave")
            o.interleave = true;
        else if (a == "--out" && hasValue)
            o.outDir = argv[++i];
        else if (a == "--commit" && hasValue)
            o.commit = argv[++i];
        else if (a == "--data" && hasValue)
            o.dataDir = argv[++i];
        else if (a == "--inputs-dir" && hasValue)
            o.inputsDir = argv[++i];
        else if (a == "--busy-gpu-us" && hasValue)
        {
            o.busyGpuUs = std::atof(argv[++i]);
            if (!(o.busyGpuUs > 0 && o.busyGpuUs <= 1e5))
                return std::fprintf(stderr, "bad --busy-gpu-us %s (0 < US <= 100000)\n", argv[i]), false;
        }
        else if (a == "--max-seconds" && hasValue)
            o.maxSeconds = std::atof(argv[++i]);
        else if (a == "--gpu-calls" && hasValue)
        {
            o.gpuCalls = std::atoi(argv[++i]);
            if (o.gpuCalls < 10)   // the protocol's median is over at least 10 calls (doc/benchmarks.md)
                return std::fprintf(stderr, "bad --gpu-calls %s (at least 10)\n", argv[i]), false;
        }
        else if (a == "--sizes" && hasValue)
        {
            if (!parseInts(argv[++i], o.sizes))
                return std::fprintf(stderr, "bad --sizes %s\n", argv[i]), false;
        }
        else if ((a == "--granularities" || a == "--densities") && hasValue)
        {
            std::vector<int>& v = a == "--granularities" ? o.granularities : o.densities;
            for (const std::string& item : splitList(argv[++i]))
            {
                char* end = nullptr;
                const long x = std::strtol(item.c_str(), &end, 10);
                if (*end || x < 0 || x > 100)
                    return std::fprintf(stderr, "bad %s %s\n", a.c_str(), argv[i]), false;
                v.push_back((int)x);
            }
            if (v.empty())
                return std::fprintf(stderr, "bad %s %s\n", a.c_str(), argv[i]), false;
        }
        else if (a == "--connectivity" && hasValue)
        {
            if (!parseInts(argv[++i], o.connectivities))
                return std::fprintf(stderr, "bad --connectivity %s\n", argv[i]), false;
            for (int c : o.connectivities)
                if (c != 4 && c != 8)
                    return std::fprintf(stderr, "bad --connectivity %d\n", c), false;
        }
        else if (a == "--algorithms" && hasValue)
            o.algorithms = splitList(argv[++i]);
        else if (a == "--libraries" && hasValue)
        {
            const std::vector<std::string> v = splitList(argv[++i]);
            o.libraries = std::set<std::string>(v.begin(), v.end());
            for (const std::string& l : o.libraries)
                if (l != "cudacca" && l != "opencv_contrib_bke" && l != "opencv_cpu" && l != "npp")
                    return std::fprintf(stderr, "unknown library %s (cupy: perf/peers.py)\n", l.c_str()), false;
        }
        else
            return std::fprintf(stderr, "unknown or incomplete argument %s\n%s", a.c_str(), kUsage), false;
    }
    o.commit.erase(o.commit.find_last_not_of(" \t\n") + 1);
    if (o.commit.empty())
        o.commit = "unknown";
    return true;
}

//! cudacca algorithm ids for one side: --algorithms, else CCA_DEFAULT and every row of the list (CCA_RCU only
//! up to 4096^2, the rows whose rounds grow with the longest path or its turns (`paths` long or turns) only up
//! to 2048^2).
std::vector<int> algorithmIds(const Options& o, int side, bool& ok)
{
    ok = true;
    std::vector<int> ids;
    const auto& defaultEntry = cv::cuda::cudacca::kDefaultEntry;
    if (o.algorithms.empty() ||
        std::find(o.algorithms.begin(), o.algorithms.end(), defaultEntry.shortName()) != o.algorithms.end())
        ids.push_back(defaultEntry.id);
    for (const auto& row : cv::cuda::cudacca::kAlgorithmRows)
    {
        const std::string name = row.shortName();
        const bool named = std::find(o.algorithms.begin(), o.algorithms.end(), name) != o.algorithms.end();
        const bool tooSlowByDefault = (row.id == cv::cuda::CCA_RCU && side > 4096) || ((row.longPathRounds || row.turnRounds) && side > 2048);
        if (o.algorithms.empty() ? !tooSlowByDefault : named)
            ids.push_back(row.id);
    }
    for (const std::string& n : o.algorithms)
    {
        bool known = n == defaultEntry.shortName();
        for (const auto& row : cv::cuda::cudacca::kAlgorithmRows)
            known = known || n == row.shortName();
        if (!known)
        {
            std::fprintf(stderr, "unknown cudacca algorithm %s (names without CCA_, e.g. FLSL_CD)\n", n.c_str());
            ok = false;
        }
    }
    return ids;
}

Reps repsFor(int side, bool quick)
{
    if (side <= 1024)
        return quick ? Reps{ 2, 20, 3, 500 } : Reps{ 2, 50, 9, 2000 };
    if (side <= 4096)
        return quick ? Reps{ 2, 10, 3, 100 } : Reps{ 2, 20, 5, 200 };
    return quick ? Reps{ 2, 10, 3, 20 } : Reps{ 2, 10, 3, 40 };
}

std::string todayUtc()
{
    const std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

//! Seconds spent per section (library) for one side, printed when the side is done.
struct SectionClock
{
    std::map<std::string, double> seconds;
    void add(const std::string& section, double t0) { seconds[section] += secondsSince(t0); }
    void print(int side, double total) const
    {
        std::printf("[ time ] %dx%d: %.1f s (", side, side, total);
        const char* sep = "";
        for (const auto& kv : seconds)
        {
            std::printf("%s%s %.1f s", sep, kv.first.c_str(), kv.second);
            sep = ", ";
        }
        std::printf(")\n");
        std::fflush(stdout);
    }
};

class Bench
{
public:
    Bench(const Options& o, cudaStream_t s) : opt_(o), stream_(s) {}

    bool open(const std::string& gpu);
    //! Runs every side; false when --max-seconds stopped it.
    bool run();
    int mismatches() const { return report_.mismatches; }
    int peerDisagreements() const { return report_.peerDisagreements; }

private:
    bool runSide(int side);
    void runCase(Case& c, const std::vector<int>& ids, SectionClock& clock);
    void section(Case& c, const char* library, SectionClock& clock, const std::function<void()>& run,
                 const char* clockName = nullptr);
    void recordInput(const Input& in, int side);
    bool overBudget() const { return secondsSince(start_) > opt_.maxSeconds; }
    bool wants(const char* library) const { return opt_.libraries.count(library) != 0; }
    std::string inputsDir() const { return opt_.inputsDir.empty() ? opt_.outDir + "/inputs" : opt_.inputsDir; }

    Options opt_;
    cudaStream_t stream_;
    Report report_;
    FILE* inputsCsv_ = nullptr;
    double start_ = now();
};

bool Bench::open(const std::string& gpu)
{
    std::error_code ec, ec2;
    std::filesystem::create_directories(opt_.outDir, ec);
    std::filesystem::create_directories(inputsDir(), ec2);
    if (ec || ec2 || !report_.csv.open(opt_.outDir + "/results.csv", gpu, opt_.commit, todayUtc()))
    {
        std::fprintf(stderr, "cannot write to %s\n", opt_.outDir.c_str());
        return false;
    }
    report_.notes = std::fopen((opt_.outDir + "/notes.txt").c_str(), "w");
    inputsCsv_ = std::fopen((opt_.outDir + "/inputs.csv").c_str(), "w");
    if (inputsCsv_)
        std::fprintf(inputsCsv_, "name,width,height,g,density,foreground_pixels,file\n");
    return true;
}

//! inputs.csv row; real images are also saved (perf/peers.py reads them back).
void Bench::recordInput(const Input& in, int side)
{
    std::string file;
    if (in.g == 0)
    {
        const std::string name = cv::format("%s_%d.png", in.name.c_str(), side);
        cv::imwrite(inputsDir() + "/" + name, in.img, { cv::IMWRITE_PNG_COMPRESSION, 1 });
        file = opt_.inputsDir.empty() ? "inputs/" + name
                                      : std::filesystem::absolute(opt_.inputsDir + "/" + name).string();
    }
    if (inputsCsv_)
    {
        std::fprintf(inputsCsv_, "%s,%d,%d,%d,%d,%d,%s\n", in.name.c_str(), in.img.cols, in.img.rows, in.g,
                     in.density, cv::countNonZero(in.img), file.c_str());
        std::fflush(inputsCsv_);
    }
}

bool Bench::run()
{
    for (int side : opt_.sizes)
        if (!runSide(side))
            return false;
    return true;
}

bool Bench::runSide(int side)
{
    const double t0 = now();
    bool ok = true;
    const std::vector<int> ids = algorithmIds(opt_, side, ok);
    if (opt_.algorithms.empty() && side > 4096 && wants("cudacca"))
        std::printf("(RCU left out at %dx%d: too slow there; name it in --algorithms to include it)\n", side, side);
    SectionClock clock;
    std::vector<Input> inputs = listInputs(opt_);
    std::vector<int> seenRealDensity;
    for (Input& in : inputs)
    {
        const double tIn = now();
        if (!materialize(in, side, opt_))
            continue;
        if (in.g == 0)   // real images: keep (g, density) unique per side
        {
            while (std::find(seenRealDensity.begin(), seenRealDensity.end(), in.density) != seenRealDensity.end())
                ++in.density;
            seenRealDensity.push_back(in.density);
        }
        recordInput(in, side);
        clock.add("inputs", tIn);
        for (int conn : opt_.connectivities)
        {
            if (conn == 4 && !(in.conn4 || opt_.fullConn4 || side <= 4096))
                continue;
            if (overBudget())
            {
                std::printf("[ stop ] --max-seconds %.0f reached: stopping (rows so far are in results.csv)\n",
                            opt_.maxSeconds);
                return false;
            }
            Case c;
            c.input = &in;
            c.connectivity = conn;
            c.reps = repsFor(side, opt_.quick);
            if (opt_.gpuCalls)
                c.reps.gpu = opt_.gpuCalls;
            c.stream = stream_;
            c.interleave = opt_.interleave;
            runCase(c, ids, clock);
        }
        in.img.release();
    }
    clock.print(side, secondsSince(t0));
    return true;
}

void Bench::runCase(Case& c, const std::vector<int>& ids, SectionClock& clock)
{
    std::printf("== %s\n", c.describe().c_str());
    const double t = now();
    c.refN = cv::connectedComponentsWithStats(c.input->img, c.refLabels, c.refStats, c.refCentroids, c.connectivity,
                                              CV_32S, cv::CCL_SAUF);
    c.d_img.upload(c.input->img);
    clock.add("reference", t);
    section(c, "opencv_cpu", clock, [&] { runOpenCvCpu(c, report_); });
    section(c, "cudacca", clock, [&] { runCudacca(c, report_, ids, false); });
    if (c.input->latency)
        section(c, "cudacca", clock, [&] { runCudacca(c, report_, ids, true); }, "cudacca latency");
    section(c, "opencv_contrib_bke", clock, [&] { runContribBke(c, report_); });
    section(c, "npp", clock, [&] { runNpp(c, report_); });
}

//! Runs one library on the case when selected; an exception counts as a mismatch and the run goes on.
void Bench::section(Case& c, const char* library, SectionClock& clock, const std::function<void()>& run,
                    const char* clockName)
{
    if (!wants(library))
        return;
    const double t = now();
    try
    {
        run();
    }
    catch (const std::exception& e)
    {
        report_.mismatch(cv::format("%s %s: exception: %s", library, c.describe().c_str(), e.what()));
    }
    clock.add(clockName ? clockName : library, t);
}

//! GPU name for the CSV, or empty (message printed) when there is no usable CUDA device.
std::string deviceName()
{
    const int n = cv::cuda::getCudaEnabledDeviceCount();
    int rtCount = 0;
    const cudaError_t e = cudaGetDeviceCount(&rtCount);
    if (n <= 0 || e != cudaSuccess || rtCount <= 0)
    {
        std::printf("no CUDA device (cv::cuda::getCudaEnabledDeviceCount() = %d, cudaGetDeviceCount: %s)\n", n,
                    e == cudaSuccess ? std::to_string(rtCount).c_str() : cudaGetErrorString(e));
        return std::string();
    }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    return p.name;
}

} // namespace
} // namespace bench

int main(int argc, char** argv)
{
    using namespace bench;
    Options opt;
    if (!parseOptions(argc, argv, opt))
        return 4;
    setBusyGpu(opt.busyGpuUs);
    bool ok = true;
    algorithmIds(opt, 0, ok);
    if (!ok)
        return 4;
    const std::string gpu = deviceName();
    if (gpu.empty())
        return 2;
    cudaStream_t stream = nullptr;
    if (cudaStreamCreate(&stream) != cudaSuccess)
    {
        std::printf("no CUDA device (cudaStreamCreate failed)\n");
        return 2;
    }
    std::printf("cudacca_bench: %s, commit %s, %s; CPU: %d threads (%d cores); contrib BKE %s; NPP %s; out %s\n",
                gpu.c_str(), opt.commit.c_str(), todayUtc().c_str(), cv::getNumThreads(),
                cv::getNumberOfCPUs(), contribAvailable() ? "built in" : "not built", nppVersion().c_str(),
                opt.outDir.c_str());
    Bench bench(opt, stream);
    if (!bench.open(gpu))
        return 4;
    const double t0 = now();
    const bool finished = bench.run();
    std::printf("[ time ] total %.1f s; %d cudacca mismatch(es) or error(s); %d peer result(s) not the CPU's "
                "partition (notes.txt)\n", secondsSince(t0), bench.mismatches(), bench.peerDisagreements());
    cudaStreamDestroy(stream);
    if (bench.mismatches())
        return 1;
    return finished ? 0 : 3;
}
