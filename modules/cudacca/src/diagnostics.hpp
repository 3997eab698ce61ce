// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Diagnostics for cudacca's own test suite. NOT public API: not installed, may change at any time.
// Exported from the library only so that opencv_test_cudacca can measure the peak temporary memory.

#ifndef CUDACCA_DIAGNOSTICS_HPP
#define CUDACCA_DIAGNOSTICS_HPP

#include <cstddef>
#include "opencv2/core/cvdef.h"

namespace cv { namespace cuda { namespace cudacca {

/** The most bytes of cudacca's temporary device memory (every StreamBuffer of the pipeline and the
algorithms, on the current device) in use at once since the last call with reset = true. The
caller's outputs (GpuMat labels, stats, centroids) are not included. */
CV_EXPORTS size_t temporaryMemoryHighWater(bool reset);

/** Gives the free memory that cudacca's pool keeps between calls (on the current device) back to the
system, after synchronizing the device. */
CV_EXPORTS void releaseTemporaryMemory();

}}} // namespace cv::cuda::cudacca

#endif
