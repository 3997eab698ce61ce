// cudacca_bench: NPP's union-find labeling, both connectivities.
//   labels  nppiLabelMarkersUF_8u32u_C1R_Ctx + nppiCompressMarkerLabelsUF_32u_C1IR_Ctx (consecutive labels; the
//           compression returns the count to the host, so the call synchronizes)
//   full    the same + nppiCompressedMarkerLabelsUFInfo_32u_C1R_Ctx (per label: pixel count, bounding box;
//           no centroids), all contour outputs off
// NPP labels every region of equal pixel value, so the background's regions get labels too: the check is
// "same partition of the foreground, no background label shared with the foreground" and n_labels is NPP's
// count (background regions included). The Info statistics are compared with the CPU's and reported in
// notes.txt; a difference there is NPP's behaviour, not a benchmark failure.

#include "bench.hpp"

#include <opencv2/imgproc.hpp>

#ifdef CUDACCA_BENCH_HAVE_NPP
#include <npp.h>
#endif

#include <stdexcept>

namespace bench {

#ifdef CUDACCA_BENCH_HAVE_NPP
namespace {

void nppOrThrow(NppStatus st, const char* what)
{
    if (st < 0)
        throw std::runtime_error(cv::format("%s returned NppStatus %d", what, (int)st));
}

void cudaOrThrow(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

//! cudaMalloc'd memory (NPP's UF functions refuse pitched allocations).
struct DeviceMemory
{
    void* p = nullptr;
    explicit DeviceMemory(size_t bytes) { cudaOrThrow(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc"); }
    ~DeviceMemory() { cudaFree(p); }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    template <typename T> T* as() const { return static_cast<T*>(p); }
};

NppStreamContext streamContext(cudaStream_t s)
{
    NppStreamContext ctx{};
    ctx.hStream = s;
    cudaGetDevice(&ctx.nCudaDeviceId);
    const int dev = ctx.nCudaDeviceId;
    int smem = 0;
    cudaDeviceGetAttribute(&ctx.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&ctx.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    cudaDeviceGetAttribute(&ctx.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev);
    cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    ctx.nSharedMemPerBlock = (size_t)smem;
    cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaStreamGetFlags(s, &ctx.nStreamFlags);
    return ctx;
}

//! The NPP pipeline for one image: buffers sized once, then label / compress / info as often as timed.
class NppLabeler
{
public:
    NppLabeler(const Case& c)
        : img_(c.d_img), size_{ c.d_img.cols, c.d_img.rows }, norm_(c.connectivity == 8 ? nppiNormInf : nppiNormL1),
          ctx_(streamContext(c.stream)), labels_((size_t)size_.width * size_.height * sizeof(Npp32u)),
          labelBuffer_(labelBufferSize()), compressBuffer_(compressBufferSize())
    {
    }

    int label()   //!< returns NPP's maximum compressed label
    {
        nppOrThrow(nppiLabelMarkersUF_8u32u_C1R_Ctx(img_.data, (int)img_.step, labels_.as<Npp32u>(), step(), size_,
                                                    norm_, labelBuffer_.as<Npp8u>(), ctx_),
                   "nppiLabelMarkersUF_8u32u_C1R_Ctx");
        int n = 0;
        nppOrThrow(nppiCompressMarkerLabelsUF_32u_C1IR_Ctx(labels_.as<Npp32u>(), step(), size_,
                                                           size_.width * size_.height, &n,
                                                           compressBuffer_.as<Npp8u>(), ctx_),
                   "nppiCompressMarkerLabelsUF_32u_C1IR_Ctx");
        return n;
    }

    void info(int n, DeviceMemory& list)
    {
        nppOrThrow(nppiCompressedMarkerLabelsUFInfo_32u_C1R_Ctx(labels_.as<Npp32u>(), step(), size_, (unsigned)n,
                                                                list.as<NppiCompressedMarkerLabelsInfo>(), nullptr, 0,
                                                                nullptr, 0, nullptr, nullptr, nullptr, nullptr,
                                                                nullptr, ctx_),
                   "nppiCompressedMarkerLabelsUFInfo_32u_C1R_Ctx");
    }

    static size_t infoListBytes(int n)
    {
        unsigned bytes = 0;
        nppOrThrow(nppiCompressedMarkerLabelsUFGetInfoListSize_32u_C1R((unsigned)n, &bytes),
                   "nppiCompressedMarkerLabelsUFGetInfoListSize_32u_C1R");
        return bytes;
    }

    const Npp32u* labels() const { return labels_.as<Npp32u>(); }
    int step() const { return size_.width * (int)sizeof(Npp32u); }

private:
    size_t labelBufferSize() const
    {
        int bytes = 0;
        nppOrThrow(nppiLabelMarkersUFGetBufferSize_32u_C1R(size_, &bytes), "nppiLabelMarkersUFGetBufferSize_32u_C1R");
        return (size_t)bytes;
    }
    size_t compressBufferSize() const
    {
        int bytes = 0;
        nppOrThrow(nppiCompressMarkerLabelsGetBufferSize_32u_C1R(size_.width * size_.height, &bytes),
                   "nppiCompressMarkerLabelsGetBufferSize_32u_C1R");
        return (size_t)bytes;
    }

    const cv::cuda::GpuMat& img_;
    NppiSize size_;
    NppiNorm norm_;
    NppStreamContext ctx_;
    DeviceMemory labels_, labelBuffer_, compressBuffer_;
};

//! Compares NPP's per-label info with the CPU statistics under the conventions the header leaves open
//! (list index = label or label - 1; bounding box as corners or as width / height). Returns a note.
std::string compareInfo(const Case& c, const NppLabeler& npp, const DeviceMemory& list, size_t listBytes)
{
    const int w = c.d_img.cols, h = c.d_img.rows;
    cv::Mat labels(h, w, CV_32SC1);
    cudaOrThrow(cudaMemcpy(labels.data, npp.labels(), (size_t)w * h * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::vector<NppiCompressedMarkerLabelsInfo> info(listBytes / sizeof(NppiCompressedMarkerLabelsInfo));
    cudaOrThrow(cudaMemcpy(info.data(), list.p, info.size() * sizeof(info[0]), cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::vector<long long> nppOf(c.refN, -1);   // CPU label -> NPP label
    for (int y = 0; y < h; ++y)
    {
        const int* cpu = c.refLabels.ptr<int>(y);
        const int* q = labels.ptr<int>(y);
        for (int x = 0; x < w; ++x)
            if (cpu[x] > 0)
                nppOf[cpu[x]] = (unsigned)q[x];
    }
    std::string best;
    long long bestBad = -1;
    for (int offset = 0; offset <= 1; ++offset)
        for (int corners = 1; corners >= 0; --corners)
        {
            long long bad = 0;
            for (int lab = 1; lab < c.refN; ++lab)
            {
                const long long i = nppOf[lab] - offset;
                const int* s = c.refStats.ptr<int>(lab);
                if (i < 0 || i >= (long long)info.size())
                {
                    ++bad;
                    continue;
                }
                const NppiRect& b = info[i].oMarkerLabelBoundingBox;
                const int bw = corners ? b.width - b.x + 1 : b.width, bh = corners ? b.height - b.y + 1 : b.height;
                if ((int)info[i].nMarkerLabelPixelCount != s[cv::CC_STAT_AREA] || b.x != s[cv::CC_STAT_LEFT] ||
                    b.y != s[cv::CC_STAT_TOP] || bw != s[cv::CC_STAT_WIDTH] || bh != s[cv::CC_STAT_HEIGHT])
                    ++bad;
            }
            if (bestBad < 0 || bad < bestBad)
            {
                bestBad = bad;
                best = cv::format("list index = label%s, bounding box as %s", offset ? " - 1" : "",
                                  corners ? "(left, top, right, bottom)" : "(x, y, width, height)");
            }
        }
    return bestBad == 0
        ? cv::format("Info area + bounding box equal the CPU's for all %d components (%s)", c.refN - 1, best.c_str())
        : cv::format("Info differs from the CPU for %lld of %d components under every convention (closest: %s)",
                     bestBad, c.refN - 1, best.c_str());
}

//! Calls beyond the warm-up, kept within ~budget seconds when one call is slow (NPP's Info can be).
int repsWithin(double firstCallSeconds, int wanted, double budget)
{
    if (firstCallSeconds * wanted <= budget)
        return wanted;
    return std::max(1, (int)(budget / std::max(firstCallSeconds, 1e-9)));
}

void rowFrom(Case& c, Report& rep, const char* variant, int n, const Samples& s)
{
    Row r = c.baseRow("npp", "UF", variant);
    r.nLabels = n;
    r.medianUs = s.median();
    r.p99Us = s.percentile(99);
    rep.row(r);
}

} // namespace
#endif

std::string nppVersion()
{
#ifdef CUDACCA_BENCH_HAVE_NPP
    const NppLibraryVersion* v = nppGetLibVersion();
    return v ? cv::format("%d.%d.%d", v->major, v->minor, v->build) : std::string("(no version)");
#else
    return "not linked";
#endif
}

void runNpp(Case& c, Report& rep)
{
#ifdef CUDACCA_BENCH_HAVE_NPP
    const std::string what = "npp UF " + c.describe();
    try
    {
        NppLabeler npp(c);
        int n = 0;
        const Samples s = timeGpu(c.stream, c.reps.gpuWarmup, c.reps.gpu, [&] { n = npp.label(); });
        rowFrom(c, rep, "labels", n, s);
        const PartitionCheck p = checkPartition(c.ensureRefLabels(), c.refN, npp.labels(), npp.step(), false, c.stream);
        if (!p.ok())
        {
            rep.peerDisagrees(what + ": not the CPU's partition: " + p.describe());
            return;
        }
        rep.note(cv::format("%s: N = %d, CPU %d; background: %lld distinct labels", what.c_str(), n, c.refN, p.bgLabels));

        const size_t listBytes = NppLabeler::infoListBytes(n);
        DeviceMemory list(listBytes);
        const double t0 = now();
        npp.label();
        npp.info(n, list);
        cudaOrThrow(cudaStreamSynchronize(c.stream), "cudaStreamSynchronize");
        const int reps = repsWithin(secondsSince(t0), c.reps.gpu, 3.0);
        if (reps < c.reps.gpu)
            rep.note(cv::format("%s full: one call takes %.2f s, timed %d calls instead of %d", what.c_str(),
                                secondsSince(t0), reps, c.reps.gpu));
        const Samples f = timeGpu(c.stream, 0, reps, [&] { npp.label(); npp.info(n, list); });
        rowFrom(c, rep, "full", n, f);
        rep.note(what + " full: " + compareInfo(c, npp, list, listBytes));
    }
    catch (const std::exception& e)
    {
        // NPP failing on an input is its behaviour: noted (notes.txt), not a benchmark failure
        std::printf("  npp: %s\n", e.what());
        rep.note(what + ": " + e.what() + " (no row)");
        cudaGetLastError();
    }
#else
    (void)c;
    (void)rep;
#endif
}

} // namespace bench
