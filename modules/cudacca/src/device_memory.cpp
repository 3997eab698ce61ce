// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// StreamBuffer (device_memory.hpp) and the pool's public controls (cudacca.hpp: setConnectedComponentsPoolLimit
// and the functions after it).

#include "precomp.hpp"
#include "allocation_count.hpp"
#include "arguments.hpp"
#include "pinned_mats.hpp"
#include "cuda/launch_recording.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>


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
    size_t limit = environmentSize("OPENCV_CUDACCA_POOL_LIMIT", size_t(1) << 30);

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

thread_local Arena* currentArena = nullptr;
std::atomic<size_t> cudaAllocations(0);

void* poolAllocate(size_t bytes, cudaStream_t stream)
{
    endLaunchRecording(); // stream-ordered: after what was recorded (launch_recording.hpp's contract)
    ++cudaAllocations;
    void* p = nullptr;
    checkCuda(cudaMallocFromPoolAsync(&p, bytes, currentPool(), stream), "cudaMallocFromPoolAsync");
    return p;
}

size_t alignArena(size_t bytes) { return (bytes + 255) / 256 * 256; }

} // namespace

void* StreamBuffer::allocate(size_t bytes, cudaStream_t stream)
{
    release();
    stream_ = stream;
    fromArena_ = currentArena != nullptr;
    ptr_ = fromArena_ ? currentArena->take(bytes, stream) : poolAllocate(bytes, stream);
    return ptr_;
}

void StreamBuffer::release()
{
    if (ptr_ && !fromArena_)
    {
        endLaunchRecording(); // the recorded work may use the memory: queued before it is freed
        cudaFreeAsync(ptr_, stream_);
    }
    ptr_ = nullptr;
    fromArena_ = false;
}

ArenaScope::ArenaScope(Arena* arena) : previous_(currentArena)
{
    if (arena)
        currentArena = arena;
}
ArenaScope::~ArenaScope() { currentArena = previous_; }

bool arenaInScope() { return currentArena != nullptr; }

Arena::~Arena()
{
    try
    {
        release();
    }
    catch (...)
    {
    }
    if (done_)
        cudaEventDestroy(done_);
}

void Arena::beginCall(cudaStream_t stream)
{
    // The previous call's work ends before this call's reuses the memory. Waited for even when the handle is
    // the previous call's: the caller may have destroyed that stream and made a new one with the same handle.
    if (called_)
        checkCuda(cudaStreamWaitEvent(stream, done_, 0), "cudaStreamWaitEvent (arena)");
    // A call that needed more than the first chunk: one chunk of its size from now on (stream-ordered free
    // and allocation, after the previous call's work as above).
    if (grew_ && chunks_.size() > 1)
    {
        freeChunks(stream);
        chunks_.push_back({ static_cast<char*>(poolAllocate(lastCallBytes_, stream)), lastCallBytes_ });
        ++allocations_;
    }
    chunk_ = offset_ = callBytes_ = 0;
    grew_ = false;
}

void* Arena::take(size_t bytes, cudaStream_t stream)
{
    bytes = alignArena(bytes == 0 ? 1 : bytes);
    callBytes_ += bytes;
    while (chunk_ < chunks_.size() && offset_ + bytes > chunks_[chunk_].size)
    {
        ++chunk_;
        offset_ = 0;
    }
    if (chunk_ == chunks_.size())
    {
        // A new chunk: at least what this call has asked for so far, doubling what the arena holds.
        const size_t size = std::max(std::max(bytes, callBytes_), std::max<size_t>(this->bytes(), size_t(1) << 20));
        chunks_.push_back({ static_cast<char*>(poolAllocate(size, stream)), size });
        ++allocations_;
        grew_ = true;
        offset_ = 0;
    }
    void* p = chunks_[chunk_].data + offset_;
    offset_ += bytes;
    return p;
}

void Arena::endCall(cudaStream_t stream)
{
    if (!done_)
        checkCuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreateWithFlags (arena)");
    checkCuda(cudaEventRecord(done_, stream), "cudaEventRecord (arena)");
    lastCallBytes_ = callBytes_;
    called_ = true;
}

void Arena::freeChunks(cudaStream_t stream)
{
    endLaunchRecording(); // the recorded work may use the memory: queued before it is freed
    for (const Chunk& c : chunks_)
        cudaFreeAsync(c.data, stream);
    retired_.swap(chunks_);
    chunks_.clear();
}

void Arena::release(cudaStream_t stream)
{
    if (chunks_.empty())
        return;
    if (called_)
        checkCuda(cudaEventSynchronize(done_), "cudaEventSynchronize (arena)");
    // Not on the last call's stream: the caller may have destroyed it (an analyzer outlives the streams it
    // was given; the driver crashed in cuMemFreeAsync). That work is done, so any stream will do.
    freeChunks(stream);
    chunk_ = offset_ = 0;
    grew_ = false;
}

size_t Arena::bytes() const
{
    size_t total = 0;
    for (const Chunk& c : chunks_)
        total += c.size;
    return total;
}

bool Arena::contains(const void* p) const
{
    const char* q = static_cast<const char*>(p);
    for (const std::vector<Chunk>* list : { &chunks_, &retired_ })
        for (const Chunk& c : *list)
            if (q >= c.data && q < c.data + c.size)
                return true;
    return false;
}

namespace {

/** This thread's kept arenas, one per device (an arena's chunks belong to the device they came from). */
std::map<int, std::unique_ptr<Arena>>& threadKeptArenas()
{
    thread_local std::map<int, std::unique_ptr<Arena>> arenas;
    return arenas;
}

} // namespace

Arena& threadKeptArena()
{
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    std::unique_ptr<Arena>& arena = threadKeptArenas()[device];
    if (!arena)
        arena.reset(new Arena());
    return *arena;
}

ArenaCall::ArenaCall(Arena* arena, cudaStream_t stream) : arena_(arena), stream_(stream)
{
    if (arena_)
        arena_->beginCall(stream_);
}

ArenaCall::~ArenaCall()
{
    if (!arena_)
        return;
    try
    {
        arena_->endCall(stream_);
    }
    catch (...)
    {
    }
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

size_t cudaAllocationCount() { return cudaAllocations.load(); }

void* allocateFromPool(size_t bytes, cudaStream_t stream) { return poolAllocate(bytes, stream); }

void countPinnedAllocation() { ++cudaAllocations; }

void PinnedArena::beginCall(size_t bytes)
{
    offset_ = 0;
    if (bytes <= size_)
        return;
    release();
    countPinnedAllocation();
    checkCuda(cudaHostAlloc(reinterpret_cast<void**>(&data_), bytes, cudaHostAllocPortable | cudaHostAllocMapped),
              "cudaHostAlloc (analyzer outputs)");
    size_ = bytes;
    ++allocations_;
}

void* PinnedArena::take(size_t bytes)
{
    bytes = alignArena(bytes == 0 ? 1 : bytes);
    if (offset_ + bytes > size_)
        checkCuda(cudaErrorInvalidValue, "PinnedArena: a call took more than it announced");
    void* p = data_ + offset_;
    offset_ += bytes;
    return p;
}

void PinnedArena::release()
{
    if (data_)
    {
        cudaFreeHost(data_);
        retiredData_ = data_;
        retiredSize_ = size_;
    }
    data_ = nullptr;
    size_ = offset_ = 0;
}

bool PinnedArena::contains(const void* p) const
{
    const char* q = static_cast<const char*>(p);
    return (data_ && q >= data_ && q < data_ + size_) ||
           (retiredData_ && q >= retiredData_ && q < retiredData_ + retiredSize_);
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
    cudacca::releaseIdlePinnedMats();
    cudaMemPool_t pool = cudacca::existingCurrentPool();
    if (!pool)
        return;
    // this thread's kept memory on this device first (other threads' stays theirs until their next release)
    int device = 0;
    cudacca::checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    auto& kept = cudacca::threadKeptArenas();
    const auto it = kept.find(device);
    if (it != kept.end() && it->second)
        it->second->release();
    cudacca::checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (pool release)");
    cudacca::checkCuda(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
}

}} // namespace cv::cuda
