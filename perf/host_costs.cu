// host_costs: what the host pays per CUDA operation a cudacca call queues, and what a chain of small kernels
// costs queued one by one against one CUDA graph (doc/benchmarks.md, "Host costs"). A diagnostic for choosing
// how to cut a small call's fixed cost, not part of the benchmark protocol. Standalone:
//   nvcc -O2 -std=c++17 -arch=sm_90 perf/host_costs.cu -o host_costs && ./host_costs   (./host_costs wake: the last part only;
//   ./host_costs copies: only the host <-> device copies of label-image sizes, pageable against pinned staging)
// Prints one line per measurement: name, median us over the repetitions (host clock).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

namespace {

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

double nowUs()
{
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/** Median over `reps` of f()'s host time divided by `per` (operations per f). */
double median(int reps, int per, const std::function<void()>& f)
{
    std::vector<double> t;
    for (int r = 0; r < reps; ++r)
    {
        const double t0 = nowUs();
        f();
        t.push_back((nowUs() - t0) / per);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

__global__ void emptyKernel() {}

/** About as much work as one of a 2048^2 call's small kernels: a pass over `n` ints. */
__global__ void passKernel(int* data, int n, int pdl)
{
#if __CUDA_ARCH__ >= 900
    if (pdl)
    {
        cudaTriggerProgrammaticLaunchCompletion();
        cudaGridDependencySynchronize();
    }
#endif
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] = data[i] * 3 + 1;
}

__global__ void spinKernel(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles)
    {
    }
}

/** `passes` passes over `n` ints with a grid barrier after each but the last (a cooperative launch). */
__global__ void barrierPassesKernel(int* data, int n, int passes)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int p = 0; p < passes; ++p)
    {
        if (p > 0)
            grid.sync();
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            data[i] = data[i] * 3 + 1;
    }
}

/** barrierPassesKernel's passes, then (flag not null) the one-launch kernel's wake-up of the host as tried in session
35 (branch issue13-wake-flag, one_launch.cu's signalDone; dropped): the writes fenced at system scope (by every thread when fenceAll, else by each block's thread 0 after
a barrier), and the last block to count itself in blocksDone sets the mapped *flag to 1. */
__global__ void flagPassesKernel(int* data, int n, int passes, unsigned* blocksDone, int* flag, int fenceAll)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    if (flag && blockIdx.x == 0 && threadIdx.x == 0)
        *blocksDone = 0;
    for (int p = 0; p < passes; ++p)
    {
        grid.sync();
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            data[i] = data[i] * 3 + 1;
    }
    if (!flag)
        return;
    if (fenceAll)
        __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
    {
        __threadfence_system();
        if (atomicAdd(blocksDone, 1u) == gridDim.x - 1)
        {
            __threadfence_system();
            *static_cast<volatile int*>(flag) = 1;
            __threadfence_system();
        }
    }
}

/** The launch of a pass over the data: 264 blocks of 256 threads on `s`, with the dependent-launch attribute `a`
when `pdl`. */
cudaLaunchConfig_t passConfig(cudaStream_t s, bool pdl, cudaLaunchAttribute& a)
{
    a = {};
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(264);
    c.blockDim = dim3(256);
    c.stream = s;
    c.attrs = &a;
    c.numAttrs = pdl ? 1 : 0;
    return c;
}

/** A kernel with as many argument bytes as FLSL's larger ones (a RunTable, pointers, sizes: about 100 bytes). */
struct WideArgs
{
    int* data;
    const unsigned* p[8];
    int n;
    int m[7];
};

__global__ void widePassKernel(WideArgs a, int pdl)
{
#if __CUDA_ARCH__ >= 900
    if (pdl)
    {
        cudaTriggerProgrammaticLaunchCompletion();
        cudaGridDependencySynchronize();
    }
#endif
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += gridDim.x * blockDim.x)
        a.data[i] = a.data[i] * 3 + 1;
}

/** The driver's cuLaunchKernelEx, found once through the runtime (no link to libcuda). */
using LaunchEx = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
LaunchEx driverLaunchEx()
{
    static LaunchEx f = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult q;
        check(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", &p, 12000, cudaEnableDefault, &q), "entry point");
        return reinterpret_cast<LaunchEx>(p);
    }();
    return f;
}

/** passKernel through the driver with its CUfunction found once (cudaGetFuncBySymbol), as cudaLaunchKernelEx
would do per launch. */
void launchPassDriver(cudaStream_t s, int* data, int n, bool pdl)
{
    static cudaFunction_t fn = [] {
        cudaFunction_t f = nullptr;
        check(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(passKernel)), "cudaGetFuncBySymbol");
        return f;
    }();
    CUlaunchAttribute a = {};
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig c = {};
    c.gridDimX = 264;
    c.gridDimY = c.gridDimZ = 1;
    c.blockDimX = 256;
    c.blockDimY = c.blockDimZ = 1;
    c.hStream = reinterpret_cast<CUstream>(s);
    c.attrs = &a;
    c.numAttrs = pdl ? 1 : 0;
    int p = pdl ? 1 : 0;
    void* args[] = { &data, &n, &p };
    if (driverLaunchEx()(&c, reinterpret_cast<CUfunction>(fn), args, nullptr) != CUDA_SUCCESS)
        check(cudaErrorLaunchFailure, "cuLaunchKernelEx");
}

/** passKernel by cudaLaunchKernelExC with a context-independent handle found once (cudaGetKernel). */
void launchPassHandle(cudaStream_t s, int* data, int n, bool pdl)
{
    static cudaKernel_t k = [] {
        cudaKernel_t h = nullptr;
        check(cudaGetKernel(&h, passKernel), "cudaGetKernel");
        return h;
    }();
    cudaLaunchAttribute a;
    const cudaLaunchConfig_t c = passConfig(s, pdl, a);
    int p = pdl ? 1 : 0;
    void* args[] = { &data, &n, &p };
    check(cudaLaunchKernelExC(&c, reinterpret_cast<const void*>(k), args), "cudaLaunchKernelExC (handle)");
}

void launchWidePass(cudaStream_t s, int* data, int n, bool pdl)
{
    cudaLaunchAttribute a;
    const cudaLaunchConfig_t c = passConfig(s, pdl, a);
    WideArgs w = {};
    w.data = data;
    w.n = n;
    check(cudaLaunchKernelEx(&c, widePassKernel, w, pdl ? 1 : 0), "cudaLaunchKernelEx (wide)");
}

void launchBarrierPasses(cudaStream_t s, int* data, int n, int passes, int blocks, int threads)
{
    void* args[] = { &data, &n, &passes };
    check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(barrierPassesKernel), dim3(blocks), dim3(threads), args, 0, s),
          "cudaLaunchCooperativeKernel");
}

void launchPass(cudaStream_t s, int* data, int n, bool pdl)
{
    cudaLaunchAttribute a;
    const cudaLaunchConfig_t c = passConfig(s, pdl, a);
    check(cudaLaunchKernelEx(&c, passKernel, data, n, pdl ? 1 : 0), "cudaLaunchKernelEx");
}

/** A host image's upload and a label image's download as a call makes them, for 512^2 to 2048^2 (1 and 4 bytes
a pixel): straight from or to pageable memory (the driver stages them), through pinned memory of ours (a host
memcpy on one thread, then the copy), and pinned memory alone (a Mat that is pinned already). Each copy then a
stream synchronization, as a call ends. */
void hostCopies(cudaStream_t s)
{
    for (size_t bytes : { size_t(256) << 10, size_t(1) << 20, size_t(4) << 20, size_t(16) << 20 })
    {
        void* dev = nullptr;
        void* staging = nullptr;
        check(cudaMalloc(&dev, bytes), "malloc");
        check(cudaHostAlloc(&staging, bytes, cudaHostAllocMapped | cudaHostAllocPortable), "hostalloc");
        std::vector<char> pageable(bytes, 1);
        const int reps = bytes > (size_t(4) << 20) ? 50 : 200;
        auto copy = [&](void* to, const void* from, cudaMemcpyKind kind) {
            check(cudaMemcpyAsync(to, from, bytes, kind, s), "memcpy");
            check(cudaStreamSynchronize(s), "sync");
        };
        std::printf("%zu KB:\n", bytes >> 10);
        std::printf("  %-50s %8.2f\n", "H2D from pageable", median(reps, 1, [&] { copy(dev, pageable.data(), cudaMemcpyHostToDevice); }));
        std::printf("  %-50s %8.2f\n", "H2D memcpy into pinned, then from pinned", median(reps, 1, [&] {
            std::memcpy(staging, pageable.data(), bytes);
            copy(dev, staging, cudaMemcpyHostToDevice);
        }));
        std::printf("  %-50s %8.2f\n", "H2D from pinned", median(reps, 1, [&] { copy(dev, staging, cudaMemcpyHostToDevice); }));
        std::printf("  %-50s %8.2f\n", "D2H into pageable", median(reps, 1, [&] { copy(pageable.data(), dev, cudaMemcpyDeviceToHost); }));
        std::printf("  %-50s %8.2f\n", "D2H into pinned, then memcpy into pageable", median(reps, 1, [&] {
            copy(staging, dev, cudaMemcpyDeviceToHost);
            std::memcpy(pageable.data(), staging, bytes);
        }));
        std::printf("  %-50s %8.2f\n", "D2H into pinned", median(reps, 1, [&] { copy(staging, dev, cudaMemcpyDeviceToHost); }));
        check(cudaFreeHost(staging), "freehost");
        check(cudaFree(dev), "free");
    }
}

} // namespace

int main(int argc, char** argv)
{
    // "wake": only the last part (the host woken by the kernel against an event)
    const bool wakeOnly = argc > 1 && std::string(argv[1]) == "wake";
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "props");
    std::printf("device: %s\n", prop.name);
    if (argc > 1 && std::string(argv[1]) == "copies")
    {
        hostCopies(s);
        return 0;
    }
    int* d = nullptr;
    const int n = 1 << 20; // 4 MB: a 2048^2 call's kernels touch 1-16 MB
    check(cudaMalloc(&d, n * sizeof(int)), "malloc");
    check(cudaMemset(d, 0, n * sizeof(int)), "memset");
    int* pinned = nullptr;
    check(cudaHostAlloc(reinterpret_cast<void**>(&pinned), 4096, cudaHostAllocMapped | cudaHostAllocPortable), "hostalloc");
    cudaEvent_t e;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
    cudaMemPool_t pool;
    check(cudaDeviceGetDefaultMemPool(&pool, 0), "pool");
    unsigned long long threshold = ~0ull;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), "threshold");
    int clockKhz = 0;
    check(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0), "clock");
    const long long spin = static_cast<long long>(clockKhz) * 100; // 100 ms; a twentieth keeps the GPU busy meanwhile
    const int reps = 200, per = 20;

    // Single operations, queued while the GPU is busy (the host's cost, not the GPU's): the clock runs around the
    // queueing only, the wait comes after.
    auto busy = [&](const std::function<void()>& f, cudaStream_t q = nullptr) {
        q = q ? q : s;
        std::vector<double> t;
        for (int r = 0; r < 25; ++r)
        {
            spinKernel<<<1, 1, 0, q>>>(spin / 20);
            const double t0 = nowUs();
            for (int k = 0; k < per; ++k)
                f();
            t.push_back((nowUs() - t0) / per);
            check(cudaStreamSynchronize(q), "sync");
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };
    if (!wakeOnly)
    {
        int device = 0;
        std::printf("%-52s %8.2f\n", "cudaGetDevice", median(reps, per, [&] { for (int k = 0; k < per; ++k) cudaGetDevice(&device); }));
        int attr = 0;
        std::printf("%-52s %8.2f\n", "cudaDeviceGetAttribute", median(reps, per, [&] {
            for (int k = 0; k < per; ++k) cudaDeviceGetAttribute(&attr, cudaDevAttrMultiProcessorCount, 0); }));
        std::printf("%-52s %8.2f\n", "<<<>>> empty kernel (GPU busy)", busy([&] { emptyKernel<<<1, 32, 0, s>>>(); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelEx pass, no PDL (GPU busy)", busy([&] { launchPass(s, d, n, false); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelEx pass, PDL (GPU busy)", busy([&] { launchPass(s, d, n, true); }));
        // Launch paths (session 34): the driver's cuLaunchKernelEx with the function found once, the runtime with a
        // kernel handle found once, and a kernel of about 100 argument bytes.
        std::printf("%-52s %8.2f\n", "cuLaunchKernelEx pass, PDL, cached CUfunction (busy)", busy([&] { launchPassDriver(s, d, n, true); }));
        std::printf("%-52s %8.2f\n", "cuLaunchKernelEx pass, no PDL, cached (busy)", busy([&] { launchPassDriver(s, d, n, false); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelExC cudaKernel_t pass, PDL (busy)", busy([&] { launchPassHandle(s, d, n, true); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelEx ~100-byte args, PDL (busy)", busy([&] { launchWidePass(s, d, n, true); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelEx pass, PDL, again (GPU busy)", busy([&] { launchPass(s, d, n, true); }));
        std::printf("%-52s %8.2f\n", "cudaLaunchKernelEx pass, PDL, legacy stream (busy)",
                    busy([&] { launchPass(cudaStreamLegacy, d, n, true); }, cudaStreamLegacy));
        std::printf("%-52s %8.2f\n", "cudaMallocFromPoolAsync+cudaFreeAsync 8 MB (busy)", busy([&] {
            void* p = nullptr;
            check(cudaMallocFromPoolAsync(&p, 8 << 20, pool, s), "mallocasync");
            check(cudaFreeAsync(p, s), "freeasync"); }));
        std::printf("%-52s %8.2f\n", "cudaMemcpyAsync D2H 4 B pinned (busy)", busy([&] {
            check(cudaMemcpyAsync(pinned, d, 4, cudaMemcpyDeviceToHost, s), "memcpy"); }));
        std::printf("%-52s %8.2f\n", "cudaEventRecord (busy)", busy([&] { check(cudaEventRecord(e, s), "record"); }));
        std::printf("%-52s %8.2f\n", "cudaMemsetAsync 4 B (busy)", busy([&] { check(cudaMemsetAsync(d, 0, 4, s), "memset"); }));
        // A cooperative kernel of one wave of 1024-thread blocks (FLSL's chain kernel, tried in session 33): the host's
        // cost of its launch, and on an idle GPU 8 passes over 4 MB with 7 grid barriers against 8 kernels.
        {
            int sms = 0, perSm = 0;
            check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sms");
            check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, barrierPassesKernel, 1024, 0), "occupancy");
            const int blocks = sms * perSm;
            std::printf("%-52s %8.2f\n", "cudaLaunchCooperativeKernel 1 pass (GPU busy)",
                        busy([&] { launchBarrierPasses(s, d, n, 1, blocks, 1024); }));
            auto whole = [&](const std::function<void()>& f) {
                return median(reps, 1, [&] {
                    f();
                    check(cudaStreamSynchronize(s), "sync");
                });
            };
            for (int passes : { 1, 8 })
                std::printf("%-52s %8.2f\n", passes == 1 ? "cooperative, 1 pass, whole call (idle GPU)"
                                                         : "cooperative, 8 passes, 7 barriers, whole (idle GPU)",
                            whole([&] { launchBarrierPasses(s, d, n, passes, blocks, 1024); }));
            std::printf("%-52s %8.2f\n", "8 PDL kernels of 1 pass, whole call (idle GPU)", whole([&] {
                            for (int k = 0; k < 8; ++k)
                                launchPass(s, d, n, true);
                        }));
            std::printf("%-52s %8.2f\n", "8 PDL kernels, cuLaunchKernelEx, whole (idle GPU)", whole([&] {
                            for (int k = 0; k < 8; ++k)
                                launchPassDriver(s, d, n, true);
                        }));
        }

        // An idle round trip: one empty kernel, event, wait.
        std::printf("%-52s %8.2f\n", "empty kernel + record + event sync (idle GPU)", median(reps, 1, [&] {
            emptyKernel<<<1, 32, 0, s>>>();
            check(cudaEventRecord(e, s), "record");
            check(cudaEventSynchronize(e), "esync"); }));

        // A chain of 13 small kernels (a 2048^2 call has 12-14), then a copy, an event and the wait.
        for (int chain : {13})
        {
            for (bool pdl : {false, true})
            {
                auto queue = [&](cudaStream_t q) {
                    for (int k = 0; k < chain; ++k)
                        launchPass(q, d, n, pdl);
                    check(cudaMemcpyAsync(pinned, d, 4, cudaMemcpyDeviceToHost, q), "memcpy");
                };
                const double direct = median(reps, 1, [&] {
                    queue(s);
                    check(cudaEventRecord(e, s), "record");
                    check(cudaEventSynchronize(e), "esync"); });
                const double directQueue = busy([&] { queue(s); }) * per;
                // The same chain captured once into a graph, replayed.
                cudaStream_t cap;
                check(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking), "cap stream");
                cudaGraph_t g;
                check(cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal), "begin");
                queue(cap);
                check(cudaStreamEndCapture(cap, &g), "end");
                cudaGraphExec_t x;
                check(cudaGraphInstantiate(&x, g, 0), "instantiate");
                const double graph = median(reps, 1, [&] {
                    check(cudaGraphLaunch(x, s), "graph launch");
                    check(cudaEventRecord(e, s), "record");
                    check(cudaEventSynchronize(e), "esync"); });
                const double graphQueue = busy([&] { check(cudaGraphLaunch(x, s), "graph launch"); }) * per;
                // Capture again each time and update the executable graph in place (parameters may change).
                const double recapture = median(reps, 1, [&] {
                    cudaGraph_t g2;
                    check(cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal), "begin");
                    queue(cap);
                    check(cudaStreamEndCapture(cap, &g2), "end");
                    cudaGraphExecUpdateResultInfo info;
                    check(cudaGraphExecUpdate(x, g2, &info), "update");
                    check(cudaGraphDestroy(g2), "destroy");
                });
                const double instantiate = median(20, 1, [&] {
                    cudaGraphExec_t y;
                    check(cudaGraphInstantiate(&y, g, 0), "instantiate");
                    check(cudaGraphExecDestroy(y), "exec destroy");
                });
                std::printf("chain of %d kernels, %s:\n", chain, pdl ? "PDL" : "no PDL");
                std::printf("  %-50s %8.2f\n", "queued one by one, whole call (idle GPU)", direct);
                std::printf("  %-50s %8.2f\n", "queued one by one, host part only (busy GPU)", directQueue);
                std::printf("  %-50s %8.2f\n", "graph replay, whole call (idle GPU)", graph);
                std::printf("  %-50s %8.2f\n", "graph launch, host part only (busy GPU)", graphQueue);
                std::printf("  %-50s %8.2f\n", "capture + cudaGraphExecUpdate (host)", recapture);
                std::printf("  %-50s %8.2f\n", "cudaGraphInstantiate (host)", instantiate);
                check(cudaGraphExecDestroy(x), "exec destroy");
                check(cudaGraphDestroy(g), "destroy");
                check(cudaStreamDestroy(cap), "cap destroy");
            }
        }
    } // !wakeOnly

    // The host woken by the kernel (branch issue13-wake-flag: one_launch.cu's signalDone, cuda_check.cpp's
    // waitForMappedWord; dropped, doc/benchmarks.md "The host woken by the kernel"): a
    // cooperative kernel shaped as the one-launch kernel at 512^2 (2 blocks of 512 threads per multiprocessor,
    // `passes` grid barriers and passes over 1 MB), the whole call on an idle GPU, waited for by an event recorded
    // after it, or by the mapped flag that its last block sets (read in a loop, the event queried every 1024 reads).
    {
        int sms = 0, perSm = 0;
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "sms");
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, flagPassesKernel, 512, 0), "occupancy");
        const int blocks = sms * std::min(perSm, 2), words = 1 << 18;
        unsigned* blocksDone = nullptr;
        check(cudaMalloc(&blocksDone, sizeof(unsigned)), "malloc");
        int* flag = pinned + 64;
        for (int passes : { 1, 5 })
        {
            auto call = [&](bool signal, bool spinOnFlag, int fenceAll = 0) {
                return median(1000, 1, [&] {
                    int* f = signal ? flag : nullptr;
                    *static_cast<volatile int*>(flag) = 0;
                    void* args[] = { &d, const_cast<int*>(&words), &passes, &blocksDone, &f, &fenceAll };
                    check(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(flagPassesKernel), dim3(blocks), dim3(512),
                                                      args, 0, s), "cooperative flag kernel");
                    check(cudaEventRecord(e, s), "record");
                    if (!spinOnFlag)
                    {
                        check(cudaEventSynchronize(e), "esync");
                        return;
                    }
                    for (;;)
                    {
                        bool seen = false;
                        for (int k = 0; k < 1024 && !seen; ++k)
                            seen = *static_cast<volatile int*>(flag) != 0;
                        if (seen || cudaEventQuery(e) != cudaErrorNotReady)
                            break;
                    }
                });
            };
            // (each twice, interleaved: the spread between the two is the noise)
            for (int round = 0; round < 2; ++round)
            {
                std::printf("cooperative %d x 512, %d barriers, round %d:\n", blocks, passes, round + 1);
                std::printf("  %-50s %8.2f\n", "no flag, event sync", call(false, false));
                std::printf("  %-50s %8.2f\n", "flag (a fence per block), event sync", call(true, false));
                std::printf("  %-50s %8.2f\n", "flag (a fence per block), host reads the flag", call(true, true));
                std::printf("  %-50s %8.2f\n", "flag (a fence per thread), event sync", call(true, false, 1));
                std::printf("  %-50s %8.2f\n", "flag (a fence per thread), host reads the flag", call(true, true, 1));
            }
        }
        check(cudaStreamSynchronize(s), "sync");
        check(cudaFree(blocksDone), "free");
    }
    check(cudaDeviceSynchronize(), "final");
    return 0;
}
