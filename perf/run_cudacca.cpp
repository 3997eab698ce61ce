// cudacca_bench: cv::cuda::connectedComponentsWithStats, every selected algorithm, four variants:
//   full     labels + stats + centroids, GpuMat outputs          (CUDA events around the call, one stream)
//   labels   stats = centroids = noArray()                        (CUDA events)
//   stats    labels = noArray()                                   (CUDA events)
//   latency  GpuMat labels, host Mat stats and centroids          (wall clock incl. synchronization; p50, p99)
//   latency_analyzer  the same through one cv::cuda::ConnectedComponentsAnalyzer (its memory kept between calls)
//   batch64  CCA_DEFAULT only: 64 copies of the image in one ConnectedComponentsAnalyzer::applyBatch call,
//            GpuMat outputs (wall clock incl. the batch's one wait; gpix_s counts the 64 frames, n_labels is
//            one frame's N)
// Each row's last result is checked exactly against the CPU (CCL_SAUF): N, labels, stats, centroids bitwise.

#include "bench.hpp"

#include <algorithm>
#include <initializer_list>
#include <vector>

#include <opencv2/core/cuda_stream_accessor.hpp>
#include <opencv2/cudacca.hpp>

#include "algorithm_list.hpp"   // modules/cudacca/src: the one list of cudacca's algorithms

namespace bench {

using cv::cuda::cudacca::AlgorithmRow;

namespace {

struct Outputs
{
    cv::cuda::GpuMat labels, stats, centroids;
    cv::Mat hStats, hCentroids;
    cv::Ptr<cv::cuda::ConnectedComponentsAnalyzer> analyzer; //!< LatencyAnalyzer, Batch
    std::vector<cv::cuda::GpuMat> frames, batchLabels, batchStats, batchCentroids; //!< Batch
    std::vector<int> counts;
};

enum class Variant { Full, Labels, Stats, Latency, LatencyAnalyzer, Batch };
constexpr int kBatchFrames = 64;

const char* variantName(Variant v)
{
    switch (v)
    {
    case Variant::Full: return "full";
    case Variant::Labels: return "labels";
    case Variant::Stats: return "stats";
    case Variant::LatencyAnalyzer: return "latency_analyzer";
    case Variant::Batch: return "batch64";
    default: return "latency";
    }
}

//! One call of the variant; returns N.
int callOnce(Case& c, const AlgorithmRow& a, Variant v, Outputs& o, cv::cuda::Stream& stream)
{
    const int conn = c.connectivity;
    switch (v)
    {
    case Variant::Full:
        return cv::cuda::connectedComponentsWithStats(c.d_img, o.labels, o.stats, o.centroids, conn, CV_32S, a.id, stream);
    case Variant::Labels:
        return cv::cuda::connectedComponentsWithStats(c.d_img, o.labels, cv::noArray(), cv::noArray(), conn, CV_32S,
                                                      a.id, stream);
    case Variant::Stats:
        return cv::cuda::connectedComponentsWithStats(c.d_img, cv::noArray(), o.stats, o.centroids, conn, CV_32S, a.id,
                                                      stream);
    case Variant::LatencyAnalyzer:
        if (!o.analyzer)
            o.analyzer = cv::cuda::createConnectedComponentsAnalyzer(a.id, conn, CV_32S);
        return o.analyzer->apply(c.d_img, o.labels, o.hStats, o.hCentroids, stream);
    case Variant::Batch:
        if (!o.analyzer)
        {
            o.analyzer = cv::cuda::createConnectedComponentsAnalyzer(a.id, conn, CV_32S);
            o.frames.assign(kBatchFrames, c.d_img);
        }
        o.analyzer->applyBatch(o.frames, o.batchLabels, o.batchStats, o.batchCentroids, o.counts, stream);
        // the last frame's outputs are the ones compared with the CPU (every frame's N is checked here)
        for (int n : o.counts)
            if (n != o.counts.front())
                return -1;
        o.labels = o.batchLabels.back();
        o.stats = o.batchStats.back();
        o.centroids = o.batchCentroids.back();
        return o.counts.back();
    default:
        return cv::cuda::connectedComponentsWithStats(c.d_img, o.labels, o.hStats, o.hCentroids, conn, CV_32S, a.id,
                                                      stream);
    }
}

//! Exact comparison of the last call's outputs with the CPU reference; returns what differs ("" if nothing).
std::string compareWithCpu(Case& c, Variant v, int n, Outputs& o)
{
    if (n != c.refN)
        return cv::format("N = %d, CPU %d", n, c.refN);
    if (v != Variant::Stats)
    {
        long long first = -1;
        const long long diff = countDifferences(o.labels, c.ensureRefLabels(), &first, c.stream);
        if (diff)
            return cv::format("labels: %lld differ, first at raster index %lld", diff, first);
    }
    if (v == Variant::Labels)
        return std::string();
    cv::Mat stats = o.hStats, centroids = o.hCentroids;
    if (v != Variant::Latency && v != Variant::LatencyAnalyzer)
    {
        o.stats.download(stats);
        o.centroids.download(centroids);
    }
    std::string d = firstDifference(stats, c.refStats, "stats");
    return d.empty() ? firstDifference(centroids, c.refCentroids, "centroids (bitwise)") : d;
}

//! The row of one (algorithm, variant) and the exact check of its last call's outputs.
void record(Case& c, Report& rep, const AlgorithmRow& a, Variant v, int n, const Samples& s, Outputs& o)
{
    Row r = c.baseRow("cudacca", a.shortName(), variantName(v));
    r.nLabels = n;
    r.medianUs = s.median();
    r.p99Us = s.percentile(99);
    r.frames = v == Variant::Batch ? kBatchFrames : 1;
    rep.row(r);
    const std::string diff = compareWithCpu(c, v, n, o);
    if (!diff.empty())
        rep.mismatch(cv::format("cudacca %s %s %s: %s", a.shortName(), variantName(v), c.describe().c_str(),
                                diff.c_str()));
}

void runVariant(Case& c, Report& rep, const AlgorithmRow& a, Variant v)
{
    cv::cuda::Stream stream = cv::cuda::StreamAccessor::wrapStream(c.stream);
    Outputs o;
    int n = -1;
    auto call = [&] { n = callOnce(c, a, v, o, stream); };
    Samples s;
    try
    {
        if (v == Variant::Batch) // (a batch is kBatchFrames calls' work: a tenth of the latency rows' calls)
            s = timeWall(std::max(3, c.reps.gpuWarmup), std::max(10, c.reps.latency / 10),
                         [&] { call(); stream.waitForCompletion(); });
        else if (v == Variant::Latency || v == Variant::LatencyAnalyzer)
            s = timeWall(c.reps.gpuWarmup, c.reps.latency, [&] { call(); stream.waitForCompletion(); });
        else
            s = timeGpu(c.stream, c.reps.gpuWarmup, c.reps.gpu, call);
    }
    catch (const std::exception& e)
    {
        rep.mismatch(cv::format("cudacca %s %s %s: exception: %s", a.shortName(), variantName(v),
                                c.describe().c_str(), e.what()));
        return;
    }
    record(c, rep, a, v, n, s, o);
}

/** --interleave: the rows of every algorithm of the case timed together, one call of each in turn per round, so
that rows compared with one another share the machine's slow and fast stretches: the full, labels and stats rows
by events (timeGpuInterleaved), or (`variants` latency, then latency_analyzer, each in its own round robin) by the
wall clock with the wait (timeWallInterleaved), so that every algorithm's free-function calls also have the same
history in the process (doc/benchmarks.md, "The free function's first latency row"). A (row, variant) whose first
call throws is reported and left out. */
void runInterleaved(Case& c, Report& rep, const std::vector<const AlgorithmRow*>& rows,
                    std::initializer_list<Variant> variants)
{
    struct Slot
    {
        const AlgorithmRow* a;
        Variant v;
        Outputs o;
        int n = -1;
    };
    cv::cuda::Stream stream = cv::cuda::StreamAccessor::wrapStream(c.stream);
    std::vector<Slot> slots;
    slots.reserve(rows.size() * variants.size()); // (the calls below keep pointers into it)
    const bool wall = *variants.begin() == Variant::Latency || *variants.begin() == Variant::LatencyAnalyzer;
    for (const AlgorithmRow* a : rows)
        for (Variant v : variants)
        {
            Slot slot{ a, v, Outputs() };
            try
            {
                slot.n = callOnce(c, *a, v, slot.o, stream);
            }
            catch (const std::exception& e)
            {
                rep.mismatch(cv::format("cudacca %s %s %s: exception: %s", a->shortName(), variantName(v),
                                        c.describe().c_str(), e.what()));
                continue;
            }
            slots.push_back(std::move(slot));
        }
    std::vector<std::function<void()>> calls;
    for (Slot& slot : slots)
        calls.push_back([&c, &slot, &stream, wall] {
            slot.n = callOnce(c, *slot.a, slot.v, slot.o, stream);
            if (wall)
                stream.waitForCompletion();
        });
    std::vector<Samples> samples;
    try
    {
        samples = wall ? timeWallInterleaved(c.reps.gpuWarmup, c.reps.latency, calls)
                       : timeGpuInterleaved(c.stream, std::max(0, c.reps.gpuWarmup - 1), c.reps.gpu, calls);
    }
    catch (const std::exception& e)
    {
        rep.mismatch(cv::format("cudacca (interleaved) %s: exception: %s", c.describe().c_str(), e.what()));
        return;
    }
    for (size_t k = 0; k < slots.size(); ++k)
        record(c, rep, *slots[k].a, slots[k].v, slots[k].n, samples[k], slots[k].o);
}

} // namespace

void runCudacca(Case& c, Report& rep, const std::vector<int>& algorithmIds, bool latency)
{
    std::vector<const AlgorithmRow*> rows;
    for (int id : algorithmIds)
    {
        const AlgorithmRow* a = id == cv::cuda::CCA_DEFAULT ? &cv::cuda::cudacca::kDefaultEntry
                                                            : cv::cuda::cudacca::findAlgorithmRow(id);
        if (a && a->supports(c.connectivity))
            rows.push_back(a);
    }
    if (c.interleave && !latency)
    {
        runInterleaved(c, rep, rows, { Variant::Full, Variant::Labels, Variant::Stats });
        return;
    }
    if (c.interleave)
    {
        // each latency variant in its own round robin, then CCA_DEFAULT's batches
        runInterleaved(c, rep, rows, { Variant::Latency });
        runInterleaved(c, rep, rows, { Variant::LatencyAnalyzer });
        for (const AlgorithmRow* a : rows)
            if (a->id == cv::cuda::CCA_DEFAULT)
                runVariant(c, rep, *a, Variant::Batch);
        return;
    }
    for (const AlgorithmRow* a : rows)
    {
        const int id = a->id;
        if (latency)
        {
            for (Variant v : { Variant::Latency, Variant::LatencyAnalyzer })
                runVariant(c, rep, *a, v);
            if (id == cv::cuda::CCA_DEFAULT)
                runVariant(c, rep, *a, Variant::Batch);
        }
        else
            for (Variant v : { Variant::Full, Variant::Labels, Variant::Stats })
                runVariant(c, rep, *a, v);
    }
}

} // namespace bench
