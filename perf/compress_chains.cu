// compress_chains: the first compression of FLSL's run forest (flsl_labeling.cu, compressRunsKernel after the up
// links) timed against candidate replacements, on the forest of a random image (issue 12: at 8192^2, g = 1,
// d = 95 %, that compression took 112 us for 3.2 M runs while moving 1.6 MB, the full image's 5.4 us:
// doc/benchmarks.md, "The run pipeline per density at 8192², g = 1"). Standalone (no OpenCV, no module build):
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -o compress_chains perf/compress_chains.cu
//   ./compress_chains [side 8192] [density 0.95] [connectivity 8] [calls 20] [granularity 1]
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

/** bandRowsKernel without the row table: a parent below the band's top row is a slot from the top row's
end on (the module's kernels have rowSlots, not a row per slot). */
__global__ void bandRowsBySlotKernel(int* parent, const int* rowSlots, int rows, int band)
{
    const int top = blockIdx.x * band;
    const int last = min(rows, top + band) - 1;
    const int topEnd = rowSlots[top + 1];
    for (int y = top + 1; y <= last; ++y)
    {
        for (int k = rowSlots[y] + threadIdx.x; k < rowSlots[y + 1]; k += blockDim.x)
        {
            const int p = parent[k] - 1;
            if (p != k && p >= topEnd)
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

/** FLSL's unions: each run with its down link (flsl_labeling.cu, linkRunsKernel<.., true>). */
__global__ void unionsKernel(int* parent, const int* down, int runs)
{
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += gridDim.x * blockDim.x)
        if (down[k] >= 0)
            cv::cuda::cudacca::device::unite(parent, k, down[k], OwnSlot());
}

} // namespace

int main(int argc, char** argv)
{
    const int side = argc > 1 ? std::atoi(argv[1]) : 8192;
    const double density = argc > 2 ? std::atof(argv[2]) : 0.95;
    const int connectivity = argc > 3 ? std::atoi(argv[3]) : 8;
    const int calls = argc > 4 ? std::max(1, std::atoi(argv[4])) : 20;
    const int granularity = argc > 5 ? std::max(1, std::atoi(argv[5])) : 1;

    // The image, its runs and their up links (FLSL's rule), on the host.
    std::mt19937 rng(12345);
    std::vector<unsigned char> img(static_cast<size_t>(side) * side);
    const unsigned threshold = static_cast<unsigned>(density * 4294967295.0);
    // Granularity g (the benchmark's inputs): cells of g x g pixels, each foreground with probability density.
    const int cellsPerRow = (side + granularity - 1) / granularity;
    std::vector<unsigned char> cell(static_cast<size_t>(cellsPerRow) * cellsPerRow);
    for (auto& c : cell)
        c = rng() <= threshold && density > 0 ? 1 : 0;
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x)
            img[static_cast<size_t>(y) * side + x] =
                cell[static_cast<size_t>(y / granularity) * cellsPerRow + x / granularity];
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
    // FLSL's down links (the run of row y+1 that starts strictly before s and touches the run: it holds s-1,
    // 8-connectivity; s and s-1, 4-connectivity), the unions that follow the first compression in the module.
    std::vector<int> down(runs, -1);
    for (int k = 0; k < runs; ++k)
    {
        const int y = rowOf[k], s = start[k];
        if (y + 1 < side && s > 0)
        {
            const size_t below = static_cast<size_t>(y + 1) * side;
            if (img[below + s - 1] && (connectivity == 8 || img[below + s]))
                down[k] = runAt[below + s - 1];
        }
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
    std::printf("%dx%d, g = %d, density %.2f, %d-connectivity: %d runs, up-link trees: mean depth %.1f, max %d\n", side, side,
                granularity, density, connectivity, runs, runs ? static_cast<double>(depthSum) / runs : 0.0, maxDepth);
    // The components' roots (their smallest slots): union-find over up and down links on the host.
    std::vector<int> comp(runs);
    for (int k = 0; k < runs; ++k)
        comp[k] = parent[k] - 1;
    auto findHost = [&](int a) {
        while (comp[a] != a)
            a = comp[a] = comp[comp[a]];
        return a;
    };
    for (int k = 0; k < runs; ++k)
        if (down[k] >= 0)
        {
            const int a = findHost(k), b = findHost(down[k]);
            if (a != b)
                comp[std::max(a, b)] = std::min(a, b);
        }
    for (int k = 0; k < runs; ++k)
        comp[k] = findHost(k);

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
    // bandsU/B: bandRowsBySlotKernel and the top rows only, the last step left to the unions that follow in the
    // module (untimed here, before the check).
    const Variant variants[] = { { "chains", 0 },    { "rows/8", 8 },     { "bands/16", 16 },
                                 { "bandsU/4", 4 }, { "bandsU/8", 8 }, { "bandsU/16", 16 }, { "bandsU/32", 32 } };
    // Per call: the variant (the first compression), FLSL's down-link unions, the second compression (chains);
    // each timed with events. After the calls: the last call's forest against the components' roots, then one
    // more untimed first compression (bandsU/B with its last step) against the up-link trees' roots.
    int* d_down = nullptr;
    check(cudaMalloc(&d_down, sizeof(int) * std::max(runs, 1)), "cudaMalloc");
    check(cudaMemcpy(d_down, down.data(), sizeof(int) * runs, cudaMemcpyHostToDevice), "upload");
    cudaEvent_t ev[4];
    for (auto& e : ev)
        check(cudaEventCreate(&e), "event");
    auto firstCompression = [&](const Variant& v) {
        if (v.name[0] == 'c')
            chainsKernel<<<blocks, threads>>>(d_parent, runs);
        else if (v.name[0] == 'r')
        {
            sampledRowsKernel<<<blocks, threads>>>(d_parent, d_rowOf, runs, v.n);
            chainsKernel<<<blocks, threads>>>(d_parent, runs);
        }
        else if (v.name[5] == 'U')
        {
            const int bands = (side + v.n - 1) / v.n;
            bandRowsBySlotKernel<<<bands, 512>>>(d_parent, d_rowSlots, side, v.n);
            bandTopsKernel<<<bands, 512>>>(d_parent, d_rowSlots, v.n);
        }
        else
        {
            const int bands = (side + v.n - 1) / v.n;
            bandRowsKernel<<<bands, 512>>>(d_parent, d_rowSlots, d_rowOf, side, v.n);
            bandTopsKernel<<<bands, 512>>>(d_parent, d_rowSlots, v.n);
            oneStepKernel<<<blocks, threads>>>(d_parent, runs);
        }
    };
    int status = 0;
    std::vector<int> out(runs);
    auto wrongAgainst = [&](const std::vector<int>& want) {
        check(cudaMemcpy(out.data(), d_parent, sizeof(int) * runs, cudaMemcpyDeviceToHost), "download");
        long long wrong = 0;
        for (int k = 0; k < runs; ++k)
            wrong += out[k] - 1 != want[k];
        return wrong;
    };
    std::printf("  %-9s %9s %9s %9s %9s   (median us over %d calls)\n", "variant", "compress", "unions", "compress",
                "sum", calls);
    for (const Variant& v : variants)
    {
        std::vector<float> t[3], sum;
        for (int c = 0; c < calls; ++c)
        {
            check(cudaMemcpy(d_parent, d_pristine, sizeof(int) * runs, cudaMemcpyDeviceToDevice), "reset");
            check(cudaEventRecord(ev[0]), "record");
            firstCompression(v);
            check(cudaEventRecord(ev[1]), "record");
            unionsKernel<<<blocks, threads>>>(d_parent, d_down, runs);
            check(cudaEventRecord(ev[2]), "record");
            chainsKernel<<<blocks, threads>>>(d_parent, runs);
            check(cudaEventRecord(ev[3]), "record");
            check(cudaEventSynchronize(ev[3]), v.name);
            for (int i = 0; i < 3; ++i)
            {
                float ms = 0;
                check(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), "elapsed");
                t[i].push_back(1000.0f * ms);
            }
            sum.push_back(t[0].back() + t[1].back() + t[2].back());
        }
        check(cudaGetLastError(), v.name);
        const long long wrongComponents = wrongAgainst(comp);
        check(cudaMemcpy(d_parent, d_pristine, sizeof(int) * runs, cudaMemcpyDeviceToDevice), "reset");
        firstCompression(v);
        if (v.name[0] == 'b' && v.name[5] == 'U')
            oneStepKernel<<<blocks, threads>>>(d_parent, runs);
        check(cudaGetLastError(), v.name);
        const long long wrongTrees = wrongAgainst(root);
        auto median = [](std::vector<float> x) {
            std::sort(x.begin(), x.end());
            return x[x.size() / 2];
        };
        std::printf("  %-9s %9.1f %9.1f %9.1f %9.1f   %s\n", v.name, median(t[0]), median(t[1]), median(t[2]),
                    median(sum), wrongComponents || wrongTrees ? "MISMATCH" : "EXACT");
        if (wrongComponents || wrongTrees)
        {
            std::printf("    %lld runs not at their component's root, %lld not at their up-link tree's root\n",
                        wrongComponents, wrongTrees);
            status = 1;
        }
    }
    cudaFree(d_down);
    cudaFree(d_parent);
    cudaFree(d_pristine);
    cudaFree(d_rowSlots);
    cudaFree(d_rowOf);
    return status;
}
