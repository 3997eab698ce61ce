// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The module's checkCuda (cuda_check.hpp; defined with OpenCV's error handling in cuda_check.cpp) for the
// standalone tools of perf/ that compile module sources without OpenCV: a failed CUDA call prints what failed
// and ends the program with exit code 2. Include it before the module's sources, once per program.

#ifndef CUDACCA_PERF_STANDALONE_CUDA_CHECK_HPP
#define CUDACCA_PERF_STANDALONE_CUDA_CHECK_HPP

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace cv { namespace cuda { namespace cudacca {
void checkCuda(cudaError_t status, const char* what)
{
    if (status != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        std::exit(2);
    }
}
}}} // namespace cv::cuda::cudacca

#endif
