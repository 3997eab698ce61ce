// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// StreamBuffer (device_memory.hpp) and the temporary-memory diagnostics (diagnostics.hpp).

#include "precomp.hpp"
#include "diagnostics.hpp"

#include <map>
#include <mutex>

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** The stream-ordered memory pool of cudacca's temporary buffers on `device`, made on first use. The
default pool gives memory back to the system at every synchronization (release threshold 0), and our
call synchronizes once, so every call would map its buffers afresh (about 0.2 ms measured at 512x512).
This pool keeps up to kRetainedBytes between calls. It holds no results: only free memory is shared
between calls, and the pool is thread-safe. */
cudaMemPool_t temporaryPool(int device)
{
    static const unsigned long long kRetainedBytes = 1ull << 30;
    static std::mutex mutex;
    static std::map<int, cudaMemPool_t> pools;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = pools.find(device);
    if (it != pools.end())
        return it->second;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    checkCuda(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    unsigned long long threshold = kRetainedBytes;
    checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
              "cudaMemPoolSetAttribute (release threshold)");
    pools[device] = pool;
    return pool;
}

cudaMemPool_t currentPool()
{
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    return temporaryPool(device);
}

} // namespace

void* StreamBuffer::allocate(size_t bytes, cudaStream_t stream)
{
    release();
    stream_ = stream;
    checkCuda(cudaMallocFromPoolAsync(&ptr_, bytes, currentPool(), stream), "cudaMallocFromPoolAsync");
    return ptr_;
}

void StreamBuffer::release()
{
    if (ptr_)
        cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
}

size_t temporaryMemoryHighWater(bool reset)
{
    cudaMemPool_t pool = currentPool();
    unsigned long long high = 0;
    checkCuda(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high), "cudaMemPoolGetAttribute (used high)");
    if (reset)
    {
        unsigned long long zero = 0;
        checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero), "cudaMemPoolSetAttribute (used high)");
    }
    return static_cast<size_t>(high);
}

void releaseTemporaryMemory()
{
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (pool release)");
    checkCuda(cudaMemPoolTrimTo(currentPool(), 0), "cudaMemPoolTrimTo");
}

void trimTemporaryPool() noexcept
{
    try
    {
        releaseTemporaryMemory();
    }
    catch (...)
    {
    }
}

}}} // namespace cv::cuda::cudacca
