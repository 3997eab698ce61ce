// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// 8DLS: the 8-directional label selection of Soh et al. 2014 (Bolelli et al. 2024, section III-A-7),
// 8-connectivity only. Produces a flat LabelForest. Iterative, label propagation:
//   Initialization - every foreground pixel gets its own pitched index + 1 as label (0 = background);
//   a round        - every foreground pixel takes the smallest label found scanning each of the 8 directions
//                    radiating from it until a background pixel or the image border: the smallest label of
//                    the four maximal foreground segments through it (row, column, diagonal, anti-diagonal),
//                    all read from the PREVIOUS round's labels (Jacobi: the paper's "at every step"; CCA_RCU,
//                    by contrast, unifies rows, then columns, then diagonals on the labels just updated);
//                    rounds repeat until one changes nothing (iterateUntilUnchanged).
// Key idea: a round carries a label along whole segments, so the rounds grow with the turns of a path, not
// its length (`paths = any`). The paper walks the segment from every pixel (O(segment length) per pixel);
// here each pass computes the same minima work-efficiently, as a segmented prefix minimum and a segmented
// suffix minimum per line (their minimum is the whole segment's): rows a warp per row (shuffle scans over
// 32 pixels, carried along the row), columns, diagonals and anti-diagonals a thread per chunk of a line
// (line_chunks.cuh: 32 lines per thread block, their rows cut into chunks, a warp each).
// The previous round's labels stay untouched during a round: two buffers, the forest and a temporary one of
// rows x cols, read and written in turn (ping-pong).
// CCA_M8DLS (m8dls_labeling.cu) is this with skipUnchangedLines. Departures, the M8DLS correction:
// doc/algorithms.md, sections "8DLS" and "M8DLS".

#include "dls8.hpp"

#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "launch.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"
#include "line_chunks.cuh"

#include <algorithm>
#include <climits>

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::kFullMask;
using device::kWarpSize;

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / kWarpSize;
//! Line passes: rows loaded per batch by a thread before it walks them (independent loads in flight).
constexpr int kBatch = 8;

//! Rounds queued per host check: sparse images converge in a few rounds, serpentines need one per turn.
constexpr RoundBatches kRoundBatches = { 4, 32 };

/** A label buffer of the round: the forest (its ld) or the temporary one (ld = cols). Pixel (y, x) is at
data[y * ld + x]; the labels themselves are always forest indices + 1. */
struct Plane
{
    int* data;
    size_t ld;
};

/** The line flags of CCA_M8DLS, one byte per line: rows (rows of them), then columns (cols), diagonals
(x - y + rows - 1, rows + cols - 1 of them), anti-diagonals (x + y, as many). A pixel (y, x) that changes
in a round marks its four lines in the set of the next round (`next`). */
__device__ __forceinline__ void markLines(unsigned char* next, int rows, int cols, int y, int x)
{
    const size_t r = static_cast<unsigned>(rows), c = static_cast<unsigned>(cols);
    next[y] = 1;
    next[r + x] = 1;
    next[r + c + (r - 1 + x - y)] = 1; // r - 1 + x - y >= 0: unsigned arithmetic, no wrap
    next[2 * (r + c) - 1 + x + y] = 1;
}

/** One sweep's result for the foreground pixel (y, x): s its label of the previous round (src), v the
smallest label of its segment from the segment's start (forward sweep) or end (backward sweep) up to it,
v <= s; `before` the value of dst before this store (INT_MAX when the pass writes without reading). dst
keeps the minimum. The pixel changes in this round (its new label is below s) exactly when some sweep of the
round finds v < s; the first such sweep (the only one that finds before >= s) sets `changed` and marks the
pixel's lines for the next round (CCA_M8DLS; `next` null for CCA_8DLS). */
__device__ __forceinline__ void settle(int s, int v, int before, int* d, bool& changed, unsigned char* next, int rows,
                                       int cols, int y, int x)
{
    if (v < before)
        *d = v;
    if (v < s && before >= s)
    {
        changed = true;
        if (next)
            markLines(next, rows, cols, y, x);
    }
}

/** Initialization: own pitched index + 1 (0 for the background) in the forest AND in the temporary buffer
(ld = cols), one thread per pixel: both buffers start with the labels of round 0. No race. */
__global__ void initBothKernel(const BinaryImage img, const LabelForest forest, int* temp)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    const int v = device::isForeground(img, y, x) ? p + 1 : 0;
    forest.data[p] = v;
    temp[static_cast<size_t>(y) * static_cast<unsigned>(forest.cols) + x] = v;
}

/** The row pass: dst = min(dst, the smallest src label of the pixel's row segment), for the rows that
`active` marks (all when null). One warp per row (grid-stride, warp-uniform, so the shuffles always see 32
lanes), 32 pixels at a time; lane l of a piece holds x = base + l in both sweeps, so a pixel is read and
written by one thread only.

Forward sweep: a segmented prefix minimum (DPL's scan): each lane holds (v, all) for the range [lo, x] it
has covered, v = the smallest label of the range's maximal foreground suffix (INT_MAX when x is
background), all = the whole range is foreground; joining the left neighbour range (v', all'), which ends
just before ours: v = all ? min(v, v') : v, all = all && all'. Five shuffle steps cover the piece; the carry
(v of the piece's last pixel, the minimum of the segment reaching the next piece) joins the lanes whose
range is all foreground. Backward sweep: the mirror (ranges [x, hi], joined with the right neighbour by
__shfl_down, carries from the piece to the right), walking the pieces from the last one. v(forward) covers
the segment from its start to x, v(backward) from x to its end: their minimum is the segment's.

`first`: the first pass of the round, whose forward sweep stores without reading dst (the value it
replaces, the label of two rounds ago, is >= s >= v). No race: src is read-only during the round, a row
belongs to one warp. */
__global__ void rowPassKernel(const Plane src, const Plane dst, int rows, int cols, bool first,
                              const unsigned char* active, unsigned char* next, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid
    const unsigned lane = threadIdx.x & (kWarpSize - 1);
    const unsigned ucols = static_cast<unsigned>(cols);
    const int warps = static_cast<int>(gridDim.x) * kWarpsPerBlock;
    bool lowered = false;
    for (int y = static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.x / kWarpSize); y < rows;
         y += warps) // runs only when cols >= 2, so rows <= 2^30: y + warps does not overflow
    {
        if (active && active[y] == 0)
            continue; // warp-uniform
        const int* const s = src.data + static_cast<size_t>(y) * src.ld;
        int* const d = dst.data + static_cast<size_t>(y) * dst.ld;

        int carry = INT_MAX;
        // base: unsigned, as cols may be close to INT_MAX; base < cols, so base + 32 does not wrap.
        for (unsigned base = 0; base < ucols; base += kWarpSize)
        {
            const unsigned x = base + lane;
            const int label = x < ucols ? s[x] : 0;
            int v = label != 0 ? label : INT_MAX;
            int all = label != 0; // an int for the shuffles
            for (unsigned offset = 1; offset < kWarpSize; offset *= 2)
            {
                const int leftV = __shfl_up_sync(kFullMask, v, offset);
                const int leftAll = __shfl_up_sync(kFullMask, all, offset);
                if (lane >= offset)
                {
                    if (all)
                        v = min(v, leftV);
                    all = all && leftAll;
                }
            }
            if (all)
                v = min(v, carry);
            carry = __shfl_sync(kFullMask, v, kWarpSize - 1);
            if (label != 0)
                settle(label, v, first ? INT_MAX : d[x], d + x, lowered, next, rows, cols, y, static_cast<int>(x));
        }

        carry = INT_MAX;
        for (unsigned base = (ucols - 1u) / kWarpSize * kWarpSize;; base -= kWarpSize) // cols >= 1
        {
            const unsigned x = base + lane;
            const int label = x < ucols ? s[x] : 0;
            int v = label != 0 ? label : INT_MAX;
            int all = label != 0;
            for (unsigned offset = 1; offset < kWarpSize; offset *= 2)
            {
                const int rightV = __shfl_down_sync(kFullMask, v, offset);
                const int rightAll = __shfl_down_sync(kFullMask, all, offset);
                if (lane + offset < kWarpSize)
                {
                    if (all)
                        v = min(v, rightV);
                    all = all && rightAll;
                }
            }
            if (all)
                v = min(v, carry);
            carry = __shfl_sync(kFullMask, v, 0);
            if (label != 0)
                settle(label, v, d[x], d + x, lowered, next, rows, cols, y, static_cast<int>(x));
            if (base == 0)
                break;
        }
    }
    if (__any_sync(kFullMask, lowered) && lane == 0)
        *changed = 1;
}

/** The column (kSkew 0), diagonal (kSkew 1, x - y constant) and anti-diagonal (kSkew -1, x + y constant)
passes: dst = min(dst, the smallest src label of the pixel's segment along the line), for the lines that
`active` marks (all when null). Line i (0 <= i < lines) holds the pixels (y, x0 + kSkew * y) with
x0 = i (columns, anti-diagonals) or i - (rows - 1) (diagonals), for the rows [ylo, yhi) where x is inside the
image: consecutive pixels of a line are 8-neighbours. A thread block takes 32 consecutive lines, a lane each
(grid-stride over the groups of 32, block-uniform), and the union [wlo, whi) of their row ranges, cut into
blockDim.y chunks, a warp each (line_chunks.cuh): at every row the lanes of a warp touch consecutive x
(coalesced), a lane outside its own range seeing background. A thread summarizes its chunk, takes the carries
of the chunks before and after it (chunkCarries), then sweeps the chunk forward (segmented prefix minimum,
`carry`) and backward (suffix minimum), kBatch rows loaded before they are walked. The forward value of a
pixel covers its segment from the start, the backward one to the end, across chunks: their minimum is the
segment's. No race: src is read-only during the round, a pixel of a line belongs to one thread, which alone
reads and writes it in dst in this pass. */
template <int kSkew>
__global__ void linePassKernel(const Plane src, const Plane dst, int rows, int cols, int lines, bool first,
                               const unsigned char* active, unsigned char* next, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return;
    const int lane = static_cast<int>(threadIdx.x);
    bool lowered = false;
    // lines <= rows + cols - 1 <= 2^30 + 1 (rows, cols >= 2 for these passes, except columns when cols == 1:
    // then lines == 1), so base + gridDim.x * 32 does not overflow.
    for (int base = static_cast<int>(blockIdx.x) * kWarpSize; base < lines;
         base += static_cast<int>(gridDim.x) * kWarpSize) // block-uniform: chunkCarries syncs the block
    {
        const int i = base + lane;
        const int x0 = kSkew == 1 ? i - (rows - 1) : i;
        int ylo = 0, yhi = 0; // empty: past the last line, or skipped
        if (i < lines && (!active || active[i] != 0))
        {
            if (kSkew == 0)
            {
                yhi = rows;
            }
            else if (kSkew == 1) // x = x0 + y in [0, cols)
            {
                ylo = max(0, -x0);
                yhi = min(rows, cols - x0); // cols - x0 <= cols + rows - 1: no overflow
            }
            else // x = i - y in [0, cols)
            {
                ylo = max(0, i - cols + 1);
                yhi = min(rows, i + 1);
            }
        }
        // The block's row range: a function of base only, the same in every warp.
        int wlo = ylo < yhi ? ylo : INT_MAX;
        int whi = ylo < yhi ? yhi : 0;
        for (int offset = 1; offset < kWarpSize; offset *= 2)
        {
            wlo = min(wlo, __shfl_xor_sync(kFullMask, wlo, offset));
            whi = max(whi, __shfl_xor_sync(kFullMask, whi, offset));
        }
        if (wlo >= whi)
            continue; // block-uniform: no line of the group to walk
        int lo, hi;
        device::warpChunk(wlo, whi, lo, hi);
        auto index = [&](size_t ld, int y) { return static_cast<size_t>(y) * ld + static_cast<size_t>(x0 + kSkew * y); };
        auto label = [&](int y) { return y >= ylo && y < yhi ? src.data[index(src.ld, y)] : 0; };

        device::ChunkSummary summary;
        device::walkBatched<kBatch>(lo, hi, label, [&](int, int s) { summary.add(s); });
        int carry, backward;
        device::chunkCarries(summary, carry, backward);

        // A pixel's src label and, when it is foreground, its dst value before the store (INT_MAX: not read).
        auto labels = [&](int y, bool readDst) {
            const int s = label(y);
            return make_int2(s, readDst && s != 0 ? dst.data[index(dst.ld, y)] : INT_MAX);
        };
        auto step = [&](int y, int2 v) {
            if (v.x == 0)
            {
                carry = INT_MAX; // background or outside the line: the segment ends
                return;
            }
            carry = min(carry, v.x);
            settle(v.x, carry, v.y, dst.data + index(dst.ld, y), lowered, next, rows, cols, y, x0 + kSkew * y);
        };
        // Forward sweep, rows lo .. hi - 1, from the carry of the chunks before; then backward, hi - 1 .. lo.
        device::walkBatched<kBatch>(lo, hi, [&](int y) { return labels(y, !first); }, step);
        carry = backward;
        device::walkBatched<kBatch>(lo, hi, [&](int k) { return labels(hi - 1 - (k - lo), true); },
                                    [&](int k, int2 v) { step(hi - 1 - (k - lo), v); });
    }
    if (__any_sync(kFullMask, lowered) && threadIdx.x == 0)
        *changed = 1;
}

} // namespace

/** The rounds. Let V_k be the labels after round k (V_0 the initialization). Round k reads src, which holds
V_(k-1), and writes dst, which holds V_(k-2) (V_0 for k = 1, 2) and becomes V_k; the buffers swap roles every
round. Each pass stores into dst, for the pixels of its lines, the minimum of what dst holds and the
smallest V_(k-1) label of the pixel's segment along its orientation; that minimum includes s = V_(k-1)(p)
(p lies on its own segments) and V_(k-2)(p) >= V_(k-1)(p) (labels never rise), so after the four passes
dst(p) = min over the four segments = the paper's V_k(p), exactly.

CCA_M8DLS (skipUnchangedLines) skips, in round k, a line on which no pixel changed in round k - 1
(V_(k-1) = V_(k-2) on it; round 1 processes every line). Still exact: for a skipped orientation o,
minseg_o(V_(k-1))(p) = minseg_o(V_(k-2))(p) >= V_(k-1)(p), so leaving it out of the minimum changes nothing
when another, processed orientation contributes V_(k-1)(p); and when all four lines through p are
skipped, p did not change in round k - 1 (it would have marked them), so dst(p) = V_(k-2)(p) = V_(k-1)(p),
which is V_k(p) by the same argument. The marks: settle marks a pixel's four lines in the next round's set,
which is zeroed before the round.

Termination: V_k(p) <= V_(k-1)(p) (p is on its own segments), labels are positive integers, and a round that
sets its flag lowers at least one label: finitely many rounds set it, and the round after the last change
sets none (iterateUntilUnchanged stops; it has no cap). At most one round per "segment hop" of the longest
chain of segments from a component's raster-first pixel, plus one.

The LabelForest contract at convergence: in a round that changes nothing, V(p) <= every label of p's four
segments. Two 8-adjacent foreground pixels are consecutive on a common line (their row, column, diagonal or
anti-diagonal), hence on a common segment: V(p) <= V(q) and V(q) <= V(p), so a component carries one label.
Labels only move along segments, inside the component, so that label is some pixel's index + 1, at least
r + 1 for the raster-first pixel r, whose own label never exceeds r + 1: the whole component holds r + 1, a
flat forest rooted at raster-first pixels. That round wrote dst = V_k = V_(k-1) = src on every foreground
pixel (8DLS writes them all; for M8DLS by the argument above), and the background is 0 in both buffers:
whichever buffer was last written, the forest holds the result; the rounds queued after it do nothing. */
void runEightDirectionalLabelSelection(const BinaryImage& img, const LabelForest& forest, bool skipUnchangedLines,
                                       cudaStream_t stream)
{
    const char* const name = skipUnchangedLines ? "M8DLS" : "8DLS";
    const int rows = forest.rows, cols = forest.cols;
    const long long pixels = static_cast<long long>(rows) * cols;
    StreamBuffer tempBuffer;
    int* const temp = static_cast<int*>(tempBuffer.allocate(static_cast<size_t>(pixels) * sizeof(int), stream));
    initBothKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(img, forest, temp);
    checkLaunch(skipUnchangedLines ? "M8DLS initialization" : "8DLS initialization");

    // Orientations that have no neighbour pairs (1-pixel-high or -wide images) have nothing to carry: their
    // segments are single pixels. With a single orientation every segment is settled by round 1, and M8DLS
    // needs no line flags.
    const bool rowPass = cols > 1;
    const bool columnPass = rows > 1;
    const bool diagonalPasses = rows > 1 && cols > 1;
    const bool skip = skipUnchangedLines && diagonalPasses;
    const int diagonals = diagonalPasses ? rows + cols - 1 : 0; // <= 2^30 + 1 when rows, cols >= 2

    // The two line-flag sets of M8DLS (one byte per line), read and written in turn; round 1 reads all ones.
    const size_t flagSet = skip ? static_cast<size_t>(rows) + cols + 2 * static_cast<size_t>(diagonals) : 0;
    StreamBuffer flagBuffer;
    unsigned char* flags = nullptr;
    if (skip)
    {
        flags = static_cast<unsigned char*>(flagBuffer.allocate(2 * flagSet, stream));
        checkCuda(cudaMemsetAsync(flags, 1, flagSet, stream), "M8DLS cudaMemsetAsync (line flags)");
    }

    const unsigned rowBlocks = waveBlocks(rowPassKernel, kThreads, blocksFor(rows, kWarpsPerBlock));
    // Line passes: 32 lines per thread block, each cut into chunks (line_chunks.cuh).
    const dim3 columnThreads(kWarpSize, lineChunksFor(linePassKernel<0>, cols, rows));
    const dim3 diagonalThreads(kWarpSize, std::min(lineChunksFor(linePassKernel<1>, diagonals, std::min(rows, cols)),
                                                   lineChunksFor(linePassKernel<-1>, diagonals, std::min(rows, cols))));
    const unsigned columnBlocks = waveBlocks(linePassKernel<0>, static_cast<int>(columnThreads.y) * kWarpSize,
                                             blocksFor(cols, kWarpSize));
    const unsigned diagonalBlocks = waveBlocks(linePassKernel<1>, static_cast<int>(diagonalThreads.y) * kWarpSize,
                                               blocksFor(diagonals, kWarpSize));
    const Plane planes[2] = { { forest.data, static_cast<size_t>(forest.ld) }, { temp, static_cast<size_t>(cols) } };
    long long round = 0;
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            const Plane src = planes[round & 1], dst = planes[(round + 1) & 1];
            const unsigned char* read = skip ? flags + (round & 1) * flagSet : nullptr;
            unsigned char* next = skip ? flags + ((round + 1) & 1) * flagSet : nullptr;
            ++round;
            if (skip)
                checkCuda(cudaMemsetAsync(next, 0, flagSet, stream), "M8DLS cudaMemsetAsync (line flags)");
            if (rowPass)
            {
                rowPassKernel<<<rowBlocks, kThreads, 0, stream>>>(src, dst, rows, cols, true, read, next, previous,
                                                                  changed);
                checkLaunch(skipUnchangedLines ? "M8DLS row pass" : "8DLS row pass");
            }
            if (columnPass)
            {
                linePassKernel<0><<<columnBlocks, columnThreads, 0, stream>>>(src, dst, rows, cols, cols, !rowPass,
                                                                         read ? read + rows : nullptr, next,
                                                                         previous, changed);
                checkLaunch(skipUnchangedLines ? "M8DLS column pass" : "8DLS column pass");
            }
            if (diagonalPasses)
            {
                linePassKernel<1><<<diagonalBlocks, diagonalThreads, 0, stream>>>(src, dst, rows, cols, diagonals, false,
                                                                           read ? read + rows + cols : nullptr,
                                                                           next, previous, changed);
                checkLaunch(skipUnchangedLines ? "M8DLS diagonal pass" : "8DLS diagonal pass");
                linePassKernel<-1><<<diagonalBlocks, diagonalThreads, 0, stream>>>(
                    src, dst, rows, cols, diagonals, false,
                    read ? read + rows + cols + static_cast<size_t>(diagonals) : nullptr, next, previous, changed);
                checkLaunch(skipUnchangedLines ? "M8DLS anti-diagonal pass" : "8DLS anti-diagonal pass");
            }
        },
        kRoundBatches, name, stream);
}

namespace dls8 {
Labeling* createLabeling() // the row's 4-connectivity entry is `none`: only 8 comes here
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) {
        runEightDirectionalLabelSelection(image, forest, false, stream);
    });
}
} // namespace dls8

}}} // namespace cv::cuda::cudacca
