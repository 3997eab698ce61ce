// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The host's waits for a count that a kernel writes into mapped pinned host memory (the run pipeline's run count,
// every pipeline's N): the host reads the int as soon as the kernel has stored it, instead of waking from an event
// recorded after that kernel. Header-only: the standalone tools of perf/ compile it with the module's sources.

#ifndef CUDACCA_MAPPED_COUNT_HPP
#define CUDACCA_MAPPED_COUNT_HPP

#include <chrono>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "launch_recording.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** A mapped count not written yet (a count is never negative): stored by the host before it queues the kernel
that writes the count, never while a write of the GPU to that int may still be on its way. */
constexpr int kCountPending = -1;

/** How long awaitMappedCount() spins before it blocks on the event: the waits that decide a call's latency are
shorter, and a long one (a large image's run count) then waits as the context's schedule flags say. */
constexpr std::chrono::microseconds kCountSpin(200);

/** *count once the GPU has written it. `count`: mapped pinned memory holding kCountPending until the GPU writes it;
`written`: an event recorded after the work that writes it, queried every 64 polls (a failed kernel is reported)
and waited for after kCountSpin; work that ended without writing the count raises an error rather than a hang. */
inline int awaitMappedCount(const int* count, cudaEvent_t written, const char* what)
{
    endLaunchRecording(); // what this thread recorded is queued before the host waits (launch_recording.hpp)
    const volatile int* value = count;
    const auto start = std::chrono::steady_clock::now();
    for (unsigned poll = 1;; ++poll)
    {
        const int n = *value;
        if (n != kCountPending)
            return n;
        if (poll % 64 != 0)
            continue;
        const cudaError_t e = cudaEventQuery(written);
        if (e == cudaErrorNotReady)
        {
            if (std::chrono::steady_clock::now() - start < kCountSpin)
                continue;
            checkCuda(cudaEventSynchronize(written), what);
        }
        else
            checkCuda(e, what);
        const int last = *value; // the work is done: it has written the count or never will
        if (last == kCountPending)
            checkCuda(cudaErrorIllegalState, what); // an internal error: the work that should write it did not
        return last;
    }
}

}}} // namespace cv::cuda::cudacca

#endif
