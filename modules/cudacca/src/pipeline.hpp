// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The call once its arguments are checked (connected_components.cpp), shared by the free function
// cv::cuda::connectedComponentsWithStats and ConnectedComponentsAnalyzer (connected_components_analyzer.cpp):
// the free function lends it resources made for the one call, an analyzer the ones it keeps.

#ifndef CUDACCA_PIPELINE_HPP
#define CUDACCA_PIPELINE_HPP

#include "opencv2/core/cuda.hpp"

#include "device_memory.hpp"
#include "registry.hpp"

namespace cv { namespace cuda { namespace cudacca {

struct CallResources
{
    const AlgorithmRow* row = nullptr;      //!< the call's algorithm (CCA_DEFAULT resolved)
    AlgorithmInstance* algorithm = nullptr; //!< its stages for the call's connectivity; null: made when needed
    int* pinnedCount = nullptr;             //!< pinned host int that N is written to (mapped: the kernels write it)
    cudaEvent_t countReady = nullptr;      //!< recorded after the work that writes N; the host waits on it
    /** An analyzer's memory: stats and centroids that the caller's arrays cannot take are handed out from
    here (device: `arena`, host: `hostOutputs`) instead of allocated. Null for the free function. */
    Arena* arena = nullptr;
    PinnedArena* hostOutputs = nullptr;
    /** The call was made with CCA_DEFAULT: a small image takes the one-launch path (one_launch.hpp). */
    bool defaultAlgorithm = false;
    /** CCA_ORDER_CCL_DEFAULT with 8-connectivity: connectedComponents() renumbers (connectedComponentsInCclDefaultOrder). */
    bool cclDefaultOrder = false;
};

/** The kernels' view of a CV_8UC1 / CV_8SC1 GpuMat. */
inline BinaryImage binaryImageOf(const GpuMat& m)
{
    BinaryImage b;
    b.data = m.ptr<uchar>();
    b.step = m.step;
    b.rows = m.rows;
    b.cols = m.cols;
    return b;
}

/** The call with checked arguments (checkArguments in arguments.hpp; a device is present). Returns N. */
int connectedComponents(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                        int connectivity, int ltype, Stream& stream, CallResources& resources);

/** connectedComponents() for CCA_ORDER_CCL_DEFAULT with 8-connectivity (ccl_default_order.cpp): the call into
CV_32S device outputs of its own, its components renumbered in raster order of their first 2x2 block (as the
CPU's cv::CCL_DEFAULT numbers them), then the caller's outputs written. Returns N. */
int connectedComponentsInCclDefaultOrder(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                                         int ltype, Stream& stream, CallResources& resources);

/** ConnectedComponentsAnalyzer::applyBatch with checked arguments (checkBatchArguments), inside the object's
arena scope. The images that the one-launch path takes (CCA_DEFAULT, at most kOneLaunchMaxPixels) are queued
one after another with one wait for all; the others, and frames whose statistics did not fit the batch's
staging of `stagingRows` rows, are labeled by connectedComponents() one by one. `stagingRows` grows to what
the batch needed. counts[k] = N of images[k]. */
void connectedComponentsBatch(InputArrayOfArrays images, OutputArrayOfArrays labels, OutputArrayOfArrays stats,
                              OutputArrayOfArrays centroids, std::vector<int>& counts, int connectivity, int ltype,
                              Stream& stream, CallResources& resources, int& stagingRows);

}}} // namespace cv::cuda::cudacca

#endif
