// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// StreamBuffer (device_memory.hpp) and the pool's public controls (cudacca.hpp: setConnectedComponentsPoolLimit
// and the functions after it).

#include "precomp.hpp"

#include <map>
#include <mutex>

#include "opencv2/core/utils/configuration.private.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** The stream-ordered memory pools of cudacca's temporary buffers, one per device, made on first use, and
the release threshold they share. The default pool gives memory back to the system at every
synchronization (release threshold 0), and our call synchronizes once, so every call would map its buffers
afresh (about 0.2 ms measured at 512x512): these pools keep up to `limit` bytes between calls. They hold no
results: only free memory is shared between calls, and a pool is thread-safe. */
struct Pools
{
    std::mutex mutex;
    std::map<int, cudaMemPool_t> byDevice;
    size_t limit = utils::getConfigurationParameterSizeT("OPENCV_CUDACCA_POOL_LIMIT", size_t(1) << 30);

    static Pools& instance()
    {
        static Pools pools;
        return pools;
    }
};

void setReleaseThreshold(cudaMemPool_t pool, size_t bytes)
{
    unsigned long long threshold = bytes;
    checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
              "cudaMemPoolSetAttribute (release threshold)");
}

cudaMemPool_t temporaryPool(int device)
{
    Pools& pools = Pools::instance();
    std::lock_guard<std::mutex> lock(pools.mutex);
    auto it = pools.byDevice.find(device);
    if (it != pools.byDevice.end())
        return it->second;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    checkCuda(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    setReleaseThreshold(pool, pools.limit);
    pools.byDevice[device] = pool;
    return pool;
}

cudaMemPool_t currentPool()
{
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    return temporaryPool(device);
}

/** The current device's pool if cudacca has made it, else null (also without a device): the queries
neither make a pool nor need a CUDA driver. */
cudaMemPool_t existingCurrentPool()
{
    if (getCudaEnabledDeviceCount() <= 0)
        return nullptr;
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    Pools& pools = Pools::instance();
    std::lock_guard<std::mutex> lock(pools.mutex);
    auto it = pools.byDevice.find(device);
    return it == pools.byDevice.end() ? nullptr : it->second;
}

size_t poolAttribute(cudaMemPool_t pool, cudaMemPoolAttr attribute, const char* what)
{
    unsigned long long value = 0;
    checkCuda(cudaMemPoolGetAttribute(pool, attribute, &value), what);
    return static_cast<size_t>(value);
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

void trimTemporaryPool() noexcept
{
    try
    {
        releaseConnectedComponentsPool();
    }
    catch (...)
    {
    }
}

} // namespace cudacca

void setConnectedComponentsPoolLimit(size_t bytes)
{
    cudacca::Pools& pools = cudacca::Pools::instance();
    std::lock_guard<std::mutex> lock(pools.mutex);
    pools.limit = bytes;
    for (const auto& devicePool : pools.byDevice)
        cudacca::setReleaseThreshold(devicePool.second, bytes);
}

size_t getConnectedComponentsPoolLimit()
{
    cudacca::Pools& pools = cudacca::Pools::instance();
    std::lock_guard<std::mutex> lock(pools.mutex);
    return pools.limit;
}

size_t getConnectedComponentsPoolBytes()
{
    cudaMemPool_t pool = cudacca::existingCurrentPool();
    return pool ? cudacca::poolAttribute(pool, cudaMemPoolAttrReservedMemCurrent,
                                         "cudaMemPoolGetAttribute (reserved memory)")
                : 0;
}

size_t getConnectedComponentsPeakBytes(bool reset)
{
    cudaMemPool_t pool = cudacca::existingCurrentPool();
    if (!pool)
        return 0;
    const size_t high = cudacca::poolAttribute(pool, cudaMemPoolAttrUsedMemHigh, "cudaMemPoolGetAttribute (used high)");
    if (reset)
    {
        unsigned long long zero = 0;
        cudacca::checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero),
                           "cudaMemPoolSetAttribute (used high)");
    }
    return high;
}

void releaseConnectedComponentsPool()
{
    cudaMemPool_t pool = cudacca::existingCurrentPool();
    if (!pool)
        return;
    cudacca::checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (pool release)");
    cudacca::checkCuda(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
}

}} // namespace cv::cuda
