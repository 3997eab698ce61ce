// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The exclusive prefix sums of the pipeline (FLSL's row slots, the ranking's segment offsets), written once.
// A small one is one kernel: one block scans up to kSingleBlockSumItems items, queued as a dependent launch
// (launch.hpp), and may hand the total to a second address. CUB's device scan is a memset and two kernels (its
// tile states' initialization, then the scan), plus a copy for such a total: each a gap in the chain of
// dependent kernels, and on a small image every kernel costs its launch (H100, ncu, 2049 items, 2.4 + 4.3 us).
// Larger sums go to cub::DeviceScan::ExclusiveSum. History: with a lane's items consecutive (strided loads
// across the warp), one block took about 12 us more than CUB's two kernels at 16 items a lane (16384 items;
// H100, 5298d60's benchmark). The block now loads and stores through CUB's warp transposes (coalesced), 8 items
// a lane, in up to four rounds of 8192 items: the segments of a 2048^2 run table (8192) or pixel forest
// (16384), of an 8192^2 run table at g = 1 or 4 (16384), the rows of an 8192^2 image.

#ifndef CUDACCA_EXCLUSIVE_SUM_CUH
#define CUDACCA_EXCLUSIVE_SUM_CUH

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_scan.cuh>

#include "launch.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kSingleBlockSumThreads = 1024;
constexpr int kSingleBlockSumItemsPerThread = 8;
constexpr int kSingleBlockSumTile = kSingleBlockSumThreads * kSingleBlockSumItemsPerThread; //!< items per round
constexpr int kSingleBlockSumItems = 4 * kSingleBlockSumTile;

/** out[k] = in[0] + ... + in[k-1] for k < n, out[n] = the total, and *total, *hostTotal = the total too when they
are not null; one block, in rounds of kSingleBlockSumTile items with a running carry. In place (in == out) is safe: a
round loads its items before the block scan's barriers and stores them after, and rounds are disjoint. */
template <typename T>
__global__ void __launch_bounds__(kSingleBlockSumThreads)
singleBlockExclusiveSumKernel(const T* in, T* out, int n, T* total, T* hostTotal)
{
    device::dependentKernelStart(); // launched by launchDependent()
    using BlockLoad = cub::BlockLoad<T, kSingleBlockSumThreads, kSingleBlockSumItemsPerThread, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using BlockStore = cub::BlockStore<T, kSingleBlockSumThreads, kSingleBlockSumItemsPerThread, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using BlockScan = cub::BlockScan<T, kSingleBlockSumThreads>;
    __shared__ union
    {
        typename BlockLoad::TempStorage load;
        typename BlockScan::TempStorage scan;
        typename BlockStore::TempStorage store;
    } temp;
    T carry = 0; // the sum of the rounds before
    for (int base = 0; base < n; base += kSingleBlockSumTile)
    {
        const int valid = min(kSingleBlockSumTile, n - base);
        T v[kSingleBlockSumItemsPerThread];
        BlockLoad(temp.load).Load(in + base, v, valid, T(0));
        __syncthreads(); // temp is reused
        T sum;
        BlockScan(temp.scan).ExclusiveSum(v, v, sum);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < kSingleBlockSumItemsPerThread; ++i)
            v[i] += carry;
        BlockStore(temp.store).Store(out + base, v, valid);
        __syncthreads(); // before the next round's load reuses temp
        carry += sum;
    }
    if (threadIdx.x == 0)
    {
        out[n] = carry;
        if (total)
            *total = carry;
        if (hostTotal)
            *hostTotal = carry;
    }
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

/** Queues out[k] = in[0] + ... + in[k-1] for k < n and out[n] = the total, and *total = the total when `total`
is not null, *hostTotal (mapped pinned host memory) too when it is not null. `in` and `out` hold n + 1 items each
(in == out allowed); in[n] may be overwritten. `temp`: exclusiveSumTempBytes<T>(n) bytes. */
template <typename T>
void exclusiveSumWithTotal(void* temp, size_t tempBytes, T* in, T* out, int n, cudaStream_t stream, const char* what,
                           T* total = nullptr, T* hostTotal = nullptr)
{
    if (n <= kSingleBlockSumItems)
    {
        launchDependent(singleBlockExclusiveSumKernel<T>, 1, kSingleBlockSumThreads, stream, what, in, out, n, total,
                        hostTotal);
        return;
    }
    // CUB's scan of n + 1 items with in[n] = 0 leaves the total in out[n]. Queued directly: after what was recorded.
    endLaunchRecording();
    checkCuda(cudaMemsetAsync(in + n, 0, sizeof(T), stream), what);
    checkCuda(cub::DeviceScan::ExclusiveSum(temp, tempBytes, in, out, n + 1, stream), what);
    if (total)
        checkCuda(cudaMemcpyAsync(total, out + n, sizeof(T), cudaMemcpyDeviceToDevice, stream), what);
    if (hostTotal)
        checkCuda(cudaMemcpyAsync(hostTotal, out + n, sizeof(T), cudaMemcpyDeviceToHost, stream), what);
}

} // namespace

}}} // namespace cv::cuda::cudacca

#endif
