// branch_cost: what a choice between two kernels costs a chain of kernels, made on the host (both launched, the one
// not wanted returning at once: the guessed run table's way, doc/benchmarks.md, "The candidate measured broadly")
// or on the device by a CUDA graph's conditional node (IF with an else branch, CUDA 12.8+: a kernel sets the
// condition, the branch not taken launches nothing). A chain of 9 kernels of the pipeline's shape (BLOCKS blocks of
// 256 threads, each thread adding 1 to 4 words of a buffer, a few us each), timed with CUDA events:
//   stream            the 9 kernels on a stream
//   stream + choice   the same with a 10th kernel after the 5th, of the same grid, that reads a flag and returns
//   graph             the 9 kernels as a graph (stream capture), launched as one
//   graph + choice    the 6th kernel in an IF/else conditional node (one kernel a branch), its condition set by the
//                     5th (cudaGraphSetConditional)
// each with ordinary launches and with dependent ones (Programmatic Dependent Launch, the module's launchDependent).
// Median of 101 launches, us; a choice's cost is the difference to the chain without it. A diagnostic, not part of the benchmark protocol. Standalone:
//   nvcc -O3 -arch=sm_90 perf/branch_cost.cu -o branch_cost && ./branch_cost [STEP blocks, default 8192]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "standalone_cuda_check.hpp"

#define CHECK(x) cv::cuda::cudacca::checkCuda((x), #x)

__device__ __forceinline__ void addOne(unsigned* data, unsigned n)
{
    // the module's dependentKernelStart (launch.hpp): harmless in an ordinary launch
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
    const unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 < n)
    {
        uint4 v = *reinterpret_cast<uint4*>(data + i);
        v.x += 1; v.y += 1; v.z += 1; v.w += 1;
        *reinterpret_cast<uint4*>(data + i) = v;
    }
}

__global__ void work(unsigned* data, unsigned n) { addOne(data, n); }

__global__ void workIf(unsigned* data, unsigned n, const unsigned* flag, unsigned want)
{
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
    if (*flag != want) // the same for every thread: the grid returns
        return;
    addOne(data, n);
}

__global__ void workAndDecide(unsigned* data, unsigned n, unsigned* flag, cudaGraphConditionalHandle handle, bool setHandle)
{
    addOne(data, n);
    if (blockIdx.x == 0 && threadIdx.x == 0)
    {
        *flag = 1u;
        if (setHandle)
            cudaGraphSetConditional(handle, 1u);
    }
}

//! A launch on `s`, dependent (Programmatic Dependent Launch, as the module's launchDependent) when `pdl`.
template <typename... Params, typename... Args>
static void launch(bool pdl, cudaStream_t s, dim3 grid, void (*kernel)(Params...), Args... args)
{
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(256);
    config.stream = s;
    config.attrs = &attribute;
    config.numAttrs = pdl ? 1 : 0;
    CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static float timeIt(cudaStream_t s, const std::function<void()>& launch)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> us;
    for (int k = 0; k < 111; ++k)
    {
        CHECK(cudaEventRecord(a, s));
        launch();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (k >= 10)
            us.push_back(1000.f * ms);
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return median(us);
}

int main(int argc, char** argv)
{
    const unsigned blocks = argc > 1 ? static_cast<unsigned>(std::atol(argv[1])) : 8192u;
    const unsigned n = blocks * 256u * 4u;
    unsigned *data = nullptr, *flag = nullptr;
    CHECK(cudaMalloc(&data, sizeof(unsigned) * n));
    CHECK(cudaMalloc(&flag, sizeof(unsigned)));
    CHECK(cudaMemset(data, 0, sizeof(unsigned) * n));
    CHECK(cudaMemset(flag, 0, sizeof(unsigned)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const dim3 grid(blocks), block(256);
    cudaGraphConditionalHandle none{};

    // Kernels 0-8; kernel 4 decides (flag = 1); kernel 5 is the chosen branch; with `choice`, the branch not taken
    // (wanting flag 0) is launched too and returns at once.
    const unsigned* cflag = flag;
    auto chain = [&](bool choice, bool pdl) {
        for (int k = 0; k < 9; ++k)
        {
            if (k == 4)
                launch(pdl, s, grid, workAndDecide, data, n, flag, none, false);
            else if (k == 5 && choice)
            {
                launch(pdl, s, grid, workIf, data, n, cflag, 1u);
                launch(pdl, s, grid, workIf, data, n, cflag, 0u);
            }
            else
                launch(pdl, s, grid, work, data, n);
        }
    };
    float tStream[2], tChoice[2];
    for (int pdl = 0; pdl < 2; ++pdl)
    {
        tStream[pdl] = timeIt(s, [&] { chain(false, pdl); });
        tChoice[pdl] = timeIt(s, [&] { chain(true, pdl); });
    }

    // The same chain as a graph, and with an IF/else node after kernel 4.
    auto capture = [&](bool withIf, bool pdl) {
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle handle{};
        if (withIf)
            CHECK(cudaGraphConditionalHandleCreate(&handle, g, 0u, cudaGraphCondAssignDefault));
        CHECK(cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
        for (int k = 0; k < 5; ++k)
        {
            if (k == 4)
                launch(pdl, s, grid, workAndDecide, data, n, flag, handle, withIf);
            else
                launch(pdl, s, grid, work, data, n);
        }
        if (withIf)
        {
            cudaStreamCaptureStatus status;
            const cudaGraphNode_t* deps = nullptr;
            size_t count = 0;
            CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &count));
            cudaGraphNodeParams p = {};
            p.type = cudaGraphNodeTypeConditional;
            p.conditional.handle = handle;
            p.conditional.type = cudaGraphCondTypeIf;
            p.conditional.size = 2;
            cudaGraphNode_t node;
            CHECK(cudaGraphAddNode(&node, g, deps, nullptr, count, &p));
            for (int branch = 0; branch < 2; ++branch)
            {
                cudaGraph_t body = p.conditional.phGraph_out[branch];
                cudaKernelNodeParams kp = {};
                void* args[] = { &data, const_cast<unsigned*>(&n) };
                kp.func = reinterpret_cast<void*>(work);
                kp.gridDim = grid;
                kp.blockDim = block;
                kp.kernelParams = args;
                cudaGraphNode_t k;
                CHECK(cudaGraphAddKernelNode(&k, body, nullptr, 0, &kp));
            }
            CHECK(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
        }
        for (int k = withIf ? 6 : 5; k < 9; ++k)
            launch(pdl, s, grid, work, data, n);
        cudaGraph_t captured;
        CHECK(cudaStreamEndCapture(s, &captured));
        cudaGraphExec_t exec;
        CHECK(cudaGraphInstantiate(&exec, captured, 0));
        return exec;
    };
    std::printf("%u blocks of 256 threads a kernel, 9 kernels, median of 101 launches, us\n", blocks);
    for (int pdl = 0; pdl < 2; ++pdl)
    {
        cudaGraphExec_t plain = capture(false, pdl), withIf = capture(true, pdl);
        const float tGraph = timeIt(s, [&] { CHECK(cudaGraphLaunch(plain, s)); });
        const float tGraphIf = timeIt(s, [&] { CHECK(cudaGraphLaunch(withIf, s)); });
        std::printf("%s: stream %.1f, + choice (both launched) %.1f (+%.1f); graph %.1f, + choice (IF/else node) %.1f (+%.1f)\n",
                    pdl ? "dependent launches" : "ordinary launches", tStream[pdl], tChoice[pdl], tChoice[pdl] - tStream[pdl],
                    tGraph, tGraphIf, tGraphIf - tGraph);
        CHECK(cudaGraphExecDestroy(plain));
        CHECK(cudaGraphExecDestroy(withIf));
    }
    CHECK(cudaFree(data));
    CHECK(cudaFree(flag));
    return 0;
}
