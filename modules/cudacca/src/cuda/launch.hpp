// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Launch helpers shared by every kernel file: grid sizes, buffer alignment, the dispatch of a runtime
// connectivity to the kernels' compile-time one, and dependent launches (Programmatic Dependent Launch).

#ifndef CUDACCA_LAUNCH_HPP
#define CUDACCA_LAUNCH_HPP

#include <atomic>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "launch_recording.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Blocks of `threads` threads for one thread (or one warp, with threads = warps per block) per item. */
inline unsigned blocksFor(long long items, int threads)
{
    return static_cast<unsigned>((items + threads - 1) / threads);
}

/** Offsets of the buffers carved out of one allocation: 256-byte aligned (what cudaMalloc gives). */
inline size_t alignUp(size_t bytes)
{
    constexpr size_t kAlignment = 256;
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/** Blocks for a grid-stride kernel: one wave of resident blocks of `kernel` on the current device, fewer
when `blocksOfWork` (blocks that have work at all) is smaller. */
template <typename Kernel>
unsigned waveBlocks(Kernel kernel, int threads, long long blocksOfWork)
{
    int device = 0, sms = 0, perSm = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    checkCuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
              "cudaDeviceGetAttribute (multiprocessors)");
    checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, 0),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const long long wave = static_cast<long long>(sms) * (perSm > 0 ? perSm : 1);
    return static_cast<unsigned>(blocksOfWork < wave ? (blocksOfWork > 0 ? blocksOfWork : 1) : wave);
}

/** Calls f(std::integral_constant<int, 4 or 8>) for `connectivity`: kernels take it as a template
argument, as `decltype(c)::value`. */
template <typename F>
void withConnectivity(int connectivity, F&& f)
{
    if (connectivity == 8)
        f(std::integral_constant<int, 8>());
    else
        f(std::integral_constant<int, 4>());
}

// ---- dependent launches -------------------------------------------------------------------------------
// A chain of small kernels costs each kernel its launch and its ramp-up after the previous one has drained
// (2048^2: 14 kernels of 2.3-9 us, most of the call; doc/benchmarks.md, "Launch gaps"). On Hopper (compute
// capability 9.0) a kernel launched by launchDependent() may be scheduled while the previous kernel of its stream
// still runs, with Programmatic Dependent Launch (CUDA Programming Guide, "Programmatic Dependent Launch and
// Synchronization"): the previous kernel lets it start (the trigger), and its threads wait there until that
// kernel has finished and its writes are visible. Contract: a kernel launched so calls dependentKernelStart()
// first, before any access to global memory, in every thread. Then it sees everything the stream did before
// it, and nothing later in the stream starts before it ends (a later kernel launched so waits for it in its own
// dependentKernelStart(); other work waits as always). Elsewhere the launch is an ordinary one.

constexpr int kMaxDevices = 64; //!< devices whose once-per-device answers are kept (others: asked every time)

/** Whether the current device takes dependent launches (compute capability 9.0 or later); asked once per device. */
inline bool dependentLaunchSupported()
{
    static std::atomic<signed char> known[kMaxDevices] = {}; // 0 not asked yet, 1 no, 2 yes
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    if (device < 0 || device >= kMaxDevices)
        return false;
    signed char k = known[device].load(std::memory_order_relaxed);
    if (k == 0)
    {
        int major = 0;
        checkCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                  "cudaDeviceGetAttribute (compute capability)");
        k = major >= 9 ? 2 : 1;
        known[device].store(k, std::memory_order_relaxed);
    }
    return k == 2;
}

/** The launch configuration of a dependent launch (above) on `stream`; `attribute` is the storage it points to. */
inline cudaLaunchConfig_t dependentLaunchConfig(dim3 grid, dim3 block, cudaStream_t stream, cudaLaunchAttribute& attribute)
{
    attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = dependentLaunchSupported() ? 1 : 0;
    return config;
}

#ifdef __CUDACC__
/** Asks, once per device, that the SMs running kKernel keep the largest share of their unified L1 / shared memory as
shared memory, so that as many blocks fit as its registers allow (FLSL's label write: 5 blocks of 34 KB per SM;
left to itself the driver may choose a smaller share, such as the 168 of 228 KB that ncu showed for it at 4 blocks). */
template <auto kKernel>
void preferSharedMemoryCarveout()
{
    static std::atomic<bool> asked[kMaxDevices] = {};
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    const bool kept = device >= 0 && device < kMaxDevices;
    if (kept && asked[device].load(std::memory_order_relaxed))
        return;
    checkCuda(cudaFuncSetAttribute(kKernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
              "cudaFuncSetAttribute (shared memory carveout)");
    if (kept)
        asked[device].store(true, std::memory_order_relaxed);
}

/** Queues kernel<<<grid, block, 0, stream>>>(args...) as a dependent launch (above); `what` names it in errors. While
a LaunchRecording is active on `stream` (launch_recording.hpp), the launch is recorded instead, and queued by it. */
template <typename... Params, typename... Args>
void launchDependent(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, const char* what,
                     Args&&... args)
{
    if (LaunchRecording* recording = LaunchRecording::active(stream))
    {
        recording->addKernel(kernel, grid, block, what, std::forward<Args>(args)...);
        return;
    }
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = dependentLaunchConfig(grid, block, stream, attribute);
    checkCuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), what);
}

namespace device {

/** The first statement of a kernel queued by launchDependent(), in every thread: lets the next dependent kernel
of the stream be scheduled (it waits in its own dependentKernelStart() until this one has ended), then waits until
the work before this kernel has ended and its writes are visible. Nothing on other devices. */
__device__ __forceinline__ void dependentKernelStart()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
#endif
}

} // namespace device
#endif

}}} // namespace cv::cuda::cudacca

#endif
