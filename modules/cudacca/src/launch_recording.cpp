// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// LaunchRecording (cuda/launch_recording.hpp): this thread's recording, and its graphs kept between calls.

#include "precomp.hpp"
#include "allocation_count.hpp"
#include "arguments.hpp"
#include "cuda/launch.hpp"
#include "cuda/launch_recording.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <list>

namespace cv { namespace cuda { namespace cudacca {

/** A key seen before, with its graph once made (exec null: seen once; `failed`: its capture failed, never tried
again). */
struct KeptGraph
{
    int device = -1;
    std::vector<unsigned char> key;
    cudaGraphExec_t exec = nullptr;
    bool failed = false;
};

namespace {

/** Whether the run pipeline replays its work before the wait as a graph where OPENCV_CUDACCA_LAUNCH_GRAPHS is not set.
Yes: on the H100 at 2048^2, in the benchmark's protocol (a round robin of 12 calls a case, 22 processes a side), full
CCA took 0.94-0.98 of the time and labels only 0.92-0.97 (session 59, with 32 kept keys; session 58's 8 did not fit
that round robin: 1.01-1.05; doc/benchmarks.md, "The work before the wait as one CUDA graph"). */
constexpr bool kLaunchGraphsByDefault = true;

/** Keys kept per thread: calls that repeat within this many others (frames of a few cameras, a ring of input buffers,
several output kinds or algorithms in turn) replay; a stream of ever new buffers makes no graph (each key is seen
once) and costs only its key. With 8, a benchmark's round robin of 12 calls (4 algorithms x 3 output kinds, each
with outputs of its own) never repeated within the kept keys and was 1-5 % slower than without graphs (H100,
doc/benchmarks.md, "The work before the wait as one CUDA graph"); with 32 it replayed and was faster (session 59). */
constexpr size_t kKeptGraphs = 32;

thread_local LaunchRecording* activeRecording = nullptr;

/** Graphs made, graphs launched and recordings queued without one on this thread so far (launchGraphCounts). */
struct RecordingCounts
{
    size_t made = 0, replayed = 0, direct = 0;
};
thread_local RecordingCounts recordingCounts;

std::atomic<int> forcedLaunchGraphs(-1); // setLaunchGraphs (tests)

/** This thread's keys, most recently used first, and its capture streams (one per device: streams belong to one). */
struct ThreadGraphs
{
    std::list<KeptGraph> kept;
    std::vector<std::pair<int, cudaStream_t>> captureStreams;
    ~ThreadGraphs()
    {
        // At thread or process exit the context may be gone already: errors are ignored.
        for (KeptGraph& g : kept)
            if (g.exec)
                cudaGraphExecDestroy(g.exec);
        for (auto& s : captureStreams)
            cudaStreamDestroy(s.second);
        cudaGetLastError();
    }
    cudaStream_t captureStream(int device)
    {
        for (auto& s : captureStreams)
            if (s.first == device)
                return s.second;
        cudaStream_t s = nullptr;
        checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (graph capture)");
        captureStreams.emplace_back(device, s);
        return s;
    }
};

ThreadGraphs& threadGraphs()
{
    thread_local ThreadGraphs graphs;
    return graphs;
}

} // namespace

bool launchGraphsWanted()
{
    const int forced = forcedLaunchGraphs.load(std::memory_order_relaxed);
    if (forced >= 0)
        return forced != 0;
    static const size_t mode = environmentSize("OPENCV_CUDACCA_LAUNCH_GRAPHS", 0);
    return mode == 2 || (mode != 1 && kLaunchGraphsByDefault);
}

void setLaunchGraphs(int mode) { forcedLaunchGraphs.store(mode < 0 ? -1 : mode != 0 ? 1 : 0, std::memory_order_relaxed); }

void launchGraphCounts(size_t& made, size_t& replayed)
{
    made = recordingCounts.made;
    replayed = recordingCounts.replayed;
}

LaunchRecording::LaunchRecording(cudaStream_t stream, bool enabled) : stream_(stream)
{
    if (!enabled || activeRecording)
        return;
    checkCuda(cudaGetDevice(&device_), "cudaGetDevice");
    for (KeptGraph& g : threadGraphs().kept)
        if (g.device == device_)
            candidates_.push_back(&g);
    passing_ = candidates_.empty();
    key_.reserve(2048);
    argumentAt_.reserve(128);
    ops_.reserve(16);
    recording_ = true;
    activeRecording = this;
}

LaunchRecording::~LaunchRecording()
{
    if (activeRecording == this)
        activeRecording = nullptr;
}

LaunchRecording* LaunchRecording::active(cudaStream_t stream)
{
    LaunchRecording* r = activeRecording;
    return r && r->stream_ == stream ? r : nullptr;
}

size_t LaunchRecording::appendBytes(const void* p, size_t n, size_t alignment)
{
    const size_t at = (key_.size() + alignment - 1) / alignment * alignment; // padding: zero bytes
    key_.resize(at + n);
    std::memcpy(key_.data() + at, p, n);
    return at;
}

void LaunchRecording::beginOp(const void* kernel, dim3 grid, dim3 block, const char* what, cudaEvent_t event)
{
    ops_.push_back({ kernel, grid, block, what, event, argumentAt_.size(), 0 });
    const unsigned char tag = kernel ? 'K' : 'E';
    appendBytes(&tag, 1, 1);
    appendBytes(kernel ? static_cast<const void*>(&kernel) : static_cast<const void*>(&event), sizeof(void*), 1);
    appendBytes(&grid, sizeof grid, 1);
    appendBytes(&block, sizeof block, 1);
}

void LaunchRecording::matchCandidates()
{
    if (passing_)
        return;
    const size_t size = key_.size();
    candidates_.erase(std::remove_if(candidates_.begin(), candidates_.end(), [&](const KeptGraph* g) {
        return g->key.size() < size || std::memcmp(g->key.data() + matched_, key_.data() + matched_, size - matched_) != 0;
    }), candidates_.end());
    matched_ = size;
    passing_ = candidates_.empty();
}

void LaunchRecording::endOp()
{
    matchCandidates();
    if (passing_)
        for (; queued_ < ops_.size(); ++queued_)
            queue(ops_[queued_], stream_);
}

void LaunchRecording::addToKey(const void* p, size_t bytes)
{
    if (!recording_)
        return;
    const unsigned char tag = 'B';
    appendBytes(&tag, 1, 1);
    appendBytes(p, bytes, 1);
    matchCandidates();
}

void LaunchRecording::queue(const Op& op, cudaStream_t s) const
{
    if (!op.kernel)
    {
        checkCuda(cudaEventRecord(op.event, s), op.what);
        return;
    }
    void* arguments[kMaxArguments];
    for (int i = 0; i < op.arguments; ++i)
        arguments[i] = const_cast<unsigned char*>(key_.data()) + argumentAt_[op.first + i];
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = dependentLaunchConfig(op.grid, op.block, s, attribute);
    checkCuda(cudaLaunchKernelExC(&config, op.kernel, arguments), op.what);
}

void LaunchRecording::addEventRecord(cudaEvent_t event, const char* what)
{
    beginOp(nullptr, dim3(), dim3(), what, event);
    endOp();
}

void LaunchRecording::remember()
{
    ThreadGraphs& graphs = threadGraphs();
    if (graphs.kept.size() >= kKeptGraphs)
    {
        if (graphs.kept.back().exec)
            cudaGraphExecDestroy(graphs.kept.back().exec);
        graphs.kept.pop_back();
    }
    KeptGraph g;
    g.device = device_;
    g.key = std::move(key_);
    graphs.kept.push_front(std::move(g));
}

void LaunchRecording::finish()
{
    if (!recording_)
        return;
    recording_ = false;
    if (activeRecording == this)
        activeRecording = nullptr;
    if (ops_.empty())
        return;
    KeptGraph* const* same = std::find_if(candidates_.data(), candidates_.data() + candidates_.size(),
                                          [&](const KeptGraph* g) { return g->key.size() == key_.size(); });
    if (passing_ || same == candidates_.data() + candidates_.size())
    {
        // A new key (its work is on the stream, or queued now), remembered.
        for (; queued_ < ops_.size(); ++queued_)
            queue(ops_[queued_], stream_);
        remember();
        ++recordingCounts.direct;
        return;
    }
    ThreadGraphs& graphs = threadGraphs();
    auto it = std::find_if(graphs.kept.begin(), graphs.kept.end(), [&](const KeptGraph& g) { return &g == *same; });
    graphs.kept.splice(graphs.kept.begin(), graphs.kept, it); // most recently used first
    KeptGraph& g = graphs.kept.front();
    if (!g.exec && !g.failed)
    {
        // Seen before: captured once. An error of the capture (not of the work) makes it queue without a graph.
        const cudaStream_t capture = graphs.captureStream(device_);
        cudaGraph_t graph = nullptr;
        if (cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal) == cudaSuccess)
        {
            try
            {
                for (const Op& op : ops_)
                    if (op.kernel)
                        queue(op, capture);
            }
            catch (const cv::Exception&)
            {
            }
            if (cudaStreamEndCapture(capture, &graph) != cudaSuccess)
                graph = nullptr;
        }
        if (graph && cudaGraphInstantiate(&g.exec, graph, 0) != cudaSuccess)
            g.exec = nullptr;
        if (graph)
            cudaGraphDestroy(graph);
        if (g.exec)
            ++recordingCounts.made;
        else
        {
            cudaGetLastError(); // the capture's error, not the work's
            g.failed = true;
        }
    }
    if (!g.exec)
    {
        for (; queued_ < ops_.size(); ++queued_)
            queue(ops_[queued_], stream_);
        ++recordingCounts.direct;
        return;
    }
    checkCuda(cudaGraphLaunch(g.exec, stream_), "cudaGraphLaunch (the work before the wait for N)");
    ++recordingCounts.replayed;
    for (const Op& op : ops_)
        if (!op.kernel)
            queue(op, stream_);
    queued_ = ops_.size();
}

void endLaunchRecording()
{
    if (activeRecording)
        activeRecording->finish();
}

void queueEventRecord(cudaEvent_t event, cudaStream_t stream, const char* what)
{
    if (LaunchRecording* r = LaunchRecording::active(stream))
        r->addEventRecord(event, what);
    else
        checkCuda(cudaEventRecord(event, stream), what);
}

}}} // namespace cv::cuda::cudacca
