// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Host-side launch helpers shared by every kernel file: grid sizes, buffer alignment, and the dispatch of a
// runtime connectivity to the kernels' compile-time one.

#ifndef CUDACCA_LAUNCH_HPP
#define CUDACCA_LAUNCH_HPP

#include <cstddef>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

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

}}} // namespace cv::cuda::cudacca

#endif
