// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "precomp.hpp"
#include "arguments.hpp"
#include "one_launch.hpp"

#include <climits>
#include <exception>
#include <string>

#include "opencv2/core/utils/configuration.private.hpp"
#include "opencv2/core/utils/logger.hpp"

namespace cv { namespace cuda { namespace cudacca {

size_t environmentSize(const char* name, size_t defaultValue)
{
    try
    {
        return utils::getConfigurationParameterSizeT(name, defaultValue);
    }
    catch (const std::exception& e) // cv::Exception is one
    {
        CV_LOG_WARNING(NULL, "cudacca: " << name << " ignored, not a size (" << e.what() << ")");
        return defaultValue;
    }
}

namespace {

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

/** The image is read while the outputs are written: they must not share memory. */
void checkNoOverlap(const ByteRange& image, OutputArray out, const char* name)
{
    if (out.kind() == _InputArray::CUDA_GPU_MAT && image.overlaps(rangeOf(out.getGpuMatRef())))
        CV_Error_(Error::StsBadArg, ("%s must not share memory with image", name));
}

/** An output must be something the result can be written to: a Mat, a GpuMat or a HostMem (or noArray()), and
when the caller fixed its type (Mat_<T>) or size, the result's. The size of stats and centroids (the
number of labels) is known only after the labeling: checkResultSize() checks it then. */
void checkOutputObject(OutputArray out, const char* name, int type, Size size)
{
    if (!out.needed())
        return;
    const int kind = out.kind();
    if (kind != _InputArray::MAT && kind != _InputArray::CUDA_GPU_MAT && kind != _InputArray::CUDA_HOST_MEM)
        CV_Error_(Error::StsBadArg, ("%s must be a cv::Mat, a cv::cuda::GpuMat, a cv::cuda::HostMem or noArray(); "
                                     "got another kind of array (_InputArray kind %d)",
                                     name, kind >> _InputArray::KIND_SHIFT));
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

} // namespace

const AlgorithmRow& checkSettings(int connectivity, int ltype, int algorithm)
{
    if (connectivity != 4 && connectivity != 8)
        CV_Error_(Error::StsBadArg, ("connectivity must be 4 or 8, got %d", connectivity));
    if (ltype != CV_32S && ltype != CV_16U)
        CV_Error_(Error::StsUnsupportedFormat,
                  ("ltype must be CV_32S or CV_16U, got %s", typeToString(ltype).c_str()));

    const int base = algorithmWithoutFlags(algorithm);
    const int resolved = base == CCA_DEFAULT ? defaultAlgorithm(connectivity) : base;
    const AlgorithmRow* row = findAlgorithmRow(resolved);
    if (!row)
        CV_Error_(Error::StsBadArg, ("algorithm %d is not one of cv::cuda::CCAAlgorithmTypes (optionally with "
                                     "CCA_ORDER_CCL_DEFAULT = 0x100 OR-ed in)", algorithm));
    if (!row->supports(connectivity))
        CV_Error_(Error::StsBadArg, ("algorithm %s does not support connectivity %d", row->name, connectivity));
    return *row;
}

namespace {

/** An input image (`name`: "image", or "images[k]" in a batch): non-empty, one 8-bit channel, not too large. */
void checkImage(int type, Size size, const std::string& name)
{
    if (size.width <= 0 || size.height <= 0) // (not area(): an int, which 65536 x 65536 wraps to 0)
        CV_Error_(Error::StsBadArg, ("%s is empty: expected a non-empty CV_8UC1 or CV_8SC1 image", name.c_str()));
    if (type != CV_8UC1 && type != CV_8SC1)
        CV_Error_(Error::StsUnsupportedFormat, ("%s must be CV_8UC1 or CV_8SC1 (one 8-bit channel), got %s",
                                                name.c_str(), typeToString(type).c_str()));
    if (static_cast<long long>(size.width) * size.height > INT_MAX - 1)
        CV_Error_(Error::StsOutOfRange, ("%s has %lld pixels: at most %d are supported", name.c_str(),
                                         static_cast<long long>(size.width) * size.height, INT_MAX - 1));
}

} // namespace

const AlgorithmRow& checkArguments(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                                   int connectivity, int ltype, int algorithm)
{
    const Size size = image.size();
    checkImage(image.type(), size, "image");
    const AlgorithmRow& row = checkSettings(connectivity, ltype, algorithm);

    checkOutputObject(labels, "labels", ltype, size);
    checkOutputObject(stats, "stats", CV_32SC1, Size(-1, -1));
    checkOutputObject(centroids, "centroids", CV_64FC1, Size(-1, -1));

    const ByteRange in = image.kind() == _InputArray::CUDA_GPU_MAT ? rangeOf(image.getGpuMat()) : ByteRange();
    checkNoOverlap(in, labels, "labels");
    checkNoOverlap(in, stats, "stats");
    checkNoOverlap(in, centroids, "centroids");
    return row;
}

namespace {

/** An applyAsync output: noArray() (unless `required`), or a GpuMat of `type` and exactly `size` (rows < 0: any
number of rows, at least one), written in place. */
void checkAsyncOutput(InputOutputArray out, const char* name, int type, Size size, bool required)
{
    if (!out.needed())
    {
        if (required)
            CV_Error_(Error::StsBadArg, ("%s is required by applyAsync: a %dx%d %s cv::cuda::GpuMat", name, size.width,
                                         size.height, typeToString(type).c_str()));
        return;
    }
    if (out.kind() != _InputArray::CUDA_GPU_MAT)
        CV_Error_(Error::StsBadArg, ("%s must be a cv::cuda::GpuMat (or noArray()) for applyAsync, which writes only "
                                     "device memory", name));
    const GpuMat m = out.getGpuMat();
    if (m.type() != type)
        CV_Error_(Error::StsUnsupportedFormat, ("%s must be %s for applyAsync (it is not reallocated), got %s", name,
                                                typeToString(type).c_str(), typeToString(m.type()).c_str()));
    if (m.cols != size.width || (size.height >= 0 ? m.rows != size.height : m.rows < 1))
        CV_Error_(Error::StsBadSize, ("%s must be %dx%s (cols x rows) for applyAsync (it is not reallocated), got %dx%d",
                                      name, size.width, size.height >= 0 ? std::to_string(size.height).c_str() : "capacity",
                                      m.cols, m.rows));
}

} // namespace

int checkAsyncArguments(InputArray image, InputOutputArray labels, InputOutputArray stats, InputOutputArray centroids,
                        InputOutputArray count, int ltype, int algorithm)
{
    if (algorithm == (CCA_DEFAULT | CCA_ORDER_CCL_DEFAULT))
        CV_Error(Error::StsNotImplemented, "applyAsync does not take CCA_ORDER_CCL_DEFAULT (this object's algorithm): "
                                           "the renumbering needs N on the host, and applyAsync never waits for it");
    if (algorithm != CCA_DEFAULT)
        CV_Error_(Error::StsNotImplemented, ("applyAsync runs CCA_DEFAULT only (its one-launch path); this object's "
                                             "algorithm is %d", algorithm));
    if (image.kind() != _InputArray::CUDA_GPU_MAT)
        CV_Error(Error::StsBadArg, "image must be a cv::cuda::GpuMat for applyAsync (an upload would wait)");
    const Size size = image.size();
    checkImage(image.type(), size, "image");
    if (static_cast<long long>(size.width) * size.height > kOneLaunchMaxPixels)
        CV_Error_(Error::StsOutOfRange, ("image has %lld pixels: applyAsync takes at most %lld (2^21)",
                                         static_cast<long long>(size.width) * size.height, kOneLaunchMaxPixels));
    checkAsyncOutput(labels, "labels", ltype, size, false);
    checkAsyncOutput(stats, "stats", CV_32SC1, Size(CC_STAT_MAX, -1), false);
    checkAsyncOutput(centroids, "centroids", CV_64FC1, Size(2, -1), false);
    checkAsyncOutput(count, "count", CV_32SC1, Size(2, 1), true);
    const int statsRows = stats.needed() ? stats.getGpuMat().rows : 0;
    const int centroidsRows = centroids.needed() ? centroids.getGpuMat().rows : 0;
    if (statsRows && centroidsRows && statsRows != centroidsRows)
        CV_Error_(Error::StsBadSize, ("stats and centroids must have the same rows (the capacity) for applyAsync, got "
                                      "%d and %d", statsRows, centroidsRows));
    const ByteRange in = rangeOf(image.getGpuMat());
    checkNoOverlap(in, labels, "labels");
    checkNoOverlap(in, stats, "stats");
    checkNoOverlap(in, centroids, "centroids");
    checkNoOverlap(in, count, "count");
    return statsRows ? statsRows : centroidsRows;
}

void checkLabelCount(int labelCount, int ltype, OutputArray stats, OutputArray centroids)
{
    if (ltype == CV_16U && labelCount - 1 > USHRT_MAX)
        CV_Error_(Error::StsOutOfRange,
                  ("labels: the image has %d labels (background included), more than CV_16U can hold (65536); "
                   "use ltype = CV_32S",
                   labelCount));
    checkResultSize(stats, "stats", Size(CC_STAT_MAX, labelCount));
    checkResultSize(centroids, "centroids", Size(2, labelCount));
}


void checkBatchArguments(InputArrayOfArrays images, OutputArrayOfArrays labels, OutputArrayOfArrays stats,
                         OutputArrayOfArrays centroids)
{
    if (images.kind() != _InputArray::STD_VECTOR_CUDA_GPU_MAT)
        CV_Error_(Error::StsBadArg, ("images must be a std::vector<cv::cuda::GpuMat>, got another kind of array "
                                     "(_InputArray kind %d)", images.kind() >> _InputArray::KIND_SHIFT));
    const std::vector<GpuMat>& in = *static_cast<const std::vector<GpuMat>*>(images.getObj());
    for (size_t k = 0; k < in.size(); ++k)
        checkImage(in[k].type(), in[k].size(), "images[" + std::to_string(k) + "]");
    auto checkKind = [&in](OutputArrayOfArrays out, const char* name, bool hostAllowed) {
        if (!out.needed())
            return;
        const int kind = out.kind();
        if (kind != _InputArray::STD_VECTOR_CUDA_GPU_MAT && !(hostAllowed && kind == _InputArray::STD_VECTOR_MAT))
            CV_Error_(Error::StsBadArg, ("%s must be %s or noArray() for applyBatch, got another kind of array "
                                         "(_InputArray kind %d)", name,
                                         hostAllowed ? "a std::vector<cv::cuda::GpuMat>, a std::vector<cv::Mat>"
                                                     : "a std::vector<cv::cuda::GpuMat>",
                                         kind >> _InputArray::KIND_SHIFT));
        if (out.fixedSize() && out.total() != in.size())
            CV_Error_(Error::StsBadSize, ("%s has the fixed length %zu, but there are %zu images", name, out.total(),
                                          in.size()));
    };
    checkKind(labels, "labels", false);
    checkKind(stats, "stats", true);
    checkKind(centroids, "centroids", true);
    // Labels written in place (an element of the image's size already) must not share memory with any image.
    if (labels.needed())
    {
        const std::vector<GpuMat>& l = *static_cast<const std::vector<GpuMat>*>(labels.getObj());
        for (size_t k = 0; k < l.size() && k < in.size(); ++k)
            for (size_t i = 0; i < in.size(); ++i)
                if (l[k].size() == in[k].size() && rangeOf(in[i]).overlaps(rangeOf(l[k])))
                    CV_Error_(Error::StsBadArg, ("labels[%zu] must not share memory with images[%zu]", k, i));
    }
}

}}} // namespace cv::cuda::cudacca
