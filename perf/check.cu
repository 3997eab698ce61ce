// cudacca_bench: result checks on the GPU (a host check of 8192^2 label images would dominate the run).
//   countDifferences: exact comparison of two CV_32S label images (cudacca, OpenCV DEFAULT vs SAUF).
//   checkPartition:   same partition of the foreground as the CPU labels (peers: unordered labels).
//   spinGpu:          keeps the GPU busy (--busy-gpu-us, timing.cpp).

#include "bench.hpp"

#include <algorithm>
#include <stdexcept>

namespace bench {
namespace {

constexpr unsigned kEmpty = 0xFFFFFFFFu;
constexpr unsigned kBackground = 0u;   // the CPU label of the background
enum Counter { kConflict, kFgZero, kBgNonZero, kBgShared, kOutOfRange, kBgLabels, kCounters };

void cudaOrThrow(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("check: ") + what + ": " + cudaGetErrorString(e));
}

template <typename T>
__device__ __forceinline__ T at(const void* base, size_t step, int x, int y)
{
    return reinterpret_cast<const T*>(static_cast<const char*>(base) + (size_t)y * step)[x];
}

__global__ void diffKernel(const void* a, size_t sa, const void* b, size_t sb, int w, int h,
                           unsigned long long* count, unsigned long long* first)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h || at<int>(a, sa, x, y) == at<int>(b, sb, x, y))
        return;
    atomicAdd(count, 1ull);
    atomicMin(first, (unsigned long long)y * w + x);
}

//! Foreground pixels: CPU label c <-> peer label q must be one-to-one (fwd[c] = q, bwd[q] = c).
__global__ void partitionForeground(const void* ref, size_t sr, const void* peer, size_t sp, int w, int h,
                                    bool bgZero, unsigned* fwd, unsigned* bwd, unsigned long long bwdSize,
                                    unsigned long long* counters)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const unsigned c = (unsigned)at<int>(ref, sr, x, y);
    if (c == kBackground)
        return;
    const unsigned q = at<unsigned>(peer, sp, x, y);
    if (bgZero && q == 0)
    {
        atomicAdd(&counters[kFgZero], 1ull);
        return;
    }
    if (q >= bwdSize)
    {
        atomicAdd(&counters[kOutOfRange], 1ull);
        return;
    }
    const unsigned oldQ = atomicCAS(&fwd[c], kEmpty, q);
    const unsigned oldC = atomicCAS(&bwd[q], kEmpty, c);
    if ((oldQ != kEmpty && oldQ != q) || (oldC != kEmpty && oldC != c))
        atomicAdd(&counters[kConflict], 1ull);
}

//! Background pixels (after the foreground pass): 0 when bgZero, else labels not used on the foreground.
__global__ void partitionBackground(const void* ref, size_t sr, const void* peer, size_t sp, int w, int h,
                                    bool bgZero, unsigned* bwd, unsigned long long bwdSize,
                                    unsigned long long* counters)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h || at<int>(ref, sr, x, y) != 0)
        return;
    const unsigned q = at<unsigned>(peer, sp, x, y);
    if (bgZero)
    {
        if (q != 0)
            atomicAdd(&counters[kBgNonZero], 1ull);
        return;
    }
    if (q >= bwdSize)
    {
        atomicAdd(&counters[kOutOfRange], 1ull);
        return;
    }
    const unsigned old = atomicCAS(&bwd[q], kEmpty, kBackground);
    if (old == kEmpty)
        atomicAdd(&counters[kBgLabels], 1ull);
    else if (old != kBackground)
        atomicAdd(&counters[kBgShared], 1ull);
}

//! A device buffer that only grows (the checks run thousands of times on the same sizes).
struct Scratch
{
    void* p = nullptr;
    size_t bytes = 0;
    void* get(size_t n)
    {
        if (n > bytes)
        {
            if (p)
                cudaFree(p);
            p = nullptr;
            cudaOrThrow(cudaMalloc(&p, n), "cudaMalloc");
            bytes = n;
        }
        return p;
    }
};

Scratch g_counters, g_fwd, g_bwd;

dim3 gridFor(int w, int h, dim3 block)
{
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

} // namespace

long long countDifferences(const cv::cuda::GpuMat& a, const cv::cuda::GpuMat& b, long long* first, cudaStream_t s)
{
    CV_Assert(a.type() == CV_32SC1 && b.type() == CV_32SC1 && a.size() == b.size());
    unsigned long long host[2] = { 0ull, ~0ull };
    auto* dev = static_cast<unsigned long long*>(g_counters.get(sizeof(host)));
    cudaOrThrow(cudaMemcpyAsync(dev, host, sizeof(host), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    const dim3 block(32, 8);
    diffKernel<<<gridFor(a.cols, a.rows, block), block, 0, s>>>(a.data, a.step, b.data, b.step, a.cols, a.rows,
                                                                  dev, dev + 1);
    cudaOrThrow(cudaGetLastError(), "diffKernel");
    cudaOrThrow(cudaMemcpyAsync(host, dev, sizeof(host), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
    cudaOrThrow(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    if (first)
        *first = host[0] ? (long long)host[1] : -1;
    return (long long)host[0];
}

PartitionCheck checkPartition(const cv::cuda::GpuMat& ref, int refN, const void* peer, size_t peerStep, bool bgZero,
                              cudaStream_t s)
{
    CV_Assert(ref.type() == CV_32SC1 && refN >= 1);
    const int w = ref.cols, h = ref.rows;
    // peers number labels by raster index, some with their row pitch (contrib's BKE): room for either
    const unsigned long long rowElems = std::max<unsigned long long>(w, peerStep / sizeof(unsigned));
    const unsigned long long bwdSize = rowElems * h + 2;
    auto* counters = static_cast<unsigned long long*>(g_counters.get(kCounters * sizeof(unsigned long long)));
    auto* fwd = static_cast<unsigned*>(g_fwd.get((size_t)refN * sizeof(unsigned)));
    auto* bwd = static_cast<unsigned*>(g_bwd.get(bwdSize * sizeof(unsigned)));
    cudaOrThrow(cudaMemsetAsync(counters, 0, kCounters * sizeof(unsigned long long), s), "cudaMemsetAsync");
    cudaOrThrow(cudaMemsetAsync(fwd, 0xFF, (size_t)refN * sizeof(unsigned), s), "cudaMemsetAsync");
    cudaOrThrow(cudaMemsetAsync(bwd, 0xFF, bwdSize * sizeof(unsigned), s), "cudaMemsetAsync");
    const dim3 block(32, 8), grid = gridFor(w, h, block);
    partitionForeground<<<grid, block, 0, s>>>(ref.data, ref.step, peer, peerStep, w, h, bgZero, fwd, bwd, bwdSize,
                                               counters);
    partitionBackground<<<grid, block, 0, s>>>(ref.data, ref.step, peer, peerStep, w, h, bgZero, bwd, bwdSize,
                                               counters);
    cudaOrThrow(cudaGetLastError(), "partition kernels");
    unsigned long long host[kCounters];
    cudaOrThrow(cudaMemcpyAsync(host, counters, sizeof(host), cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync");
    cudaOrThrow(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    PartitionCheck r;
    r.conflicts = (long long)host[kConflict];
    r.fgZero = (long long)host[kFgZero];
    r.bgNonZero = (long long)host[kBgNonZero];
    r.bgSharedWithFg = (long long)host[kBgShared];
    r.outOfRange = (long long)host[kOutOfRange];
    r.bgLabels = (long long)host[kBgLabels];
    return r;
}

namespace {
__global__ void spinKernel(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}
} // namespace

void spinGpu(cudaStream_t stream, double us)
{
    spinKernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(us * 1e3));
    cudaOrThrow(cudaGetLastError(), "spinKernel");
}

} // namespace bench
