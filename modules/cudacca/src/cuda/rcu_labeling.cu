// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// RCU: the Row-Col Unify labeling of Kalentev et al. 2011 ("Connected component labeling on a 2D grid
// using CUDA", section 2.1, Algorithms 1-5), a directional label propagation. Produces a flat LabelForest;
// the labels live in the forest itself (label = pitched index + 1, 0 = background):
//   Initialization     - every foreground pixel gets its own index + 1 as label;
//   UnifyRow, UnifyCol - every run along a row, resp. a column, gets its smallest label (8-connectivity
//                        adds UnifyDiag and UnifyAntiDiag);
//   host (Algorithm 1) - the passes are repeated until a round changes nothing.
// Key idea: the smallest label of each run is found in shared memory by the paper's reduction cascade
// (Algorithms 2-5, see unifyRuns); carries join the chunks of long lines, so the rounds needed do not grow
// with the width.
// Departures from the paper, the result and the races: doc/algorithms.md, section "RCU".

#include "../labeling.hpp"
#include "launch.hpp"
#include "iterative_labeling.hpp"
#include "labeling_common.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::kFullMask;

//! UnifyRow: a block runs the cascade on chunks of kRowChunk pixels, two per thread.
constexpr int kRowChunk = 1024;
constexpr int kRowThreads = kRowChunk / 2;

//! UnifyCol and the diagonals: a block walks a strip of kStripWidth lines in tiles of kTileRows rows;
//! warp w loads tile rows w and w + 32 and runs the cascade on line w (two elements per lane).
constexpr int kStripWidth = 32;
constexpr int kTileRows = 64;
constexpr int kStripThreads = kStripWidth * kTileRows / 2;
constexpr int kTileStride = kStripWidth + 1; //!< shared tile row stride: a column is conflict-free

//! Rounds queued per host check. Small or sparse images converge in a few rounds; near the percolation
//! density the rounds grow about linearly with the image side (a model of this file's passes: 217 rounds
//! for a 512 x 512 random image at density 0.6, 4-connectivity), and serpentines need thousands.
constexpr RoundBatches kRoundBatches = { 4, 32 };

// ---- the reduction cascade (Algorithms 2-5) -----------------------------------------------------------
// Elements are numbered 0 .. kElements-1 in line order. lab(e) and ref(e) are the shared label and
// reference of element e; linked(b) says whether element b continues element b - 1 when both are
// foreground (false across a row start in packed rows). A label is 0 for the background.
//
// Invariant after the level that built groups of G elements: for every foreground element e, ref(e) is
// the first element of e's run within its group (the run's ROOT), and lab(root) is the smallest label of
// that run; ref(e) == e for the background. The labels of non-root foreground elements are stale but
// nonzero: they only serve as the foreground test.

/** Level 0 (Algorithm 3): the pair (a, a + 1). */
template <class Lab, class Ref, class Linked>
__device__ __forceinline__ void unifyPair(Lab lab, Ref ref, Linked linked, int a)
{
    const int b = a + 1;
    const int la = lab(a), lb = lab(b);
    ref(a) = a;
    if (la != 0 && lb != 0 && linked(b))
    {
        if (lb < la)
            lab(a) = lb;
        ref(b) = a;
    }
    else
    {
        ref(b) = b;
    }
}

/** UnifyRowL (Algorithm 4): joins the groups that end at b - 1 and start at b. b is the root of the run
that starts its group; if that run continues the run that ends the left group, the left run's root gets
the smaller label and b points at it. The other elements of b's run still point at b: Update makes them
point at the new root. Only the thread of this boundary touches the two groups in this phase. */
template <class Lab, class Ref, class Linked>
__device__ __forceinline__ void unifyGroups(Lab lab, Ref ref, Linked linked, int b)
{
    const int a = b - 1;
    if (lab(a) != 0 && lab(b) != 0 && linked(b))
    {
        const int root = ref(a);
        const int lb = lab(b);
        if (lb < lab(root))
            lab(root) = lb;
        ref(b) = root;
    }
}

/** Update (Algorithm 5), references only: an element that points at a root that unifyGroups just
linked (b above) takes one step, to the new root. Race-free: it writes ref(e) only when ref(e) is such a
b, and then e is neither a root nor a linked b, so no other thread reads ref(e) in this phase; the
elements read (ref(e)'s target) are roots or linked b's, which nobody writes in this phase (a linked b
points at a root and a root at itself, so their own update writes nothing). */
template <class Ref>
__device__ __forceinline__ void updateReference(Ref ref, int e)
{
    const int r = ref(e);
    const int rr = ref(r);
    if (rr != r)
        ref(e) = rr;
}

/** The cascade of Algorithm 2 on kElements labels (a power of two, at least 64) in shared memory: every
element gets the smallest label of its run. Called by every thread of the block when kElements > 64
(then it synchronizes the block), by one warp when kElements == 64. The calling warp owns the 64
elements from `base`: lane l updates the references of base + l and base + l + 32 and returns their
results in res0 and res1. Levels whose groups lie inside one warp's 64 elements need __syncwarp only.
The caller must have written the labels (visible to the warp: __syncwarp is done first). */
template <int kElements, class Lab, class Ref, class Linked>
__device__ __forceinline__ void unifyRuns(Lab lab, Ref ref, Linked linked, int base, int lane, int& res0, int& res1)
{
    static_assert(kElements >= 64 && (kElements & (kElements - 1)) == 0, "a power of two, at least 64");
    __syncwarp();
    unifyPair(lab, ref, linked, base + 2 * lane);
#pragma unroll
    for (int g = 2; g <= 32; g *= 2) // joins groups of g into groups of 2g <= 64: inside the warp
    {
        __syncwarp();
        if (lane < 32 / g)
            unifyGroups(lab, ref, linked, base + (2 * lane + 1) * g);
        __syncwarp();
        if (g < kElements / 2) // no Update after the last level: the results take two steps instead
        {
            updateReference(ref, base + lane);
            updateReference(ref, base + lane + 32);
        }
    }
#pragma unroll
    for (int g = 64; g < kElements; g *= 2) // groups span several warps
    {
        __syncthreads();
        if (static_cast<int>(threadIdx.x) < kElements / (2 * g))
            unifyGroups(lab, ref, linked, (2 * static_cast<int>(threadIdx.x) + 1) * g);
        __syncthreads();
        if (g < kElements / 2)
        {
            updateReference(ref, base + lane);
            updateReference(ref, base + lane + 32);
        }
    }
    // After the last level an element is a root, points at one, or points at a b that points at one.
    res0 = lab(ref(ref(base + lane)));
    res1 = lab(ref(ref(base + lane + 32)));
}

/** Whether elements e - 1 and e are neighbours on the line, both foreground, with different labels.
If no pair of a chunk is, every run is uniform and the cascade would change nothing (the fast path). */
template <class Lab, class Linked>
__device__ __forceinline__ bool uneven(Lab lab, Linked linked, int e)
{
    if (e == 0)
        return false;
    const int l = lab(e), left = lab(e - 1);
    return l != 0 && left != 0 && l != left && linked(e);
}

// ---- carries between chunks --------------------------------------------------------------------------

/** The backward sweep over a batch of up to 32 consecutive chunks (tiles) of one line, walked from the
end of the line towards its start; called by a whole warp. Lane i holds first/last, the labels of the
first and last elements of the batch's i-th chunk (i = 0 is the chunk nearest the end of the line), as
left by the forward sweep: the forward sweep carried each chunk's last label into the next chunk's first
run, so a run that spans chunks ends with its full minimum, but its earlier parts miss what came after
them. `carry` enters as the final label of the first element of the chunk that follows the batch (0 if
background) and leaves as that of the batch's last chunk.

A chunk needs a fix when its last element and the following chunk's first element are both foreground
(they are neighbours on the line) and the carry is smaller; then the fix gives the carry to every element
of the chunk whose label equals `last` (fixChunk): that is the run that ends the chunk (uniform after the
forward sweep), and possibly pixels of other runs with the same label, which are then of the same
component (a label is always the index + 1 of a pixel of its own pixel's component), so lowering them is
a valid propagation too. The chunk's first element then carries the fix on if it had that label.

Returns, in lane i, whether chunk i needs a fix and the label it gets. Every lane computes the whole
chain from shuffles; `count` is warp-uniform. */
__device__ __forceinline__ void backwardCarries(int first, int last, int count, int lane, int& carry, bool& needsFix,
                                                int& fixLabel)
{
    needsFix = false;
    fixLabel = 0;
    for (int i = 0; i < count; ++i)
    {
        const int f = __shfl_sync(kFullMask, first, i);
        const int l = __shfl_sync(kFullMask, last, i);
        const bool fix = carry != 0 && l != 0 && carry < l;
        if (lane == i)
        {
            needsFix = fix;
            fixLabel = carry;
        }
        carry = fix && f == l ? carry : f;
    }
}

/** backwardCarries, then fixChunk(i, oldLabel, newLabel) for every chunk i that needs a fix, one chunk
at a time with the whole warp (each call must be warp-uniform). */
template <class FixChunk>
__device__ __forceinline__ void fixCarriedChunks(int first, int last, int count, int lane, int& carry,
                                                 FixChunk fixChunk)
{
    bool needsFix;
    int fixLabel;
    backwardCarries(first, last, count, lane, carry, needsFix, fixLabel);
    for (unsigned pending = __ballot_sync(kFullMask, needsFix); pending != 0; pending &= pending - 1)
    {
        const int i = __ffs(pending) - 1;
        fixChunk(i, __shfl_sync(kFullMask, last, i), __shfl_sync(kFullMask, fixLabel, i));
    }
}

// ---- UnifyRow -------------------------------------------------------------------------------------------

/** One element of a row chunk: its pitched index (-1 past the segment's end), its label before this
pass, whether it starts a row. */
struct RowElement
{
    int p;
    int label;
    bool rowStart;
};

/** UnifyRow (Algorithm 2 over rows), kInitialize: the Initialization too (labels from the image).

A block takes a SEGMENT of whole rows: rowsPerSegment rows of `cols` pixels packed into one chunk when
cols <= kRowChunk, else one row in several chunks. It walks the chunks forward: chunk k's first pixel
starts from min(own label, the final label of chunk k - 1's last pixel), so the run spanning the
chunk boundary gets the minimum of everything before it. Then warp 0 sweeps backward (backwardCarries).
Several chunks only occur with one row per segment, so a chunk boundary is never a row start.

Grid-stride over segments (a one-wave grid: a round queued after convergence costs little). Sets
*changed when it lowers a label; exits at once when `previous` says the previous round changed nothing. */
template <bool kInitialize>
__global__ void __launch_bounds__(kRowThreads, 3) unifyRowsKernel(const BinaryImage img, const LabelForest forest,
                                                               int rowsPerSegment, const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return; // the same value for the whole grid

    __shared__ int labels[kRowChunk];
    __shared__ int refs[kRowChunk];
    __shared__ unsigned rowStarts[kRowChunk / 32]; // bit e: element e starts a row
    __shared__ int chunkCarry;                     // final label of the previous chunk's last element

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int base = warp * 64; // this warp's elements: base + lane, base + lane + 32
    const int cols = forest.cols;
    const int ld = forest.ld;
    int* const data = forest.data;
    const int segments = (forest.rows - 1) / rowsPerSegment + 1; // no overflow near INT_MAX

    auto lab = [&](int e) -> int& { return labels[e]; };
    auto ref = [&](int e) -> int& { return refs[e]; };
    auto linked = [&](int e) { return ((rowStarts[e >> 5] >> (e & 31)) & 1u) == 0; };

    bool lowered = false;
    for (int segment = blockIdx.x; segment < segments; segment += gridDim.x) // block-uniform
    {
        const int row0 = segment * rowsPerSegment;
        const int segmentRows = min(rowsPerSegment, forest.rows - row0);
        const int length = segmentRows * cols;
        const int chunks = (length - 1) / kRowChunk + 1;

        auto load = [&](int chunk, int e) {
            RowElement el = { -1, 0, false };
            // Position in the segment's packed rows; at most chunks * kRowChunk - 1 <= INT_MAX.
            const int j = chunk * kRowChunk + e;
            if (j < length)
            {
                int y = row0, x = j;
                if (segmentRows > 1)
                {
                    const int q = j / cols;
                    y += q;
                    x = j - q * cols;
                }
                el.p = y * ld + x;
                el.rowStart = x == 0;
                if (kInitialize)
                    el.label = device::isForeground(img, y, x) ? el.p + 1 : 0;
                else
                    el.label = data[el.p];
            }
            return el;
        };
        auto store = [&](const RowElement& el, int result) {
            if (el.p < 0)
                return;
            if (result != el.label)
                lowered = true;
            if (kInitialize || result != el.label) // the first pass writes every pixel (garbage before)
                data[el.p] = result;
        };

        RowElement cur0 = load(0, base + lane), cur1 = load(0, base + lane + 32);
        int lastChunkFirst = 0; // warp 0, lane 0: final label of the last chunk's first element
        for (int chunk = 0; chunk < chunks; ++chunk) // block-uniform
        {
            int first = cur0.label;
            if (chunk > 0 && threadIdx.x == 0 && !cur0.rowStart && first != 0 && chunkCarry != 0 &&
                chunkCarry < first)
                first = chunkCarry; // the run that spans the boundary: forward carry
            labels[base + lane] = first;
            labels[base + lane + 32] = cur1.label;
            const unsigned starts0 = __ballot_sync(kFullMask, cur0.rowStart);
            const unsigned starts1 = __ballot_sync(kFullMask, cur1.rowStart);
            if (lane == 0)
            {
                rowStarts[2 * warp] = starts0;
                rowStarts[2 * warp + 1] = starts1;
            }
            RowElement next0 = cur0, next1 = cur1;
            if (chunk + 1 < chunks) // prefetch: the loads overlap the cascade
            {
                next0 = load(chunk + 1, base + lane);
                next1 = load(chunk + 1, base + lane + 32);
            }
            // Fast path: when every run of the chunk is already uniform (most chunks in the later
            // rounds), the cascade would return the labels as they are.
            __syncthreads(); // the staged chunk is visible to the block
            int res0 = labels[base + lane], res1 = labels[base + lane + 32];
            if (__syncthreads_or(uneven(lab, linked, base + lane) || uneven(lab, linked, base + lane + 32)))
                unifyRuns<kRowChunk>(lab, ref, linked, base, lane, res0, res1);
            store(cur0, res0);
            store(cur1, res1);
            if (threadIdx.x == kRowThreads - 1)
                chunkCarry = res1; // element kRowChunk - 1
            lastChunkFirst = res0;
            __syncthreads(); // shared arrays and chunkCarry are reused; global writes visible to warp 0
            cur0 = next0;
            cur1 = next1;
        }

        if (chunks > 1 && warp == 0) // one row (see above); only warp 0, no block barrier from here on
        {
            const int rowBase = row0 * ld;
            int carry = __shfl_sync(kFullMask, lastChunkFirst, 0);
            for (int batch = chunks - 2; batch >= 0; batch -= 32) // warp-uniform
            {
                const int chunk = batch - lane;
                int first = 0, last = 0;
                if (chunk >= 0) // full chunks: only the last chunk may be partial
                {
                    first = data[rowBase + chunk * kRowChunk];
                    last = data[rowBase + chunk * kRowChunk + kRowChunk - 1];
                }
                fixCarriedChunks(first, last, min(32, batch + 1), lane, carry, [&](int i, int oldLabel, int newLabel) {
                    int* const chunkData = data + rowBase + (batch - i) * kRowChunk;
                    for (int e = lane; e < kRowChunk; e += 32)
                    {
                        if (chunkData[e] == oldLabel)
                        {
                            chunkData[e] = newLabel;
                            lowered = true;
                        }
                    }
                });
            }
        }
    }
    if (__syncthreads_or(lowered) && threadIdx.x == 0)
        *changed = 1;
}

// ---- UnifyCol and the diagonals -----------------------------------------------------------------------

/** Geometry of a strip of kStripWidth lines with skew kSkew: line d holds the pixels (y, d + kSkew * y),
kSkew = 0 for columns, 1 for diagonals (down-right), -1 for anti-diagonals (down-left). Consecutive
pixels of a line are 4- (kSkew 0) or 8-neighbours (kSkew +-1), and each line meets the image in one
interval of rows, which the strip's rows [yBegin, yEnd) cover. */
template <int kSkew>
struct Strip
{
    int dLo, dHi; //!< lines dLo .. dHi (inclusive)
    int yBegin, yEnd;

    __device__ Strip(int strip, int rows, int cols)
    {
        if (kSkew == 0)
        {
            dLo = strip * kStripWidth;
            dHi = min(dLo + kStripWidth, cols) - 1;
            yBegin = 0;
            yEnd = rows;
        }
        else if (kSkew == 1) // d = x - y in [-(rows - 1), cols - 1]; y in [-d, cols - d)
        {
            dLo = strip * kStripWidth - (rows - 1);
            dHi = min(dLo + kStripWidth - 1, cols - 1);
            yBegin = max(0, -dHi);
            yEnd = min(rows, cols - dLo);
        }
        else // d = x + y in [0, rows + cols - 2]; y in [d - cols + 1, d]
        {
            dLo = strip * kStripWidth;
            dHi = min(dLo + kStripWidth - 1, rows + cols - 2);
            yBegin = max(0, dLo - cols + 1);
            yEnd = min(rows, dHi + 1);
        }
    }

    /** Pitched index of row r, line c of tile t, false outside the image. The row offset is unsigned:
    past the last row it may exceed INT_MAX on a one-column image of 2^31 - 2 rows. */
    __device__ bool pixel(const LabelForest& forest, int t, int r, int c, int& p) const
    {
        const unsigned dy = static_cast<unsigned>(t) * kTileRows + static_cast<unsigned>(r);
        if (dy >= static_cast<unsigned>(yEnd - yBegin))
            return false;
        const int y = yBegin + static_cast<int>(dy);
        const int d = dLo + c;
        const int x = d + kSkew * y;
        if (d > dHi || x < 0 || x >= forest.cols)
            return false;
        p = y * forest.ld + x;
        return true;
    }
};

/** The pass along columns (UnifyCol, kSkew 0) or diagonals (kSkew +-1) of Algorithm 2, with the same
forward carries between tiles and backward sweep as UnifyRow: warp w carries line w of the strip. Tiles
are loaded and stored by rows (warp w: tile rows w and w + 32, lane = line), so global accesses are
row segments; the cascade runs down the tile's columns in shared memory.

Grid-stride over strips, one-wave grid; *changed / `previous` as for unifyRowsKernel. */
template <int kSkew>
__global__ void __launch_bounds__(kStripThreads, 2) unifyLinesKernel(const LabelForest forest, int strips,
                                                                  const int* previous, int* changed)
{
    if (previous && *previous == 0)
        return;

    __shared__ int tile[kTileRows * kTileStride];     // [row][line]
    __shared__ int refs[kStripWidth * kTileRows];     // [line][row]: each warp its own line

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5; // loads/stores: tile rows warp, warp + 32; cascade: line warp
    int* const data = forest.data;

    auto lab = [&](int e) -> int& { return tile[e * kTileStride + warp]; };
    auto ref = [&](int e) -> int& { return refs[warp * kTileRows + e]; };
    auto linked = [](int) { return true; };

    bool lowered = false;
    for (int s = blockIdx.x; s < strips; s += gridDim.x) // block-uniform
    {
        const Strip<kSkew> strip(s, forest.rows, forest.cols);
        if (strip.yEnd <= strip.yBegin)
            continue;
        const int tiles = (strip.yEnd - strip.yBegin - 1) / kTileRows + 1;

        struct Element
        {
            int p;
            int label;
            bool valid;
        };
        auto load = [&](int t, int r) {
            Element el = { 0, 0, false };
            el.valid = strip.pixel(forest, t, r, lane, el.p);
            if (el.valid)
                el.label = data[el.p];
            return el;
        };

        Element cur0 = load(0, warp), cur1 = load(0, warp + 32);
        int carry = 0;     // this warp's line: final label of the previous tile's last element
        int lastFirst = 0; // and of the last tile's first element
        for (int t = 0; t < tiles; ++t) // block-uniform
        {
            tile[warp * kTileStride + lane] = cur0.label;
            tile[(warp + 32) * kTileStride + lane] = cur1.label;
            __syncthreads();
            Element next0 = cur0, next1 = cur1;
            if (t + 1 < tiles) // prefetch: the loads overlap the cascade
            {
                next0 = load(t + 1, warp);
                next1 = load(t + 1, warp + 32);
            }
            if (lane == 0 && carry != 0 && tile[warp] != 0 && carry < tile[warp])
                tile[warp] = carry; // forward carry into the line's first element of this tile
            __syncwarp();
            int res0 = lab(lane), res1 = lab(lane + 32);
            if (__any_sync(kFullMask, uneven(lab, linked, lane) || uneven(lab, linked, lane + 32))) // fast path
                unifyRuns<kTileRows>(lab, ref, linked, 0, lane, res0, res1);
            __syncwarp(); // every lane has read its results: the line's column can be overwritten
            lab(lane) = res0;
            lab(lane + 32) = res1;
            carry = __shfl_sync(kFullMask, res1, 31);
            lastFirst = __shfl_sync(kFullMask, res0, 0);
            __syncthreads();
            const int out0 = tile[warp * kTileStride + lane];
            const int out1 = tile[(warp + 32) * kTileStride + lane];
            if (cur0.valid && out0 != cur0.label)
            {
                data[cur0.p] = out0;
                lowered = true;
            }
            if (cur1.valid && out1 != cur1.label)
            {
                data[cur1.p] = out1;
                lowered = true;
            }
            __syncthreads(); // the tile is reused; global writes visible to the backward sweep
            cur0 = next0;
            cur1 = next1;
        }

        // Backward sweep, warp w for line w; no block barrier from here on. Tiles before the last are
        // full, but a diagonal line may start or end inside one: pixel() says 0 there.
        carry = lastFirst;
        for (int batch = tiles - 2; batch >= 0; batch -= 32) // warp-uniform
        {
            const int t = batch - lane;
            int first = 0, last = 0, p;
            if (t >= 0)
            {
                if (strip.pixel(forest, t, 0, warp, p))
                    first = data[p];
                if (strip.pixel(forest, t, kTileRows - 1, warp, p))
                    last = data[p];
            }
            fixCarriedChunks(first, last, min(32, batch + 1), lane, carry, [&](int i, int oldLabel, int newLabel) {
                for (int r = lane; r < kTileRows; r += 32)
                {
                    if (strip.pixel(forest, batch - i, r, warp, p) && data[p] == oldLabel)
                    {
                        data[p] = newLabel;
                        lowered = true;
                    }
                }
            });
        }
    }
    if (__syncthreads_or(lowered) && threadIdx.x == 0)
        *changed = 1;
}

// ---- host -----------------------------------------------------------------------------------------------
// Races: none in shared memory (see unifyRuns). In global memory, a directional pass hands every line
// (row, column, diagonal) to exactly one block, so no pixel is written by one block and read or
// written by another within a kernel; the passes of a round are ordered by the stream.

/** Convergence gives the LabelForest contract. A round that changes nothing leaves every row run, column
run (and, with 8-connectivity, every diagonal run) uniform: within a chunk the cascade found it uniform,
the forward carry found each boundary's second label not above the first, and the backward sweep found
it not below (otherwise a label would have been lowered and the flag set). These are all the neighbour
pairs, so each component carries one label r + 1 with r in the component (every label is a pixel of
its own component + 1), and r is the component's smallest index: its own label started at r + 1 and
can only have been lowered to another pixel of the component + 1, i.e. to at least r + 1. */
template <int kConnectivity>
void runRcu(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const int rows = forest.rows, cols = forest.cols;
    const int rowsPerSegment = cols <= kRowChunk ? kRowChunk / cols : 1;
    const int rowSegments = (rows - 1) / rowsPerSegment + 1; // (n - 1) / k + 1: no overflow near INT_MAX
    const int columnStrips = (cols - 1) / kStripWidth + 1;
    const int diagonalStrips = static_cast<int>((static_cast<long long>(rows) + cols - 2) / kStripWidth + 1);

    const unsigned initBlocks = waveBlocks(unifyRowsKernel<true>, kRowThreads, rowSegments);
    const unsigned rowBlocks = waveBlocks(unifyRowsKernel<false>, kRowThreads, rowSegments);
    const unsigned columnBlocks = waveBlocks(unifyLinesKernel<0>, kStripThreads, columnStrips);
    const unsigned diagonalBlocks = waveBlocks(unifyLinesKernel<1>, kStripThreads, diagonalStrips);

    // A round (Algorithm 1's loop body): UnifyRow, UnifyCol, and for 8-connectivity the two diagonals.
    // Directions that have no neighbour pairs (1-pixel-wide or -high images) are left out; the first
    // round always runs UnifyRow, which initializes every pixel.
    bool initialized = false;
    iterateUntilUnchanged(
        [&](const int* previous, int* changed) {
            if (!initialized)
            {
                unifyRowsKernel<true><<<initBlocks, kRowThreads, 0, stream>>>(img, forest, rowsPerSegment, nullptr,
                                                                              changed);
                checkLaunch("RCU initialization and UnifyRow");
                initialized = true;
            }
            else if (cols > 1)
            {
                unifyRowsKernel<false><<<rowBlocks, kRowThreads, 0, stream>>>(img, forest, rowsPerSegment, previous,
                                                                              changed);
                checkLaunch("RCU UnifyRow");
            }
            if (rows > 1)
            {
                unifyLinesKernel<0><<<columnBlocks, kStripThreads, 0, stream>>>(forest, columnStrips, previous,
                                                                                changed);
                checkLaunch("RCU UnifyCol");
                if (kConnectivity == 8 && cols > 1)
                {
                    unifyLinesKernel<1><<<diagonalBlocks, kStripThreads, 0, stream>>>(forest, diagonalStrips,
                                                                                      previous, changed);
                    checkLaunch("RCU UnifyDiag");
                    unifyLinesKernel<-1><<<diagonalBlocks, kStripThreads, 0, stream>>>(forest, diagonalStrips,
                                                                                       previous, changed);
                    checkLaunch("RCU UnifyAntiDiag");
                }
            }
        },
        kRoundBatches, "RCU", stream);
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(rcu, runRcu)

}}} // namespace cv::cuda::cudacca
