// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The one-launch path (src/cuda/one_launch.cu; issue 13, item 1): CCA_DEFAULT on a small image, the whole
// call (labeling, raster-order ranking, labels, statistics, N) in one cooperative kernel, so that a small
// frame costs one launch and one wait instead of a dozen launches and two waits.

#ifndef CUDACCA_ONE_LAUNCH_HPP
#define CUDACCA_ONE_LAUNCH_HPP

#include <cstddef>

#include <cuda_runtime_api.h>

#include "contracts.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** Images of at most this many pixels take the one-launch path (with CCA_DEFAULT), if their forest (rows padded to
whole 32-pixel words) has at most twice as many slots (narrow images: a 1-pixel-wide one would need 32 slots a
pixel). Above it the grid's threads each have many pixels to walk per phase and FLSL_CD's pipeline wins
(doc/benchmarks.md). */
constexpr long long kOneLaunchMaxPixels = 1ll << 21;

/** The most labels (background included) an image of rows x cols can have: one per 2x2 block with
8-connectivity, a checkerboard's ceil(rows * cols / 2) with 4-connectivity. The staging is sized by it. */
int oneLaunchLabelBound(int rows, int cols, int connectivity);

/** Whether the device can run the path (cooperative launch) and the image is small enough (kOneLaunchMaxPixels). */
bool oneLaunchAvailable(int rows, int cols);

/** Device scratch the kernel needs: the forest (rows padded to whole words), the per-block root counts, a bit per
pixel (the roots) and an int per 32 pixels (the roots before them), and (wantStats) the accumulators for the label
bound. */
size_t oneLaunchScratchBytes(int rows, int cols, int connectivity, bool wantStats);

/** One call's outputs. The statistics of labels 0..N go to the HOST staging (mapped pinned memory, rows
packed) when it is given and holds N + 1 rows, else to the DEVICE ones (`capacity` rows `statsStep` and
`centroidsStep` bytes apart: the synchronous call's staging of the label bound's rows, or applyAsync's
caller's arrays); the host knows which from N. With more labels than `capacity`, stats and centroids are
not written. With more labels than `maxLabel` (CV_16U: 65535) nothing but the counts is written, so that
the call can refuse with every output untouched. */
struct OneLaunchOutputs
{
    void* labels = nullptr;  //!< int32 or uint16 (labels16u), rows `labelsStep` bytes apart; null: not wanted
    size_t labelsStep = 0;
    bool labels16u = false;
    int maxLabel = 0;
    bool wantStats = false;
    int* stats = nullptr;          //!< device rows (null: stats not wanted)
    double* centroids = nullptr;   //!< device rows (null: centroids not wanted)
    size_t statsStep = 0, centroidsStep = 0; //!< bytes between the device rows
    int capacity = 0;              //!< device rows of stats and centroids
    int* statsHost = nullptr;      //!< mapped host staging, hostRows rows (null: none)
    double* centroidsHost = nullptr;
    int hostRows = 0;
    int* count = nullptr;          //!< mapped host int: the number of foreground components (null: none)
    /** Device ints (null: none), applyAsync's count: [0] = the number of labels, background included;
    [1] = 0 when every output was written, 1 when stats and centroids were not (more labels than `capacity`),
    2 when nothing but these counts was (more labels than `maxLabel`). */
    int* labelCountAndStatus = nullptr;
    /** A batch (ConnectedComponentsAnalyzer::applyBatch): its frames' kernels share one staging of `batchRows`
    rows (statsHost / centroidsHost when given, else stats / centroids, each `statsStep` / `centroidsStep`
    bytes apart), in which each frame takes its N + 1 rows in turn. `batch` (device ints, null: no batch):
    [0] = the rows taken so far (0 before the batch's first frame), [1] = scratch for the frame running. The
    first row this frame took is written to *batchPlacement (mapped host int), -1 when its rows did not fit
    (its stats and centroids are then not written). The frames run one after another on one stream. */
    int* batch = nullptr;
    int batchRows = 0;
    int* batchPlacement = nullptr;
};

/** Queues the kernel. `scratch` holds oneLaunchScratchBytes(); `emptyCentroid` as in finalizeStatistics. */
void oneLaunch(const BinaryImage& image, int connectivity, void* scratch, const OneLaunchOutputs& out,
               double emptyCentroid, cudaStream_t stream);

// ---- a batch of frames of one size in one kernel (ConnectedComponentsAnalyzer::applyBatch) ------------------
// The frames are stacked into one virtual image (each frame's rows padded to whole tiles with background), so
// the kernel's phases run once for the batch: the roots are ranked over all frames in order, frame f's labels
// are those ranks minus the roots of the frames before it (frameBase[f]), and its statistics land in rows
// frameBase[f] + f .. frameBase[f + 1] + f of the staging (`out.batchRows` rows; each frame's background row
// first). The staging must hold N_total + frames rows; when it does not, no statistics are written (the host
// knows from frameBase). A frame with more labels than `out.maxLabel` gets no labels written.

/** One frame of a batch, in device memory. */
struct OneLaunchFrame
{
    const unsigned char* image;
    size_t imageStep;
    void* labels; //!< of ltype, null: not wanted
    size_t labelsStep;
};

/** Slots of the forest of the virtual image of `frames` frames of rows x cols, its rows padded to whole words (the
batched kernel indexes them as int). */
long long oneLaunchFramesPixels(int frames, int rows, int cols);

/** Device scratch of the batched kernel: its forest, per-block counts, root bits, frame bases, and
accumulators for `slots` rows (wantStats). */
size_t oneLaunchFramesScratchBytes(int frames, int rows, int cols, int slots, bool wantStats);

/** Queues the batched kernel over `frameCount` frames of rows x cols (`frames`: device array). `out` gives the
label type, the staging (stats / statsHost, centroids / centroidsHost; its steps) and `batchRows`, the rows it
holds; its `labels`, `batch` and `count` are unused. frameBaseHost (mapped, frameCount + 1 ints) receives each
frame's first rank - 1, the last the total of foreground components. */
void oneLaunchFrames(const OneLaunchFrame* frames, int frameCount, int rows, int cols, int connectivity, void* scratch,
                     const OneLaunchOutputs& out, int* frameBaseHost, double emptyCentroid, cudaStream_t stream);

}}} // namespace cv::cuda::cudacca

#endif
