// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cv::cuda::connectedComponentsWithStats: the two pipelines of doc/design.md.
//  forest pipeline      an algorithm's labeling builds the LabelForest, the shared analysis ranks its roots
//                       in raster order, the host learns N, then the labels are rewritten and the
//                       statistics accumulated;
//  run-table pipeline   (RunLabeling: the FLSL family) the runs are the nodes; they are ranked, the label
//                       image is written once from them (while N travels to the host when nothing can
//                       still refuse the call) and the statistics come from the runs.

#include "precomp.hpp"
#include "arguments.hpp"
#include "host_staging.hpp"
#include "one_launch.hpp"
#include "pinned_mats.hpp"
#include "pipeline.hpp"
#include "cuda/launch_recording.hpp"
#include "cuda/mapped_count.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>

namespace cv { namespace cuda {

namespace {

using namespace cudacca;

/** A rows x cols matrix of `type` in a StreamBuffer. Image-wide rows are aligned to 128 bytes; narrow
rows (stats: 20 bytes, centroids: 16) are packed, since padding them would multiply their memory and
the bytes their download moves. */
GpuMat allocateMat(StreamBuffer& buffer, int rows, int cols, int type, cudaStream_t stream)
{
    const size_t rowBytes = static_cast<size_t>(cols) * CV_ELEM_SIZE(type);
    const size_t step = rowBytes >= 512 ? (rowBytes + 127) / 128 * 128 : rowBytes;
    return GpuMat(rows, cols, type, buffer.allocate(step * rows, stream), step);
}

bool fitsForest(int rows, size_t ld)
{
    return static_cast<unsigned long long>(rows) * ld < static_cast<unsigned long long>(INT_MAX);
}

LabelForest forestOf(const GpuMat& m)
{
    LabelForest f;
    f.data = const_cast<int*>(m.ptr<int>());
    f.ld = static_cast<int>(m.step / sizeof(int));
    f.rows = m.rows;
    f.cols = m.cols;
    return f;
}

/** Where the forest is built, and where the final labels are written. */
struct LabelPlan
{
    StreamBuffer forestBuffer;
    StreamBuffer labelsBuffer;
    GpuMat forest;
    bool forestIsLabels = false; //!< the forest is the caller's CV_32S GpuMat: relabeled in place
};

/** The forest goes straight into the caller's CV_32S GpuMat when it can hold it (the relabeling then
works in place and no image-sized buffer of ours is needed); otherwise into an int32 buffer of our own,
rows padded to 128 bytes unless that overflows the index. Not when stats or centroids have a fixed size:
that is checked only once N is known, and the labels must still be untouched if it fails. */
void planForest(LabelPlan& plan, OutputArray labels, bool sizeCheckedLate, Size size, int ltype, cudaStream_t s)
{
    if (ltype == CV_32S && labels.kind() == _InputArray::CUDA_GPU_MAT && !sizeCheckedLate)
    {
        labels.create(size, CV_32SC1);
        GpuMat m = labels.getGpuMat();
        if (fitsForest(m.rows, m.step / sizeof(int)))
        {
            plan.forest = m;
            plan.forestIsLabels = true;
            return;
        }
    }
    plan.forest = allocateMat(plan.forestBuffer, size.height, size.width, CV_32SC1, s);
    if (!fitsForest(plan.forest.rows, plan.forest.step / sizeof(int)))
        plan.forest = GpuMat(size.height, size.width, CV_32SC1,
                             plan.forestBuffer.allocate(sizeof(int) * size.area(), s));
}

/** Where an output of `rows` x `cols` is written on the device: straight into the caller's GpuMat, or
into `buffer` when the caller gave a host Mat (downloaded at the end). A NARROW output (stats: 20-byte
rows, centroids: 16) that the caller's GpuMat does not already fit is allocated continuous: GpuMat::create
pitches every row to 512 bytes (cudaMallocPitch), 25-32 times the memory, and each row's few bytes then
sit in sectors of their own (H100, 2.7 M labels: the finalization took 0.86 ms, most of FLSL_CD's
statistics). With an analyzer's `arena`, such an output is instead handed out from the arena (the caller's
GpuMat becomes a view of it, valid until the analyzer's next call): no allocation. A GpuMat that already
points into the arena (handed out by an earlier call) is never written in place: the arena reuses that
memory. */
GpuMat deviceOutput(OutputArray out, int rows, int cols, int type, StreamBuffer& buffer, cudaStream_t stream,
                    bool narrow = false, const Arena* arena = nullptr)
{
    if (out.kind() == _InputArray::CUDA_GPU_MAT)
    {
        const bool fits = out.size() == Size(cols, rows) && out.type() == type &&
                          !(arena && arena->contains(out.getGpuMatRef().data));
        if (narrow && !fits && arena && !out.fixedSize() && !out.fixedType())
        {
            out.getGpuMatRef() = allocateMat(buffer, rows, cols, type, stream);
            return out.getGpuMat();
        }
        if (narrow && !fits && static_cast<long long>(rows) * cols <= INT_MAX)
            cuda::createContinuous(rows, cols, type, out);
        else
            out.create(rows, cols, type);
        return out.getGpuMat();
    }
    return allocateMat(buffer, rows, cols, type, stream);
}

/** The final label image: the forest itself (the caller's GpuMat, or our CV_32S buffer relabeled in place
and downloaded), else the caller's GpuMat or a buffer of ours. Called once N is known and checked. */
GpuMat finalLabels(LabelPlan& plan, OutputArray labels, Size size, int ltype, cudaStream_t s)
{
    if (plan.forestIsLabels || (ltype == CV_32S && labels.kind() != _InputArray::CUDA_GPU_MAT))
        return plan.forest;
    return labels.needed() ? deviceOutput(labels, size.height, size.width, ltype, plan.labelsBuffer, s)
                           : allocateMat(plan.labelsBuffer, size.height, size.width, ltype, s);
}

/** Queues the download of `d` into the host output `out`. Both continuous (our stats and centroids are
packed, and a fresh Mat is): one 1D copy. GpuMat::download issues a 2D copy, which for stats with millions
of 20-byte rows ran at 0.3 GB/s on the H100 (300 ms for 2.7 M labels); the 1D copy runs at the link's
speed. With an analyzer's `pinned` memory, a narrow output that the caller's Mat does not fit becomes a
view of that memory (valid until the analyzer's next call) instead of a new Mat: no allocation. */
void downloadIfHost(OutputArray out, const GpuMat& d, Stream& stream, bool& waitNeeded, PinnedArena* pinned = nullptr)
{
    if (!out.needed() || d.empty() || out.kind() == _InputArray::CUDA_GPU_MAT)
        return;
    Mat h;
    if (out.kind() == _InputArray::CUDA_HOST_MEM) // pinned already: the copy below is asynchronous
    {
        out.create(d.size(), d.type());
        h = out.getHostMemRef().createMatHeader();
    }
    else
    {
        const bool fits = out.size() == d.size() && out.type() == d.type() &&
                          !(pinned && pinned->contains(out.getMatRef().data));
        if (pinned && !fits && !out.fixedSize() && !out.fixedType())
            out.getMatRef() = Mat(d.size(), d.type(), pinned->take(d.rows * d.step));
        else
            out.create(d.size(), d.type());
        h = out.getMat();
    }
    if (h.isContinuous() && d.isContinuous())
        checkCuda(cudaMemcpyAsync(h.data, d.data, h.total() * h.elemSize(), cudaMemcpyDeviceToHost,
                                  StreamAccessor::getStream(stream)),
                  "cudaMemcpyAsync (download of an output)");
    else
        d.download(h, stream);
    waitNeeded = true;
}

/** A pinned int of this host thread for the component count: a copy into pageable memory would return
only once the stream had reached it, so nothing could be queued behind it while the host waits. Kept for
the thread's life (portable: any device). Known limit: a cudaDeviceReset() by the application frees it
behind our back; a ConnectedComponentsAnalyzer owns its own instead. */
int* pinnedCount()
{
    struct Slot
    {
        int* p = nullptr;
        ~Slot() { if (p) cudaFreeHost(p); }
    };
    thread_local Slot slot;
    if (!slot.p)
    {
        countPinnedAllocation();
        checkCuda(cudaHostAlloc(reinterpret_cast<void**>(&slot.p), sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped),
                  "cudaHostAlloc (component count)");
    }
    return slot.p;
}

/** An event of this host thread for the wait on N, made once per device (events belong to a device). */
cudaEvent_t countEvent()
{
    struct Slot
    {
        int device = -1;
        cudaEvent_t e = nullptr;
        ~Slot() { if (e) cudaEventDestroy(e); }
    };
    thread_local Slot slot;
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    if (slot.device != device)
    {
        if (slot.e)
            cudaEventDestroy(slot.e);
        slot.e = nullptr;
        checkCuda(cudaEventCreateWithFlags(&slot.e, cudaEventDisableTiming), "cudaEventCreateWithFlags (component count)");
        slot.device = device;
    }
    return slot.e;
}

/** Keeps a call from leaving while a kernel it queued may still write r.pinnedCount: the next call on this thread
stores kCountPending there first and must then find its own kernels' writes only (awaitMappedCount). A call that
throws before it has read the count waits for its stream on the way out (errors ignored: a failed context writes
nothing more). */
class CountWrites
{
public:
    explicit CountWrites(cudaStream_t s) : stream_(s) {}
    ~CountWrites()
    {
        if (!read_ && cudaStreamSynchronize(stream_) != cudaSuccess)
            cudaGetLastError();
    }
    CountWrites(const CountWrites&) = delete;
    CountWrites& operator=(const CountWrites&) = delete;
    void read() { read_ = true; } //!< the last write of the call has been read: nothing is on its way

private:
    cudaStream_t stream_;
    bool read_ = false;
};

/** The number of foreground components: the pipeline's synchronization. The ranking writes it to r.pinnedCount
(mapped pinned memory, kCountPending until then: stored before the ranking is queued) itself: no copy between the
kernels, whose chain of dependent launches a copy would break (H100, 2048^2: 0.86-0.92 of the time,
doc/benchmarks.md). An event is queued, then `meanwhile()` queues work that does not depend on N (the GPU does it
while the host waits), then the host reads N as soon as it is written (awaitMappedCount, the event for errors). */
template <typename Meanwhile>
int waitForComponentCount(cudaStream_t s, const CallResources& r, Meanwhile&& meanwhile)
{
    queueEventRecord(r.countReady, s, "cudaEventRecord (component count)");
    meanwhile();
    return awaitMappedCount(r.pinnedCount, r.countReady, "the wait for the number of labels");
}

/** The statistics of every label in the CPU's layout, into the caller's outputs or buffers of ours. */
struct StatisticsOutputs
{
    StreamBuffer accumulatorBuffer, statsBuffer, centroidsBuffer;
    StatsAccumulators acc = {};
    GpuMat stats, centroids;
};

void initStatistics(StatisticsOutputs& out, int labelCount, cudaStream_t s)
{
    out.acc = initStatsAccumulators(out.accumulatorBuffer.allocate(statsAccumulatorBytes(labelCount), s), labelCount, s);
}

void finalizeOutputs(StatisticsOutputs& out, OutputArray stats, OutputArray centroids, int labelCount,
                     cudaStream_t s, const Arena* arena)
{
    if (stats.needed())
        out.stats = deviceOutput(stats, labelCount, CC_STAT_MAX, CV_32SC1, out.statsBuffer, s, true, arena);
    if (centroids.needed())
        out.centroids = deviceOutput(centroids, labelCount, 2, CV_64FC1, out.centroidsBuffer, s, true, arena);
    finalizeStatistics(out.acc, out.stats.empty() ? nullptr : out.stats.ptr<int>(), out.stats.step,
                       out.centroids.empty() ? nullptr : out.centroids.ptr<double>(), out.centroids.step,
                       std::numeric_limits<double>::quiet_NaN(), s);
}

/** One call's arguments and device results; the buffers live until the downloads are queued. */
struct Call
{
    Call(OutputArray labels, OutputArray stats, OutputArray centroids, int connectivity_, int ltype_, cudaStream_t s,
         const CallResources& r)
        : labelsOut(labels), statsOut(stats), centroidsOut(centroids), connectivity(connectivity_), ltype(ltype_),
          wantStats(stats.needed() || centroids.needed()), sizeCheckedLate(stats.fixedSize() || centroids.fixedSize()),
          stream(s), resources(r)
    {
    }

    OutputArray labelsOut, statsOut, centroidsOut;
    int connectivity, ltype;
    bool wantStats;
    bool sizeCheckedLate; //!< stats or centroids have a fixed size, checked only once N is known
    cudaStream_t stream;
    const CallResources& resources;

    LabelPlan plan;            //!< forest pipeline: the forest and the label buffers
    StreamBuffer labelsBuffer; //!< run-table pipeline: labels for a host Mat or CV_16U
    GpuMat labels;             //!< the final labels on the device (empty: not asked for)
    StatisticsOutputs statistics;
};

/** The forest pipeline; returns the number of labels (background included). */
int forestPipeline(Call& c, const AlgorithmInstance& algo, const BinaryImage& image)
{
    const Size size(image.cols, image.rows);
    const cudaStream_t s = c.stream;
    planForest(c.plan, c.labelsOut, c.sizeCheckedLate, size, c.ltype, s);
    const LabelForest forest = forestOf(c.plan.forest);

    // Labeling, then flattening and raster-order ranking.
    algo.labeling->label(image, forest, c.connectivity, c.wantStats, s);
    StreamBuffer rankBuffer;
    const size_t rankBytes = rankScratchBytes(size.height, size.width);
    char* rankMemory = static_cast<char*>(rankBuffer.allocate(256 + rankBytes, s));
    void* rankScratch = rankMemory + 256;
    CountWrites countWrites(s);
    *static_cast<volatile int*>(c.resources.pinnedCount) = kCountPending; // nothing on its way to it: CountWrites
    compressAndRank(forest, rankScratch, rankBytes, reinterpret_cast<int*>(rankMemory), s, nullptr, c.resources.pinnedCount);

    // N sizes stats and centroids and is the return value; the ranking wrote it to the host itself.
    const int labelCount = waitForComponentCount(s, c.resources, [] {}) + 1;
    countWrites.read();
    checkLabelCount(labelCount, c.ltype, c.statsOut, c.centroidsOut);

    // Final labels; the statistics ride on the relabeling (shared analysis) or follow it (the row's own).
    c.labels = finalLabels(c.plan, c.labelsOut, size, c.ltype, s);
    if (c.wantStats)
        initStatistics(c.statistics, labelCount, s);
    const bool sharedStats = c.wantStats && !algo.analysis;
    relabelAndAccumulate(forest, rankScratch, c.labels.data, c.labels.step, c.ltype == CV_16U,
                         sharedStats ? &c.statistics.acc : nullptr, s);
    if (c.wantStats && algo.analysis)
    {
        const LabelImage finalImage = { c.labels.data, c.labels.step, c.ltype == CV_16U, size.height, size.width };
        algo.analysis->accumulate(image, finalImage, *algo.labeling, c.statistics.acc, s);
    }
    return labelCount;
}

/** The run-table pipeline accumulates its statistics before N is known, while N travels to the host, into
accumulators sized without N: for its bound of N when those take at most kEarlyStatsBytesPerPixel (at 36
bytes per label: one label per 144 pixels), else for the labels that kEarlyStatsGuessBytesPerPixel holds (one
per 240 pixels: 279 620 at 8192^2), at least kEarlyStatsGuessLabels (590 KB), guessing that N fits. The kernels
read N on the device: they initialize N labels only, and do nothing when N does not fit; the host then starts
again once it knows N, at the cost of two kernels that returned at once, and the accumulation no longer overlaps
the label write. The guess was 16384 labels until session 33; 0.15 bytes per pixel took 0.92-0.97 of the full
call's time at 8192^2 where N now fits (g = 4 and 16, the `cells` image: 17 k-278 k labels), but not at g = 1
(H100; doc/benchmarks.md, "The early statistics' guess"), and adds at most 0.115 bytes per pixel to the peak (the
[ MEMORY ] test's image: 4096^2, 8-connectivity). */
constexpr double kEarlyStatsBytesPerPixel = 0.25;
constexpr double kEarlyStatsGuessBytesPerPixel = 0.15;
constexpr size_t kEarlyStatsGuessLabels = 16384;

/** The labels that the accumulators queued before N is known can hold (see kEarlyStatsBytesPerPixel). */
size_t earlyStatsCapacity(size_t bound, long long pixels)
{
    if (bound <= static_cast<size_t>(std::numeric_limits<int>::max()) &&
        statsAccumulatorBytes(static_cast<int>(bound)) <= kEarlyStatsBytesPerPixel * pixels)
        return bound;
    constexpr size_t kBytesPerLabel = 2 * sizeof(unsigned long long) + 5 * sizeof(int); // statsAccumulatorBytes
    const size_t guess = std::max(kEarlyStatsGuessLabels,
                                  static_cast<size_t>(kEarlyStatsGuessBytesPerPixel * pixels) / kBytesPerLabel);
    return std::min(guess, bound);
}

/** The free function keeps its device buffers between calls (this thread's kept arena, threadKeptArena) on images
of at most this many pixels: the one-launch path's, and the pipelines' (any algorithm; CCA_DEFAULT above
kOneLaunchMaxPixels). A call there is mostly the host's queueing (H100, 2048^2: about 40 us of launches,
doc/benchmarks.md "The host's timeline of a 2048^2 call"), to which each pool allocation and free added about 1 us,
six times a call, and where the pool placed them made the free function's steady latency depend on what ran before
("The free function's first latency row"). Larger images keep the pool's buffers: their kernels dominate, and an
arena holds the sum of a call's buffers, not their peak (issue 12's <= 1 byte per pixel at 4096^2). */
constexpr long long kKeptMaxPixels = 1ll << 22;

/** The run-table pipeline; returns the number of labels (background included). */
int runPipeline(Call& c, RunLabeling& runs, Analysis& analysis, const BinaryImage& image)
{
    const cudaStream_t s = c.stream;
    StreamBuffer countBuffer;
    int* d_componentCount = static_cast<int*>(countBuffer.allocate(sizeof(int), s));
    // The labels do not depend on N. Into the caller's CV_32S GpuMat, when nothing can still refuse the
    // call (CV_16U overflow, fixed-size stats), they are written while N travels to the host. Until then, when
    // its pixels are contiguous, that GpuMat holds the run table (the runs' parents, then their labels): no
    // table of our own (issue 12's memory; the two parts of the write: flsl_labeling.cu, LabelRows).
    const bool labelsFirst = c.labelsOut.kind() == _InputArray::CUDA_GPU_MAT && c.ltype == CV_32S && !c.sizeCheckedLate;
    RunLabeling::TableHome home;
    if (labelsFirst)
    {
        c.labels = deviceOutput(c.labelsOut, image.rows, image.cols, CV_32SC1, c.labelsBuffer, s);
        if (c.labels.isContinuous())
        {
            home.data = c.labels.data;
            home.step = c.labels.step;
            home.bytes = static_cast<size_t>(c.labels.rows) * c.labels.cols * sizeof(int);
        }
    }
    CountWrites countWrites(s); // labelAndRank writes the run count and N there
    // The work up to the wait for N, recorded and replayed as one CUDA graph where this call repeats an earlier one
    // (launch_recording.hpp; when launchGraphsWanted(), by default). Only with an arena in scope: its buffers
    // come back at the same addresses call after call, and none is freed during the call. Only on images of at most
    // kKeptMaxPixels, whose calls the host's queueing paces: the count's event is queued after a graph, so a wait that
    // outlasts the host's spin (awaitMappedCount) would also wait for the work after the count. The wait queues it.
    LaunchRecording recording(s, launchGraphsWanted() && arenaInScope() &&
                                 static_cast<long long>(image.rows) * image.cols <= kKeptMaxPixels);
    const void* const buffers[] = { image.data, c.labels.data }; // the caller's: a batch passes new ones per frame
    recording.addToKey(buffers, sizeof buffers);
    runs.labelAndRank(image, c.connectivity, c.wantStats, d_componentCount, c.resources.pinnedCount,
                      c.resources.countReady, home, s);

    auto writeLabels = [&](int type) {
        if (!labelsFirst)
            c.labels = deviceOutput(c.labelsOut, image.rows, image.cols, type, c.labelsBuffer, s);
        runs.writeLabels(c.labels.data, c.labels.step, type == CV_16U, s);
    };
    // Nor do the statistics, into accumulators sized without N (earlyStatsCapacity): accumulated while N
    // travels, so that the GPU does not wait for the host. They are ours, so a call refused after N has still
    // modified none of the caller's outputs.
    const size_t capacity = c.wantStats ? earlyStatsCapacity(runs.labelBound(), static_cast<long long>(image.rows) * image.cols) : 0;
    // The runs' merges need five atomics where the image lets a label's area share its sum of x's word (the top
    // comes from the root run: flsl_labeling.cu, accumulateRunsBlock).
    const int areaShift = statsAreaShift(image.rows, image.cols);
    auto initAccumulators = [&](int labels, const int* d_labelsKnownOnDevice) {
        c.statistics.acc = initStatsAccumulators(c.statistics.accumulatorBuffer.allocate(statsAccumulatorBytes(labels), s),
                                                 labels, s, d_labelsKnownOnDevice, areaShift);
    };
    // The rows over a run table kept in the labels are written once nothing can read the table any more: before
    // the wait when the early statistics hold every label the runs can make (or there are none), else after the
    // second accumulation, should N not fit.
    const bool statsFinalEarly = !c.wantStats || capacity >= runs.labelBound();
    // The work queued before the host waits for N, which the ranking itself writes to the host (labelAndRank's
    // contract); labels and statistics both take one launch (writeLabelsAndAccumulate): one kernel less in the chain.
    const int labelCount = waitForComponentCount(s, c.resources, [&] {
        if (capacity > 0)
            initAccumulators(static_cast<int>(capacity), d_componentCount);
        if (labelsFirst && capacity > 0)
            runs.writeLabelsAndAccumulate(c.labels.data, c.labels.step, analysis, c.statistics.acc, s);
        else if (labelsFirst)
            writeLabels(CV_32SC1);
        else if (capacity > 0)
            analysis.accumulate(image, LabelImage(), runs, c.statistics.acc, s);
        if (statsFinalEarly)
            runs.finishLabels(s);
    }) + 1;
    countWrites.read();
    checkLabelCount(labelCount, c.ltype, c.statsOut, c.centroidsOut);
    if (c.labelsOut.needed() && !labelsFirst)
        writeLabels(c.ltype);
    if (capacity > 0 && static_cast<size_t>(labelCount) <= capacity)
        c.statistics.acc.count = labelCount; // the labels finalized: 0 .. N-1 of the capacity
    else if (c.wantStats)
    {
        initAccumulators(labelCount, nullptr); // N did not fit: the early kernels did nothing
        analysis.accumulate(image, LabelImage(), runs, c.statistics.acc, s);
    }
    if (!statsFinalEarly)
        runs.finishLabels(s);
    return labelCount;
}

// ---- the one-launch path ---------------------------------------------------------------------------------

/** Rows of host staging a call offers the kernel at least (36 bytes each: stats and centroids): frames with
more labels than the staging holds take a second copy, and make an analyzer's staging grow to them. */
constexpr int kMinHostStagingRows = 16384;

/** Pinned staging of this host thread for the free function's host stats and centroids (the kernel writes
them there; they are copied into the caller's Mat). Kept for the thread's life, like pinnedCount(). */
PinnedArena& threadStaging()
{
    thread_local PinnedArena staging;
    return staging;
}

/** Copies out of pinned staging into the caller's host Mats, gathered by hostOutputFromStaging() and done
together by run(). One host thread copies only about 14 GB/s out of the staging that the GPU has just written
(inferred from the latency rows of fdc3f4e, H100 machine: at 512^2 and 1024^2, g = 1, with 10 k to 65 k
labels, the free function took 25-176 us longer than an analyzer, whose outputs are views: about 2.6 ns per
label of 36 bytes), so a large copy is cut into pieces for OpenCV's threads (A/B: doc/benchmarks.md, "Host
copies"). Small copies stay on the calling thread: waking the threads costs more than it saves. At most two
copies (stats and centroids); nothing here allocates, but cv::parallel_for_ does, so an analyzer (no
allocation in steady state) never gathers its copies here. */
class HostCopies : public ParallelLoopBody
{
public:
    void add(void* dst, const void* src, size_t bytes)
    {
        CV_Assert(count_ < kMaxCopies);
        copies_[count_++] = { static_cast<char*>(dst), static_cast<const char*>(src), bytes };
        total_ += bytes;
    }

    void run()
    {
        pieces_ = std::min<size_t>(std::max(1, getNumThreads()), total_ / kPieceBytes);
        if (pieces_ < 2)
            copy(0, total_);
        else
            parallel_for_(Range(0, static_cast<int>(pieces_)), *this, static_cast<double>(pieces_));
        count_ = 0;
        total_ = 0;
    }

    /** Pieces r.start .. r.end - 1 of the copies laid end to end, cut into pieces_ of about equal size. */
    void operator()(const Range& r) const override
    {
        copy(total_ * r.start / pieces_, total_ * r.end / pieces_);
    }

private:
    static constexpr int kMaxCopies = 2;
    static constexpr size_t kPieceBytes = 64 << 10; //!< no piece smaller: about 4 us of one thread's copy

    /** Bytes [begin, end) of the copies laid end to end. */
    void copy(size_t begin, size_t end) const
    {
        size_t base = 0;
        for (int k = 0; k < count_ && begin < end; base += copies_[k].bytes, ++k)
        {
            const Copy& c = copies_[k];
            if (begin >= base + c.bytes)
                continue;
            const size_t from = begin - base, to = std::min(end - base, c.bytes);
            std::memcpy(c.dst + from, c.src + from, to - from);
            begin = base + to;
        }
    }

    struct Copy
    {
        char* dst;
        const char* src;
        size_t bytes;
    };
    Copy copies_[kMaxCopies] = {};
    int count_ = 0;
    size_t total_ = 0;
    size_t pieces_ = 0;
};

/** The largest images (pixels) whose host input or host labels go through pinned memory of the pinned-Mat pool
(deviceImage, downloadLabels): labels of 16 MB as CV_32S, the kept arena's images; pinned Mats are at most 256 MB
in all (pinned_mats.cpp), and larger ones would stay pinned in its pool after the call. */
constexpr long long kMaxPinnedImagePixels = 1ll << 22;

/** Host images of at least this many bytes are uploaded through a pinned staging (deviceImage). */
constexpr size_t kStagedUploadBytes = size_t(512) << 10;

/** The input on the device: the caller's GpuMat, or a host Mat uploaded into `buffer`. The driver stages a copy from
pageable memory itself (H100, `perf/host_costs.cu copies`: 1 MB in 115 us, 4 MB in 322, against 32 and 95 from
pinned memory), so from kStagedUploadBytes on (and with `staging`: not for an analyzer, whose calls allocate
nothing; up to kMaxPinnedImagePixels) the image is first copied into a pinned block of the pinned-Mat pool on
OpenCV's threads: `staged`, which the caller keeps until its first wait (the copy must be done before the block is
reused). */
GpuMat deviceImage(InputArray image, StreamBuffer& buffer, Mat& staged, bool staging, Stream& stream)
{
    if (image.kind() == _InputArray::CUDA_GPU_MAT)
        return image.getGpuMat();
    const Mat host = image.getMat();
    const cudaStream_t s = StreamAccessor::getStream(stream);
    GpuMat d = allocateMat(buffer, host.rows, host.cols, host.type(), s);
    const size_t rowBytes = static_cast<size_t>(host.cols) * host.elemSize();
    // A cuda::HostMem image is pinned already: uploaded from where it is.
    if (staging && image.kind() != _InputArray::CUDA_HOST_MEM && rowBytes * host.rows >= kStagedUploadBytes &&
        host.total() <= static_cast<size_t>(kMaxPinnedImagePixels) &&
        !(staged = pinnedStagingMat(host.rows, host.cols, host.type())).empty())
    {
        HostCopies copies;
        if (host.isContinuous())
            copies.add(staged.data, host.data, rowBytes * host.rows);
        else
            host.copyTo(staged); // (of its size and type: written in place)
        copies.run();
        checkCuda(cudaMemcpy2DAsync(d.data, d.step, staged.data, rowBytes, rowBytes, host.rows, cudaMemcpyHostToDevice, s),
                  "cudaMemcpy2DAsync (the image from pinned memory)");
        return d;
    }
    d.upload(host, stream);
    return d;
}

/** A narrow host output (stats or centroids) from `rows` packed rows in pinned staging: an analyzer's output
becomes a view of it (valid until its next call, as downloadIfHost's), others get a copy, into a Mat or HostMem
by `copies` when given (the caller runs them), else at once. */
void hostOutputFromStaging(OutputArray out, const void* staged, int rows, int cols, int type, const PinnedArena* views,
                           HostCopies* copies = nullptr)
{
    const Mat src(rows, cols, type, const_cast<void*>(staged));
    Mat dst;
    if (out.kind() == _InputArray::CUDA_HOST_MEM)
    {
        out.create(rows, cols, type);
        dst = out.getHostMemRef().createMatHeader();
    }
    else
    {
        const bool fits = out.size() == src.size() && out.type() == type && !(views && views->contains(out.getMatRef().data));
        if (views && !fits && !out.fixedSize() && !out.fixedType())
        {
            out.getMatRef() = src;
            return;
        }
        if (out.kind() != _InputArray::MAT) // a std::vector, Matx, UMat...: OpenCV's copy knows them all
        {
            src.copyTo(out);
            return;
        }
        out.create(rows, cols, type);
        dst = out.getMat();
    }
    if (copies && dst.isContinuous())
        copies->add(dst.data, src.data, src.total() * src.elemSize());
    else
        src.copyTo(dst);
}

/** A narrow GpuMat output (stats or centroids) from `rows` packed rows of device staging: an analyzer's output
becomes a view of it (the staging is in its arena), others get a copy into their (packed) memory. */
void deviceOutputFromStaging(OutputArray out, void* staged, int rows, int cols, int type, StreamBuffer& buffer,
                             cudaStream_t s, const Arena* arena)
{
    const size_t rowBytes = static_cast<size_t>(cols) * CV_ELEM_SIZE(type);
    const bool fits = out.size() == Size(cols, rows) && out.type() == type && !(arena && arena->contains(out.getGpuMatRef().data));
    if (arena && !fits && !out.fixedSize() && !out.fixedType())
    {
        out.getGpuMatRef() = GpuMat(rows, cols, type, staged, rowBytes);
        return;
    }
    GpuMat d = deviceOutput(out, rows, cols, type, buffer, s, true);
    // One 1D copy when the output is packed (ours always are): a 2D copy of many 20- or 16-byte rows is far
    // slower (cudaMemcpy2DAsync moves them row by row; see downloadIfHost).
    if (d.step == rowBytes)
        checkCuda(cudaMemcpyAsync(d.data, staged, rowBytes * rows, cudaMemcpyDeviceToDevice, s),
                  "cudaMemcpyAsync (statistics from the staging)");
    else
        checkCuda(cudaMemcpy2DAsync(d.data, d.step, staged, rowBytes, rowBytes, rows, cudaMemcpyDeviceToDevice, s),
                  "cudaMemcpy2DAsync (statistics from the staging)");
}

/** An output the caller gave as a host Mat (pageable: neither a GpuMat nor a cuda::HostMem). */
bool isHostMat(OutputArray out)
{
    return out.needed() && out.kind() != _InputArray::CUDA_GPU_MAT && out.kind() != _InputArray::CUDA_HOST_MEM;
}

/** Queues the copy of a narrow device output `d` (packed stats or centroids) into `staging` when `out` is a host
Mat, and returns where it will be (hostOutputFromStaging() delivers it once the stream is waited for); null
when `out` is not a host Mat or `d` is not packed. */
void* stageIfHost(OutputArray out, const GpuMat& d, PinnedArena& staging, cudaStream_t s)
{
    if (!isHostMat(out) || d.empty() || !d.isContinuous())
        return nullptr;
    const size_t bytes = d.rows * d.step;
    void* p = staging.take(bytes);
    checkCuda(cudaMemcpyAsync(p, d.data, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (statistics to the staging)");
    return p;
}

/** The free function's host stats and centroids straight into the caller's Mats, as pinned Mats (PinnedOutput),
when every one of them that goes to the host (a HostMem too) can be taken; `needRows`, `allocRows`, `inPlace` as
in PinnedOutput::open. False: none is taken (the staging's path, which then serves both). */
bool openPinnedOutputs(const Call& c, PinnedOutput& stats, PinnedOutput& centroids, int needRows, int allocRows,
                       bool inPlace)
{
    const bool s = c.statsOut.needed() && c.statsOut.kind() != _InputArray::CUDA_GPU_MAT;
    const bool k = c.centroidsOut.needed() && c.centroidsOut.kind() != _InputArray::CUDA_GPU_MAT;
    if ((!s && !k) || c.resources.hostOutputs)
        return false;
    if (s && k && c.statsOut.getObj() == c.centroidsOut.getObj()) // one Mat for both: the staging's path decides
        return false;
    if ((s && !stats.open(c.statsOut, needRows, allocRows, CC_STAT_MAX, CV_32SC1, inPlace)) ||
        (k && !centroids.open(c.centroidsOut, needRows, allocRows, 2, CV_64FC1, inPlace)))
    {
        stats = PinnedOutput();
        centroids = PinnedOutput();
        return false;
    }
    return true;
}

/** Queues the copy of `rows` packed rows of a device output into a pinned output opened for them. */
void copyToPinned(const PinnedOutput& out, const void* device, int rows, size_t rowBytes, cudaStream_t s)
{
    checkCuda(cudaMemcpyAsync(out.data(), device, rows * rowBytes, cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (statistics to a pinned Mat)");
}

/** The same for a whole (packed) device output. */
void copyToPinned(const PinnedOutput& out, const GpuMat& d, cudaStream_t s)
{
    CV_Assert(d.isContinuous()); // our narrow outputs are packed (allocateMat)
    copyToPinned(out, d.data, d.rows, d.cols * d.elemSize(), s);
}

/** Host Mat labels on their way (downloadLabels, then deliverLabels after the call's wait). */
struct HostLabels
{
    PinnedOutput pinned; //!< the caller's Mat gets this pinned memory
    Mat staged;          //!< or is copied from this pinned staging
    int rows = 0;        //!< the label image's
};

/** Queues the download of the final labels `d` into the host output `out`. A host Mat that pinned_mats.hpp may
take gets pinned memory (its own, in place, when it already holds it: N is known and checked here) and one copy
at the link's speed; another plain Mat (the caller's own, or a Python array) is copied from a pinned staging of
the same pool on OpenCV's threads after the wait (deliverLabels; not for an analyzer, `staging` false: that
staging is a Mat header allocated per call). A copy into pageable memory is staged by the driver: on the H100,
1 MB took 153 us against 27 into pinned memory (doc/benchmarks.md, "Host labels in pinned Mats"). Other outputs,
and images over kMaxPinnedImagePixels, as downloadIfHost. */
void downloadLabels(OutputArray out, const GpuMat& d, HostLabels& l, bool staging, Stream& stream, bool& waitNeeded)
{
    if (isHostMat(out) && !d.empty() && static_cast<long long>(d.rows) * d.cols <= kMaxPinnedImagePixels)
    {
        void* to = nullptr;
        if (l.pinned.open(out, d.rows, d.rows, d.cols, d.type(), true))
            to = l.pinned.data();
        else if (staging && out.kind() == _InputArray::MAT && !(l.staged = pinnedStagingMat(d.rows, d.cols, d.type())).empty())
            to = l.staged.data;
        if (to)
        {
            l.rows = d.rows;
            const size_t rowBytes = static_cast<size_t>(d.cols) * d.elemSize();
            checkCuda(cudaMemcpy2DAsync(to, rowBytes, d.data, d.step, rowBytes, d.rows, cudaMemcpyDeviceToHost,
                                        StreamAccessor::getStream(stream)),
                      "cudaMemcpy2DAsync (labels to pinned memory)");
            waitNeeded = true;
            return;
        }
    }
    downloadIfHost(out, d, stream, waitNeeded);
}

/** After the call's wait: the labels that downloadLabels sent to pinned memory, in the caller's Mat. */
void deliverLabels(OutputArray out, HostLabels& l)
{
    if (l.pinned.data())
        l.pinned.deliver(out, l.rows);
    else if (!l.staged.empty())
    {
        HostCopies copies;
        hostOutputFromStaging(out, l.staged.data, l.staged.rows, l.staged.cols, l.staged.type(), nullptr, &copies);
        copies.run();
        l.staged.release();
    }
}

/** The most labels whose host stats and centroids the pipelines put in pinned Mats (36 MB of pinned memory). */
constexpr int kMaxPinnedRows = 1 << 20;

/** Rows of a new pinned Mat for `rows` rows: a power of two, at least kMinHostStagingRows, at most kMaxPinnedRows. */
int pinnedAllocRows(int rows)
{
    int r = kMinHostStagingRows;
    while (r < rows && r < kMaxPinnedRows)
        r *= 2;
    return std::max(r, rows);
}

/** What the pool's limit must allow per pixel for a pipeline call's buffers to be kept (at 2048^2: about 2.5 bytes
per pixel with GpuMat outputs, up to 10 with tens of thousands of labels and host outputs). */
constexpr size_t kKeptPipelineBytesPerPixel = 16;

/** The one-launch path's device buffers (oneLaunchPipeline): the kernel's scratch, then the device staging of the
stats and centroids wanted, each at the label bound's rows. */
struct OneLaunchDeviceLayout
{
    size_t scratchBytes, statsBytes, centroidsBytes;
    size_t total() const { return scratchBytes + statsBytes + centroidsBytes; }
};

OneLaunchDeviceLayout oneLaunchDeviceLayout(const Call& c, int rows, int cols)
{
    const size_t bound = static_cast<size_t>(oneLaunchLabelBound(rows, cols, c.connectivity));
    OneLaunchDeviceLayout m;
    m.scratchBytes = oneLaunchScratchBytes(rows, cols, c.connectivity, c.wantStats);
    m.statsBytes = c.statsOut.needed() ? alignPinned(sizeof(int) * CC_STAT_MAX * bound) : 0;
    m.centroidsBytes = c.centroidsOut.needed() ? sizeof(double) * 2 * bound : 0;
    return m;
}

/** The kept arena for the free function's call on an image of `size` (null: the pool's buffers, as for large
images, and for an analyzer's call, which has its own arena), decided once, before the image is uploaded, so that
every buffer of the call comes from one place: a host Mat image's upload buffer, the one-launch path's scratch and
its labels buffer (host Mat or resized CV_16U labels), the pipelines' buffers. Kept when the pool's limit allows
what the call may take; else the arena is given back first (on the call's stream: before its wait, which trims the
pool), so that a lowered limit is honoured at the next call. */
Arena* keptArenaFor(const Call& c, Size size, bool oneLaunch)
{
    const long long pixels = static_cast<long long>(size.area());
    if (c.resources.arena || pixels > kKeptMaxPixels)
        return nullptr;
    // Upper bounds: a one-launch call adds to its device layout at most the uploaded image (1 byte a pixel) and its
    // own label buffer (4); a pipeline call stays under kKeptPipelineBytesPerPixel.
    const size_t bytes = oneLaunch ? oneLaunchDeviceLayout(c, size.height, size.width).total() + 5 * static_cast<size_t>(pixels)
                                   : kKeptPipelineBytesPerPixel * static_cast<size_t>(pixels);
    if (bytes <= getConnectedComponentsPoolLimit())
        return &threadKeptArena();
    threadKeptArena().release(c.stream);
    return nullptr;
}

/** CCA_DEFAULT on a small image (one_launch.hpp): one kernel, one wait. Returns the number of labels. */
int oneLaunchPipeline(Call& c, const BinaryImage& image, Stream& stream)
{
    const cudaStream_t s = c.stream;
    const CallResources& r = c.resources;
    const int rows = image.rows, cols = image.cols, ltype = c.ltype;
    const int bound = oneLaunchLabelBound(rows, cols, c.connectivity);
    OneLaunchOutputs o;

    // Labels straight into the caller's GpuMat when nothing can make it change before N is known: CV_32S,
    // or CV_16U already of the right size (the kernel writes nothing if N does not fit). Else into ours.
    const bool labelsDirect = c.labelsOut.kind() == _InputArray::CUDA_GPU_MAT &&
                              (ltype == CV_32S || (c.labelsOut.size() == Size(cols, rows) && c.labelsOut.type() == ltype));
    if (c.labelsOut.needed())
    {
        if (labelsDirect)
            c.labelsOut.create(rows, cols, ltype);
        c.labels = labelsDirect ? c.labelsOut.getGpuMat() : allocateMat(c.labelsBuffer, rows, cols, ltype, s);
        o.labels = c.labels.data;
        o.labelsStep = c.labels.step;
    }
    o.labels16u = ltype == CV_16U;
    o.maxLabel = ltype == CV_16U ? USHRT_MAX : INT_MAX;
    o.wantStats = c.wantStats;
    // The kernel's scratch and the device staging of stats and centroids: one piece of memory. From the arena in
    // scope when there is one (an analyzer's, or the free function's kept arena: keptArenaFor), as every buffer
    // here: a stream-ordered allocation and free at every call cost 2-17 us of a 40-90 us call, more or less
    // depending on what the process had allocated before (H100; doc/benchmarks.md, "The free function's first
    // latency row").
    const OneLaunchDeviceLayout layout = oneLaunchDeviceLayout(c, rows, cols);
    StreamBuffer deviceMemory;
    char* const scratch = static_cast<char*>(deviceMemory.allocate(layout.total(), s));
    if (c.statsOut.needed())
        o.stats = reinterpret_cast<int*>(scratch + layout.scratchBytes);
    if (c.centroidsOut.needed())
        o.centroids = reinterpret_cast<double*>(scratch + layout.scratchBytes + layout.statsBytes);
    o.statsStep = sizeof(int) * CC_STAT_MAX;
    o.centroidsStep = sizeof(double) * 2;
    o.capacity = bound;

    // Host stats and centroids: mapped pinned memory that the kernel writes (UVA: the host pointer is the
    // device's). The caller's own Mats where they can be pinned Mats (written in place unless a CV_16U overflow
    // could still refuse the call after the kernel; new memory of kMinHostStagingRows rows, so that any block
    // of the pool serves any small frame), else a staging of enough rows for the frames seen so far.
    const bool statsToHost = c.statsOut.needed() && c.statsOut.kind() != _InputArray::CUDA_GPU_MAT;
    const bool centroidsToHost = c.centroidsOut.needed() && c.centroidsOut.kind() != _InputArray::CUDA_GPU_MAT;
    PinnedArena& pinned = r.hostOutputs ? *r.hostOutputs : threadStaging();
    PinnedOutput pinnedStats, pinnedCentroids;
    const int fewRows = std::min(bound, kMinHostStagingRows);
    const bool pinnedMats = openPinnedOutputs(c, pinnedStats, pinnedCentroids, fewRows, kMinHostStagingRows,
                                              ltype == CV_32S || bound - 1 <= USHRT_MAX);
    if (pinnedMats)
    {
        o.hostRows = bound;
        if (statsToHost)
        {
            o.statsHost = static_cast<int*>(pinnedStats.data());
            o.hostRows = std::min(o.hostRows, pinnedStats.rows());
        }
        if (centroidsToHost)
        {
            o.centroidsHost = static_cast<double*>(pinnedCentroids.data());
            o.hostRows = std::min(o.hostRows, pinnedCentroids.rows());
        }
    }
    else if (statsToHost || centroidsToHost)
    {
        o.hostRows = static_cast<int>(std::min<size_t>(bound, std::max<size_t>(kMinHostStagingRows, stagingRowsIn(pinned.bytes()))));
        pinned.beginCall(stagingBytes(o.hostRows));
        if (statsToHost)
            o.statsHost = static_cast<int*>(pinned.take(sizeof(int) * CC_STAT_MAX * o.hostRows));
        if (centroidsToHost)
            o.centroidsHost = static_cast<double*>(pinned.take(sizeof(double) * 2 * o.hostRows));
    }
    o.count = r.pinnedCount;
    // Every output on the device: the host needs only N, which the kernel publishes before its last phases.
    const bool hostOutputs = statsToHost || centroidsToHost ||
                             (c.labelsOut.needed() && c.labelsOut.kind() != _InputArray::CUDA_GPU_MAT);
    if (!hostOutputs)
        *static_cast<volatile int*>(r.pinnedCount) = kCountPending; // nothing on its way to it: CountWrites

    CountWrites countWrites(s);
    oneLaunch(image, c.connectivity, scratch, o, std::numeric_limits<double>::quiet_NaN(), s);
    checkCuda(cudaEventRecord(r.countReady, s), "cudaEventRecord (one launch)");
    if (hostOutputs)
        checkCuda(cudaEventSynchronize(r.countReady), "cudaEventSynchronize (one launch)");
    // With every output on the device, N as soon as the kernel has published it (phase 4), not once the kernel has
    // ended: its last phases (the labels, the device statistics) stay queued on the stream like the work queued after
    // them, as the public header promises for GpuMat outputs. The host then queues its copies and returns while the
    // GPU is still labeling, so that the caller's next work starts right after the kernel instead of after the host's
    // wake-up and return (H100, 512^2 labels only: doc/benchmarks.md, "N before the kernel ends").
    const int labelCount = (hostOutputs ? *r.pinnedCount : awaitMappedCount(r.pinnedCount, r.countReady,
                                                                             "the wait for the one-launch kernel's count")) + 1;
    countWrites.read();
    checkLabelCount(labelCount, ltype, c.statsOut, c.centroidsOut);

    bool waitNeeded = false;
    HostLabels hostLabels;
    if (c.labelsOut.needed() && !labelsDirect)
    {
        if (c.labelsOut.kind() == _InputArray::CUDA_GPU_MAT)
            c.labels.copyTo(deviceOutput(c.labelsOut, rows, cols, ltype, c.plan.labelsBuffer, s), stream);
        else
            downloadLabels(c.labelsOut, c.labels, hostLabels, !r.arena, stream, waitNeeded);
    }
    // The statistics are in the host staging when it held them; else (and for GpuMat outputs) on the device.
    // When they did not fit, the staging grows to this frame's rows, so that the next such frame fits (an
    // analyzer's then also hands out views of it below).
    const bool inHostStaging = labelCount <= o.hostRows;
    if (!inHostStaging && (statsToHost || centroidsToHost) && !pinnedMats)
        pinned.beginCall(stagingBytes(labelCount));
    HostCopies copies; // the free function's copies out of the staging (an analyzer's are views, or copied at once)
    auto output = [&](OutputArray out, bool toHost, void* device, void* host, int cols_, int type, StreamBuffer& buffer,
                      PinnedOutput& direct) {
        if (!out.needed())
            return;
        if (!toHost)
            deviceOutputFromStaging(out, device, labelCount, cols_, type, buffer, s, r.arena);
        else if (pinnedMats && inHostStaging)
            return; // written by the kernel: delivered after the wait
        else if (pinnedMats && direct.open(out, labelCount, std::min(bound, std::max(labelCount, 2 * o.hostRows)), cols_,
                                           type, true))
        {
            // More labels than the Mat held: into memory grown for them (2x, so that a slowly growing N grows it
            // rarely), from the device rows.
            copyToPinned(direct, device, labelCount, static_cast<size_t>(cols_) * CV_ELEM_SIZE(type), s);
            waitNeeded = true;
        }
        else if (inHostStaging)
            hostOutputFromStaging(out, host, labelCount, cols_, type, r.hostOutputs, r.hostOutputs ? nullptr : &copies);
        else
        {
            direct = PinnedOutput();
            downloadIfHost(out, GpuMat(labelCount, cols_, type, device), stream, waitNeeded, r.hostOutputs);
        }
    };
    output(c.statsOut, statsToHost, o.stats, o.statsHost, CC_STAT_MAX, CV_32SC1, c.statistics.statsBuffer, pinnedStats);
    output(c.centroidsOut, centroidsToHost, o.centroids, o.centroidsHost, 2, CV_64FC1, c.statistics.centroidsBuffer,
           pinnedCentroids);
    copies.run();
    if (waitNeeded)
        stream.waitForCompletion();
    deliverLabels(c.labelsOut, hostLabels);
    if (pinnedStats.data())
        pinnedStats.deliver(c.statsOut, labelCount);
    if (pinnedCentroids.data())
        pinnedCentroids.deliver(c.centroidsOut, labelCount);
    return labelCount;
}

} // namespace

void cudacca::connectedComponentsBatch(InputArrayOfArrays _images, OutputArrayOfArrays _labels,
                                       OutputArrayOfArrays _stats, OutputArrayOfArrays _centroids,
                                       std::vector<int>& counts, int connectivity, int ltype, Stream& stream,
                                       CallResources& r, int& stagingRows)
{
    const std::vector<GpuMat>& images = *static_cast<const std::vector<GpuMat>*>(_images.getObj());
    const int frames = static_cast<int>(images.size());
    const cudaStream_t s = StreamAccessor::getStream(stream);
    CV_Assert(r.arena && r.hostOutputs);

    // The output vectors get one element per image (the elements are made or reused below).
    if (_labels.needed())
        _labels.getGpuMatVecRef().resize(frames);
    auto sizeVector = [frames](OutputArrayOfArrays out, int type) {
        if (!out.needed())
            return;
        if (out.kind() == _InputArray::STD_VECTOR_CUDA_GPU_MAT)
            out.getGpuMatVecRef().resize(frames);
        else
            out.create(frames, 1, type, -1);
    };
    sizeVector(_stats, CV_32SC1);
    sizeVector(_centroids, CV_64FC1);
    auto element = [](OutputArrayOfArrays out, int k) -> _OutputArray {
        if (!out.needed())
            return _OutputArray();
        if (out.kind() == _InputArray::STD_VECTOR_CUDA_GPU_MAT)
            return _OutputArray(out.getGpuMatVecRef()[k]);
        return _OutputArray(out.getMatRef(k));
    };
    const bool wantStats = _stats.needed() || _centroids.needed();
    const bool statsToHost = _stats.needed() && _stats.kind() == _InputArray::STD_VECTOR_MAT;
    const bool centroidsToHost = _centroids.needed() && _centroids.kind() == _InputArray::STD_VECTOR_MAT;

    // The frames of the one-launch path. Of one size (and two or more): ONE kernel for them all
    // (oneLaunchFrames); else one kernel each, queued one after another. Either way one wait, and one staging
    // for the statistics of them all, of `rows` rows.
    std::vector<int> queued;
    size_t scratchBytes = 0; // one kernel at a time: one scratch, for the largest
    long long boundSum = 0;
    for (int k = 0; k < frames; ++k)
        if (r.defaultAlgorithm && !r.cclDefaultOrder && oneLaunchAvailable(images[k].rows, images[k].cols))
        {
            queued.push_back(k);
            scratchBytes = std::max(scratchBytes, alignPinned(oneLaunchScratchBytes(images[k].rows, images[k].cols,
                                                                                    connectivity, wantStats)));
            boundSum += oneLaunchLabelBound(images[k].rows, images[k].cols, connectivity);
        }
    const int queuedCount = static_cast<int>(queued.size());
    const Size frameSize = queued.empty() ? Size() : images[queued[0]].size();
    bool oneKernel = queuedCount >= 2 &&
                     oneLaunchFramesPixels(queuedCount, frameSize.height, frameSize.width) <= (1ll << 30);
    for (int k : queued)
        oneKernel = oneKernel && images[k].size() == frameSize;
    // (a first batch offers 4096 rows a frame; one kernel needs a row per frame more: each frame's background)
    const long long offered = stagingRows > 0 ? stagingRows : 4096ll * queuedCount;
    const int rows = static_cast<int>(std::min<long long>(std::min<long long>(boundSum + queuedCount, offered), INT_MAX));
    if (oneKernel)
        scratchBytes = alignPinned(oneLaunchFramesScratchBytes(queuedCount, frameSize.height, frameSize.width, rows, wantStats));
    StreamBuffer deviceMemory;
    std::vector<StreamBuffer> labelBuffers(frames);
    std::vector<GpuMat> ownLabels(frames);
    // per queued frame, pinned: one kernel each: N (foreground components) and the first staging row; one
    // kernel: the frame bases (queuedCount + 1), then the frame table's host copy
    int* records = nullptr;
    OneLaunchFrame* table = nullptr;
    OneLaunchFrame* deviceTable = nullptr;
    OneLaunchOutputs o;
    if (!queued.empty())
    {
        const size_t tableBytes = oneKernel ? alignPinned(sizeof(OneLaunchFrame) * queued.size()) : 0;
        const size_t statsBytes = _stats.needed() && !statsToHost ? alignPinned(sizeof(int) * CC_STAT_MAX * static_cast<size_t>(rows)) : 0;
        const size_t centroidsBytes = _centroids.needed() && !centroidsToHost ? sizeof(double) * 2 * static_cast<size_t>(rows) : 0;
        char* const d = static_cast<char*>(deviceMemory.allocate(scratchBytes + 256 + tableBytes + statsBytes + centroidsBytes, s));
        o.batch = oneKernel ? nullptr : reinterpret_cast<int*>(d + scratchBytes);
        deviceTable = oneKernel ? reinterpret_cast<OneLaunchFrame*>(d + scratchBytes + 256) : nullptr;
        o.batchRows = rows;
        o.stats = statsBytes ? reinterpret_cast<int*>(d + scratchBytes + 256 + tableBytes) : nullptr;
        o.centroids = centroidsBytes ? reinterpret_cast<double*>(d + scratchBytes + 256 + tableBytes + statsBytes) : nullptr;
        o.statsStep = sizeof(int) * CC_STAT_MAX;
        o.centroidsStep = sizeof(double) * 2;
        o.labels16u = ltype == CV_16U;
        o.maxLabel = ltype == CV_16U ? USHRT_MAX : INT_MAX;
        o.wantStats = wantStats;
        const size_t recordBytes = alignPinned(sizeof(int) * 2 * (queued.size() + 1));
        const size_t hostStatsBytes = statsToHost ? alignPinned(sizeof(int) * CC_STAT_MAX * static_cast<size_t>(rows)) : 0;
        const size_t hostCentroidsBytes = centroidsToHost ? alignPinned(sizeof(double) * 2 * static_cast<size_t>(rows)) : 0;
        r.hostOutputs->beginCall(recordBytes + tableBytes + hostStatsBytes + hostCentroidsBytes);
        records = static_cast<int*>(r.hostOutputs->take(recordBytes));
        table = oneKernel ? static_cast<OneLaunchFrame*>(r.hostOutputs->take(tableBytes)) : nullptr;
        o.statsHost = statsToHost ? static_cast<int*>(r.hostOutputs->take(hostStatsBytes)) : nullptr;
        o.centroidsHost = centroidsToHost ? static_cast<double*>(r.hostOutputs->take(hostCentroidsBytes)) : nullptr;
        if (o.batch)
            checkCuda(cudaMemsetAsync(o.batch, 0, 2 * sizeof(int), s), "cudaMemsetAsync (batch staging rows)");
    }
    for (int q = 0; q < queuedCount; ++q)
    {
        const int k = queued[q];
        const GpuMat& img = images[k];
        OneLaunchOutputs f = o;
        f.labels = nullptr;
        if (_labels.needed())
        {
            // Straight into the caller's element when nothing can stop the call from writing it: CV_32S, or
            // CV_16U already of the right size (the kernel writes nothing when N does not fit). Else ours.
            GpuMat& l = _labels.getGpuMatVecRef()[k];
            if (ltype == CV_32S || (l.size() == img.size() && l.type() == ltype))
                l.create(img.size(), ltype);
            else
                ownLabels[k] = allocateMat(labelBuffers[k], img.rows, img.cols, ltype, s);
            const GpuMat& target = ownLabels[k].empty() ? l : ownLabels[k];
            f.labels = target.data;
            f.labelsStep = target.step;
        }
        if (oneKernel)
        {
            table[q] = { img.ptr<uchar>(), img.step, f.labels, f.labelsStep };
            continue;
        }
        f.count = records + 2 * q;
        f.batchPlacement = records + 2 * q + 1;
        oneLaunch(binaryImageOf(img), connectivity, deviceMemory.get(), f, std::numeric_limits<double>::quiet_NaN(), s);
    }
    if (oneKernel)
    {
        checkCuda(cudaMemcpyAsync(deviceTable, table, sizeof(OneLaunchFrame) * queued.size(), cudaMemcpyHostToDevice, s),
                  "cudaMemcpyAsync (batch frame table)");
        oneLaunchFrames(deviceTable, queuedCount, frameSize.height, frameSize.width, connectivity, deviceMemory.get(), o,
                        records, std::numeric_limits<double>::quiet_NaN(), s);
    }
    counts.assign(frames, 0);
    if (!queued.empty())
    {
        // The one wait of the batch.
        checkCuda(cudaEventRecord(r.countReady, s), "cudaEventRecord (batch)");
        checkCuda(cudaEventSynchronize(r.countReady), "cudaEventSynchronize (batch)");
    }

    // Every frame's N and first staging row (-1: its statistics are not there). A CV_16U overflow refuses the
    // call before any output of the batch is made from the staging (that frame's labels are untouched: its
    // kernel, or the batch's, wrote none).
    std::vector<int> firstRow(queuedCount, -1);
    long long rowsNeeded = 0;
    for (int q = 0; q < queuedCount; ++q)
    {
        const int n = (oneKernel ? records[q + 1] - records[q] : records[2 * q]) + 1;
        counts[queued[q]] = n;
        rowsNeeded += n;
        if (ltype == CV_16U && n - 1 > USHRT_MAX)
            CV_Error_(Error::StsOutOfRange, ("images[%d]: %d labels do not fit ltype CV_16U (at most 65536, background "
                                             "included); use CV_32S", queued[q], n));
        firstRow[q] = oneKernel ? (rowsNeeded <= rows ? records[q] + q : -1) : records[2 * q + 1];
    }
    if (oneKernel && rowsNeeded > rows) // the kernel wrote no statistics at all
        std::fill(firstRow.begin(), firstRow.end(), -1);
    // The next batch stages as many rows as this one needed: frames whose statistics did not fit are labeled
    // again, one by one, below.
    stagingRows = static_cast<int>(std::min<long long>(std::max<long long>(rows, rowsNeeded), INT_MAX));
    std::vector<char> again(frames, 1);
    StreamBuffer noBuffer; // deviceOutputFromStaging hands out views of the arena or copies into the caller's
    for (int q = 0; q < queuedCount; ++q)
    {
        const int k = queued[q], n = counts[k], first = firstRow[q];
        if (wantStats && first < 0)
            continue;
        again[k] = 0;
        if (!ownLabels[k].empty())
            ownLabels[k].copyTo(_labels.getGpuMatVecRef()[k], stream);
        if (_stats.needed())
        {
            _OutputArray out = element(_stats, k);
            if (statsToHost)
                hostOutputFromStaging(out, o.statsHost + static_cast<size_t>(first) * CC_STAT_MAX, n, CC_STAT_MAX, CV_32SC1, r.hostOutputs);
            else
                deviceOutputFromStaging(out, o.stats + static_cast<size_t>(first) * CC_STAT_MAX, n, CC_STAT_MAX, CV_32SC1, noBuffer, s, r.arena);
        }
        if (_centroids.needed())
        {
            _OutputArray out = element(_centroids, k);
            if (centroidsToHost)
                hostOutputFromStaging(out, o.centroidsHost + static_cast<size_t>(first) * 2, n, 2, CV_64FC1, r.hostOutputs);
            else
                deviceOutputFromStaging(out, o.centroids + static_cast<size_t>(first) * 2, n, 2, CV_64FC1, noBuffer, s, r.arena);
        }
    }
    // The rest, one call each: images the one-launch path does not take, and frames whose statistics did not
    // fit the staging. Host outputs are copies here (the object's pinned memory holds the batch's views).
    CallResources single = r;
    single.hostOutputs = nullptr;
    for (int k = 0; k < frames; ++k)
        if (again[k])
            counts[k] = connectedComponents(images[k], element(_labels, k), element(_stats, k), element(_centroids, k),
                                            connectivity, ltype, stream, single);
}

int cudacca::connectedComponents(InputArray _image, OutputArray _labels, OutputArray _stats, OutputArray _centroids,
                                 int connectivity, int ltype, Stream& stream, CallResources& r)
{
    if (r.cclDefaultOrder)
        return connectedComponentsInCclDefaultOrder(_image, _labels, _stats, _centroids, ltype, stream, r);
    Call c(_labels, _stats, _centroids, connectivity, ltype, StreamAccessor::getStream(stream), r);

    // A small image with CCA_DEFAULT takes the one-launch path (when no output has a fixed size, which is checked
    // only once N is known), others one of the two pipelines. The free function's buffers come from this thread's
    // kept arena on images that small, as an analyzer's from its own (keptArenaFor): no pool allocation per call,
    // the image's upload included. (Never views of it: r.arena stays null.)
    const Size size = _image.size();
    const bool oneLaunch = r.defaultAlgorithm && !c.sizeCheckedLate && oneLaunchAvailable(size.height, size.width);
    Arena* const kept = keptArenaFor(c, size, oneLaunch);
    const ArenaCall keptCall(kept, c.stream);
    const ArenaScope keptScope(kept);
    StreamBuffer imageBuffer;
    Mat stagedImage; // (held until the return: every path waits for the stream after the upload)
    const BinaryImage image = binaryImageOf(deviceImage(_image, imageBuffer, stagedImage, !r.arena, stream));
    if (oneLaunch)
        return oneLaunchPipeline(c, image, stream);
    AlgorithmInstance instance;
    if (!r.algorithm)
        instance = instantiate(*r.row, connectivity);
    const AlgorithmInstance& algo = r.algorithm ? *r.algorithm : instance;
    RunLabeling* runs = dynamic_cast<RunLabeling*>(algo.labeling.get());
    if (runs && !algo.analysis)
        CV_Error(Error::StsInternal, "cudacca: a run labeling needs its own analysis");
    const int labelCount = runs ? runPipeline(c, *runs, *algo.analysis, image) : forestPipeline(c, algo, image);

    // CPU-layout statistics and centroids, then the host outputs.
    if (c.wantStats)
        finalizeOutputs(c.statistics, _stats, _centroids, labelCount, c.stream, r.arena);
    if (r.hostOutputs)
        r.hostOutputs->beginCall(stagingBytes(static_cast<size_t>(labelCount)));
    bool waitNeeded = false;
    HostLabels hostLabels;
    downloadLabels(_labels, c.labels, hostLabels, !r.arena, stream, waitNeeded);
    // The free function's host Mat stats and centroids, into the caller's Mats as pinned Mats where they can be
    // (PinnedOutput; N is known and checked, so in place): one asynchronous copy each at the link's speed, no
    // copy on the host. Memory for a power of two of rows, at least kMinHostStagingRows, up to kMaxPinnedRows
    // (more labels take the copy into pageable memory below).
    PinnedOutput pinnedStats, pinnedCentroids;
    const bool pinnedMats = labelCount <= kMaxPinnedRows &&
                            openPinnedOutputs(c, pinnedStats, pinnedCentroids, labelCount, pinnedAllocRows(labelCount), true);
    if (pinnedMats)
    {
        if (pinnedStats.data())
            copyToPinned(pinnedStats, c.statistics.stats, c.stream);
        if (pinnedCentroids.data())
            copyToPinned(pinnedCentroids, c.statistics.centroids, c.stream);
        waitNeeded = true;
    }
    // Other host Mat stats and centroids, when they are few rows: through this thread's pinned
    // staging (an asynchronous copy each, the call's one wait, then a host copy). A copy into pageable memory
    // waits for the stream by itself, once per output: H100, 2048^2, two labels, the free function took
    // 122 us against an analyzer's 93. Many rows keep that copy, whose bus transfer overlaps its host copy
    // (past about kMinHostStagingRows rows, the host copy from pinned memory costs more than the waits). Tried
    // with the host copy in pieces (HostCopies) and a staging grown up to 2^20 rows: mixed, not kept (H100, 2048^2
    // and 8192^2, 17 k to 261 k labels: 0.60-0.83 of the time at some inputs, 1.04-1.25 at others; session 24).
    // The staging is made once, for kMinHostStagingRows rows (as the one-launch path's), and only when an output
    // is a host Mat: growing it to each new N would free and allocate pinned memory call after call.
    const bool viaStaging = !pinnedMats && !r.hostOutputs && labelCount <= kMinHostStagingRows &&
                            (isHostMat(_stats) || isHostMat(_centroids));
    PinnedArena& staging = threadStaging();
    if (viaStaging)
        staging.beginCall(stagingBytes(kMinHostStagingRows));
    void* stagedStats = viaStaging ? stageIfHost(_stats, c.statistics.stats, staging, c.stream) : nullptr;
    void* stagedCentroids = viaStaging ? stageIfHost(_centroids, c.statistics.centroids, staging, c.stream) : nullptr;
    if (!stagedStats && !pinnedMats)
        downloadIfHost(_stats, c.statistics.stats, stream, waitNeeded, r.hostOutputs);
    if (!stagedCentroids && !pinnedMats)
        downloadIfHost(_centroids, c.statistics.centroids, stream, waitNeeded, r.hostOutputs);
    if (waitNeeded || stagedStats || stagedCentroids)
        stream.waitForCompletion();
    deliverLabels(_labels, hostLabels);
    if (pinnedStats.data())
        pinnedStats.deliver(_stats, labelCount);
    if (pinnedCentroids.data())
        pinnedCentroids.deliver(_centroids, labelCount);
    HostCopies copies;
    if (stagedStats)
        hostOutputFromStaging(_stats, stagedStats, labelCount, CC_STAT_MAX, CV_32SC1, nullptr, &copies);
    if (stagedCentroids)
        hostOutputFromStaging(_centroids, stagedCentroids, labelCount, 2, CV_64FC1, nullptr, &copies);
    copies.run();
    return labelCount;
}

namespace {

/** The free function's resources: this thread's pinned count and event; the row's stages are made by the
call if it needs them. */
int connectedComponentsOnce(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                            int connectivity, int ltype, int algorithm, const AlgorithmRow& row, Stream& stream)
{
    CallResources r;
    r.row = &row;
    r.pinnedCount = pinnedCount();
    r.countReady = countEvent();
    r.defaultAlgorithm = algorithmWithoutFlags(algorithm) == CCA_DEFAULT;
    r.cclDefaultOrder = renumbersToCclDefault(algorithm, connectivity);
    return cudacca::connectedComponents(image, labels, stats, centroids, connectivity, ltype, stream, r);
}

} // namespace

int connectedComponentsWithStats(InputArray _image, OutputArray _labels, OutputArray _stats, OutputArray _centroids,
                                 int connectivity, int ltype, int algorithm, Stream& stream)
{
    CV_INSTRUMENT_REGION();

    const AlgorithmRow& row = checkArguments(_image, _labels, _stats, _centroids, connectivity, ltype, algorithm);
    if (getCudaEnabledDeviceCount() <= 0)
        CV_Error(Error::GpuNotSupported, "cv::cuda::connectedComponentsWithStats: no CUDA device is available");
    try
    {
        return connectedComponentsOnce(_image, _labels, _stats, _centroids, connectivity, ltype, algorithm, row, stream);
    }
    catch (const cv::Exception& e)
    {
        // Out of memory: the call's buffers are freed by now; the pool gives back what it keeps too, so
        // that the failed call holds no device memory.
        if (e.code == Error::StsNoMem)
            trimTemporaryPool();
        throw;
    }
}

int connectedComponentsWithStats(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                                 int connectivity, int ltype, int algorithm)
{
    // Arguments first: a bad argument must raise its own error, with or without a CUDA driver (Stream::Null()
    // needs one).
    checkArguments(image, labels, stats, centroids, connectivity, ltype, algorithm);
    if (getCudaEnabledDeviceCount() <= 0)
        CV_Error(Error::GpuNotSupported, "cv::cuda::connectedComponentsWithStats: no CUDA device is available");
    return connectedComponentsWithStats(image, labels, stats, centroids, connectivity, ltype, algorithm,
                                        Stream::Null());
}

}} // namespace cv::cuda
