// compress_chains: the first compression of FLSL's run forest (flsl_labeling.cu, compressRunsKernel after the up
// links) timed against candidate replacements, on the forest of a random image (issue 12: at 8192^2, g = 1,
// d = 95 %, that compression took 112 us for 3.2 M runs while moving 1.6 MB, the full image's 5.4 us:
// doc/benchmarks.md, "The run pipeline per density at 8192², g = 1"). Standalone (no OpenCV, no module build):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o compress_chains perf/compress_chains.cu
//   ./compress_chains [side 8192] [density 0.95] [connectivity 8] [calls 20]
//
// The host draws random pixels (std::mt19937, seed 12345, foreground with probability density), cuts every row
// into runs (slots in raster order of their starts, as FLSL's run table) and gives each run FLSL's up link: the run
// above the pixel before its start (8-connectivity), else above its start, else itself (a root). parent[k] = that
// slot + 1, as on the device. Each variant starts from that forest and must leave every run pointing at its root,
// checked against the host's roots (EXACT, or MISMATCH and exit 1). Variants (median us of `calls` calls, CUDA
// events around the variant's kernels):
//   chains   the module's pass: a thread per run walks to the root, moving its own parent up (compressSlot)
//   rows/R   first the runs of every R-th row (R = 8, 32), then every run: the others meet a compressed row
//            within R rows
//   bands/B  a block per band of B rows (B = 16, 64) points each run at its band's top row (or a root inside the
//            band) row after row, in the order of the rows; then the top rows' runs walk to their roots; then
//            every run takes one step
// The rows of a slot come from a table made on the host (the module's kernels would take them from the run
// table's row slots); so the variants' times are the passes' cost, not yet a drop-in kernel's.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/union_find.cuh"

namespace {

using cv::cuda::cudacca::device::OwnSlot;
using cv::cuda::cudacca::device::compressSlot;

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

__global__ void chainsKernel(int* parent, int runs)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += gridDim.x * blockDim.x)
        compressSlot(parent, k, parent[k] - 1, OwnSlot());
}

/** The runs of the rows y with y % every == every - 1 only. */
__global__ void sampledRowsKernel(int* parent, const int* rowOf, int runs, int every)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += gridDim.x * blockDim.x)
        if (rowOf[k] % every == every - 1)
            compressSlot(parent, k, parent[k] - 1, OwnSlot());
}

/** Block b: rows b * band + 1 .. of its band, in order; a run whose parent lies below the band's top row takes
its parent's parent, which the previous row's turn has already set (to a run of the top row or a root inside the
band). The block's global writes are visible to its threads after __syncthreads. */
__global__ void bandRowsKernel(int* parent, const int* rowSlots, const int* rowOf, int rows, int band)
{
    const int top = blockIdx.x * band;
    const int last = min(rows, top + band) - 1;
    for (int y = top + 1; y <= last; ++y)
    {
        for (int k = rowSlots[y] + threadIdx.x; k < rowSlots[y + 1]; k += blockDim.x)
        {
            const int p = parent[k] - 1;
            if (p != k && rowOf[p] != top)
                parent[k] = parent[p];
        }
        __syncthreads();
    }
}

/** The runs of every band's top row walk to their roots. */
__global__ void bandTopsKernel(int* parent, const int* rowSlots, int band)
{
    const int y = blockIdx.x * band;
    for (int k = rowSlots[y] + threadIdx.x; k < rowSlots[y + 1]; k += blockDim.x)
        compressSlot(parent, k, parent[k] - 1, OwnSlot());
}

/** One step: a run's parent (a top-row run that now points at its root, or a root) gives the root. */
__global__ void oneStepKernel(int* parent, int runs)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += gridDim.x * blockDim.x)
    {
        const int p = parent[k] - 1;
        if (p != k)
            parent[k] = parent[p];
    }
}

} // namespace

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 8192;
    const double density = argc > 2 ? std::atof(argv[2]) : 0.95;
    const int connectivity = argc > 3 ? std::atoi(argv[3]) : 8;
    const int calls = argc > 4 ? std::max(1, std::atoi(argv[4])) : 20;

    // The image, its runs and their up links (FLSL's rule), on the host.
    std::mt19937 rng(12345);
    std::vector<unsigned char> img(static_cast<size_t>(side) * side);
    const unsigned threshold = static_cast<unsigned>(density * 4294967295.0);
    for (auto& p : img)
        p = rng() <= threshold && density > 0 ? 1 : 0;
    std::vector<int> rowSlots(side + 1, 0), start, rowOf, parent;
    std::vector<int> runAt(static_cast<size_t>(side) * side, -1); // the slot of the run holding each pixel
    for (int y = 0; y < side; ++y)
    {
        rowSlots[y] = static_cast<int>(start.size());
        const unsigned char* row = &img[static_cast<size_t>(y) * side];
        for (int x = 0; x < side; ++x)
        {
            if (!row[x])
                continue;
            if (x == 0 || !row[x - 1])
            {
                start.push_back(x);
                rowOf.push_back(y);
            }
            runAt[static_cast<size_t>(y) * side + x] = static_cast<int>(start.size()) - 1;
        }
    }
    rowSlots[side] = static_cast<int>(start.size());
    const int runs = rowSlots[side];
    parent.resize(runs);
    for (int k = 0; k < runs; ++k)
    {
        const int y = rowOf[k], s = start[k];
        int up = -1;
        if (y > 0)
        {
            const size_t above = static_cast<size_t>(y - 1) * side;
            if (connectivity == 8 && s > 0 && img[above + s - 1])
                up = runAt[above + s - 1];
            else if (img[above + s])
                up = runAt[above + s];
        }
        parent[k] = (up >= 0 ? up : k) + 1;
    }
    // The roots (a parent precedes its child: one pass in slot order), and the trees' depths.
    std::vector<int> root(runs), depth(runs);
    long long depthSum = 0;
    int maxDepth = 0;
    for (int k = 0; k < runs; ++k)
    {
        const int p = parent[k] - 1;
        root[k] = p == k ? k : root[p];
        depth[k] = p == k ? 0 : depth[p] + 1;
        depthSum += depth[k];
        maxDepth = std::max(maxDepth, depth[k]);
    }
    std::printf("%dx%d, density %.2f, %d-connectivity: %d runs, up-link trees: mean depth %.1f, max %d\n", side, side,
                density, connectivity, runs, runs ? static_cast<double>(depthSum) / runs : 0.0, maxDepth);

    int *d_parent = nullptr, *d_pristine = nullptr, *d_rowSlots = nullptr, *d_rowOf = nullptr;
    check(cudaMalloc(&d_parent, sizeof(int) * std::max(runs, 1)), "cudaMalloc");
    check(cudaMalloc(&d_pristine, sizeof(int) * std::max(runs, 1)), "cudaMalloc");
    check(cudaMalloc(&d_rowSlots, sizeof(int) * (side + 1)), "cudaMalloc");
    check(cudaMalloc(&d_rowOf, sizeof(int) * std::max(runs, 1)), "cudaMalloc");
    check(cudaMemcpy(d_pristine, parent.data(), sizeof(int) * runs, cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(d_rowSlots, rowSlots.data(), sizeof(int) * (side + 1), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(d_rowOf, rowOf.data(), sizeof(int) * runs, cudaMemcpyHostToDevice), "upload");
    const int threads = 256;
    const int blocks = std::max(1, (runs + threads - 1) / threads);

    struct Variant
    {
        const char* name;
        int n;
    };
    const Variant variants[] = { { "chains", 0 }, { "rows/8", 8 }, { "rows/32", 32 }, { "bands/16", 16 }, { "bands/64", 64 } };
    cudaEvent_t e0, e1;
    check(cudaEventCreate(&e0), "event");
    check(cudaEventCreate(&e1), "event");
    int status = 0;
    std::vector<int> out(runs);
    for (const Variant& v : variants)
    {
        std::vector<float> ms;
        for (int c = 0; c < calls; ++c)
        {
            check(cudaMemcpy(d_parent, d_pristine, sizeof(int) * runs, cudaMemcpyDeviceToDevice), "reset");
            check(cudaEventRecord(e0), "record");
            if (v.name[0] == 'c')
                chainsKernel<<<blocks, threads>>>(d_parent, runs);
            else if (v.name[0] == 'r')
            {
                sampledRowsKernel<<<blocks, threads>>>(d_parent, d_rowOf, runs, v.n);
                chainsKernel<<<blocks, threads>>>(d_parent, runs);
            }
            else
            {
                const int bands = (side + v.n - 1) / v.n;
                bandRowsKernel<<<bands, 512>>>(d_parent, d_rowSlots, d_rowOf, side, v.n);
                bandTopsKernel<<<bands, 512>>>(d_parent, d_rowSlots, v.n);
                oneStepKernel<<<blocks, threads>>>(d_parent, runs);
            }
            check(cudaEventRecord(e1), "record");
            check(cudaEventSynchronize(e1), v.name);
            float t = 0;
            check(cudaEventElapsedTime(&t, e0, e1), "elapsed");
            ms.push_back(t);
        }
        check(cudaGetLastError(), v.name);
        check(cudaMemcpy(out.data(), d_parent, sizeof(int) * runs, cudaMemcpyDeviceToHost), "download");
        long long wrong = 0;
        for (int k = 0; k < runs; ++k)
            wrong += out[k] - 1 != root[k];
        std::sort(ms.begin(), ms.end());
        std::printf("  %-9s median %8.1f us  min %8.1f us  %s\n", v.name, 1000.0 * ms[ms.size() / 2], 1000.0 * ms[0],
                    wrong ? "MISMATCH" : "EXACT");
        if (wrong)
        {
            std::printf("    %lld runs not at their root\n", wrong);
            status = 1;
        }
    }
    cudaFree(d_parent);
    cudaFree(d_pristine);
    cudaFree(d_rowSlots);
    cudaFree(d_rowOf);
    return status;
}
