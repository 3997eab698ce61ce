// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The run pipeline's work before the host's wait for N, replayed as one CUDA graph (CUDA Programming Guide, "CUDA
// Graphs") when a call queues exactly what an earlier call queued: the same kernels, launch shapes and argument
// bytes (the kept arena hands the same buffers back, so a stream of frames of one shape repeats its calls). A
// 2048^2 call queues ten launches there, and at 3-4.5 us of host time each the host, not the GPU, sets its pace
// (doc/benchmarks.md, "A slow process at 2048^2 is the host's queueing too"); a graph is one launch.
//
// How: while a LaunchRecording is active on this thread, launchDependent() (launch.hpp) and queueEventRecord() add
// what they queue on its stream to a key: kernel, grid, block and every argument's bytes as the kernel receives them.
// While the key so far begins one that this thread kept (a recording seen before), the work is held back; as soon as
// it matches none, what was held is queued and the rest goes straight to the stream (so new work starts as early as
// without a recording). finish() then remembers a new key, or, for a key seen before, launches its graph: made by
// capturing the held work once (stream capture on a private stream, which turns dependent launches into
// programmatic edges) the second time the key is seen. Event records are left out of a graph and queued after it,
// so that an event completes no earlier than where it was recorded (the host's waits on it need no more:
// mapped_count.hpp). Why a replay is the same work: the key is compared byte for byte, and a kernel reads device
// memory when it runs, not when it was recorded; so a replay does what queueing the same launches would do, whatever
// the image's pixels are now. A failed capture or instantiation queues the held work one by one, as without graphs.
//
// Contract: anything else that touches the stream while a recording is active (a copy, a memset, CUB, a stream-ordered
// allocation or free, a host wait) must call endLaunchRecording() first, which queues what was held (keeping the
// stream's order) and ends the recording. awaitMappedCount() does so itself, and StreamBuffer's pool paths.

#ifndef CUDACCA_LAUNCH_RECORDING_HPP
#define CUDACCA_LAUNCH_RECORDING_HPP

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

struct KeptGraph; // launch_recording.cpp

class LaunchRecording
{
public:
    /** Starts recording this thread's dependent launches and event records on `stream` when `enabled` (and no other
    recording is active); else records nothing. */
    LaunchRecording(cudaStream_t stream, bool enabled);
    /** Drops what is held and not queued: only a call that throws leaves a recording unfinished. */
    ~LaunchRecording();
    LaunchRecording(const LaunchRecording&) = delete;
    LaunchRecording& operator=(const LaunchRecording&) = delete;

    /** Queues what is held (as a graph where one is made or worth making, above) and ends the recording. */
    void finish();

    /** The recording active on this thread for `stream`, or null. */
    static LaunchRecording* active(cudaStream_t stream);

    /** Records kernel<<<grid, block, 0, stream>>>(args...), a dependent launch (launch.hpp). */
    template <typename... Params, typename... Args>
    void addKernel(void (*kernel)(Params...), dim3 grid, dim3 block, const char* what, Args&&... args)
    {
        static_assert(sizeof...(Params) == sizeof...(Args), "one argument per parameter");
        static_assert(sizeof...(Params) <= kMaxArguments, "kMaxArguments");
        beginOp(reinterpret_cast<const void*>(kernel), grid, block, what, nullptr);
        (appendArgument<std::decay_t<Params>>(std::forward<Args>(args)), ...);
        endOp();
    }

    /** Records cudaEventRecord(event, stream). */
    void addEventRecord(cudaEvent_t event, const char* what);

    /** Adds bytes that the work will depend on (the call's buffers) to the key before any work: a call whose buffers
    no kept key had then queues its work at once instead of holding it until the first launch that shows them. */
    void addToKey(const void* p, size_t bytes);

    static constexpr int kMaxArguments = 16;

private:
    /** One recorded launch (kernel) or event record (event); its arguments lie in key_ at argumentAt_[first...]. */
    struct Op
    {
        const void* kernel;
        dim3 grid, block;
        const char* what;
        cudaEvent_t event;
        size_t first;
        int arguments;
    };
    /** The argument as the kernel receives it (converted as a launch converts it), appended to the key. */
    template <typename P, typename A>
    void appendArgument(A&& argument)
    {
        static_assert(std::is_trivially_copyable<P>::value, "a kernel argument is compared and kept as bytes");
        const P value = std::forward<A>(argument);
        argumentAt_.push_back(appendBytes(&value, sizeof(P), alignof(P)));
        ++ops_.back().arguments;
    }
    size_t appendBytes(const void* p, size_t n, size_t alignment); //!< returns the offset in key_
    void beginOp(const void* kernel, dim3 grid, dim3 block, const char* what, cudaEvent_t event);
    void endOp();
    void matchCandidates(); //!< drops the candidates that the key's last bytes rule out
    void queue(const Op& op, cudaStream_t s) const;
    void remember();

    cudaStream_t stream_ = nullptr;
    int device_ = -1;
    bool recording_ = false;
    bool passing_ = false;        //!< the key matches nothing kept: work goes straight to the stream
    size_t matched_ = 0;          //!< key bytes compared with the candidates so far
    std::vector<KeptGraph*> candidates_; //!< kept keys that begin with the key so far
    std::vector<unsigned char> key_;
    std::vector<size_t> argumentAt_;
    std::vector<Op> ops_;
    size_t queued_ = 0;           //!< ops_[0, queued_) are on the stream
};

/** Queues and ends this thread's active recording, if any (the contract above). */
void endLaunchRecording();

/** cudaEventRecord(event, stream), recorded while a recording is active on the stream. */
void queueEventRecord(cudaEvent_t event, cudaStream_t stream, const char* what);

/** Whether the run pipeline records its work before the wait for N, as the environment variable
OPENCV_CUDACCA_LAUNCH_GRAPHS sets it (read once): 1 never, 2 wherever it applies (connected_components.cpp,
runPipeline); 0 or not set: the measured choice (kLaunchGraphsByDefault in launch_recording.cpp). The results are the
same either way. */
bool launchGraphsWanted();

}}} // namespace cv::cuda::cudacca

#endif
