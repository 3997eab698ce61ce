// one_launch_phases: the time of each phase of CCA_DEFAULT's one-launch kernel (modules/cudacca/src/cuda/
// one_launch.cu), which ncu sees as one kernel. Block 0 reads the GPU's global timer at the start and after
// each phase's grid barrier (CUDACCA_ONE_LAUNCH_PHASE_END); the harness prints the median per phase over
// --calls calls on a benchmark-like random image (blocks of g x g pixels, foreground with probability d).
// Standalone (no OpenCV): the kernel's sources are compiled into this one translation unit.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o one_launch_phases perf/one_launch_phases.cu
//   ./one_launch_phases [side 512] [g 1] [d 0.5] [connectivity 8] [calls 200] [frames 1] [host 0] [stats 1]
// frames > 1: the batched kernel (oneLaunchFrames, applyBatch's) over that many copies of the image.
// host 1: stats and centroids to mapped pinned host memory, as for a caller's host Mat (single frame).
// stats 0: labels only (the kernel without statistics, as for stats and centroids noArray()).
// Besides the phases (block 0's view), "call" is the median time from before the launch to after it, as CUDA
// events see it (launch, every block's last write and exit included).
// After the timed calls, each frame's labels, and with stats its statistics and centroids, are checked against a CPU
// labeling: EXACT, or MISMATCH (exit 1).
//
// Phases: 1 init, 2 unite, 3 flatten + count, 4 rank, 5 labels + statistics, 6 finish (see one_launch.cu).

#include <cstdio>
#include <climits>
#include <cstdlib>
#include <algorithm>
#include <random>
#include <vector>

#include <cuda_runtime.h>

__device__ unsigned long long g_phaseNs[7];

#define CUDACCA_ONE_LAUNCH_PHASE_END(phase)                                             \
    if (blockIdx.x == 0 && threadIdx.x == 0)                                            \
    {                                                                                   \
        unsigned long long t;                                                           \
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));                           \
        g_phaseNs[phase] = t;                                                           \
    }

#include "standalone_cuda_check.hpp"

#include "cuda/analysis.cu"
#include "cuda/one_launch.cu"

using namespace cv::cuda::cudacca;

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 512;
    const int g = argc > 2 ? std::atoi(argv[2]) : 1;
    const double d = argc > 3 ? std::atof(argv[3]) : 0.5;
    const int connectivity = argc > 4 ? std::atoi(argv[4]) : 8;
    const int calls = argc > 5 ? std::atoi(argv[5]) : 200;
    const int frames = argc > 6 ? std::atoi(argv[6]) : 1;
    const bool toHost = argc > 7 && std::atoi(argv[7]) != 0 && frames == 1;
    const bool wantStats = argc <= 8 || std::atoi(argv[8]) != 0;

    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0, 1);
    const int blocks = (side + g - 1) / g;
    std::vector<unsigned char> cell(static_cast<size_t>(blocks) * blocks), img(static_cast<size_t>(side) * side);
    for (auto& c : cell)
        c = u(rng) < d;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            img[static_cast<size_t>(y) * side + x] = cell[static_cast<size_t>(y / g) * blocks + x / g];

    // (a batch: every frame's rows of staging and accumulators, and its background's)
    const int bound = frames * (oneLaunchLabelBound(side, side, connectivity) + 1);
    unsigned char* dImg;
    void *scratch, *labels;
    int *stats, *count;
    double* centroids;
    checkCuda(cudaMalloc(&dImg, img.size()), "cudaMalloc");
    checkCuda(cudaMemcpy(dImg, img.data(), img.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    checkCuda(cudaMalloc(&scratch, frames > 1 ? oneLaunchFramesScratchBytes(frames, side, side, bound, true)
                                              : oneLaunchScratchBytes(side, side, connectivity, true)), "cudaMalloc");
    checkCuda(cudaMalloc(&labels, sizeof(int) * img.size() * frames), "cudaMalloc");
    checkCuda(cudaMalloc(&stats, sizeof(int) * 5 * bound), "cudaMalloc");
    checkCuda(cudaMalloc(&centroids, sizeof(double) * 2 * bound), "cudaMalloc");
    checkCuda(cudaHostAlloc(&count, sizeof(int) * (frames + 1), cudaHostAllocMapped), "cudaHostAlloc");
    std::vector<OneLaunchFrame> table(frames);
    for (int f = 0; f < frames; ++f)
        table[f] = { dImg, static_cast<size_t>(side), static_cast<int*>(labels) + img.size() * f, sizeof(int) * side };
    OneLaunchFrame* dTable;
    checkCuda(cudaMalloc(&dTable, sizeof(OneLaunchFrame) * frames), "cudaMalloc");
    checkCuda(cudaMemcpy(dTable, table.data(), sizeof(OneLaunchFrame) * frames, cudaMemcpyHostToDevice), "cudaMemcpy");

    BinaryImage image{ dImg, static_cast<size_t>(side), side, side };
    OneLaunchOutputs o;
    o.labels = labels;
    o.labelsStep = sizeof(int) * side;
    o.maxLabel = 0x7fffffff;
    o.wantStats = wantStats;
    o.stats = wantStats ? stats : nullptr;
    o.centroids = wantStats ? centroids : nullptr;
    o.statsStep = sizeof(int) * 5;
    o.centroidsStep = sizeof(double) * 2;
    o.capacity = bound;
    o.batchRows = bound;
    o.count = count;
    int* hostStats = nullptr;
    double* hostCentroids = nullptr;
    if (toHost && wantStats)
    {
        checkCuda(cudaHostAlloc(&hostStats, sizeof(int) * 5 * bound, cudaHostAllocMapped), "cudaHostAlloc");
        checkCuda(cudaHostAlloc(&hostCentroids, sizeof(double) * 2 * bound, cudaHostAllocMapped), "cudaHostAlloc");
        o.statsHost = hostStats;
        o.centroidsHost = hostCentroids;
        o.hostRows = bound;
    }
    cudaEvent_t e0, e1;
    checkCuda(cudaEventCreate(&e0), "cudaEventCreate");
    checkCuda(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> callUs;
    std::vector<std::vector<double>> us(7);
    for (int i = 0; i < calls + 10; ++i)
    {
        checkCuda(cudaEventRecord(e0, 0), "cudaEventRecord");
        if (frames > 1)
            oneLaunchFrames(dTable, frames, side, side, connectivity, scratch, o, count, 0.0, 0);
        else
            oneLaunch(image, connectivity, scratch, o, 0.0, 0);
        checkCuda(cudaEventRecord(e1, 0), "cudaEventRecord");
        checkCuda(cudaDeviceSynchronize(), "the kernel");
        float ms = 0;
        checkCuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        if (i >= 10)
            callUs.push_back(ms * 1e3);
        unsigned long long t[7];
        checkCuda(cudaMemcpyFromSymbol(t, g_phaseNs, sizeof(t)), "cudaMemcpyFromSymbol");
        if (i >= 10)
            for (int k = 1; k < (wantStats ? 7 : 6); ++k) // labels only: the kernel returns after phase 5
                us[k].push_back((t[k] - t[k - 1]) / 1000.0);
    }
    // Exact check of every frame's labels against a CPU labeling (raster order of first pixels).
    bool exact = false;
    {
        std::vector<int> parent(img.size()), ref(img.size(), 0);
        auto find = [&](int a) { while (parent[a] != a) a = parent[a] = parent[parent[a]]; return a; };
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
            {
                const int i = y * side + x;
                parent[i] = i;
                if (!img[i])
                    continue;
                auto join = [&](int yy, int xx) {
                    if (yy < 0 || xx < 0 || xx >= side || !img[yy * side + xx]) return;
                    int a = find(i), b = find(yy * side + xx);
                    if (a != b) parent[std::max(a, b)] = std::min(a, b);
                };
                join(y, x - 1);
                join(y - 1, x);
                if (connectivity == 8) { join(y - 1, x - 1); join(y - 1, x + 1); }
            }
        int next = 0;
        std::vector<int> labelOf(img.size(), 0);
        for (size_t i = 0; i < img.size(); ++i)
            if (img[i])
            {
                const int r = find(static_cast<int>(i));
                if (r == static_cast<int>(i)) labelOf[i] = ++next;
                ref[i] = labelOf[r];
            }
        std::vector<int> got(img.size() * frames);
        checkCuda(cudaMemcpy(got.data(), labels, sizeof(int) * got.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
        long long bad = 0;
        for (int f = 0; f < frames; ++f)
            for (size_t i = 0; i < img.size(); ++i)
                bad += got[f * img.size() + i] != ref[i];
        const int n = frames > 1 ? count[frames] : *count;
        exact = bad == 0 && n == next * frames;
        // The statistics and centroids of every frame against the CPU's, as finalizeLabel writes them (an empty
        // label 0: -1, INT_MAX, 0, 0, 0 and the empty centroid, 0 here); a frame's rows start at its first rank - 1
        // plus its index in a batch (the slots of one-launch's staging), at 0 for one frame.
        if (exact && wantStats)
        {
            std::vector<long long> area(next + 1, 0), sx(next + 1, 0), sy(next + 1, 0);
            std::vector<int> x0(next + 1, INT_MAX), y0(next + 1, INT_MAX), x1(next + 1, INT_MIN), y1(next + 1, INT_MIN);
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x)
                {
                    const int l = ref[static_cast<size_t>(y) * side + x];
                    ++area[l]; sx[l] += x; sy[l] += y;
                    x0[l] = std::min(x0[l], x); x1[l] = std::max(x1[l], x);
                    y0[l] = std::min(y0[l], y); y1[l] = std::max(y1[l], y);
                }
            const int rowsOut = frames > 1 ? count[frames] + frames : n + 1;
            std::vector<int> gs(static_cast<size_t>(rowsOut) * 5);
            std::vector<double> gc(static_cast<size_t>(rowsOut) * 2);
            if (toHost)
            {
                std::copy(hostStats, hostStats + gs.size(), gs.begin());
                std::copy(hostCentroids, hostCentroids + gc.size(), gc.begin());
            }
            else
            {
                checkCuda(cudaMemcpy(gs.data(), stats, sizeof(int) * gs.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
                checkCuda(cudaMemcpy(gc.data(), centroids, sizeof(double) * gc.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
            }
            long long badRows = 0;
            for (int f = 0; f < frames; ++f)
                for (int l = 0; l <= next; ++l)
                {
                    const size_t row = static_cast<size_t>(frames > 1 ? count[f] + f + l : l);
                    const bool empty = area[l] == 0;
                    const int want[5] = { empty ? -1 : x0[l], empty ? INT_MAX : y0[l], empty ? 0 : x1[l] - x0[l] + 1,
                                          empty ? 0 : y1[l] - y0[l] + 1, static_cast<int>(area[l]) };
                    const double cx = empty ? 0.0 : static_cast<double>(sx[l]) / static_cast<double>(area[l]);
                    const double cy = empty ? 0.0 : static_cast<double>(sy[l]) / static_cast<double>(area[l]);
                    bool same = gc[row * 2] == cx && gc[row * 2 + 1] == cy;
                    for (int k = 0; k < 5; ++k)
                        same = same && gs[row * 5 + k] == want[k];
                    badRows += !same;
                }
            exact = badRows == 0;
            std::printf("[stats: %s, %d x %d rows] ", exact ? "EXACT" : "MISMATCH", next + 1, frames);
        }
        else if (!wantStats)
            std::printf("[labels: %s] ", exact ? "EXACT" : "MISMATCH");
    }
    std::printf("%d x %dx%d g=%d d=%.2f %d-conn, N = %d; median us per phase:", frames, side, side, g, d, connectivity,
                frames > 1 ? count[frames] : *count);
    double total = 0;
    const char* names[] = { "", "init", "unite", "flatten", "rank", wantStats ? "labels+stats" : "labels(block 0)", "finish" };
    for (int k = 1; k < (wantStats ? 7 : 6); ++k)
    {
        std::nth_element(us[k].begin(), us[k].begin() + us[k].size() / 2, us[k].end());
        const double m = us[k][us[k].size() / 2];
        total += m;
        std::printf(" %s %.1f", names[k], m);
    }
    std::nth_element(callUs.begin(), callUs.begin() + callUs.size() / 2, callUs.end());
    std::printf(" | sum %.1f | call %.1f%s\n", total, callUs[callUs.size() / 2],
                !wantStats ? " (labels only: phase 5 is block 0's, the others' may end later)" : toHost ? " (host stats)" : "");
    return exact ? 0 : 1;
}
