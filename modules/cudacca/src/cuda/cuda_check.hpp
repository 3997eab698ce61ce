// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CUDA error checks for the kernels' launch code: every failure becomes a cv::Exception that names
// the step, never a silent wrong result.

#ifndef CUDACCA_CUDA_CHECK_HPP
#define CUDACCA_CUDA_CHECK_HPP

#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

//! Throws cv::Exception (cv::Error::GpuApiCallError) naming `what` if `status` is not cudaSuccess.
void checkCuda(cudaError_t status, const char* what);

//! Checks the last kernel launch.
inline void checkLaunch(const char* kernel) { checkCuda(cudaGetLastError(), kernel); }

}}} // namespace cv::cuda::cudacca

#endif
