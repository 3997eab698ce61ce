// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// cudacca's temporary device memory: stream-ordered buffers from a private pool kept between calls.

#ifndef CUDACCA_DEVICE_MEMORY_HPP
#define CUDACCA_DEVICE_MEMORY_HPP

#include <cstddef>
#include <cuda_runtime_api.h>

namespace cv { namespace cuda { namespace cudacca {

/** Device memory ordered on a stream, from cudacca's stream-ordered pool (kept between calls), freed with
cudaFreeAsync on the same stream when released or destroyed: no device-wide synchronization, so calls on
different streams overlap. Every temporary buffer of the pipeline and of the algorithms comes from here,
so that cv::cuda::getConnectedComponentsPeakBytes() measures the peak.
allocate() throws cv::Exception (cv::Error::StsNoMem) when the device is out of memory. */
class StreamBuffer
{
public:
    StreamBuffer() = default;
    StreamBuffer(const StreamBuffer&) = delete;
    StreamBuffer& operator=(const StreamBuffer&) = delete;
    ~StreamBuffer() { release(); }

    void* allocate(size_t bytes, cudaStream_t stream); //!< releases what it held first
    void release();
    void* get() const { return ptr_; }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_ = 0;
};

/** cv::cuda::releaseConnectedComponentsPool() with errors ignored. Called when a call runs out of memory,
once its buffers are freed, so that the failed call holds nothing. */
void trimTemporaryPool() noexcept;

}}} // namespace cv::cuda::cudacca

#endif
