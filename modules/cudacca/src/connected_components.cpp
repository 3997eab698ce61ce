// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cv::cuda::connectedComponentsWithStats: argument checks, buffers, outputs and the pipeline of
// cca_internal.hpp (labeling algorithm -> compressAndRank -> relabelAndAccumulate -> finalizeStatistics).

#include "precomp.hpp"
#include "diagnostics.hpp"

#include <climits>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace cv { namespace cuda {

namespace {

using namespace cudacca;

// ---- the algorithms ---------------------------------------------------------------------------------

typedef void (*LabelingFn)(const BinaryImage&, const LabelForest&, int connectivity, cudaStream_t);
typedef LabelingAlgorithm* (*LabelingFactory)();

/** An algorithm that only builds the forest: the shared analysis does the statistics. */
class ForestLabeling : public LabelingAlgorithm
{
public:
    explicit ForestLabeling(LabelingFn fn) : fn_(fn) {}
    void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool /*wantStats*/,
               cudaStream_t stream) CV_OVERRIDE
    {
        fn_(image, forest, connectivity, stream);
    }

private:
    LabelingFn fn_;
};

LabelingAlgorithm* createFlsl() { return createFullRunLabeling(RunFeatureMerge::Atomic); }
LabelingAlgorithm* createFlslCd() { return createFullRunLabeling(RunFeatureMerge::ConflictDetection); }
LabelingAlgorithm* createFlslOtf() { return createFullRunLabeling(RunFeatureMerge::OnTheFly); }

/** One row of the algorithm table: a forest-building function, or a factory of an algorithm object. */
struct AlgorithmInfo
{
    int id;
    const char* name;
    bool supports4;
    bool supports8;
    LabelingFn label;
    LabelingFactory create;

    LabelingAlgorithm* instantiate() const { return create ? create() : new ForestLabeling(label); }
};

// One line per algorithm. CCA_DEFAULT resolves through defaultAlgorithm().
const AlgorithmInfo kAlgorithms[] = {
    { CCA_UF, "CCA_UF", true, true, labelUnionFind, nullptr },
    { CCA_BKE, "CCA_BKE", false, true, labelBlockKomura, nullptr },
    { CCA_BUF, "CCA_BUF", false, true, labelBlockUnionFind, nullptr },
    { CCA_KE, "CCA_KE", true, true, labelKomuraEquivalence, nullptr },
    { CCA_OLE, "CCA_OLE", true, true, labelKalentev, nullptr },
    { CCA_RCU, "CCA_RCU", true, true, labelRowColUnify, nullptr },
    { CCA_HA, "CCA_HA", true, true, labelHennequin, nullptr },
    { CCA_FLSL, "CCA_FLSL", true, true, nullptr, createFlsl },
    { CCA_FLSL_CD, "CCA_FLSL_CD", true, true, nullptr, createFlslCd },
    { CCA_FLSL_OTF, "CCA_FLSL_OTF", true, true, nullptr, createFlslOtf },
    { CCA_TMK, "CCA_TMK", true, true, nullptr, createTreeMergeAnalysis },
};

/** CCA_DEFAULT: FLSL+CD for both connectivities, the fastest full CCA measured (H100, 8192^2, perf suite,
2026-11-22, doc/verification.md). 8-connectivity: 20.0 / 46.2 / 67.6 / 82.8 Gpix/s for g = 1 / 4 / 16 /
full, against 12.4 / 28.3 / 43.4 / 46.3 for BKE, the next best. 4-connectivity (d = 50 % per granularity,
and full): 13.6 / 35.9 / 58.9 / 82.9, against 13.2 / 27.1 / 37.6 / 36.1 for HA and 12.8 / 33.7 / 58.9 /
83.1 for FLSL. */
int defaultAlgorithm(int /*connectivity*/) { return CCA_FLSL_CD; }

const AlgorithmInfo* findAlgorithm(int id)
{
    for (const AlgorithmInfo& a : kAlgorithms)
        if (a.id == id)
            return &a;
    return nullptr;
}

// ---- argument checks: all before any device work ----------------------------------------------------

struct ByteRange
{
    const uchar* begin = nullptr;
    const uchar* end = nullptr;
    bool overlaps(const ByteRange& o) const { return begin && o.begin && begin < o.end && o.begin < end; }
};

ByteRange rangeOf(const GpuMat& m)
{
    ByteRange r;
    if (!m.empty())
    {
        r.begin = m.data;
        r.end = m.data + (m.rows - 1) * m.step + m.cols * m.elemSize();
    }
    return r;
}

ByteRange deviceRangeOf(InputArray a)
{
    return a.kind() == _InputArray::CUDA_GPU_MAT ? rangeOf(a.getGpuMat()) : ByteRange();
}

/** An output must be something the result can be written to: a Mat or a GpuMat (or noArray()), and
when the caller fixed its type (Mat_<T>) or size, the result's. The size of stats and centroids (the
number of labels) is known only after the labeling: checkResultSize() checks it then. */
void checkOutputObject(OutputArray out, const char* name, int type, Size size)
{
    if (!out.needed())
        return;
    const int kind = out.kind();
    if (kind != _InputArray::MAT && kind != _InputArray::CUDA_GPU_MAT)
        CV_Error_(Error::StsBadArg, ("%s must be a cv::Mat, a cv::cuda::GpuMat or noArray(); got another kind of "
                                     "array (_InputArray kind %d)", name, kind >> _InputArray::KIND_SHIFT));
    if (out.fixedType() && out.type() != type)
        CV_Error_(Error::StsUnsupportedFormat, ("%s has the fixed type %s (e.g. a Mat_<T>), but the result is %s",
                                                name, typeToString(out.type()).c_str(), typeToString(type).c_str()));
    if (out.fixedSize() && size.width >= 0 && out.size() != size)
        CV_Error_(Error::StsBadSize, ("%s has the fixed size %dx%d, but the result is %dx%d", name,
                                      out.size().width, out.size().height, size.width, size.height));
}

void checkResultSize(OutputArray out, const char* name, Size size)
{
    if (out.needed() && out.fixedSize() && out.size() != size)
        CV_Error_(Error::StsBadSize, ("%s has the fixed size %dx%d (cols x rows), but the result is %dx%d: "
                                      "%d labels", name, out.size().width, out.size().height, size.width,
                                      size.height, size.height));
}

const AlgorithmInfo& checkArguments(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                                    int connectivity, int ltype, int algorithm)
{
    if (image.empty())
        CV_Error(Error::StsBadArg, "image is empty: expected a non-empty CV_8UC1 or CV_8SC1 image");
    const int type = image.type();
    if (type != CV_8UC1 && type != CV_8SC1)
        CV_Error_(Error::StsUnsupportedFormat,
                  ("image must be CV_8UC1 or CV_8SC1 (one 8-bit channel), got %s", typeToString(type).c_str()));
    const Size size = image.size();
    if (static_cast<long long>(size.width) * size.height > INT_MAX - 1)
        CV_Error_(Error::StsOutOfRange, ("image has %lld pixels: at most %d are supported",
                                         static_cast<long long>(size.width) * size.height, INT_MAX - 1));
    if (connectivity != 4 && connectivity != 8)
        CV_Error_(Error::StsBadArg, ("connectivity must be 4 or 8, got %d", connectivity));
    if (ltype != CV_32S && ltype != CV_16U)
        CV_Error_(Error::StsUnsupportedFormat,
                  ("ltype must be CV_32S or CV_16U, got %s", typeToString(ltype).c_str()));

    const int resolved = algorithm == CCA_DEFAULT ? defaultAlgorithm(connectivity) : algorithm;
    const AlgorithmInfo* info = findAlgorithm(resolved);
    if (!info)
        CV_Error_(Error::StsBadArg, ("algorithm %d is not one of cv::cuda::CCAAlgorithmTypes", algorithm));
    if ((connectivity == 4 && !info->supports4) || (connectivity == 8 && !info->supports8))
        CV_Error_(Error::StsBadArg, ("algorithm %s does not support connectivity %d", info->name, connectivity));

    checkOutputObject(labels, "labels", ltype, size);
    checkOutputObject(stats, "stats", CV_32SC1, Size(-1, -1));
    checkOutputObject(centroids, "centroids", CV_64FC1, Size(-1, -1));

    // The image is read while the outputs are written: they must not share memory.
    const ByteRange in = deviceRangeOf(image);
    if (labels.kind() == _InputArray::CUDA_GPU_MAT && in.overlaps(rangeOf(labels.getGpuMatRef())))
        CV_Error(Error::StsBadArg, "labels must not share memory with image");
    if (stats.kind() == _InputArray::CUDA_GPU_MAT && in.overlaps(rangeOf(stats.getGpuMatRef())))
        CV_Error(Error::StsBadArg, "stats must not share memory with image");
    if (centroids.kind() == _InputArray::CUDA_GPU_MAT && in.overlaps(rangeOf(centroids.getGpuMatRef())))
        CV_Error(Error::StsBadArg, "centroids must not share memory with image");
    return *info;
}

// ---- device memory ----------------------------------------------------------------------------------

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

LabelForest forestOf(GpuMat& m)
{
    LabelForest f;
    f.data = m.ptr<int>();
    f.ld = static_cast<int>(m.step / sizeof(int));
    f.rows = m.rows;
    f.cols = m.cols;
    return f;
}

/** An int32 forest buffer of our own: rows padded to 128 bytes, unless that overflows the index. */
GpuMat allocateForest(StreamBuffer& buffer, Size size, cudaStream_t stream)
{
    GpuMat m = allocateMat(buffer, size.height, size.width, CV_32SC1, stream);
    if (!fitsForest(m.rows, m.step / sizeof(int)))
        m = GpuMat(size.height, size.width, CV_32SC1, buffer.allocate(sizeof(int) * size.area(), stream));
    return m;
}

/** Where an output of `rows` x `cols` is written on the device: straight into the caller's GpuMat, or
into `buffer` when the caller gave a host Mat (downloaded at the end). */
GpuMat deviceOutput(OutputArray out, int rows, int cols, int type, StreamBuffer& buffer, cudaStream_t stream)
{
    if (out.kind() == _InputArray::CUDA_GPU_MAT)
    {
        out.create(rows, cols, type);
        return out.getGpuMat();
    }
    return allocateMat(buffer, rows, cols, type, stream);
}

/** Queues the download of `d` into the host output `out`. Both continuous (our stats and centroids are
packed, and a fresh Mat is): one 1D copy. GpuMat::download issues a 2D copy, which for stats with millions
of 20-byte rows ran at 0.3 GB/s on the H100 (300 ms for 2.7 M labels); the 1D copy runs at the link's
speed. */
void downloadIfHost(OutputArray out, const GpuMat& d, Stream& stream, bool& waitNeeded)
{
    if (!out.needed() || out.kind() == _InputArray::CUDA_GPU_MAT)
        return;
    out.create(d.size(), d.type());
    Mat h = out.getMat();
    if (h.isContinuous() && d.isContinuous())
        checkCuda(cudaMemcpyAsync(h.data, d.data, h.total() * h.elemSize(), cudaMemcpyDeviceToHost,
                                  StreamAccessor::getStream(stream)),
                  "cudaMemcpyAsync (download of an output)");
    else
        d.download(h, stream);
    waitNeeded = true;
}

} // namespace

// ---- temporary memory (cca_internal.hpp) and its diagnostics (diagnostics.hpp) ----------------------

namespace cudacca {

void* StreamBuffer::allocate(size_t bytes, cudaStream_t stream)
{
    release();
    stream_ = stream;
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    checkCuda(cudaMallocFromPoolAsync(&ptr_, bytes, temporaryPool(device), stream), "cudaMallocFromPoolAsync");
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
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    cudaMemPool_t pool = temporaryPool(device);
    unsigned long long high = 0;
    checkCuda(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high), "cudaMemPoolGetAttribute (used high)");
    if (reset)
    {
        unsigned long long zero = 0;
        checkCuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero), "cudaMemPoolSetAttribute (used high)");
    }
    return static_cast<size_t>(high);
}

} // namespace cudacca

int connectedComponentsWithStats(InputArray _image, OutputArray _labels, OutputArray _stats, OutputArray _centroids,
                                 int connectivity, int ltype, int algorithm, Stream& stream)
{
    CV_INSTRUMENT_REGION();

    const AlgorithmInfo& algo = checkArguments(_image, _labels, _stats, _centroids, connectivity, ltype, algorithm);
    if (getCudaEnabledDeviceCount() <= 0)
        CV_Error(Error::GpuNotSupported, "cv::cuda::connectedComponentsWithStats: no CUDA device is available");

    const cudaStream_t s = StreamAccessor::getStream(stream);
    const Size size = _image.size();
    const bool wantStats = _stats.needed() || _centroids.needed();

    // 1. The image on the device.
    StreamBuffer imageBuffer;
    GpuMat image;
    if (_image.kind() == _InputArray::CUDA_GPU_MAT)
        image = _image.getGpuMat();
    else
    {
        Mat host = _image.getMat();
        image = allocateMat(imageBuffer, host.rows, host.cols, host.type(), s);
        image.upload(host, stream);
    }
    BinaryImage bin;
    bin.data = image.ptr<uchar>();
    bin.step = image.step;
    bin.rows = image.rows;
    bin.cols = image.cols;

    // 2. The forest: straight in the caller's CV_32S GpuMat when it can hold it (the relabeling then
    //    works in place and no extra image-sized buffer is needed), else in a buffer of our own.
    StreamBuffer forestBuffer;
    GpuMat forestMat;
    bool forestIsLabels = false;
    // (Not when stats or centroids have a fixed size: that is checked only once N is known, and the
    // labels must still be untouched if it fails.)
    const bool sizeCheckedLate = _stats.fixedSize() || _centroids.fixedSize();
    if (ltype == CV_32S && _labels.kind() == _InputArray::CUDA_GPU_MAT && !sizeCheckedLate)
    {
        _labels.create(size, CV_32SC1);
        GpuMat labels = _labels.getGpuMat();
        if (fitsForest(labels.rows, labels.step / sizeof(int)))
        {
            forestMat = labels;
            forestIsLabels = true;
        }
    }
    if (!forestIsLabels)
        forestMat = allocateForest(forestBuffer, size, s);
    const LabelForest forest = forestOf(forestMat);

    // 3. Labeling, then flattening and raster-order ranking.
    const std::unique_ptr<LabelingAlgorithm> labeling(algo.instantiate());
    labeling->label(bin, forest, connectivity, wantStats, s);

    StreamBuffer rankBuffer;
    const size_t rankBytes = rankScratchBytes(size.height, size.width);
    char* rankMemory = static_cast<char*>(rankBuffer.allocate(256 + rankBytes, s));
    int* d_componentCount = reinterpret_cast<int*>(rankMemory);
    void* rankScratch = rankMemory + 256;
    compressAndRank(forest, rankScratch, rankBytes, d_componentCount, s);

    // 4. The one synchronization: N sizes stats and centroids and is the return value.
    int componentCount = 0;
    checkCuda(cudaMemcpyAsync(&componentCount, d_componentCount, sizeof(int), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (component count)");
    checkCuda(cudaStreamSynchronize(s), "cudaStreamSynchronize (component count)");
    const int labelCount = componentCount + 1;
    if (ltype == CV_16U && labelCount - 1 > USHRT_MAX)
        CV_Error_(Error::StsOutOfRange,
                  ("labels: the image has %d labels (background included), more than CV_16U can hold (65536); "
                   "use ltype = CV_32S",
                   labelCount));
    checkResultSize(_stats, "stats", Size(CC_STAT_MAX, labelCount));
    checkResultSize(_centroids, "centroids", Size(2, labelCount));

    // 5. Final labels, with the statistics accumulated on the way.
    StreamBuffer labelsBuffer;
    GpuMat labelsOut;
    if (forestIsLabels)
        labelsOut = forestMat;
    else if (ltype == CV_32S && _labels.kind() != _InputArray::CUDA_GPU_MAT)
        labelsOut = forestMat; // our own buffer: relabel in place, download below
    else
        labelsOut = _labels.needed() ? deviceOutput(_labels, size.height, size.width, ltype, labelsBuffer, s)
                                     : allocateMat(labelsBuffer, size.height, size.width, ltype, s);

    StreamBuffer accBuffer;
    StatsAccumulators acc;
    if (wantStats)
        acc = initStatsAccumulators(accBuffer.allocate(statsAccumulatorBytes(labelCount), s), labelCount, s);
    const bool ownStats = wantStats && labeling->ownsStatistics();
    relabelAndAccumulate(forest, rankScratch, labelsOut.data, labelsOut.step, ltype == CV_16U,
                         wantStats && !ownStats ? &acc : nullptr, s);
    if (ownStats)
    {
        LabelImage finalLabels;
        finalLabels.data = labelsOut.data;
        finalLabels.step = labelsOut.step;
        finalLabels.is16u = ltype == CV_16U;
        finalLabels.rows = size.height;
        finalLabels.cols = size.width;
        labeling->accumulateStatistics(bin, finalLabels, acc, s);
    }

    // 6. CPU-layout statistics and centroids.
    StreamBuffer statsBuffer, centroidsBuffer;
    GpuMat statsOut, centroidsOut;
    if (wantStats)
    {
        if (_stats.needed())
            statsOut = deviceOutput(_stats, labelCount, CC_STAT_MAX, CV_32SC1, statsBuffer, s);
        if (_centroids.needed())
            centroidsOut = deviceOutput(_centroids, labelCount, 2, CV_64FC1, centroidsBuffer, s);
        finalizeStatistics(acc, statsOut.empty() ? nullptr : statsOut.ptr<int>(), statsOut.step,
                           centroidsOut.empty() ? nullptr : centroidsOut.ptr<double>(), centroidsOut.step,
                           std::numeric_limits<double>::quiet_NaN(), s);
    }

    // 7. Host outputs.
    bool waitNeeded = false;
    downloadIfHost(_labels, labelsOut, stream, waitNeeded);
    if (!statsOut.empty())
        downloadIfHost(_stats, statsOut, stream, waitNeeded);
    if (!centroidsOut.empty())
        downloadIfHost(_centroids, centroidsOut, stream, waitNeeded);
    if (waitNeeded)
        stream.waitForCompletion();
    return labelCount;
}

}} // namespace cv::cuda
