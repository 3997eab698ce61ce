// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "precomp.hpp"

namespace cv { namespace cuda { namespace cudacca {

void checkCuda(cudaError_t status, const char* what)
{
    if (status != cudaSuccess)
        CV_Error_(Error::GpuApiCallError, ("cudacca: %s failed: %s (%s)", what, cudaGetErrorString(status),
                                           cudaGetErrorName(status)));
}

}}} // namespace cv::cuda::cudacca
