// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "precomp.hpp"

namespace cv { namespace cuda { namespace cudacca {

void checkCuda(cudaError_t status, const char* what)
{
    if (status != cudaSuccess)
    {
        // A failed call (e.g. out of memory) is also left as the thread's "last error"; clear it so that a
        // later, unrelated cudaGetLastError() check (ours or OpenCV's) does not report it again.
        // Sticky errors (a faulted context) are not cleared by this and keep failing, as they must.
        cudaGetLastError();
        if (status == cudaErrorMemoryAllocation)
            CV_Error_(Error::StsNoMem, ("cudacca: out of device memory in %s (%s)", what, cudaGetErrorName(status)));
        CV_Error_(Error::GpuApiCallError, ("cudacca: %s failed: %s (%s)", what, cudaGetErrorString(status),
                                           cudaGetErrorName(status)));
    }
}

}}} // namespace cv::cuda::cudacca
