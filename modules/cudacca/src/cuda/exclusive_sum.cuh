// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The exclusive prefix sums of the pipeline (FLSL's row slots, the ranking's segment offsets), written once.
// A small one is one kernel: one block scans up to kSingleBlockSumItems items. CUB's device scan is two kernels
// (its tile states' initialization, then the scan), and on a small image every kernel costs its launch: H100,
// ncu, 2049 items, 2.4 + 4.3 us. Larger sums go to cub::DeviceScan::ExclusiveSum: a lane's items are
// consecutive (strided across the warp), and at 16 items a lane (16384 items: the ranking of a 2048^2 forest)
// one block took about 12 us more than CUB's two kernels (H100, 5298d60's benchmark); at 4 a lane it does not.

#ifndef CUDACCA_EXCLUSIVE_SUM_CUH
#define CUDACCA_EXCLUSIVE_SUM_CUH

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "launch.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kSingleBlockSumThreads = 1024;
constexpr int kSingleBlockSumItemsPerThread = 4;
constexpr int kSingleBlockSumItems = kSingleBlockSumThreads * kSingleBlockSumItemsPerThread;

/** out[k] = in[0] + ... + in[k-1] for k < n, out[n] = the total; one block, a run of items per thread. In place
(in == out) is safe: every thread loads its items before the block scan's barriers and stores after them. */
template <typename T>
__global__ void __launch_bounds__(kSingleBlockSumThreads) singleBlockExclusiveSumKernel(const T* in, T* out, int n)
{
    device::dependentKernelStart(); // launched by launchDependent()
    using BlockScan = cub::BlockScan<T, kSingleBlockSumThreads>;
    __shared__ typename BlockScan::TempStorage temp;
    const int first = threadIdx.x * kSingleBlockSumItemsPerThread;
    T v[kSingleBlockSumItemsPerThread];
    T sum = 0;
#pragma unroll
    for (int i = 0; i < kSingleBlockSumItemsPerThread; ++i)
    {
        v[i] = first + i < n ? in[first + i] : T(0);
        sum += v[i];
    }
    T prefix;
    BlockScan(temp).ExclusiveSum(sum, prefix);
#pragma unroll
    for (int i = 0; i < kSingleBlockSumItemsPerThread; ++i)
    {
        if (first + i < n)
            out[first + i] = prefix;
        prefix += v[i];
    }
    if (threadIdx.x == kSingleBlockSumThreads - 1) // its prefix has passed every item by now
        out[n] = prefix;
}

/** Bytes of temporary device memory that exclusiveSumWithTotal() needs for n items. */
template <typename T>
size_t exclusiveSumTempBytes(int n)
{
    if (n <= kSingleBlockSumItems)
        return 0;
    size_t bytes = 0;
    checkCuda(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n + 1),
              "cub::DeviceScan::ExclusiveSum (size query)");
    return bytes;
}

/** Queues out[k] = in[0] + ... + in[k-1] for k < n and out[n] = the total. `in` and `out` hold n + 1 items each
(in == out allowed); in[n] may be overwritten. `temp`: exclusiveSumTempBytes<T>(n) bytes. */
template <typename T>
void exclusiveSumWithTotal(void* temp, size_t tempBytes, T* in, T* out, int n, cudaStream_t stream, const char* what)
{
    if (n <= kSingleBlockSumItems)
    {
        launchDependent(singleBlockExclusiveSumKernel<T>, 1, kSingleBlockSumThreads, stream, what, in, out, n);
        return;
    }
    // CUB's scan of n + 1 items with in[n] = 0 leaves the total in out[n].
    checkCuda(cudaMemsetAsync(in + n, 0, sizeof(T), stream), what);
    checkCuda(cub::DeviceScan::ExclusiveSum(temp, tempBytes, in, out, n + 1, stream), what);
}

} // namespace

}}} // namespace cv::cuda::cudacca

#endif
