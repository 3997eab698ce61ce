// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cudacca's temporary device memory: stream-ordered buffers from a private pool kept between calls.

#ifndef CUDACCA_DEVICE_MEMORY_HPP
#define CUDACCA_DEVICE_MEMORY_HPP

#include <cstddef>
#include <vector>
#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

/** Device memory ordered on a stream, from cudacca's stream-ordered pool (kept between calls), freed with
cudaFreeAsync on the same stream when released or destroyed: no device-wide synchronization, so calls on
different streams overlap. Every temporary buffer of the pipeline and of the algorithms comes from here,
so that cv::cuda::getConnectedComponentsPeakBytes() measures the peak.
allocate() throws cv::Exception (cv::Error::StsNoMem) when the device is out of memory.
While an ArenaScope is active on the calling thread, allocate() takes its memory from that Arena instead
(and release() gives nothing back: the arena reuses it at its next call). */
class StreamBuffer
{
public:
    StreamBuffer() = default;
    StreamBuffer(const StreamBuffer&) = delete;
    StreamBuffer& operator=(const StreamBuffer&) = delete;
    ~StreamBuffer() { release(); }

    void* allocate(size_t bytes, cudaStream_t stream); //!< releases what it held first
    void release();
    void* get() const { return ptr_; }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_ = 0;
    bool fromArena_ = false;
};

/** The device memory of a ConnectedComponentsAnalyzer (connected_components_analyzer.cpp), kept between
its calls: chunks from cudacca's pool, handed out in order during a call (a bump allocator) and all
reused by the next call, so that once the arena has grown to what a call needs, a call allocates nothing.
A call that needed a new chunk has the chunks merged into one at the next call. Calls may change streams:
a call waits (on the device) for the previous call's work before it reuses the memory. Not thread-safe:
one object, one call at a time (the object's contract). */
class Arena
{
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena();

    /** Starts a call on `stream`: every chunk free again (after the previous call's work, on the device). */
    void beginCall(cudaStream_t stream);
    /** Ends the call: its work on `stream` must finish before the next call reuses the memory. */
    void endCall(cudaStream_t stream);
    /** `bytes` of device memory, 256-byte aligned, until the next beginCall(). */
    void* take(size_t bytes, cudaStream_t stream);
    /** Waits for the last call, then frees every chunk, stream-ordered on `stream` (any live stream: the work that
    used them is done). */
    void release(cudaStream_t stream = cudaStreamPerThread);

    size_t bytes() const;                                   //!< device memory held now
    /** p lies in one of the chunks, or in one that the last merge or release retired: memory the arena
    handed out (stats and centroids views) in its current or previous call. */
    bool contains(const void* p) const;
    size_t chunkAllocations() const { return allocations_; } //!< chunks allocated so far (tests)

private:
    struct Chunk
    {
        char* data;
        size_t size;
    };
    void freeChunks(cudaStream_t stream);

    std::vector<Chunk> chunks_;
    std::vector<Chunk> retired_; //!< address ranges of the chunks last freed (never dereferenced)
    size_t chunk_ = 0;      //!< the chunk handing out memory now
    size_t offset_ = 0;     //!< bytes handed out from it
    size_t callBytes_ = 0;  //!< bytes this call asked for (alignment included)
    size_t lastCallBytes_ = 0;
    bool grew_ = false;     //!< this call allocated a chunk
    size_t allocations_ = 0;
    cudaEvent_t done_ = nullptr; //!< recorded at the end of each call
    bool called_ = false;
};

/** The pinned host memory of a ConnectedComponentsAnalyzer for the host stats and centroids it hands out:
one buffer, grown when a call needs more than it holds (the old one is freed then: what an earlier call
handed out is valid until the next call, as documented), reused by every call. */
class PinnedArena
{
public:
    PinnedArena() = default;
    PinnedArena(const PinnedArena&) = delete;
    PinnedArena& operator=(const PinnedArena&) = delete;
    ~PinnedArena() { release(); }

    /** Starts handing out memory; the call will take at most `bytes` (256-byte aligned pieces). */
    void beginCall(size_t bytes);
    void* take(size_t bytes);
    void release();
    size_t bytes() const { return size_; }
    /** p lies in the buffer, or in the one the last growth or release freed (see Arena::contains). */
    bool contains(const void* p) const;
    size_t allocations() const { return allocations_; }

private:
    char* data_ = nullptr;
    size_t size_ = 0;
    size_t offset_ = 0;
    size_t allocations_ = 0;
    const char* retiredData_ = nullptr; //!< address range of the buffer last freed (never dereferenced)
    size_t retiredSize_ = 0;
};

/** Routes this thread's StreamBuffer allocations to `arena` for its lifetime (one call of the analyzer, or of the
free function with its kept arena). A null `arena` routes nothing. */
class ArenaScope
{
public:
    explicit ArenaScope(Arena& arena) : ArenaScope(&arena) {}
    explicit ArenaScope(Arena* arena);
    ~ArenaScope();
    ArenaScope(const ArenaScope&) = delete;
    ArenaScope& operator=(const ArenaScope&) = delete;

private:
    Arena* previous_;
};

/** Whether an ArenaScope routes this thread's StreamBuffer allocations now. */
bool arenaInScope();

/** `bytes` of device memory from cudacca's pool of the current device, stream-ordered on `stream` (free it with
cudaFreeAsync, or cudaFree once the device is idle). For memory an object keeps outside any call. */
void* allocateFromPool(size_t bytes, cudaStream_t stream);

/** Counts a cudaHostAlloc for cudaAllocationCount() (allocation_count.hpp). */
void countPinnedAllocation();

/** cv::cuda::releaseConnectedComponentsPool() with errors ignored. Called when a call runs out of memory,
once its buffers are freed, so that the failed call holds nothing. */
void trimTemporaryPool() noexcept;

/** The device memory that the free function keeps between its calls on this host thread and the current device
(the one-launch path's scratch, and the pipelines' buffers on images of up to 2^22 pixels: connected_components.cpp),
as an analyzer keeps its own: chunks of cudacca's
pool, counted by getConnectedComponentsPoolBytes(), given back by releaseConnectedComponentsPool() on this
thread (and by trimTemporaryPool()), or at the thread's end. One call at a time: the thread's. */
Arena& threadKeptArena();

/** An Arena's call for a scope: beginCall() now, endCall() at the end (also when the call throws), on `stream`.
Nothing when `arena` is null. */
class ArenaCall
{
public:
    ArenaCall(Arena* arena, cudaStream_t stream);
    ~ArenaCall();
    ArenaCall(const ArenaCall&) = delete;
    ArenaCall& operator=(const ArenaCall&) = delete;

private:
    Arena* arena_;
    cudaStream_t stream_;
};

}}} // namespace cv::cuda::cudacca

#endif
