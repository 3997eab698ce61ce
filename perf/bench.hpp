// cudacca_bench: cudacca against its peers on identical inputs, in one process (see doc/benchmarks.md).
// Shared declarations: options, inputs, the per-image case, timing, result rows, checks, the runners.

#ifndef CUDACCA_BENCH_HPP
#define CUDACCA_BENCH_HPP

#include <opencv2/core.hpp>
#include <opencv2/core/cuda.hpp>
#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace bench {

// ------------------------------------------------------------------------------------------------------
// Options (main.cpp)

struct Options
{
    std::string outDir = "bench-results";
    bool quick = false;
    std::vector<int> sizes = { 512, 2048, 8192 };
    std::vector<std::string> algorithms;  //!< cudacca short names (FLSL_CD, ...); empty: all (RCU up to 4096^2)
    std::set<std::string> libraries = { "cudacca", "opencv_contrib_bke", "opencv_cpu", "npp" };
    std::vector<int> connectivities = { 8, 4 };
    bool fullConn4 = false;               //!< whole density sweep at 4-connectivity at every size
    bool latencyAllDensities = false;     //!< the latency variants at every density (else 50 % and the full image)
    std::string commit;
    std::string dataDir;                  //!< folder holding cells.png
    std::string inputsDir;                //!< where the real images are saved for peers.py (empty: DIR/inputs)
    double maxSeconds = 570;              //!< stop (exit 3) once the run has taken this long
    int gpuCalls = 0;                     //!< --gpu-calls: timed calls per GPU row (0: the side's default)
    std::vector<int> granularities;       //!< --granularities: random inputs of these g, 0 the full and real images (empty: all)
    std::vector<int> densities;           //!< --densities: random inputs of these densities (empty: all)
    bool interleave = false;              //!< --interleave: a case's cudacca GPU rows timed call by call in turn
    double busyGpuUs = 0;                 //!< --busy-gpu-us: the GPU kept busy before each event-timed call (setBusyGpu)
};

//! Repetitions for one image side (chosen in main.cpp from the side and --quick).
struct Reps
{
    int gpuWarmup;   //!< untimed calls before the timed ones (GPU)
    int gpu;         //!< timed calls per GPU row (median)
    int cpu;         //!< timed calls per CPU row (median); the CPU reference call is the warm-up
    int latency;     //!< calls per latency row (p50, p99)
};

// ------------------------------------------------------------------------------------------------------
// Inputs (inputs.cpp)

//! One benchmark image. Random: g in {1,4,16}, density in %; full image: g = 1, density = 100;
//! real image: g = 0, density = its foreground share in % (rounded), name says which.
struct Input
{
    std::string name;   //!< "random", "full", "cells", "text"
    int g = 0;
    int density = 0;
    cv::Mat img;        //!< CV_8UC1, 0 / 255
    bool latency = false;  //!< also measured in the latency variant
    bool conn4 = false;    //!< also measured at 4-connectivity when the 4-connectivity sweep is a subset
};

//! YACCLAB-style image: a ceil(H/g) x ceil(W/g) grid of blocks, each foreground with probability d % drawn
//! from std::mt19937 (fixed seed), each block blown up to g x g pixels. Identical to the module perf suite's.
cv::Mat makeRandomImage(int side, int g, int density);
//! The inputs of one image side, in order, images not drawn yet (materialize() draws one at a time).
std::vector<Input> listInputs(const Options& opt);
//! Draws / renders the side x side image of `in`. False: skipped (reason printed).
bool materialize(Input& in, int side, const Options& opt);

// ------------------------------------------------------------------------------------------------------
// Timing (timing.cpp)

struct Samples
{
    std::vector<double> us;   //!< one entry per timed call, microseconds
    double median() const;
    double percentile(double p) const;   //!< nearest rank
};

//! Times calls on a CUDA stream with events: start event, the call, end event, wait for the end event.
//! A call that synchronizes inside (cudacca, NPP, contrib BKE) is spanned whole, its host-side gaps included.
Samples timeGpu(cudaStream_t stream, int warmup, int n, const std::function<void()>& call);
//! timeGpu for several calls at once, interleaved: each call's warm-up, then n rounds of one timed call each in
//! turn, so that a slow stretch of the machine falls on every call alike. One Samples per call.
std::vector<Samples> timeGpuInterleaved(cudaStream_t stream, int warmup, int n,
                                        const std::vector<std::function<void()>>& calls);
//! --busy-gpu-us: before each event-timed call (timeGpu, timeGpuInterleaved), a kernel keeps the GPU busy for
//! `us` microseconds and the start event is queued after it, so that the host queues the call's work while the GPU
//! is still busy: the row then shows the call's GPU work without the gaps where the GPU waited for the host to
//! queue it (up to the call's own waits, which stay in). A diagnostic (doc/benchmarks.md, "Launch gaps"): rows get
//! the variant suffix `_busy` and do not belong in results.csv. 0 (the default): off.
void setBusyGpu(double us);
double busyGpu();
//! Keeps `stream`'s GPU busy for `us` microseconds (check.cu: one block spinning on the global timer).
void spinGpu(cudaStream_t stream, double us);
//! Wall clock (steady_clock) around each call; `call` must return only when its results are complete.
Samples timeWall(int warmup, int n, const std::function<void()>& call);
//! timeWall for several calls at once, interleaved as timeGpuInterleaved: each call's warm-up, then n rounds of one
//! timed call each in turn. One Samples per call.
std::vector<Samples> timeWallInterleaved(int warmup, int n, const std::vector<std::function<void()>>& calls);
double secondsSince(double t0);
double now();

// ------------------------------------------------------------------------------------------------------
// Results (results.cpp)

struct Row
{
    std::string library, algorithm, variant;
    int width = 0, height = 0, g = 0, density = 0, connectivity = 0;
    long long nLabels = 0;
    double medianUs = 0, p99Us = 0;
    int frames = 1;   //!< images per timed call (the batch variant); gpix_s counts them all
};

class Csv
{
public:
    bool open(const std::string& path, const std::string& gpu, const std::string& commit, const std::string& date);
    void write(const Row& r);
private:
    FILE* f_ = nullptr;
    std::string prefix_;
};

//! Where the runners report: rows, cudacca mismatches (the exit code), peers' disagreements, notes.
struct Report
{
    Csv csv;
    FILE* notes = nullptr;    //!< notes.txt: peers' behaviour (NPP statistics, disagreements, skipped rows)
    int mismatches = 0;       //!< cudacca results that are not the CPU's, or exceptions: a failed run
    int peerDisagreements = 0; //!< a peer's labels that are not the CPU's partition: reported, not a failure
    void row(const Row& r);
    void mismatch(const std::string& what);
    void peerDisagrees(const std::string& what);
    void note(const std::string& what);
};

// ------------------------------------------------------------------------------------------------------
// One image at one connectivity: the input, its CPU reference and GPU copies (main.cpp builds it).

struct Case
{
    const Input* input = nullptr;
    int connectivity = 8;
    Reps reps{};
    cv::Mat refLabels, refStats, refCentroids;   //!< cv::connectedComponentsWithStats(..., CCL_SAUF)
    int refN = 0;
    cv::cuda::GpuMat d_img;
    cv::cuda::GpuMat d_refLabels;                //!< uploaded on first use (ensureRefLabels)
    cudaStream_t stream = nullptr;
    bool interleave = false;                     //!< Options::interleave

    const cv::cuda::GpuMat& ensureRefLabels();
    Row baseRow(const char* library, const std::string& algorithm, const char* variant) const;
    std::string describe() const;                //!< "2048x2048 g4 d50 conn8"
};

// ------------------------------------------------------------------------------------------------------
// Checks (check.cu, check_host.cpp)

//! Number of differing elements of two CV_32SC1 GpuMats of the same size; *first = raster index of the first.
long long countDifferences(const cv::cuda::GpuMat& a, const cv::cuda::GpuMat& b, long long* first, cudaStream_t s);

struct PartitionCheck
{
    long long conflicts = 0;      //!< pixels breaking the one-to-one map between CPU and peer labels
    long long fgZero = 0;         //!< foreground pixels the peer labels 0 (background)
    long long bgNonZero = 0;      //!< background pixels with a label (when the peer must leave them 0)
    long long bgSharedWithFg = 0; //!< background pixels carrying a label also used on the foreground
    long long outOfRange = 0;     //!< labels >= (row pitch in labels) * height + 2
    long long bgLabels = 0;       //!< distinct labels on the background (peers that label it)
    bool ok() const { return conflicts == 0 && fgZero == 0 && bgNonZero == 0 && bgSharedWithFg == 0 && outOfRange == 0; }
    std::string describe() const;
};

//! Is `peer` (unsigned 32-bit labels, `peerStep` bytes per row) the same partition of the foreground as the
//! CPU reference? bgZero: background must be 0; else background may carry labels, none shared with the foreground.
PartitionCheck checkPartition(const cv::cuda::GpuMat& ref, int refN, const void* peer, size_t peerStep, bool bgZero,
                              cudaStream_t s);

//! Empty when a and b are bytewise identical; else what differs first (host Mats, any type).
std::string firstDifference(const cv::Mat& a, const cv::Mat& b, const char* what);

// ------------------------------------------------------------------------------------------------------
// Runners: each times its library on one case and writes rows (run_*.cpp)

void runOpenCvCpu(Case& c, Report& rep);
//! latency = false: the full, labels and stats variants; true: the latency variant.
void runCudacca(Case& c, Report& rep, const std::vector<int>& algorithmIds, bool latency);
void runContribBke(Case& c, Report& rep);
void runNpp(Case& c, Report& rep);
bool contribAvailable();   //!< false when the bench was built without the contrib source
std::string nppVersion();  //!< "13.0.x", or "not linked"

} // namespace bench

#endif
