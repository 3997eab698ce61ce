// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "precomp.hpp"

#include <atomic>

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

namespace {

/** Whether the current device's context waits by spinning (the default scheduling) rather than blocking the
host thread (cudaDeviceScheduleBlockingSync, set by the application). Cached per host thread and device. */
bool deviceWaitsBySpinning()
{
    thread_local int cachedDevice = -1;
    thread_local bool spins = true;
    int device = 0;
    checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    if (device != cachedDevice)
    {
        unsigned flags = 0;
        checkCuda(cudaGetDeviceFlags(&flags), "cudaGetDeviceFlags");
        spins = (flags & cudaDeviceScheduleMask) != cudaDeviceScheduleBlockingSync;
        cachedDevice = device;
    }
    return spins;
}

cudaError_t query(cudaEvent_t e) { return cudaEventQuery(e); }
cudaError_t query(cudaStream_t s) { return cudaStreamQuery(s); }
cudaError_t synchronize(cudaEvent_t e) { return cudaEventSynchronize(e); }
cudaError_t synchronize(cudaStream_t s) { return cudaStreamSynchronize(s); }

template <typename Done>
int waitForWord(const int* word, int unset, Done done, const char* what)
{
    const volatile int* const w = word;
    if (!deviceWaitsBySpinning())
    {
        checkCuda(synchronize(done), what);
        return *w;
    }
    for (;;)
    {
        for (int k = 0; k < 1024; ++k)
        {
            const int v = *w;
            if (v != unset)
            {
                std::atomic_thread_fence(std::memory_order_acquire); // (what the writer wrote before it: after)
                return v;
            }
        }
        const cudaError_t q = query(done);
        if (q != cudaErrorNotReady)
        {
            checkCuda(q, what);
            return *w;
        }
    }
}

} // namespace

int waitForMappedWord(const int* word, int unset, cudaEvent_t done, const char* what)
{
    return waitForWord(word, unset, done, what);
}

int waitForMappedWord(const int* word, int unset, cudaStream_t done, const char* what)
{
    return waitForWord(word, unset, done, what);
}

}}} // namespace cv::cuda::cudacca
