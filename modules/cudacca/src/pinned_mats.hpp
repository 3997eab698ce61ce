// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Host Mats that the GPU writes: the free function's host stats and centroids go straight into a caller's plain
// Mat whose memory is mapped pinned memory of cudacca's MatAllocator (the one-launch kernel writes them there,
// the pipelines' one copy lands there), with no copy out of a staging afterwards. The Mat keeps that memory
// when the caller lets it live, so a caller who passes the same Mats frame after frame reuses it (no allocation);
// a freed block waits in a small process-wide pool for the next Mat. At most 8 blocks (256 MB) live at once:
// past that (a caller who keeps every frame's Mats) the outputs are ordinary Mats, filled by a copy as before.

#ifndef CUDACCA_PINNED_MATS_HPP
#define CUDACCA_PINNED_MATS_HPP

#include "opencv2/core.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** The MatAllocator of pinned Mats: mapped, portable pinned memory (the device reads and writes it at its host
address, UVA), within the limits above (past them its allocate() throws, and Mat::create falls back to OpenCV's
allocator). Never destroyed (a caller's Mat may outlive everything else). Thread-safe. */
MatAllocator* pinnedMatAllocator();

/** Frees the pool's idle blocks (releaseConnectedComponentsPool()). */
void releaseIdlePinnedMats() noexcept;

/** One host output (stats or centroids: `cols` columns of `type`) that the GPU writes into pinned memory which
the caller's Mat then holds. Taken only for a plain Mat output (no fixed size or type) that is empty without an
allocator of its own (a default `cv::Mat`) or already holds pinnedMatAllocator()'s memory; other outputs (a
Python array, a HostMem, a user's own Mat) keep the staging and its copy. */
class PinnedOutput
{
public:
    /** Room for at least `needRows` rows. The caller's own memory is written in place when `inPlace` allows it,
    the Mat is the only one holding it and it has the rows; else a new block of `allocRows` rows (>= needRows),
    given to the caller's Mat by deliver() only. False (nothing done): the output is not one to take, or no block
    can be had within the limits. */
    bool open(OutputArray out, int needRows, int allocRows, int cols, int type, bool inPlace);
    void* data() const { return data_; }
    int rows() const { return rows_; } //!< rows the memory holds
    /** After the GPU has written the first `rows` rows (<= rows()): the caller's Mat shows them. A Mat shared with
    others and already of that size is written in place (OpenCV's create() would), by a copy. */
    void deliver(OutputArray out, int rows);

private:
    Mat block_;          //!< a new block (not in place)
    void* data_ = nullptr;
    int rows_ = 0;
    bool inPlace_ = false;
};

/** rows x cols of `type` in pinned memory of the pool, for a staging that the caller's own Mat is then copied from
(its block waits in the pool for the next pinned Mat once released); an empty Mat when the limits allow no block. */
Mat pinnedStagingMat(int rows, int cols, int type);

/** The rows a Mat's memory holds from its first row (its datalimit), or 0 when it is not pinnedMatAllocator()'s. */
int pinnedRows(const Mat& m);

}}} // namespace cv::cuda::cudacca

#endif
