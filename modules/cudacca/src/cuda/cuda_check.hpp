// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CUDA error checks for the kernels' launch code: every failure becomes a cv::Exception that names
// the step, never a silent wrong result. And the host's waits for a value that a kernel writes into mapped
// pinned memory (N, a run count, the one-launch kernel's done flag).

#ifndef CUDACCA_CUDA_CHECK_HPP
#define CUDACCA_CUDA_CHECK_HPP

#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

//! Throws cv::Exception (cv::Error::GpuApiCallError) naming `what` if `status` is not cudaSuccess.
void checkCuda(cudaError_t status, const char* what);

//! Checks the last kernel launch.
inline void checkLaunch(const char* kernel) { checkCuda(cudaGetLastError(), kernel); }

/** Waits until the mapped pinned int *word no longer holds `unset` (the host stored it there before queuing the
kernel that writes the value) and returns it. The host reads the word in a loop and so wakes as soon as the value
crosses the bus, where an event or stream waited for completes only once the kernel that wrote it has finished
(and, for the one-launch kernel, its whole grid has drained: doc/benchmarks.md, "The host woken by the kernel").
Between rounds of reads it queries `done` (an event recorded after the writer, or the writer's stream): an error
there is thrown (naming `what`), and once `done` has completed the word is returned whatever it holds, so a wait
never outlasts the work. When the application asked for blocking waits (cudaDeviceScheduleBlockingSync) it
synchronizes on `done` instead of spinning. */
int waitForMappedWord(const int* word, int unset, cudaEvent_t done, const char* what);
int waitForMappedWord(const int* word, int unset, cudaStream_t done, const char* what);

}}} // namespace cv::cuda::cudacca

#endif
