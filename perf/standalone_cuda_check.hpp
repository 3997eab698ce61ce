// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The module's checkCuda (cuda_check.hpp; defined with OpenCV's error handling in cuda_check.cpp) for the
// standalone tools of perf/ that compile module sources without OpenCV: a failed CUDA call prints what failed
// and ends the program with exit code 2. Also the out-of-line part of the module's LaunchRecording
// (launch_recording.cpp), which the kernels' host code calls: a tool never records, so everything is queued at once.
// Include it before the module's sources, once per program.

#ifndef CUDACCA_PERF_STANDALONE_CUDA_CHECK_HPP
#define CUDACCA_PERF_STANDALONE_CUDA_CHECK_HPP

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "cuda/launch_recording.hpp"

namespace cv { namespace cuda { namespace cudacca {
void checkCuda(cudaError_t status, const char* what)
{
    if (status != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        std::exit(2);
    }
}
LaunchRecording* LaunchRecording::active(cudaStream_t) { return nullptr; } // so the members below are never called
size_t LaunchRecording::appendBytes(const void*, size_t, size_t) { std::abort(); }
void LaunchRecording::beginOp(const void*, dim3, dim3, const char*, cudaEvent_t) { std::abort(); }
void LaunchRecording::endOp() { std::abort(); }
void endLaunchRecording() {}
void queueEventRecord(cudaEvent_t event, cudaStream_t stream, const char* what) { checkCuda(cudaEventRecord(event, stream), what); }
}}} // namespace cv::cuda::cudacca

#endif
