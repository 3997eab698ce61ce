// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#ifndef OPENCV_CUDACCA_HPP
#define OPENCV_CUDACCA_HPP

#ifndef __cplusplus
#  error cudacca.hpp header must be compiled as C++
#endif

#include "opencv2/core/cuda.hpp"

/**
  @defgroup cudacca GPU connected components with statistics

  cudacca labels the connected components of a binary image on an NVIDIA GPU and computes, for every
  component, its bounding box, area and centroid. Its results are identical to OpenCV's CPU
  cv::connectedComponentsWithStats with cv::CCL_SAUF: the same label image (labels numbered in raster
  order of each component's first pixel), the same statistics rows and bitwise the same centroids.
*/

namespace cv { namespace cuda {

//! @addtogroup cudacca
//! @{

/** @brief Labeling algorithms of cv::cuda::connectedComponentsWithStats.

Every algorithm gives the same result; they differ in speed and memory. The names do not clash with
cudaimgproc's cv::cuda::ConnectedComponentsAlgorithmsTypes (CCL_DEFAULT, CCL_BKE).

Work is linear in the number of pixels for the direct algorithms; the iterative ones (Bolelli et al. 2024,
section III-A: CCA_OLE, CCA_RCU, CCA_NP, CCA_LNP, CCA_DPL, CCA_LE, CCA_BRB, CCA_8DLS, CCA_M8DLS, CCA_RASMUSSEN,
CCA_BE; CCA_STAVA's tile merging needs no rounds) repeat rounds until nothing changes; those that move a label a bounded distance
per round (CCA_NP, CCA_LNP, CCA_RASMUSSEN) need rounds in proportion to the longest path inside a component,
about n^2 / 2 for a 1-pixel spiral of n x n: correct, but slow on such images. Temporary device memory, unless a row says more: 36 bytes per label
and a few bytes per 1024 pixels when the labels are a CV_32S GpuMat; 4 bytes per pixel more (an int32
label forest) for CV_16U or host labels; the FLSL family (CCA_DEFAULT above 2^21 pixels) adds a quarter of a byte
per pixel and 4 bytes per run, the runs held inside CV_32S GpuMat labels with contiguous pixels on large images with
many runs (then about 2 bytes per run: 0.77 bytes per pixel in all at 4096 x 4096, 60 % random pixels).

| value | algorithm | connectivity | source |
|---|---|---|---|
| CCA_DEFAULT | images of up to 2^21 pixels (e.g. 1448 x 1448, 1920 x 1080; images narrower than 32 pixels: up to 131 072 rows): the ONE-LAUNCH path, the whole call in one cooperative kernel (tiles of 64 columns and 16 to 64 rows labeled by union-find in shared memory, the pairs across tiles in global memory, raster-order ranking, labels and statistics) and one wait, the statistics written to pinned host memory by the kernel; larger images: CCA_FLSL_CD. Both connectivities (the choice and its measurements: doc/benchmarks.md in the cudacca repository). Temporary device memory on the one-launch path: 4.25 bytes per pixel (rows padded to a multiple of 32 pixels) and 72 bytes per possible label (a quarter of the pixels with 8-connectivity, half with 4) | 4, 8 | union-find of Bolelli et al. 2024, Algorithm 1; the pairs joined as in Lemaitre et al. 2021, section 3.1 |
| CCA_UF | direct union-find: local merge in shared memory, border merge, compression | 4, 8 | Oliveira and Lotufo 2010, as described in Bolelli et al. 2024, section III-B-1 |
| CCA_BKE | direct, on 2x2 blocks: each block linked to its first connected neighbour block, compression, the remaining unions, compression, final labeling | 8 | Allegretti, Bolelli and Grana 2019 (BKE), as described in Bolelli et al. 2024, section III-B-9 |
| CCA_BUF | direct union-find on 2x2 blocks: initialization, unions of connected neighbour blocks, compression, final labeling | 8 | Allegretti, Bolelli and Grana 2019 (BUF), as described in Bolelli et al. 2024, section III-B-8 |
| CCA_KE | direct: each pixel linked to its first foreground neighbour, compression, the few remaining unions | 4, 8 | Komura 2015 (8-connectivity: Allegretti et al. 2018), as described in Bolelli et al. 2024, section III-B-3 |
| CCA_OLE | iterative label equivalence without atomics: scanning and analysis until nothing changes (waits for the stream between batches of rounds) | 4, 8 | Kalentev et al. 2011, section 2.2 (OLE in Bolelli et al. 2024, section III-A-4) |
| CCA_RCU | iterative directional propagation: each round unifies the labels along every row, every column and, for 8-connectivity, both diagonals with a shared-memory reduction cascade, until nothing changes (waits for the stream between batches of rounds; rounds grow with the image side on dense random images: slow, as the paper found) | 4, 8 | Kalentev et al. 2011, section 2.1 (Row-Col Unify), generalized to any size and to 8-connectivity |
| CCA_HA | direct, run-based: strip labeling with warp ballots (runs carried along 32-pixel pieces), border merging between strips, final labeling; HA4 for 4-connectivity, HA8 for 8 | 4, 8 | Hennequin et al. 2018, as described in Bolelli et al. 2024, section III-B-6, and Lemaitre et al. 2021, section 2 |
| CCA_FLSL | direct, full runs: each row's runs found by a warp (ballot, compress-store), one thread per run unites it with the touching runs of the neighbour rows; statistics accumulated once per full run after labeling | 4, 8 | Lemaitre et al. 2021, section 3.1 and Algorithm 1 |
| CCA_FLSL_CD | CCA_FLSL whose statistics updates first meet, per warp, the other runs of the same component (__match_any_sync) and are reduced to one leader: fewer conflicting atomics past the percolation threshold | 4, 8 | Lemaitre et al. 2021, section 3.3 and Algorithm 3 |
| CCA_FLSL_OTF | CCA_FLSL whose run features move to the surviving root while components merge (on-the-fly merge); the statistics step then only gathers the roots. Waits once more for the stream, to size its per-run feature table (up to 16 bytes per pixel) | 4, 8 | Lemaitre et al. 2021, section 3.2 and Algorithm 2 |
| CCA_TMK | labeling by CCA_BKE (8-connectivity) or CCA_KE (4), then the tree-merge feature extraction: one feature node per pixel pair, nodes merged into binary trees keyed by label (in shared memory, then in global memory with doubling group sizes, equal labels merged without atomics), tree sizes, and a balancing step that packs the valid nodes at the front of the array, so that only N - 1 nodes are left to copy. Temporary device memory: about 34 bytes per pixel plus 64 per component; cv::Error::StsNoMem when the device cannot hold it | 4, 8 | Windisch et al. 2023, section 3.2 |
| CCA_NP | iterative neighbour propagation: every foreground pixel starts with its own index as label, and each round takes the smallest label among itself and its foreground neighbours (32 x 32 tiles in shared memory), until nothing changes (waits for the stream between batches of rounds). A round moves a label one pixel: the rounds grow with the longest path inside a component (about n^2 / 2 on a 1-pixel spiral of n x n), slow on long paths | 4, 8 | Hawick et al. 2010, as described in Bolelli et al. 2024, section III-A-1 and Algorithm 2 |
| CCA_LNP | CCA_NP in 16 x 16 tiles in shared memory: each round takes the neighbours' labels from global memory, then repeats the propagation inside the tile until the tile changes nothing, until a round changes nothing (waits for the stream between batches of rounds). A round carries a label across whole tiles, but the rounds still grow with the longest path | 4, 8 | Hawick et al. 2010, as described in Bolelli et al. 2024, section III-A-2 and Algorithm 2 |
| CCA_DPL | iterative directional propagation: every foreground pixel starts with its own index as label; each round takes the smallest label along every row and column run in four passes (left to right, bottom to top, right to left, top to bottom: a warp per row, a thread per chunk of a column), until nothing changes (waits for the stream between batches of rounds). Rounds grow with the turns of a path, not its length | 4 | Hawick et al. 2010, as described in Bolelli et al. 2024, section III-A-3 |
| CCA_LE | iterative label equivalence with a separate equivalence array (4 bytes per pixel more): scan (each pixel lowers the equivalence of its label to its smallest neighbour label, atomicMin), analysis (every label's equivalence resolved to its root), labeling (every pixel takes its label's root), until nothing changes (waits for the stream between batches of rounds) | 4, 8 | Hawick et al. 2010, as described in Bolelli et al. 2024, section III-A-4 |
| CCA_STAVA | label equivalence in 16 x 16 tiles in shared memory (atomicMin, until the tile converges), then a hierarchical merge: each step unites the borders between 4 x 4 macro-tiles of the previous step (union-find), with a find on the next step's border pixels in between, until one macro-tile covers the image; compression. A fixed number of launches (no waits) | 8 | Stava and Benes 2011, as described in Bolelli et al. 2024, section III-A-5 and Algorithm 4 |
| CCA_BRB | iterative, on 2x2 blocks in block rows of two pixel rows: block-run extraction (the two rows OR-ed, runs found with warp ballots and __clz, every block of a run pointed at the run's smallest key), then links of the roots of connected blocks of adjacent block rows (atomicMin, one per pair) and compression until a round links nothing (waits for the stream between batches of rounds), final labeling | 8 | Chen et al. 2011, as described in Bolelli et al. 2024, section III-A-6 |
| CCA_8DLS | iterative label selection along the 8 directions: every foreground pixel starts with its own index as label; each round, every foreground pixel takes the smallest label of the four maximal foreground segments through it (row, column, diagonal, anti-diagonal), all from the previous round's labels (a segmented prefix and suffix minimum per line: a warp per row, a thread per chunk of a column or diagonal), until nothing changes (waits for the stream between batches of rounds). Rounds grow with the turns of a path, not its length. 4 bytes per pixel more (the previous round's labels) | 8 | Soh et al. 2014, as described in Bolelli et al. 2024, section III-A-7 |
| CCA_M8DLS | CCA_8DLS that skips, in each round, the rows, columns and diagonals on which no label changed in the previous round (a byte per line), until a round changes nothing: every round's result is exactly CCA_8DLS's. The paper's rule (pixels still holding their own label after two rounds are final) can give wrong labels: not used | 8 | Soh et al. 2014, as described in Bolelli et al. 2024, section III-A-7, corrected |
| CCA_RASMUSSEN | iterative propagation along straight runs: every foreground pixel starts with its own index as label; each round, per 32 x 32 tile in shared memory (one-pixel halo), the length of the foreground run from every pixel in each of the 8 directions (propagation sizes, by doubling with warp shuffles), and every pixel takes the smallest label at the end of those runs and of its 8 neighbours, until nothing changes (waits for the stream between batches of rounds). A round carries a label up to 32 pixels along a straight run, but the rounds still grow with the longest path. No connection bits in the labels: no size limit beyond the other algorithms' | 8 | Rasmusson, Sorensen and Ziegler 2013, as described in Bolelli et al. 2024, section III-A-8 |
| CCA_BE | iterative label equivalence on 2x2 blocks: initialization (block labels and a byte of connected neighbour blocks per block, by the paper's two-step check; 5 bytes per block more), then CCA_OLE's scanning and analysis on blocks until nothing changes (waits for the stream between batches of rounds), final labeling | 8 | Zavalishin et al. 2016, as described in Bolelli et al. 2024, section III-A-9 and Algorithm 5 |
| CCA_LBUF | direct union-find with single lines as tiles: each pixel linked to its left neighbour, then to its run's first pixel, unions across every pair of adjacent rows (CCA_UF's border merge), compression | 4, 8 | line-based union-find, as described in Bolelli et al. 2024, section III-B-2 |
| CCA_ACCL | direct, run-based: one thread per row finds its runs and points every pixel at its run's first pixel, then one thread per run unites its first pixel with a pixel of every run of the row above that touches it (union-find instead of the paper's child kernel per merge), compression | 4, 8 | Paravecino and Kaeli 2014, as described in Bolelli et al. 2024, section III-B-4 |
| CCA_DLP | direct union-find on a 2x2 mask per pixel (pixel, right, down, down-right): in 32 x 16 tiles, a one-shot SetRoot (the mask's smallest label scattered to its pixels' roots with atomicMin), compression, then full unions of the mask (recursive union-find) and compression; then the unions of the masks that cross tile borders | 8 | Cabaret et al. 2017, as described in Bolelli et al. 2024, section III-B-5 |
| CCA_C_SAUF | direct union-find, one thread per pixel: initialization, unions chosen by SAUF's decision tree over the scan mask (up-left, up, up-right, left: as few neighbours read and as few unions as the tree allows), compression | 4, 8 | Allegretti et al. 2019 (Wu et al. 2009's SAUF), as described in Bolelli et al. 2024, section III-B-7 |
| CCA_C_BBDT | direct union-find on 2x2 blocks, one thread per block: initialization, unions chosen by BBDT's optimal decision tree over the 2x2-block scan mask (one neighbour block of each group of connected neighbours, only the mask pixels the tree needs read: 5.3 tests per configuration on average), compression, final labeling | 8 | Allegretti et al. 2019 (Grana et al. 2010's BBDT), as described in Bolelli et al. 2024, section III-B-7 |
| CCA_C_DRAG | CCA_C_BBDT whose decision tree has its equivalent subtrees merged into a directed acyclic graph: the same tests and unions, less than half the nodes (less code) | 8 | Allegretti et al. 2019 (Bolelli et al. 2018's DRAG), as described in Bolelli et al. 2024, section III-B-7 |
*/
enum CCAAlgorithmTypes
{
    CCA_DEFAULT = 0, //!< Images of up to 2^21 pixels: the one-launch path; larger: CCA_FLSL_CD (both connectivities).
    CCA_UF      = 1, //!< Union-find with shared-memory local merge (Oliveira and Lotufo).
    CCA_BKE     = 2, //!< Block-based Komura equivalence on 2x2 blocks (Allegretti et al.). 8-connectivity only.
    CCA_BUF     = 3, //!< Block-based union-find on 2x2 blocks (Allegretti et al.). 8-connectivity only.
    CCA_KE      = 4, //!< Komura equivalence: direct, neighbour-linked initialization (Komura; Allegretti et al.).
    CCA_OLE     = 5, //!< Kalentev et al.'s label equivalence: iterative, no atomics.
    CCA_RCU     = 6, //!< Kalentev et al.'s Row-Col Unify: iterative directional propagation; rounds grow with the image side.
    CCA_HA      = 7, //!< Hennequin et al.'s run-based HA4 (4-connectivity) / HA8 (8-connectivity).
    CCA_FLSL    = 8, //!< Lemaitre et al.'s full-line segment labeling; statistics per full run.
    CCA_FLSL_CD = 9, //!< CCA_FLSL with conflict detection in the statistics (warp-level reduction per component).
    CCA_FLSL_OTF = 10, //!< CCA_FLSL with on-the-fly feature merge during labeling.
    CCA_TMK     = 11, //!< Windisch et al.'s tree-merge feature extraction (compacted feature tree).
    // the rest of Bolelli et al. 2024's catalog, iterative (section III-A): values 12 to 21
    CCA_NP      = 12, //!< Hawick et al.'s neighbour propagation: iterative, one pixel per round; rounds grow with the longest path.
    CCA_LNP     = 13, //!< Hawick et al.'s local neighbour propagation: CCA_NP iterated inside 16x16 tiles in shared memory.
    CCA_DPL     = 14, //!< Hawick et al.'s directional propagation: labels carried along whole rows and columns, four directions per round. 4-connectivity only.
    CCA_LE      = 15, //!< Hawick et al.'s label equivalence: iterative, a separate equivalence array, atomics.
    CCA_STAVA   = 16, //!< Stava and Benes's labeling: label equivalence in 16x16 tiles, then a hierarchical merge of 4x4 groups of tiles. 8-connectivity only.
    CCA_BRB     = 17, //!< Chen et al.'s block-run-based labeling: runs of 2x2 blocks per block row joined at once, then root links between block rows until stable. 8-connectivity only.
    CCA_8DLS    = 18, //!< Soh et al.'s 8-directional label selection: each round, every pixel takes the smallest label of its row, column and diagonal segments. 8-connectivity only.
    CCA_M8DLS   = 19, //!< CCA_8DLS skipping the lines on which nothing changed in the previous round (exact, unlike the paper's two-round rule). 8-connectivity only.
    CCA_RASMUSSEN = 20, //!< Rasmusson et al.'s propagation sizes: labels carried along straight runs of 32x32 tiles, 8 directions per round; rounds grow with the longest path. 8-connectivity only.
    CCA_BE      = 21, //!< Zavalishin et al.'s block equivalence: CCA_OLE on 2x2 blocks. 8-connectivity only.
    // direct (section III-B): values 22 to 27
    CCA_LBUF    = 22, //!< Line-based union-find: CCA_UF with single lines as its tiles.
    CCA_ACCL    = 23, //!< Paravecino and Kaeli's accelerated CCL: run-based, runs found per row, then joined per run.
    CCA_DLP     = 24, //!< Cabaret et al.'s distanceless label propagation (2x2-mask SetRoot and union-find, tiles then borders).
    CCA_C_SAUF  = 25, //!< Allegretti et al.'s CUDA SAUF: union-find, each pixel's unions chosen by SAUF's decision tree.
    CCA_C_BBDT  = 26, //!< Allegretti et al.'s CUDA BBDT: CCA_BUF with each 2x2 block's unions chosen by BBDT's optimal decision tree. 8-connectivity only.
    CCA_C_DRAG  = 27, //!< CCA_C_BBDT with the tree's equivalent subtrees merged into a graph (DRAG): same tests, less code. 8-connectivity only.
    /** A flag, OR-ed into any of the above (`CCA_DEFAULT | CCA_ORDER_CCL_DEFAULT`): number the components as the
    CPU's cv::connectedComponentsWithStats does with its default ccltype (cv::CCL_DEFAULT), so that the result
    equals cv::connectedComponentsWithStats(image, labels, stats, centroids, connectivity, ltype). With
    8-connectivity that is raster order of each component's first 2x2 block (rows 2k and 2k+1, columns 2j and
    2j+1, blocks ordered by (k, j)); with 4-connectivity the flag changes nothing (CCL_DEFAULT is SAUF there).
    Cost with 8-connectivity: the call labels into device buffers of its own, then one pass over the label
    image for each component's first block, a radix sort of the N - 1 keys, a relabeling pass and a
    permutation of the statistics rows, then the copy into the caller's outputs; about 100 bytes per label and
    4 per pixel of temporary device memory, allocated per call (also through an analyzer).
    ConnectedComponentsAnalyzer::applyAsync refuses it. */
    CCA_ORDER_CCL_DEFAULT = 0x100,
};

/** @overload
The call on the default stream, Stream::Null() (see the overload with a stream below). Two overloads
instead of a default for the stream: OpenCV's Python binding builds a default Stream argument before it can
catch an exception, so without a CUDA driver such a call aborted the interpreter. This overload, declared
first and so tried first by the binding, needs no Stream and raises cv2.error instead.
*/
CV_EXPORTS_W int connectedComponentsWithStats(InputArray image, OutputArray labels, OutputArray stats,
                                              OutputArray centroids, int connectivity = 8, int ltype = CV_32S,
                                              int algorithm = CCA_DEFAULT);

/** @brief Computes the connected components of a binary image and their statistics on the GPU.

The result equals cv::connectedComponentsWithStats(image, labels, stats, centroids, connectivity, ltype,
cv::CCL_SAUF) (or cv::CCL_WU) on the CPU. The CPU's default, cv::CCL_DEFAULT, finds the same components;
with 4-connectivity it also numbers them the same way, with 8-connectivity it numbers them by their first
2x2 block (rows 2k and 2k+1) in raster order instead (as cv::CCL_GRANA and cv::CCL_BOLELLI do; seen on
OpenCV 4.10 and 5.0, one and several threads); CCA_ORDER_CCL_DEFAULT in @p algorithm gives that numbering. Here: label 0 is the background (zero pixels), labels 1..N-1 are numbered in raster
order of the first pixel of each component, every statistics row and centroid is the CPU's, including
the background row when the image has no background pixel (LEFT = -1, TOP = INT_MAX, WIDTH = HEIGHT =
AREA = 0, centroid (NaN, NaN)).

@param image Single-channel 8-bit image, CV_8UC1 or CV_8SC1; nonzero pixels are foreground. A GpuMat
(an ROI is fine), a cuda::HostMem (pinned: uploaded from where it is) or a host Mat (uploaded on @p stream; from
512 KB up to 2^22 pixels the free function copies it into pinned memory first, on OpenCV's threads). Any size from
1x1 up to 2^31 - 2 pixels.
@param labels Output label image of the same size, type @p ltype. A GpuMat stays on the GPU; a Mat or a
cuda::HostMem (pinned: the download is an asynchronous copy) is downloaded; noArray() when only the
statistics are wanted. On images of up to 2^22 pixels a host Mat gets the download at the link's speed: an empty
Mat (or one that holds cudacca's pinned memory, as below for stats) receives pinned memory of cudacca's, written in
place when passed again (shared with another Mat too: as Mat::create leaves it); the free function copies into
other Mats (the caller's own, Python arrays) from a pinned staging on OpenCV's threads.
@param stats Output N x 5 CV_32S matrix, one row per label, columns cv::CC_STAT_LEFT, CC_STAT_TOP,
CC_STAT_WIDTH, CC_STAT_HEIGHT, CC_STAT_AREA. GpuMat, Mat or HostMem. Pass noArray() to skip the analysis:
then no statistics work is done at all.
@param centroids Output N x 2 CV_64F matrix (x, y) of each label, GpuMat, Mat or HostMem, or noArray().
A GpuMat @p stats or @p centroids that does not already have the size and type is allocated continuous
(cv::cuda::createContinuous): GpuMat::create would pad each 20- or 16-byte row to the device's pitch.
A host Mat @p stats or @p centroids that is empty (a default cv::Mat) receives pinned host memory of cudacca's
own (an ordinary Mat to the caller, with spare rows past its N), which the GPU writes directly: no copy on the
host. Passed again, such a Mat is reused in place while no other Mat shares it and its memory holds the rows;
released, its memory goes back to a small pool for the next call (releaseConnectedComponentsPool() frees the
pool). At most 8 such pieces of memory exist at once: a caller who keeps every frame's Mats gets ordinary ones past
that. Other host Mats (of the caller's allocator, or Python arrays) get a copy.
@param connectivity 8 or 4.
@param ltype Label type: CV_32S or CV_16U. CV_16U holds labels up to 65535, i.e. at most 65536 labels
with the background. Past that the CPU silently wraps the labels; this function throws
cv::Error::StsOutOfRange instead and leaves @p labels, @p stats and @p centroids untouched.
@param algorithm One of cv::cuda::CCAAlgorithmTypes, optionally with CCA_ORDER_CCL_DEFAULT OR-ed in (the CPU's
default numbering instead of CCL_SAUF's).
@param stream Stream for all the work (uploads, kernels, downloads).
@return N, the number of labels including the background label 0.

Synchronization: the number of labels sizes @p stats and @p centroids and is returned, so the call waits
once after the labeling, until the GPU has written N, before the statistics are queued (the calling thread reads
a pinned host word in a loop for up to 200 us, then waits for an event as the CUDA context's scheduling flags
say; work queued on @p stream before the call is waited for too). The FLSL family, hence
CCA_DEFAULT above 2^21 pixels, queues the label image before that wait when @p labels is a CV_32S GpuMat,
and waits once more, in the same way, for the number of runs, on images above about 2^23 pixels. CCA_DEFAULT on images of
up to 2^21 pixels waits once: its one kernel writes N, and host stats and centroids, to pinned host memory
(unless @p stats or @p centroids has a fixed size, which takes the CCA_FLSL_CD path); with an output on the host
the wait is for the whole kernel, and when every output is a GpuMat only until the kernel has written N, which it
does before it writes the labels and statistics: the call returns while they are being written. When every output
is a GpuMat the call returns without waiting again: the outputs are ready once @p stream is (e.g. after
stream.waitForCompletion()), as for any work queued on it. Each output given as a host Mat is downloaded and
waited for before the call returns. A call that runs out of device memory raises cv::Error::StsNoMem and holds no device
memory afterwards.

Errors: arguments are checked before any GPU work; a wrong argument raises cv::Exception naming it,
and no output is modified.
 */
CV_EXPORTS_W int connectedComponentsWithStats(InputArray image, OutputArray labels, OutputArray stats,
                                              OutputArray centroids, int connectivity CV_WRAP_DEFAULT(8),
                                              int ltype CV_WRAP_DEFAULT(CV_32S),
                                              int algorithm CV_WRAP_DEFAULT(CCA_DEFAULT), Stream& stream);


/** @brief connectedComponentsWithStats for a stream of images with the same settings, with memory of its own.

apply() returns what connectedComponentsWithStats(image, labels, stats, centroids, connectivity, ltype,
algorithm, stream) returns, bit for bit. The object keeps what a call needs between calls: the algorithm's
stages, device memory that grows to what a call takes and is then reused, pinned host memory for the
number of labels and for host statistics. Once it has grown, a call allocates no device or host memory
(GpuMat and Mat outputs that already fit, or that the object provides; see below).

Outputs: @p labels, and stats and centroids that already have the result's size and type, are written in
place, as by the free function. A @p stats or @p centroids that does not fit (the number of labels changes
from image to image) is not reallocated: it becomes a view of the object's memory (device memory for a
GpuMat, pinned host memory for a Mat), valid until the next apply() or releaseMemory() of this object;
clone() it to keep it longer. (A HostMem owns its memory: it is reallocated when its size changes.) One call at a time per object (it is not thread-safe); calls may use
different streams.

Errors as in connectedComponentsWithStats; the settings are checked by createConnectedComponentsAnalyzer(). */
class CV_EXPORTS_W ConnectedComponentsAnalyzer : public Algorithm
{
public:
    /** @brief On the default stream (no Stream argument: see connectedComponentsWithStats). */
    CV_WRAP virtual int apply(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids) = 0;
    /** @brief On @p stream. */
    CV_WRAP virtual int apply(InputArray image, OutputArray labels, OutputArray stats, OutputArray centroids,
                              Stream& stream) = 0;
    /** @brief apply() without any wait on the host, for CUDA graph capture: N and every output stay on the device.

    CCA_DEFAULT only, on images of up to 2^21 pixels: its one-launch path, one cooperative kernel on @p stream and
    nothing else (cv::Error::StsNotImplemented for another algorithm or a device without cooperative launch).
    Nothing is allocated while @p stream is being captured: a first call outside capture, on an image of the
    largest size to come, sizes the object's device memory (a captured call that needs more raises
    cv::Error::StsBadArg). A graph that captured a call uses that memory: releaseMemory() only once no such
    graph runs any more. Calls of one object must be ordered (one stream, or the caller orders them).
    @param image CV_8UC1 or CV_8SC1 GpuMat, at most 2^21 pixels.
    @param labels GpuMat of the image's size and the object's ltype, written in place, or noArray().
    @param stats CV_32SC1 GpuMat of 5 columns whose rows are the CAPACITY, written in place (rows 0..N-1) when N
    <= capacity, or noArray().
    @param centroids CV_64FC1 GpuMat of 2 columns, the same rows as @p stats when both are given, or noArray().
    @param count CV_32SC1 GpuMat of 1 x 2 (cols x rows: 2 x 1), written on the device: [0] = N, the number of
    labels including the background; [1] = 0 when every output was written, 1 when N exceeds the capacity
    (@p stats and @p centroids not written, @p labels written; only when one of them is given), 2 when N exceeds
    what ltype holds (CV_16U: only @p count written).
    Arguments are checked as in apply(), before any GPU work; none is reallocated. */
    /** @brief apply() on a batch of images, each result identical to apply() on that image, with ONE wait for
    the whole batch.

    With CCA_DEFAULT, the images of up to 2^21 pixels are labeled by the one-launch path one after another on
    @p stream, their statistics gathered in one staging, and the host waits once; other images (larger ones,
    or every image with another algorithm) and images whose statistics did not fit the staging (it grows to
    what the last batch needed, so this happens on a first batch) are labeled by one apply() each. The
    outputs are handed out as by apply(): stats and centroids that the caller's elements do not fit become
    views of the object's memory, valid until its next call.
    @param images std::vector<cv::cuda::GpuMat> of CV_8UC1 or CV_8SC1 images; sizes may differ.
    @param labels std::vector<cv::cuda::GpuMat>: element k receives images[k]'s labels (the object's ltype);
    or noArray().
    @param stats std::vector<cv::cuda::GpuMat> or std::vector<cv::Mat>: element k is N_k x 5 CV_32SC1; or
    noArray().
    @param centroids likewise, N_k x 2 CV_64FC1; or noArray().
    @param counts N_k for each image (labels including the background).
    @param stream the stream of every image's work.
    A wrong argument or element raises cv::Exception naming it ("images[3]") before any GPU work. With CV_16U,
    an image with more than 65536 labels raises cv::Error::StsOutOfRange naming it, its labels untouched;
    other images' labels may be written by then. */
    virtual void applyBatch(InputArrayOfArrays images, OutputArrayOfArrays labels, OutputArrayOfArrays stats,
                            OutputArrayOfArrays centroids, CV_OUT std::vector<int>& counts, Stream& stream) = 0;
    /** @brief applyBatch() with every output a std::vector<cv::cuda::GpuMat>: the form Python has
    (`labels, stats, centroids, counts = analyzer.applyBatch(images, stream)`; OpenCV's binding generator
    cannot wrap a vector of GpuMat behind OutputArrayOfArrays). */
    CV_WRAP_AS(applyBatch) void applyBatchToDevice(const std::vector<GpuMat>& images, CV_OUT std::vector<GpuMat>& labels,
                                                   CV_OUT std::vector<GpuMat>& stats, CV_OUT std::vector<GpuMat>& centroids,
                                                   CV_OUT std::vector<int>& counts, Stream& stream)
    {
        applyBatch(images, labels, stats, centroids, counts, stream);
    }
    CV_WRAP virtual void applyAsync(InputArray image, InputOutputArray labels, InputOutputArray stats,
                                    InputOutputArray centroids, InputOutputArray count, Stream& stream) = 0;
    /** @brief Device and pinned host memory the object holds now, in bytes. */
    CV_WRAP virtual size_t getMemoryBytes() const = 0;
    /** @brief Waits for the last call, then frees the object's device and host memory (it grows again on
    the next call). Outputs the object provided become invalid. */
    CV_WRAP virtual void releaseMemory() = 0;
    CV_WRAP virtual int getAlgorithm() const = 0;    //!< as given (CCA_DEFAULT stays CCA_DEFAULT)
    CV_WRAP virtual int getConnectivity() const = 0;
    CV_WRAP virtual int getLType() const = 0;
};

/** @brief A ConnectedComponentsAnalyzer for @p algorithm, @p connectivity and @p ltype (as in
connectedComponentsWithStats, checked here: a wrong one raises cv::Exception naming it). Needs no device
until its first apply(). */
CV_EXPORTS_W Ptr<ConnectedComponentsAnalyzer> createConnectedComponentsAnalyzer(int algorithm = CCA_DEFAULT,
                                                                               int connectivity = 8,
                                                                               int ltype = CV_32S);

/** @brief Bounds the free device memory that connectedComponentsWithStats keeps between calls.

The temporary buffers of a call come from a private stream-ordered memory pool per device. Up to @p bytes of
memory that no call uses stay mapped between calls, so that the next call need not map its buffers afresh;
beyond that, the pool gives memory back to the system when a stream that uses it synchronizes. 0 gives it
back at every synchronization: the smallest footprint, at about 0.1-0.2 ms more per call. The default is
1 GiB, or the environment variable OPENCV_CUDACCA_POOL_LIMIT (bytes, or with a KB or MB suffix) read when
the first pool is made. Applies to every device's pool, those made later included; memory in use by a
running call is not affected. getConnectedComponentsPeakBytes() tells what a call needs. */
CV_EXPORTS_W void setConnectedComponentsPoolLimit(size_t bytes);

/** @brief The limit set by setConnectedComponentsPoolLimit(), in bytes. */
CV_EXPORTS_W size_t getConnectedComponentsPoolLimit();

/** @brief Device memory, in bytes, that connectedComponentsWithStats's pool holds on the current device now:
what running calls use plus what it keeps for the next ones; 0 before the first call or without a device. */
CV_EXPORTS_W size_t getConnectedComponentsPoolBytes();

/** @brief The most temporary device memory, in bytes, that calls on the current device have used at once
since the last reset: run one call on a typical image to learn what a call needs (the caller's outputs are
not included; a CV_16U or host Mat label output adds an image-sized int32 buffer for most algorithms, see the
README's table). 0 before the first call or without a device.
@param reset Start a new measurement after reading this one. */
CV_EXPORTS_W size_t getConnectedComponentsPeakBytes(bool reset = false);

/** @brief Waits for the current device, then gives the memory that the pool keeps between calls back to
the system (on the current device; nothing to do before the first call): what calls freed, and the buffers that
this thread's calls of connectedComponentsWithStats keep for the next one (on images of up to 2^22 pixels, any
algorithm, while the pool's limit allows what a call may take: 16 bytes per pixel, up to about 45 with CCA_DEFAULT
below 2^21 pixels; other threads keep theirs until they release them or
end), and the idle pinned memory that host stats and centroids Mats have given back. */
CV_EXPORTS_W void releaseConnectedComponentsPool();

//! @}

}} // namespace cv::cuda

#endif // OPENCV_CUDACCA_HPP
