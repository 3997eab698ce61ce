// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// For cudacca's own test suite only (not installed, may change): how many times cudacca has asked CUDA for
// memory, so that a test can show that a ConnectedComponentsAnalyzer in steady state asks for none; whether a
// host Mat holds cudacca's pinned memory; the run pipeline's launch graphs (cuda/launch_recording.hpp), forced on
// and counted.

#ifndef CUDACCA_ALLOCATION_COUNT_HPP
#define CUDACCA_ALLOCATION_COUNT_HPP

#include <cstddef>
#include "opencv2/core/mat.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Device allocations from cudacca's pool plus pinned host allocations (cudaHostAlloc) made by cudacca in
this process so far. */
CV_EXPORTS size_t cudaAllocationCount();

/** The rows that a host Mat's memory holds when it is pinned memory of cudacca's (pinned_mats.hpp), else 0. */
CV_EXPORTS int pinnedMatRows(const cv::Mat& m);

/** Graphs of the run pipeline's work before the wait made and launched on this thread so far (launch_recording.hpp). */
CV_EXPORTS void launchGraphCounts(size_t& made, size_t& replayed);

/** 1: launch graphs wherever they apply, 0: never, -1: as OPENCV_CUDACCA_LAUNCH_GRAPHS says (launchGraphsWanted). */
CV_EXPORTS void setLaunchGraphs(int mode);

}}} // namespace cv::cuda::cudacca

#endif
