// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// FLSL: Full-Line Segment Labeling, the GPU connected component ANALYSIS of Lemaitre, Hennequin and
// Lacassagne 2021 ("Taming voting algorithms on GPUs for an efficient connected component analysis
// algorithm", ICASSP 2021), on the run table of cudacca's run-table pipeline (doc/design.md). The paper's
// three ways of merging the features of the runs into their components:
//   FLSL      (section 3.1)               one set of atomics per FULL run, after labeling;
//   FLSL+CD   (section 3.3, Algorithm 3)  a warp's runs of one component are reduced into a leader first;
//   FLSL+OTF  (section 3.2, Algorithm 2)  the features move with each union and end at the roots.
// Key idea: one warp per row finds its runs (Algorithm 1, 16 pixels per lane) and keeps a 1-bit bitmap
// and per-word edge counts; the runs are the union-find nodes (slot = raster rank of the run), a run's
// up link is made when its node is, its down link is its one union, and the label image is written once,
// from the ranked runs.
// Departures from the paper, proofs and memory: doc/algorithms.md, section "FLSL".

#include <algorithm>
#include <climits>

#include "../analysis.hpp"
#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "exclusive_sum.cuh"
#include "launch.hpp"
#include "labeling_common.cuh"
#include "mapped_count.hpp"
#include "statistics.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::ComponentFeatures;
using device::kFullMask;
using device::kWarpSize;
using device::runSumX;

/** How the features of a run reach its component (Lemaitre et al. 2021): the analysis of each row. */
enum class RunFeatureMerge
{
    Atomic,             //!< FLSL (section 3.1): one set of atomics per full run, after labeling
    ConflictDetection,  //!< FLSL+CD (section 3.3): runs of one component in a warp reduced to a leader first
    OnTheFly,           //!< FLSL+OTF (section 3.2): features gathered while the components are merged
};

constexpr int kRowsPerBlock = 8; //!< one warp per row
constexpr int kRowThreads = kRowsPerBlock * kWarpSize;
constexpr int kWordThreads = 256; //!< one thread per bitmap word (or per run)
constexpr size_t kBoundTableBytes = 16u << 20; //!< run tables up to this size skip counting the runs first
constexpr int kDetectSteps = 4; //!< 512-pixel steps whose loads a detection warp issues together (even)
constexpr int kRing = 512;       //!< edges a warp keeps in flight (power of two; see forEachRunRound)
constexpr unsigned kMaxCompressBlocks = 2048; //!< compressRunsKernel's grid at most (a grid-stride loop)
constexpr int kBandRows = 16;     //!< rows per band of the first compression by bands (compressBandRowsKernel)
constexpr int kBandThreads = 512; //!< threads per band
constexpr size_t kBandMinRuns = size_t(1) << 21; //!< counted runs from which the first compression goes by bands
constexpr int kWriteMinBlocks = 5; //!< label-writing blocks per SM for large images: registers capped at 48
constexpr size_t kWriteLargePixels = size_t(1) << 24; //!< from here the label image (64 MB) passes the H100's L2
constexpr size_t kEarlyTablePixelsPerSlot = 16; //!< the run table guessed before the run count: a slot per 16 pixels
constexpr int kFewRunsThreads = 1024; //!< the few-runs chain's one block (fewRunsChainKernel)
/** Runs up to which the early table's chain after the wait is that one block (fewRunsChainKernel), in one of two
shapes: 6 slots a thread (24 KB of static shared memory) up to kFewRunsSmall runs, 8 (32 KB) up to kFewRuns. On the
GPU alone the block loses to the five kernels it replaces once the runs pass about 6000 (perf/link_runs.cu's `chain`,
H100, session 52, block sized for 10240 runs / five kernels, us: full images, a chain of runs one under the other, of
1024, 2048 and 4096 runs 12.8 / 21.2, 13.8 / 22.1, 15.6 / 20.5; 6080 runs of sparse squares 16.5 / 16.3; 7680 and 8064
runs of large blobs 25.9 / 21.8 and 23.9 / 18.1; 8192, the 8192² full image, 20.8 / 17.4; sized for 6144 the block
took 9.5, 10.9, 13.0 and 15.3 us on the first four). But in a call the host queues those five kernels after its wait
for the run count, about 3-4 us a launch and up to 2.4 times that in a machine's slow stretches (session 56), while
the block is one launch: at 8192 runs it took the 8192² full image's call from 170.8 to 163.3 us (full CCA; labels only
0.970, statistics only 0.915 of the time; ten alternating processes a side), and the same in every process (160-165 us
against 160-174). The 4096² full image lost 3-7 % with 8 slots a thread, hence the smaller shape below 6144 runs
(doc/benchmarks.md, "The few-runs block to 8192 runs"). */
constexpr unsigned kFewRuns = 8192;
constexpr unsigned kFewRunsSmall = 6144; //!< runs up to which the block takes 6 slots a thread
/** Runs up to which the early up-link pass records every run's start, row and end (RecordedRuns): for the few-runs
chain and for CCA_DEFAULT's statistics from the recorded runs (runStatsBlock). 12 bytes a run: 768 KB. */
constexpr unsigned kRecordedRuns = 65536;
static_assert(kFewRuns <= kRecordedRuns, "the few-runs chain reads the recorded runs");
__device__ __forceinline__ unsigned laneId() { return threadIdx.x & (kWarpSize - 1); }

/** The row of this warp in the one-warp-per-row kernels; false past the last row. Unsigned: the last
block's rows may pass INT_MAX when rows is close to 2^31 (a one-column image). */
__device__ __forceinline__ bool warpRow(int rows, int& y, unsigned block = blockIdx.x)
{
    const unsigned row = block * kRowsPerBlock + threadIdx.x / kWarpSize;
    y = static_cast<int>(row);
    return row < static_cast<unsigned>(rows);
}

/** The foreground bits of positions b-2, b-1 and b of a word (bits 0, 1, 2 of the result); positions
below 0 are taken from the word before, `prev` (0 left of the image: background). */
__device__ __forceinline__ unsigned threeBitsEndingAt(unsigned prev, unsigned word, unsigned b)
{
    const unsigned long long w = (static_cast<unsigned long long>(word) << 32) | prev;
    return static_cast<unsigned>(w >> (30u + b)) & 7u;
}

// ---- the run table -----------------------------------------------------------------------------------

/** The run table on the device. Runs get SLOTS in raster order of their starts: row y's runs are the
slots rowSlots[y] .. rowSlots[y + 1] - 1, left to right. A run's slot is thus smaller than the slot of
every run that starts after it in raster order, which is what LabelForest asks of pixel indices: the
union-find over slots keeps the smaller slot as the root, so a root is its component's raster-first run
and ranking the roots in slot order gives the CPU's labels. Nothing per run is stored but its parent (and
OTF's features): a run is found from the bitmap and the edge counts. */
struct RunTable
{
    const unsigned* bits;        //!< foreground bitmap, wordsPerRow 32-bit words per row (bit b = x % 32)
    const unsigned* edgesBefore; //!< per word: edges (changes fg <-> bg) of its row before the word
    const unsigned* rowSlots;    //!< rows + 1 entries: slot of each row's first run; the last: all runs
    int rows;
    int cols;
    int wordsPerRow;

    /** Slot of the run holding the FOREGROUND pixel (x, y): edges up to x counted, each run has two. An
    odd count before the word means the pixel before it is foreground. */
    __device__ __forceinline__ unsigned slotOf(int x, int y) const
    {
        const size_t c = static_cast<size_t>(y) * wordsPerRow + (x >> 5);
        const unsigned f = bits[c];
        const unsigned before = edgesBefore[c];
        const unsigned edgeMask = f ^ ((f << 1) | (before & 1u));
        const unsigned upToX = (2u << (x & 31)) - 1u; // x % 32 == 31: 2u << 31 == 0, all bits
        return rowSlots[y] + ((before + __popc(edgeMask & upToX) - 1u) >> 1);
    }

    /** Whether the runs, as the count on the device says, number at least minRunsTimes4 / 4 a word of `words`
    (minRunsTimes4 = 0: the host counted them and chose already, so always): where the link passes split a
    word's runs and the statistics cut rows into segments. */
    __device__ __forceinline__ bool runsDense(unsigned minRunsTimes4, unsigned long long words) const
    {
        return minRunsTimes4 == 0 || 4ull * rowSlots[rows] >= minRunsTimes4 * words;
    }
};

// ---- run detection (Algorithm 1) --------------------------------------------------------------------

/** Bit 7 of each byte of w set iff the byte is not 0 (no carry leaves a byte: at most 0x7f + 0x7f). */
__device__ __forceinline__ unsigned nonzeroHighBits(unsigned w)
{
    return (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
}

/** Foreground mask of 8 pixels (bit k = pixel k) from their two words: byte k's bit of w0 moved to bit 8k + 3 and of
w1 kept at 8k + 7, then one multiplication by 2^25 + 2^18 + 2^11 + 2^4 carries bit 8k + 3 to 28 + k and bit 8k + 7 to
32 + k. Its 32 partial products land on 32 distinct bits (8k + 3 + s and 8k + 7 + s, k < 4, s in {4, 11, 18, 25}),
so nothing carries into bits 28-35. */
__device__ __forceinline__ unsigned foreground8(unsigned w0, unsigned w1)
{
    const unsigned c = (nonzeroHighBits(w0) >> 4) | nonzeroHighBits(w1);
    return static_cast<unsigned>((static_cast<unsigned long long>(c) * 0x02040810ull) >> 28) & 0xffu;
}

/** Foreground mask of the 16 pixels x .. x+15 of a row (bit k = pixel x+k; 0 past cols): one 16-byte
load when `wide` (the row is 16-byte aligned) and the 16 pixels are inside the row, else byte loads.
The 16-byte loads are streaming (`ld.global.cs`: evicted from the L2 first). The image is read once, and
the bitmap and edge counts written beside it are read again by every later kernel: streamed, the image
no longer pushes them out of the L2 (8192², the link pass after the detection read 7.1 MB from DRAM
before, 6 KB after; doc/benchmarks.md, "The L2 kept for the run table"). */
__device__ __forceinline__ unsigned foreground16(const unsigned char* row, unsigned x, unsigned cols, bool wide)
{
    if (x >= cols)
        return 0;
    if (wide && x + 16u <= cols)
    {
        const uint4 v = __ldcs(reinterpret_cast<const uint4*>(row + x));
        return foreground8(v.x, v.y) | (foreground8(v.z, v.w) << 8);
    }
    unsigned m = 0;
    for (unsigned k = 0; k < 16u && x + k < cols; ++k)
        m |= (row[x + k] != 0 ? 1u : 0u) << k;
    return m;
}

constexpr unsigned kDetectStep = 16u * kWarpSize;                //!< pixels per warp step: 16 a lane
constexpr unsigned kDetectRound = kDetectSteps * kDetectStep;    //!< pixels per round (kDetectSteps loads a lane)

/** One round of a detection warp (kDetectSteps steps of 512 pixels from x0; lane l's 16 pixels of step u in m[u]):
lanes 2j and 2j+1 make word j of the step, whose edges before it in the row (changes fg <-> bg, the pixel before
the row being background) are the row's edges before the step plus those of the lanes before 2j. The lane
before's last pixel comes from one rotation (lane 0 receives lane 31's, which is the next step's `carry`); each
lane counts its own 16 pixels' edges, and two steps' counts are scanned together in the halves of one word (at
most 512 a step, so no half carries into the other). kChecked: words past the row's `words` are not written (the
row's last round; pixels past cols are background, foreground16). */
template <bool kChecked>
__device__ __forceinline__ void detectRound(const unsigned (&m)[kDetectSteps], unsigned x0, unsigned lane,
                                            unsigned words, unsigned* bitsRow, unsigned* edgesRow, unsigned& carry,
                                            unsigned& rowEdges)
{
    static_assert(kDetectSteps % 2 == 0, "two steps a scan");
    unsigned edges[kDetectSteps], word[kDetectSteps];
#pragma unroll
    for (int u = 0; u < kDetectSteps; ++u)
    {
        const unsigned rotated = __shfl_sync(kFullMask, m[u], (lane + kWarpSize - 1) & (kWarpSize - 1));
        const unsigned lastBefore = (rotated >> 15) & 1u;
        const unsigned prev = lane == 0 ? carry : lastBefore;
        carry = lastBefore; // read in lane 0 only, where it is lane 31's last pixel
        edges[u] = __popc((m[u] ^ ((m[u] << 1) | prev)) & 0xffffu);
        word[u] = m[u] | (__shfl_down_sync(kFullMask, m[u], 1) << 16); // even lanes
    }
#pragma unroll
    for (int u = 0; u < kDetectSteps; u += 2)
    {
        const unsigned both = edges[u] | (edges[u + 1] << 16);
        unsigned upTo = both; // inclusive scan over the lanes
#pragma unroll
        for (int d = 1; d < kWarpSize; d *= 2)
        {
            const unsigned t = __shfl_up_sync(kFullMask, upTo, d);
            if (lane >= static_cast<unsigned>(d))
                upTo += t;
        }
        const unsigned before = upTo - both;
        const unsigned stepEdges = __shfl_sync(kFullMask, upTo, kWarpSize - 1);
        const unsigned secondBase = rowEdges + (stepEdges & 0xffffu);
        if ((lane & 1u) == 0)
        {
            const unsigned w = (x0 + u * kDetectStep) / 32u + lane / 2u;
            if (!kChecked || w < words)
            {
                bitsRow[w] = word[u];
                edgesRow[w] = rowEdges + (before & 0xffffu);
            }
            if (!kChecked || w + kDetectStep / 32u < words)
            {
                bitsRow[w + kDetectStep / 32u] = word[u + 1];
                edgesRow[w + kDetectStep / 32u] = secondBase + (before >> 16);
            }
        }
        rowEdges = secondBase + (stepEdges >> 16);
    }
}

/** Algorithm 1, one warp per row, 512 pixels per step: each lane reads 16 pixels (a 16-byte load where
the rows allow it, instead of the paper's one pixel per lane and __ballot_sync), lanes 2j and 2j+1 make
word j of the bitmap, and the edges of the lanes before it (a warp scan) give each word the row's edges before
it. Writes the bitmap, the edges of the row before each word, and the row's run count (a run reaching the last
column closes at cols: half the edges, rounded up; a closing edge counted past cols changes nothing there).
The row's whole rounds load without bounds checks, the rest through foreground16's checks. Half the
instructions of the version before (8192²: 15.7 M -> 8.2 M warp instructions; doc/benchmarks.md, "The detection's
instructions", perf/detect_runs.cu); 32 registers for 8 blocks an SM, one wave at 8192². */
__global__ void __launch_bounds__(kRowThreads, 8)
detectRunsKernel(const BinaryImage img, unsigned* bits, unsigned* edgesBefore, int wordsPerRow, unsigned* rowRuns,
                 bool wideRows)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const unsigned lane = laneId();
    int y;
    if (!warpRow(img.rows, y)) // the whole warp: this kernel has no block-wide barrier
        return;
    const unsigned cols = static_cast<unsigned>(img.cols);
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    const unsigned char* src = img.data + static_cast<size_t>(y) * img.step;
    unsigned* bitsRow = bits + static_cast<size_t>(y) * words;
    unsigned* edgesRow = edgesBefore + static_cast<size_t>(y) * words;

    unsigned carry = 0;    // the last pixel before this step (in lane 0)
    unsigned rowEdges = 0; // same in every lane
    const unsigned wholeRounds = wideRows ? cols / kDetectRound * kDetectRound : 0u;
    unsigned x0 = 0;
    for (; x0 < wholeRounds; x0 += kDetectRound)
    {
        const uint4* p = reinterpret_cast<const uint4*>(src + x0) + lane;
        unsigned m[kDetectSteps];
#pragma unroll
        for (int u = 0; u < kDetectSteps; ++u) // loads first: kDetectSteps in flight
        {
            const uint4 v = __ldcs(p + u * kWarpSize);
            m[u] = foreground8(v.x, v.y) | (foreground8(v.z, v.w) << 8);
        }
        detectRound<false>(m, x0, lane, words, bitsRow, edgesRow, carry, rowEdges);
    }
    for (; x0 < cols; x0 += kDetectRound)
    {
        unsigned m[kDetectSteps];
#pragma unroll
        for (int u = 0; u < kDetectSteps; ++u)
            m[u] = foreground16(src, x0 + u * kDetectStep + lane * 16u, cols, wideRows);
        detectRound<true>(m, x0, lane, words, bitsRow, edgesRow, carry, rowEdges);
    }
    if (lane == 0)
        rowRuns[y] = (rowEdges + 1u) / 2u; // Algorithm 1, lines 12-13: the closing edge of a run at cols
}

/** Points every run straight at its root (the compression of Bolelli et al. 2024, III-B-1), so that the
ranking walks at most one step: parallel unions leave long chains (an all-foreground image links each
row's run under the one above). compressSlot with plain loads: no union runs, roots are fixed, only this
thread writes its run, and every value another thread writes meanwhile is an ancestor, so a stale read
still leads to the root (union_find.cuh); threads walking one chain jump along each other's progress. */
__global__ void compressRunsKernel(int* parent, const unsigned* runCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    // Stops at the last run: a table sized by its bound is not written past it. Grid-stride, since the
    // host launches for the bound and does not know how many slots are live.
    const unsigned runs = *runCount;
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += gridDim.x * blockDim.x)
        device::compressSlot(parent, static_cast<int>(k), parent[k] - 1, device::OwnSlot());
}

/** The first compression of a large table by bands of kBandRows rows, in two kernels (this one, then
compressBandTopsKernel), instead of compressRunsKernel. Right after the up links, a run's parent is a run of the
row above (or itself), so the up-link trees run up through every row, and at high densities for hundreds of rows
(8192^2, d = 95 %: mean depth 162, max 531), where compressRunsKernel's threads walk chains for 80-110 us. Here a
block walks its band's rows in order and points each run whose parent lies below the band's top row at its
parent's parent: by induction over the rows, that is a run of the top row or a root inside the band (the parent's
row was done in the step before, and the block's global writes are visible to its threads after __syncthreads).
Every value written is an ancestor, so the forest stays one (parent < child). Measured with perf/compress_chains.cu
(doc/benchmarks.md, "The first compression by bands"): with at least kBandMinRuns runs the two kernels and the
unions after them take less time than compressRunsKernel and the same unions; with fewer runs, more. */
__global__ void __launch_bounds__(kBandThreads) compressBandRowsKernel(int* parent, const unsigned* rowSlots, int rows)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const int top = blockIdx.x * kBandRows;
    const int last = min(rows, top + kBandRows) - 1;
    const int topEnd = static_cast<int>(rowSlots[top + 1]); // the slots from here on lie below the top row
    for (int y = top + 1; y <= last; ++y)
    {
        const int end = static_cast<int>(rowSlots[y + 1]);
        for (int k = static_cast<int>(rowSlots[y]) + threadIdx.x; k < end; k += kBandThreads)
        {
            const int p = parent[k] - 1;
            if (p != k && p >= topEnd)
                parent[k] = parent[p];
        }
        __syncthreads();
    }
}

/** Then the runs of every band's top row walk to their roots (compressSlot, as compressRunsKernel: roots are
fixed, each thread writes its own run, every value written is an ancestor). A top-row run's parent lies in the
band above, whose runs now point at its top row or a root, so a walk takes about two steps per band. Every run then
points at its root or at a top-row run that does: the unions after this find roots in at most two steps. */
__global__ void __launch_bounds__(kBandThreads) compressBandTopsKernel(int* parent, const unsigned* rowSlots)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const int y = blockIdx.x * kBandRows;
    const int end = static_cast<int>(rowSlots[y + 1]);
    for (int k = static_cast<int>(rowSlots[y]) + threadIdx.x; k < end; k += kBandThreads)
        device::compressSlot(parent, k, parent[k] - 1, device::OwnSlot());
}

// ---- the runs of a row, one per lane ----------------------------------------------------------------

/** The end of a row's run that is open before word `from` (its last pixel before the word is foreground): the first
background pixel at or after the word, or cols (bits past cols are 0 in the bitmap). The whole warp calls it. */
__device__ __forceinline__ int runEndFrom(const unsigned* row, unsigned from, unsigned words, int cols)
{
    for (unsigned w0 = from; w0 < words; w0 += kWarpSize)
    {
        const unsigned c = w0 + laneId();
        const unsigned background = c < words ? ~row[c] : ~0u;
        const unsigned hit = __ballot_sync(kFullMask, background != 0);
        if (hit)
        {
            const int j = __ffs(hit) - 1;
            const unsigned b = __shfl_sync(kFullMask, background, j);
            return static_cast<int>((w0 + j) * kWarpSize) + __ffs(b) - 1;
        }
    }
    return cols;
}

/** A warp's ring of run edges (shared memory): edge k of the row at edge[k % kRing]; for a run start, the
foreground bits around it in the rows above and below (see forEachRunRound). */
struct RunRing
{
    int edge[kRing];
    unsigned char neighbours[kRing];
};

/** Hands out the runs of a row that START in its words firstWord .. endWord - 1 (a segment; 0 .. wordsPerRow - 1:
the whole row), in order, one per lane: onRound(valid, s, e, r, neighbours) is called by the whole warp
(warp-uniform), lane i holding the segment's run r = 32 * round + i, the pixels [s, e) of the row (e may lie past
the segment); lanes past the last run have valid == false. With kNeighbours, `neighbours` holds the bits of the
row above at s-2, s-1, s (bits 0-2) and of the row below (bits 3-5) (0 where there is no such row).
A segment's edges are counted from -1 when a run is open at its first word (the pixel before it is foreground):
that run's end, its first edge, goes to the ring's entry -1 (mod kRing), which no round reads, and the edges
after it pair up as the segment's own runs. A run still open after endWord is closed at its end, found in the
words after the segment (runEndFrom).

This is Algorithm 1's compress-store, run from the bitmap instead of the image: 32 words per load, the
edge mask of each word (m_c ^ funnelshift(m_p, m_c, 1)), and each edge stored at its rank
edges + __popc(mask & lanes below). Two ways to store a load's 32 words:
  - all at once, when their edges fit the ring's free entries: each lane stores its own word's edges from its
    offset, an exclusive warp scan of the words' edge counts; then the rounds that became complete. (The
    word-by-word way costs a shuffle, a ballot step and a store round per word with edges; it was most of
    accumulateRunsKernel's instructions at g = 4 and 16, where the kernel was compute-bound: ncu, session 23;
    179 and 113 us became 89 and 38 at 8192², d = 50 %. A load without edges, inside a run or the background,
    stores nothing and skips the scan.)
  - else word by word: only words with edges are visited (a ballot over the 32 words), each word's edges
    spread over the lanes, and a round as soon as 32 runs are complete.
Ring bound: the live entries are the stored edges not yet handed out, edges - 2 runsDone. The first way stores
only when they stay within kRing, the dropped edge's entry -1 counted while it is stored (a segment of 17 words
after an open run, 256 one-pixel runs: 513 edges in one store, entries -1 and 511 both in slot 511, lost the last
run's end: CUDACCA_Stats.RowSegmentsOfManyRuns; scripts/check_run_segments.py models the rounds store by store). In the second, before a word fewer than 32 complete runs wait (< 64 edges)
plus maybe one open start; a word adds at most 32 edges (so at most 17 complete runs: a round after it leaves
fewer than 32), hence at most 96 edges are live, fewer than kRing. Rounds hand out the runs in edge order
either way, so no live entry is overwritten. */
template <bool kNeighbours, typename OnRound>
__device__ __forceinline__ void forEachRunRound(const unsigned* row, const unsigned* above, const unsigned* below,
                                                int wordsPerRow, int cols, unsigned firstWord, unsigned endWord,
                                                RunRing& ring, OnRound&& onRound)
{
    const unsigned lane = laneId();
    const unsigned lanesBelow = (1u << lane) - 1u;
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    // the words just before the current 32
    unsigned carry = firstWord > 0 ? row[firstWord - 1] : 0u;
    unsigned carryAbove = kNeighbours && above && firstWord > 0 ? above[firstWord - 1] : 0u;
    unsigned carryBelow = kNeighbours && below && firstWord > 0 ? below[firstWord - 1] : 0u;
    int edges = -static_cast<int>(carry >> 31); // edges stored so far (same in every lane; -1: see above)
    int runsDone = 0; // runs handed out so far (same in every lane)

    auto round = [&]() {
        __syncwarp(); // the ring stores of every lane are visible
        const int r = runsDone + static_cast<int>(lane);
        const bool valid = r < edges / 2;
        int s = 0, e = 0;
        unsigned nb = 0;
        if (valid)
        {
            s = ring.edge[(2 * r) & (kRing - 1)];
            e = ring.edge[(2 * r + 1) & (kRing - 1)];
            if (kNeighbours)
                nb = ring.neighbours[(2 * r) & (kRing - 1)];
        }
        onRound(valid, s, e, r, nb);
        runsDone += kWarpSize;
        __syncwarp(); // the ring entries were read before they are reused
    };

    for (unsigned w0 = firstWord; w0 < endWord; w0 += kWarpSize)
    {
        const unsigned c = w0 + lane;
        const bool inRow = c < endWord;
        const unsigned f = inRow ? row[c] : 0u;
        unsigned fPrev = __shfl_up_sync(kFullMask, f, 1);
        if (lane == 0)
            fPrev = carry;
        unsigned a = 0, aPrev = 0, b = 0, bPrev = 0;
        if (kNeighbours)
        {
            a = (above && inRow) ? above[c] : 0u;
            b = (below && inRow) ? below[c] : 0u;
            aPrev = __shfl_up_sync(kFullMask, a, 1);
            bPrev = __shfl_up_sync(kFullMask, b, 1);
            if (lane == 0)
            {
                aPrev = carryAbove;
                bPrev = carryBelow;
            }
        }
        // A lane past the segment has no edges (past the row, its 0 word would give the end of a run reaching the last
        // column: closed below instead).
        const unsigned edgeMask = inRow ? f ^ ((f << 1) | (fPrev >> 31)) : 0u;
        unsigned withEdges = __ballot_sync(kFullMask, edgeMask != 0); // none: inside a run or the background
        if (withEdges)
        {
            const unsigned count = __popc(edgeMask);
            unsigned upTo = count; // inclusive scan of the edge counts over the lanes
            for (unsigned d = 1; d < kWarpSize; d *= 2)
            {
                const unsigned t = __shfl_up_sync(kFullMask, upTo, d);
                if (lane >= d)
                    upTo += t;
            }
            const int loadEdges = static_cast<int>(__shfl_sync(kFullMask, upTo, kWarpSize - 1));
            // The entries the store takes: the live ones, the load's, and the dropped edge's entry -1 while it is
            // stored (edges < 0: in this same store, so its slot, kRing - 1, must not be another entry's).
            if (edges - 2 * runsDone + loadEdges + (edges < 0 ? 1 : 0) <= kRing) // warp-uniform: all 32 words at once
            {
                int k = edges + static_cast<int>(upTo - count);
                for (unsigned m = edgeMask; m; m &= m - 1)
                {
                    const unsigned bit = __ffs(m) - 1;
                    const int slot = k++ & (kRing - 1);
                    ring.edge[slot] = static_cast<int>((w0 + lane) * kWarpSize + bit); // <= cols
                    if (kNeighbours)
                        ring.neighbours[slot] = static_cast<unsigned char>(threeBitsEndingAt(aPrev, a, bit) |
                                                                           (threeBitsEndingAt(bPrev, b, bit) << 3));
                }
                edges += loadEdges;
                while (edges / 2 - runsDone >= kWarpSize)
                    round();
                withEdges = 0;
            }
        }
        while (withEdges) // warp-uniform: word by word
        {
            const int j = __ffs(withEdges) - 1;
            withEdges &= withEdges - 1;
            const unsigned ej = __shfl_sync(kFullMask, edgeMask, j);
            unsigned aj = 0, ajPrev = 0, bj = 0, bjPrev = 0;
            if (kNeighbours)
            {
                aj = __shfl_sync(kFullMask, a, j);
                ajPrev = __shfl_sync(kFullMask, aPrev, j);
                bj = __shfl_sync(kFullMask, b, j);
                bjPrev = __shfl_sync(kFullMask, bPrev, j);
            }
            if ((ej >> lane) & 1u) // compress-store
            {
                const int slot = (edges + __popc(ej & lanesBelow)) & (kRing - 1);
                ring.edge[slot] = static_cast<int>((w0 + j) * kWarpSize + lane); // <= cols
                if (kNeighbours)
                    ring.neighbours[slot] = static_cast<unsigned char>(threeBitsEndingAt(ajPrev, aj, lane) |
                                                                       (threeBitsEndingAt(bjPrev, bj, lane) << 3));
            }
            edges += __popc(ej);
            if (edges / 2 - runsDone >= kWarpSize)
                round();
        }
        carry = __shfl_sync(kFullMask, f, kWarpSize - 1);
        if (kNeighbours)
        {
            carryAbove = __shfl_sync(kFullMask, a, kWarpSize - 1);
            carryBelow = __shfl_sync(kFullMask, b, kWarpSize - 1);
        }
    }
    // A run open after the segment: the segment's own (edges > 0) ends where the words after it say; Algorithm 1,
    // lines 12-14, a run that reaches the last column closes at cols. The run open before the segment (edges == -1)
    // spans it and is not its own.
    if (edges & 1)
    {
        if (edges > 0)
        {
            const int end = runEndFrom(row, endWord, words, cols);
            if (lane == 0)
                ring.edge[edges & (kRing - 1)] = end;
        }
        ++edges;
    }
    while (runsDone < edges / 2)
        round();
}

// ---- on-the-fly features (OTF) -----------------------------------------------------------------------

/** OTF's feature table, structure of arrays over run slots. The neutral values
(an empty slot) are area 0, sums 0, min x INT_MAX, max x and max y INT_MIN, as in the accumulators. */
struct RunFeatures
{
    unsigned long long* sumX;
    unsigned long long* sumY;
    int* area;
    int* minX;
    int* maxX;
    int* maxY;
};

/** Moves the features of slot `from` into slot `to` (Algorithm 2, lines 9-10 and 17-18): each field is
extracted with atomicExch against its neutral value, so what is taken is taken once, and merged with the
field's atomic operation. A neutral value extracted is not merged (merging it changes nothing). */
__device__ __forceinline__ void moveFeatures(const RunFeatures& f, unsigned from, unsigned to)
{
    const int area = atomicExch(f.area + from, 0);
    const int minX = atomicExch(f.minX + from, INT_MAX);
    const int maxX = atomicExch(f.maxX + from, INT_MIN);
    const int maxY = atomicExch(f.maxY + from, INT_MIN);
    const unsigned long long sumX = atomicExch(f.sumX + from, 0ull);
    const unsigned long long sumY = atomicExch(f.sumY + from, 0ull);
    if (area != 0)
        atomicAdd(f.area + to, area);
    if (minX != INT_MAX)
        atomicMin(f.minX + to, minX);
    if (maxX != INT_MIN)
        atomicMax(f.maxX + to, maxX);
    if (maxY != INT_MIN)
        atomicMax(f.maxY + to, maxY);
    if (sumX != 0)
        atomicAdd(f.sumX + to, sumX);
    if (sumY != 0)
        atomicAdd(f.sumY + to, sumY);
}

/** Algorithm 2 (on-the-fly merge) of the trees of the runs l1 and l2 (slots), with our forest convention
(parent[l] = parent + 1) and union_find.cuh's find (first-node compression, which only ever rewrites a
non-root's parent to one of its ancestors).

Labels. The loop is Playne's union: l2 > l1 is linked under l1 by atomicMin; if l2 was not a root any more
(old != l2) the link is not relied upon and the loop goes on with l1 and l2's old parent, so the larger of
the two strictly decreases: it ends, with both trees joined.

Features: no feature is lost or counted twice. A feature (each field of each run's initial features) is,
at every moment, in exactly one slot or in the registers of one thread between its atomicExch and its
atomic merge: atomicExch hands a value to one thread only, and that thread puts it back exactly once. So
nothing is counted twice; what remains is that at the end every feature sits in a ROOT's slot:
  - only non-roots are ever extracted (line 9 after linking l2, line 17 after find(l1) != l1; a root never
    becomes a root again), so a root keeps at least its own run's features;
  - after each merge into a slot X (lines 10 and 18), this thread later either extracts X itself (X becomes
    the l2 of a later iteration after a swap, or the l1 of the final loop with find(l1) != l1), or it sees
    X as a root in find(X) (lines 14, 21), after a __threadfence. In that last case, if another thread A
    makes X a non-root later, A's link (atomicMin on parent[X]) comes after our read of parent[X], and A
    extracts X after its own __threadfence (lines 8-9): the two fences (fence.sc) forbid that our read
    misses A's link while A's extraction misses our merge (the store-buffering outcome), so A takes our
    merge with it, and A is then responsible for it by the same argument.
Hence when every thread is done, every non-root slot holds only neutral values, and the features of each
component are all in its root's slot. Each field is moved on its own, and the argument holds field by
field. The __threadfence calls are the listing's (lines 4, 8, 11, 15, 19, 22). */
__device__ void mergeOnTheFly(int* parent, const RunFeatures& f, int l1, int l2)
{
    l1 = device::findRootCompress(parent, l1);
    l2 = device::findRootCompress(parent, l2);
    __threadfence();
    while (l1 != l2)
    {
        if (l2 < l1)
        {
            const int t = l1;
            l1 = l2;
            l2 = t;
        }
        const int l = atomicMin(parent + l2, l1 + 1) - 1; // label merge
        __threadfence();
        moveFeatures(f, l2, l1); // extraction, merge into the current root
        __threadfence();
        if (l == l2)
            break;
        l2 = l;
    }
    // Ensure the features have reached an actual root.
    int a = device::findRootCompress(parent, l1);
    __threadfence();
    while (a != l1)
    {
        moveFeatures(f, l1, a);
        __threadfence();
        l1 = a;
        a = device::findRootCompress(parent, l1);
        __threadfence();
    }
}

// ---- union of the runs ------------------------------------------------------------------------------
// A pair of adjacent runs (rows y-1, y) is linked by the run that STARTS LATER (the lower run on a tie),
// so every run makes at most two links, both found in O(1); the paper's one thread per
// run walks every run of the previous row that overlaps its own (LSL's ER indexing), and a run under a
// comb then makes thousands of unions in one thread. For the run [s, e) of row y:
//   up link:   the run of row y-1 that starts at or before s and touches us: it holds pixel s (4-conn),
//              or s-1, else starts at s (8-conn);
//   down link: the run of row y+1 that starts strictly before s and touches us: it holds s and s-1
//              (4-conn), or s-1 (8-conn).
// Each adjacent pair is found exactly once: for a lower run [s,t] and an upper run [s',t'] that touch,
// with 4-connectivity (s <= t' and s' <= t): if s' <= s the upper run holds s (the lower run's up link);
// if s' > s then s < s' <= t, the lower run holds s' and s'-1 (the upper run's down link). With
// 8-connectivity (s <= t'+1 and s' <= t+1): if s' <= s the upper run holds s-1 or, if not, starts at s;
// if s' > s then s <= s'-1 <= t, the lower run holds s'-1. Conversely every link found is an adjacent
// pair, and each direction finds at most one run because runs are disjoint.
// FLSL and FLSL+CD make the up link when the run's node is created (linkRunsKernel<.., false>: parent =
// the upper run, Komura-style), which keeps parent < child; only the down links are unions. OTF creates
// every node as a root (its features must move with every link) and merges both links on the fly.

/** The up link of the run starting at s in row y (see above), as a slot, or -1; `up` holds the bits of
row y-1 at s-2, s-1, s. */
template <int kConnectivity>
__device__ __forceinline__ int upLink(const RunTable& t, int s, int y, unsigned up)
{
    if (kConnectivity == 4)
        return (up & 4u) ? static_cast<int>(t.slotOf(s, y - 1)) : -1;
    if (up & 2u)
        return static_cast<int>(t.slotOf(s - 1, y - 1));
    return (up & 4u) ? static_cast<int>(t.slotOf(s, y - 1)) : -1;
}

/** The down link of the run starting at s in row y, as a slot, or -1; `down` holds the bits of row y+1 at
s-2, s-1, s. */
template <int kConnectivity>
__device__ __forceinline__ int downLink(const RunTable& t, int s, int y, unsigned down)
{
    if (kConnectivity == 4)
        return (down & 6u) == 6u ? static_cast<int>(t.slotOf(s, y + 1)) : -1;
    return (down & 2u) ? static_cast<int>(t.slotOf(s - 1, y + 1)) : -1;
}

/** Where the early up-link pass records the runs, when they number at most kRecordedRuns (else `starts` is null):
run k's first pixel (x, row) in starts[k], the x past its last pixel in ends[k]. */
struct RecordedRuns
{
    int2* starts;
    int* ends;
};

/** Records the ends of the runs that end in word c of row y (`edgeMask`: the word's edges, `before`: the row's edges
before it): where a foreground bit is followed by a background one (bits past cols are background in the bitmap),
and, at the row's last word when cols is a multiple of 32, the run that reaches bit 31 (it ends at cols). A run's
end is its second edge, so the same count of edges up to it as its start's gives its slot. scripts/check_run_stats.py
models this and runStatsBlock's gaps on the CPU (two CTest tests). */
__device__ __forceinline__ void recordRunEnds(const RunTable& t, int y, unsigned c, unsigned before, unsigned f,
                                              unsigned edgeMask, int* ends)
{
    unsigned falls = ~f & edgeMask;
    const bool toRowEnd = c + 1 == static_cast<unsigned>(t.wordsPerRow) && (f >> 31) != 0u;
    if (!falls && !toRowEnd)
        return;
    const unsigned rowSlot = t.rowSlots[y];
    while (falls)
    {
        const unsigned b = __ffs(falls) - 1;
        falls &= falls - 1;
        ends[rowSlot + ((before + __popc(edgeMask & ((2u << b) - 1u)) - 1u) >> 1)] = static_cast<int>(c * kWarpSize + b);
    }
    if (toRowEnd)
        ends[rowSlot + ((before + __popc(edgeMask) - 1u) >> 1)] = t.cols;
}

/** The links of the runs that start in word c of row y (`starts`: their first bits; `edgeMask`: the word's edges,
`before`: the row's edges before it): kDown = false creates their nodes, parent = the up link or the run itself (a
root); kDown = true unites each with its down link. */
template <int kConnectivity, bool kDown>
__device__ __forceinline__ void linkWordRuns(const RunTable& t, int* parent, int y, unsigned c, unsigned before,
                                             unsigned edgeMask, unsigned starts, int2* positions)
{
    const int ny = kDown ? y + 1 : y - 1; // the neighbouring row
    const bool hasRow = ny >= 0 && ny < t.rows;
    const unsigned* nrow = t.bits + static_cast<size_t>(hasRow ? ny : y) * static_cast<unsigned>(t.wordsPerRow);
    const unsigned n = hasRow ? nrow[c] : 0u;
    const unsigned nPrev = hasRow && c > 0 ? nrow[c - 1] : 0u;
    const unsigned rowSlot = t.rowSlots[y];
    while (starts)
    {
        const unsigned b = __ffs(starts) - 1;
        starts &= starts - 1;
        const int s = static_cast<int>(c * kWarpSize + b);
        const int k = static_cast<int>(rowSlot + ((before + __popc(edgeMask & ((2u << b) - 1u)) - 1u) >> 1));
        const unsigned nb = threeBitsEndingAt(nPrev, n, b);
        if (!kDown)
        {
            const int u = upLink<kConnectivity>(t, s, y, nb);
            parent[k] = (u >= 0 ? u : k) + 1;
            if (positions) // RecordedRuns
                positions[k] = make_int2(s, y);
        }
        else
        {
            const int d = downLink<kConnectivity>(t, s, y, nb);
            if (d >= 0) // plain loads: a stale parent is still an ancestor, and atomicMin decides (union_find.cuh)
                device::unite(parent, k, d, device::OwnSlot());
        }
    }
}

/** Words i0 .. i0 + kWords - 1 of `a` (0 past `total`), with 16-byte loads where they are all inside (the table's
arrays are 256-byte aligned and i0 is a multiple of kWords). */
template <int kWords>
__device__ __forceinline__ void loadWords(const unsigned* a, unsigned i0, unsigned total, unsigned (&v)[kWords])
{
    if (kWords % 4 == 0 && i0 + kWords <= total)
    {
#pragma unroll
        for (int w = 0; w < kWords; w += 4)
        {
            const uint4 q = *reinterpret_cast<const uint4*>(a + i0 + w);
            v[w % kWords] = q.x; // % kWords: in range for every kWords the compiler instantiates
            v[(w + 1) % kWords] = q.y;
            v[(w + 2) % kWords] = q.z;
            v[(w + 3) % kWords] = q.w;
        }
        return;
    }
#pragma unroll
    for (int w = 0; w < kWords; ++w)
        v[w] = i0 + w < total ? a[i0 + w] : 0u;
}

/** FLSL, FLSL+CD: one thread per kWords bitmap words, for each run that starts in them, so that the work is spread
over the whole image, not over rows. kDown = false creates the nodes: parent = the up link, or the run itself (a
root). kDown = true unites each run with its down link. kWords (linkWordsPerThread): 1 where runs are many (a
thread makes its links one after another), 4 where they are few (the 8192^2 full image, 8192 runs in 2 M words:
there a pass is its threads' two loads, 13-14 us with one word a thread, 7.5-9 with four). Measured with
perf/link_runs.cu (doc/benchmarks.md, "The link passes over sparse runs"). */
template <int kConnectivity, bool kDown, int kWords>
__device__ __forceinline__ void linkThreadWords(const RunTable& t, int* parent, unsigned i0, unsigned totalWords,
                                                RecordedRuns recorded = {})
{
    unsigned f[kWords], before[kWords];
    loadWords<kWords>(t.bits, i0, totalWords, f);
    loadWords<kWords>(t.edgesBefore, i0, totalWords, before);
    const unsigned wordsPerRow = static_cast<unsigned>(t.wordsPerRow);
    int y = static_cast<int>(i0 / wordsPerRow);
    unsigned c = i0 - static_cast<unsigned>(y) * wordsPerRow;
#pragma unroll
    for (int w = 0; w < kWords; ++w)
    {
        if (w > 0 && ++c == wordsPerRow) // the next row (words past the last one are 0: no runs)
        {
            c = 0;
            ++y;
        }
        const unsigned edgeMask = f[w] ^ ((f[w] << 1) | (before[w] & 1u));
        const unsigned starts = f[w] & edgeMask; // rising edges
        if (starts)
            linkWordRuns<kConnectivity, kDown>(t, parent, y, c, before[w], edgeMask, starts, recorded.starts);
        if (recorded.starts)
            recordRunEnds(t, y, c, before[w], f[w], edgeMask, recorded.ends);
    }
}

template <int kConnectivity, bool kDown, int kWords>
__global__ void linkRunsKernel(const RunTable t, int* parent, unsigned totalWords)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const unsigned i0 = (blockIdx.x * blockDim.x + threadIdx.x) * kWords;
    if (i0 < totalWords)
        linkThreadWords<kConnectivity, kDown, kWords>(t, parent, i0, totalWords);
}

/** Bitmap words a thread of the link passes (linkRunsKernel) for `runs` counted runs in `words` words: 4 for at most a
run per 16 words, 2 for at most one per 6, else 1 (FullRunLabeling::linkWordsPerThread, which measured it). */
__host__ __device__ __forceinline__ int linkWordsFor(unsigned long long runs, unsigned long long words)
{
    return 16 * runs <= words ? 4 : 6 * runs <= words ? 2 : 1;
}

/** linkRunsKernel's up-link pass queued before the host knows the run count (FullRunLabeling::queueEarlyUpLinks), into
`parent`, a table of `capacity` slots: it reads the count on the device, does nothing where the runs do not fit, and
otherwise takes the words a thread that the host would have chosen (linkWordsFor). The grid is that of four words a
thread (a quarter of the words' threads), or one wave if that is more (queueEarlyUpLinks); with two or one word a
thread, each thread takes every such task a grid apart. A grid of one word a thread, its threads past totalWords / k
returning, took 13.7 us on the 8192² full image (four words a thread: 8192 runs in 2 M words), against 7.4 for
linkRunsKernel's grid of four (Nsight Compute; doc/benchmarks.md, "Three more ways to use the run-count wait"). Where
the runs are at most kRecordedRuns it also records them (RecordedRuns), for fewRunsChainKernel and runStatsBlock. */
template <int kConnectivity>
__global__ void linkUpRunsEarlyKernel(const RunTable t, int* parent, unsigned totalWords, unsigned capacity,
                                      RecordedRuns recorded)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const unsigned runs = t.rowSlots[t.rows];
    if (runs > capacity)
        return;
    if (runs > kRecordedRuns)
        recorded = {};
    const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x; // at least totalWords / 4
    const int k = linkWordsFor(runs, totalWords);
    if (k == 4)
    {
        if (4ull * thread < totalWords)
            linkThreadWords<kConnectivity, false, 4>(t, parent, 4 * thread, totalWords, recorded);
    }
    else if (k == 2)
    {
        for (unsigned long long i = thread; 2 * i < totalWords; i += threads)
            linkThreadWords<kConnectivity, false, 2>(t, parent, static_cast<unsigned>(2 * i), totalWords, recorded);
    }
    else
    {
        for (unsigned long long i = thread; i < totalWords; i += threads)
            linkThreadWords<kConnectivity, false, 1>(t, parent, static_cast<unsigned>(i), totalWords, recorded);
    }
}

static_assert(kFewRuns % kFewRunsThreads == 0 && kFewRunsSmall % kFewRunsThreads == 0 && kFewRunsSmall < kFewRuns,
              "the few-runs block's shapes: whole slots a thread");

/** The block's slots of this thread that hold runs: k = threadIdx.x + i * kFewRunsThreads for i below this. */
__device__ __forceinline__ int fewRunsSlotsOfThread(int n)
{
    return n > static_cast<int>(threadIdx.x) ? (n - static_cast<int>(threadIdx.x) + kFewRunsThreads - 1) / kFewRunsThreads : 0;
}

/** Pointer jumping over the forest `f` of `n` nodes (at most kSlots * kFewRunsThreads, 1-based parents, every parent at
or before its child) in shared memory until every node points at its root. A thread's slots are k = threadIdx.x + i *
kFewRunsThreads, so a warp holds 32 consecutive slots for each i. First, with shuffles and no barrier, each warp jumps
inside those 32: a node's ancestors inside the window are a prefix of its path (parents come first), so after 5
rounds (2^5 = 32) every node points at its root or at its first ancestor before the window. Then rounds over the
block, each moving every node to its grandparent, about log2 of the longest remaining chain counted in windows: for
a chain of 6144 runs one under the other (a full image's) 9 rounds instead of 14 (scripts/check_few_runs_jumps.py, a
CPU model of both steps). A round loads all of a thread's parents,
then the grandparents, then stores; the loads race with other threads' stores, which is harmless: every value a
slot ever holds here is an ancestor of it, so a stale or a fresh one is an ancestor either way, and the loop ends
only when a whole round, after a barrier, moved nothing: then every node's parent is a root. */
template <int kSlots>
__device__ __forceinline__ void jumpToRoots(int* f, int n)
{
    __syncthreads(); // what the block wrote before (the loads, the unions) is visible
    const int mine = fewRunsSlotsOfThread(n);
    const int lane = static_cast<int>(threadIdx.x % kWarpSize);
#pragma unroll
    for (int i = 0; i < kSlots; ++i)
    {
        if (i * kFewRunsThreads >= n)
            break; // the same for the whole block; lanes past n below hold 0 and never move
        const int k = static_cast<int>(threadIdx.x) + i * kFewRunsThreads;
        const int v0 = i < mine ? f[k] : 0;
        int v = v0;
#pragma unroll
        for (int r = 0; r < 5; ++r)
        {
            const unsigned at = static_cast<unsigned>(v - 1 - (k - lane)); // the parent's lane, if in the window
            const int w = __shfl_sync(0xffffffffu, v, at < kWarpSize ? static_cast<int>(at) : lane);
            if (at < kWarpSize)
                v = w;
        }
        if (v != v0)
            f[k] = v;
    }
    bool moved = true;
    while (__syncthreads_or(moved))
    {
        moved = false;
        int p[kSlots], g[kSlots];
#pragma unroll
        for (int i = 0; i < kSlots; ++i)
            if (i < mine)
                p[i] = f[threadIdx.x + i * kFewRunsThreads];
#pragma unroll
        for (int i = 0; i < kSlots; ++i)
            if (i < mine)
                g[i] = f[p[i] - 1];
#pragma unroll
        for (int i = 0; i < kSlots; ++i)
            if (i < mine && g[i] != p[i])
            {
                f[threadIdx.x + i * kFewRunsThreads] = g[i];
                moved = true;
            }
    }
}

/** The chain after the run-count wait for at most kFewRuns runs, in one block and in its shared memory: the first
compression, the unions with the down links, the second compression and the ranking, as compressUpLinks, the union
pass, compressRuns and compressAndRank + its segment scan do in five kernels (8192² full image: 5.4 + 6.0 + 3.0 + 4.2
+ 4.5 us under Nsight Compute, the host launching each after its wake-up). The table is loaded once, the compressions
jump pointers (jumpToRoots), the unions (union_find.cuh's, on the shared copy) go over the runs (`positions`, recorded
by the early up-link pass) instead of the bitmap's words, and the table is stored once. Each run's down link needs two
rounds of dependent loads from global memory (its position; then the next row's bitmap words, edge counts and slot
offset); a thread issues them for all its slots together, before the first compression, so that the block waits for
global memory about twice rather than twice per slot. The result is compressAndRank's contract for one segment: every
non-root slot holds its root + 1, every root -(its rank + 1), in slot order, which is the raster order of the runs'
starts, so that label = rank + 1 is SAUF's (segmentOffsets[0] = 0); N goes to *componentCount and, when not null,
*hostCount (mapped host memory). Its one SM issues on 55 % of the cycles (the jumps' rounds: instructions, not
memory), so it saves launches more than GPU time, and only where the runs are few (kFewRuns): the 4096² full image's
call took 0.78 of its time; on the 8192² full image (8192 runs) the block's 20.8 us of GPU time are more than the five
kernels' 17.4, yet the call took 0.956 of its time, four launches fewer after the host's wait (doc/benchmarks.md, "The
chain after the run-count wait in one block, landed", "The few-runs block's threshold" and "The few-runs block to 8192
runs"). kSlots: a thread's slots (fewRunsChainFor). */
template <int kConnectivity, int kSlots>
__global__ void __launch_bounds__(kFewRunsThreads)
fewRunsChainKernel(const RunTable t, int* parent, const int2* positions, int runs, int* segmentOffsets,
                   int* componentCount, int* hostCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ int f[kSlots * kFewRunsThreads];
    const int mine = fewRunsSlotsOfThread(runs);
    int2 p[kSlots]; // x: the run's start, y: its row
#pragma unroll
    for (int i = 0; i < kSlots; ++i)
        if (i < mine)
        {
            const int k = threadIdx.x + i * kFewRunsThreads;
            f[k] = parent[k];
            p[i] = positions[k];
        }
    int down[kSlots]; // the down link's slot, or -1
#pragma unroll
    for (int i = 0; i < kSlots; ++i)
    {
        down[i] = -1;
        if (i < mine && p[i].y + 1 < t.rows)
        {
            const int ny = p[i].y + 1;
            const unsigned c = static_cast<unsigned>(p[i].x) / kWarpSize, b = static_cast<unsigned>(p[i].x) % kWarpSize;
            const unsigned* nrow = t.bits + static_cast<size_t>(ny) * static_cast<unsigned>(t.wordsPerRow);
            down[i] = downLink<kConnectivity>(t, p[i].x, p[i].y, threeBitsEndingAt(c > 0 ? nrow[c - 1] : 0u, nrow[c], b));
        }
    }
    jumpToRoots<kSlots>(f, runs); // it begins with a barrier: the loads are visible
#pragma unroll
    for (int i = 0; i < kSlots; ++i)
        if (down[i] >= 0)
            device::unite(f, threadIdx.x + i * kFewRunsThreads, down[i], device::OwnSlot());
    jumpToRoots<kSlots>(f, runs); // it begins with a barrier: the unions are done
    // Ranks: each thread a contiguous range of slots, its roots counted, then scanned across the block.
    const int k0 = threadIdx.x * kSlots, k1 = min(k0 + kSlots, runs);
    int roots = 0;
    for (int k = k0; k < k1; ++k)
        roots += f[k] == k + 1;
    using BlockScan = cub::BlockScan<int, kFewRunsThreads>;
    __shared__ typename BlockScan::TempStorage scan;
    int rank, total;
    BlockScan(scan).ExclusiveSum(roots, rank, total); // its barriers: every root test above is done
    for (int k = k0; k < k1; ++k)
        if (f[k] == k + 1)
            f[k] = -(++rank); // -(its rank + 1): the k-th root of the image takes label rank + 1
    __syncthreads();
    for (int k = threadIdx.x; k < runs; k += kFewRunsThreads)
        parent[k] = f[k];
    if (threadIdx.x == 0)
    {
        segmentOffsets[0] = 0;
        *componentCount = total;
        if (hostCount)
            *hostCount = total;
    }
}

/** fewRunsChainKernel in the shape for `runs` (at most kFewRuns): 6 slots a thread up to kFewRunsSmall, else 8. */
template <int kConnectivity>
auto fewRunsChainFor(unsigned runs)
{
    return runs <= kFewRunsSmall ? fewRunsChainKernel<kConnectivity, static_cast<int>(kFewRunsSmall) / kFewRunsThreads>
                                 : fewRunsChainKernel<kConnectivity, static_cast<int>(kFewRuns) / kFewRunsThreads>;
}

/** linkRunsKernel's pass (one word a thread) with a word's runs split between two threads where the runs are dense:
thread i then takes the runs that start in half i % 2 (16 bits) of word i / 2. A word's runs are linked one after
another, each with a few dependent loads, so at fine granularity its thread is the pass's critical path. Dense:
`minRunsTimes4` = 0 (the host counted the runs), else the run count, on the device, is at least minRunsTimes4 / 4
a word (a table sized by its bound, whose count the host has not waited for). A sparse table runs one word a thread
(threads past the words return): each thread loads its word before the count is known, so that it waits for no
more than linkRunsKernel's. Measured with perf/link_runs.cu (FullRunLabeling::linkSplit). */
template <int kConnectivity, bool kDown>
__global__ void linkRunsSplitKernel(const RunTable t, int* parent, unsigned totalWords, unsigned minRunsTimes4)
{
    device::dependentKernelStart(); // launched by launchDependent()
    const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned word = thread, f = 0, before = 0, half = ~0u;
    if (minRunsTimes4 != 0 && thread < totalWords) // loaded before the run count is known
    {
        f = t.bits[thread];
        before = t.edgesBefore[thread];
    }
    if (t.runsDense(minRunsTimes4, totalWords))
    {
        word = thread / 2;
        half = thread % 2 ? 0xFFFF0000u : 0x0000FFFFu;
        if (word >= totalWords)
            return;
        f = t.bits[word];
        before = t.edgesBefore[word];
    }
    else if (thread >= totalWords)
        return;
    const unsigned wordsPerRow = static_cast<unsigned>(t.wordsPerRow);
    const int y = static_cast<int>(word / wordsPerRow);
    const unsigned c = word - static_cast<unsigned>(y) * wordsPerRow;
    const unsigned edgeMask = f ^ ((f << 1) | (before & 1u));
    const unsigned starts = f & edgeMask & half; // rising edges in this thread's half
    if (starts)
        linkWordRuns<kConnectivity, kDown>(t, parent, y, c, before, edgeMask, starts, nullptr);
}

/** FLSL+OTF creates every run's node: a root holding the run's own features, before any union moves them.
One warp per row, one thread per run. */
__global__ void __launch_bounds__(kRowThreads)
initRunFeaturesKernel(const RunTable t, int* parent, const RunFeatures f)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ RunRing rings[kRowsPerBlock];
    const int warp = threadIdx.x / kWarpSize;
    int y;
    if (!warpRow(t.rows, y))
        return;
    const size_t rowWord = static_cast<size_t>(y) * t.wordsPerRow;
    const unsigned rowSlot = t.rowSlots[y];
    forEachRunRound<false>(t.bits + rowWord, nullptr, nullptr, t.wordsPerRow, t.cols, 0, t.wordsPerRow, rings[warp],
                           [&](bool valid, int s, int e, int r, unsigned) {
        if (!valid)
            return;
        const unsigned k = rowSlot + static_cast<unsigned>(r);
        parent[k] = static_cast<int>(k) + 1;
        const int len = e - s;
        f.area[k] = len;
        f.minX[k] = s;
        f.maxX[k] = e - 1;
        f.maxY[k] = y;
        f.sumX[k] = runSumX(s, len);
        f.sumY[k] = static_cast<unsigned long long>(y) * static_cast<unsigned>(len);
    });
}

/** FLSL+OTF's unions: both links of every run, merged on the fly (Algorithm 2), one warp per row, one
thread per run. */
template <int kConnectivity>
__global__ void __launch_bounds__(kRowThreads)
uniteOnTheFlyKernel(const RunTable t, int* parent, const RunFeatures f)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ RunRing rings[kRowsPerBlock];
    const int warp = threadIdx.x / kWarpSize;
    int y;
    if (!warpRow(t.rows, y)) // the whole warp: no block-wide barrier here
        return;
    const size_t rowWord = static_cast<size_t>(y) * t.wordsPerRow;
    const unsigned* row = t.bits + rowWord;
    const unsigned* above = y > 0 ? row - t.wordsPerRow : nullptr;
    const unsigned* below = y + 1 < t.rows ? row + t.wordsPerRow : nullptr;
    const unsigned rowSlot = t.rowSlots[y];
    forEachRunRound<true>(row, above, below, t.wordsPerRow, t.cols, 0, t.wordsPerRow, rings[warp],
                          [&](bool valid, int s, int /*e*/, int r, unsigned nb) {
        if (!valid)
            return;
        const int k = static_cast<int>(rowSlot) + r;
        const int u = upLink<kConnectivity>(t, s, y, nb & 7u);
        if (u >= 0)
            mergeOnTheFly(parent, f, k, u);
        const int d = downLink<kConnectivity>(t, s, y, (nb >> 3) & 7u);
        if (d >= 0)
            mergeOnTheFly(parent, f, k, d);
    });
}

// ---- the runs' labels --------------------------------------------------------------------------------

/** Where a run's final label is read: the ranked run forest in place (RankedNodes: no relabeling pass over the
runs, one kernel less in the chain), or, for the rows over a table kept in the label image, the copy of their
labels made aside (LabelRows::OverTable: `copy`, final labels). */
struct RunLabels
{
    RankedNodes ranked;
    const int* copy = nullptr;

    __device__ __forceinline__ int label(int k) const { return copy ? copy[k] : ranked.label(k); }

    /** The labels of the runs k[j] (k[j] < 0: none, label 0), their loads issued together: the slots, then the
    roots' slots and segment offsets (two rounds of loads for the batch). */
    template <int kN>
    __device__ __forceinline__ void labels(const int (&k)[kN], int (&out)[kN]) const
    {
        int v[kN];
#pragma unroll
        for (int j = 0; j < kN; ++j)
            v[j] = k[j] < 0 ? 0 : copy ? copy[k[j]] : ranked.slots[k[j]];
        if (copy)
        {
#pragma unroll
            for (int j = 0; j < kN; ++j)
                out[j] = v[j];
            return;
        }
        int w[kN], offset[kN];
#pragma unroll
        for (int j = 0; j < kN; ++j)
        {
            const int root = RankedNodes::rootOf(k[j], v[j]);
            w[j] = k[j] < 0 || v[j] < 0 ? v[j] : ranked.slots[root];
            offset[j] = k[j] < 0 ? 0 : ranked.segmentOffsets[static_cast<unsigned>(root) >> ranked.shift];
        }
#pragma unroll
        for (int j = 0; j < kN; ++j)
            out[j] = offset[j] - w[j];
    }
};

// ---- statistics --------------------------------------------------------------------------------------

/** A row's bitmap words cut into segments of `words` words for the statistics, a warp each (statsSegments). */
struct RowSegments
{
    unsigned words;         //!< words per segment (the last one of a row may have fewer)
    unsigned perRow;        //!< segments per row
    unsigned minRunsTimes4; //!< cut only where the runs number at least minRunsTimes4 / 4 a word (0: always)

    /** The segments as the run count on the device says: as they are where the runs are dense, else a warp per row
    (the grid's blocks past the rows then have nothing to do). */
    __device__ __forceinline__ RowSegments forRuns(const RunTable& t) const
    {
        if (perRow == 1 || t.runsDense(minRunsTimes4, static_cast<unsigned long long>(t.rows) * static_cast<unsigned>(t.wordsPerRow)))
            return *this;
        return { static_cast<unsigned>(t.wordsPerRow), 1u, 0u };
    }

    /** The segment of warp task `task` (row-major over rows and segments): its row y, and its words [c0, c1). */
    __device__ __forceinline__ bool task(unsigned task, int rows, int wordsPerRow, int& y, unsigned& c0, unsigned& c1) const
    {
        const unsigned row = task / perRow;
        y = static_cast<int>(row);
        c0 = (task - row * perRow) * words;
        c1 = min(c0 + words, static_cast<unsigned>(wordsPerRow));
        return row < static_cast<unsigned>(rows);
    }
};

/** The background pixels of the bitmap words [c0, c1) of row y (those words of `row`; bits past cols are 0 in the
bitmap and not background), this lane's words c0 + lane, c0 + lane + 32, ...: their count, first and last x, sum of
x (a word's: the count times its first x, plus bit k of every pixel's offset in it counted by one popcount each). */
__device__ __forceinline__ ComponentFeatures segmentBackground(const unsigned* row, unsigned c0, unsigned c1, int cols, int y)
{
    ComponentFeatures b;
    b.reset();
    for (unsigned c = c0 + laneId(); c < c1; c += kWarpSize)
    {
        const int x0 = static_cast<int>(c * kWarpSize);
        const int inRow = min(kWarpSize, cols - x0);
        const unsigned bg = ~row[c] & (inRow == kWarpSize ? ~0u : (1u << inRow) - 1u);
        if (!bg)
            continue;
        const int n = __popc(bg);
        const unsigned offsets = __popc(bg & 0xAAAAAAAAu) + 2u * __popc(bg & 0xCCCCCCCCu) + 4u * __popc(bg & 0xF0F0F0F0u) +
                                 8u * __popc(bg & 0xFF00FF00u) + 16u * __popc(bg & 0xFFFF0000u);
        b.area += n;
        b.sumX += static_cast<unsigned long long>(n) * static_cast<unsigned>(x0) + offsets;
        b.minX = min(b.minX, x0 + __ffs(bg) - 1);
        b.maxX = max(b.maxX, x0 + kWarpSize - 1 - __clz(bg));
    }
    if (b.area > 0)
    {
        b.minY = b.maxY = y;
        b.sumY = static_cast<unsigned long long>(y) * static_cast<unsigned>(b.area);
    }
    return b;
}

/** The labels a block of accumulateRunsTableKernel keeps in shared memory: 24 bytes each (22.5 KB), beside the warps'
rings (20 KB): 43.6 KB, so that an SM holds five blocks (228 KB), as many as the kernel's registers allow (48 a
thread: accumulateRunsKernel<ConflictDetection>'s too), with the largest carveout. Tables of 512, 384 and 256 labels
were slower where the table gains (4096², 8192², g = 1, d = 25 %) and no faster elsewhere (doc/benchmarks.md, "The
statistics' block table"). */
constexpr int kStatsTableSlots = 960;
using StatsTable = device::BlockLabelTable<kStatsTableSlots>;
static_assert(kRowsPerBlock <= device::kTableRows, "a block's row segments lie in at most kRowsPerBlock rows");

/** Where the table is used (tableWanted): at least kTableMinRuns runs and kTableMinLabels labels, at most
kTableMaxRunsPerLabel runs a label on average. H100, the kernel alone (perf/accumulate_runs.cu): it took 0.75-0.89 of
the time where the image has millions of runs of many small components (4096² and 8192², g = 1, d = 5 / 25 %; 8192²,
g = 4, d = 25 %), but 1.04-1.13 where the runs are fewer (2048², 4096², g = 1, d = 5 %; 8192², g = 4, d = 5 %), or
nearly all one component's (g = 1, d = 50 %: 75 runs a label at 8192², where the warps' carries merge them). */
constexpr unsigned kTableMinRuns = 1u << 21;
constexpr unsigned kTableMinLabels = 1u << 17;
constexpr unsigned kTableMaxRunsPerLabel = 32;

/** Whether a block of accumulateRunsTableKernel keeps its table: as the rule above says from the run count and N on
the device (the host knows neither before its wait, nor the runs of a table sized by their bound), or always with
`force` (OPENCV_CUDACCA_STATS_TABLE=2). The same for every thread. */
__device__ __forceinline__ bool tableWanted(const RunTable& t, const int* componentCount, bool force)
{
    const unsigned runs = t.rowSlots[t.rows];
    const unsigned labels = static_cast<unsigned>(*componentCount) + 1u;
    return force || (runs >= kTableMinRuns && labels >= kTableMinLabels &&
                     runs <= static_cast<unsigned long long>(kTableMaxRunsPerLabel) * labels);
}

/** The block's table reset, for the labels from the first that a root at or after the block's first run can have:
the labels before that run's segment of the ranked table, plus 1 (RankedNodes: a root's label is its segment's
offset plus its rank in the segment plus 1). The roots of the block's runs have consecutive labels (the ranking
goes in slot order, and a block's row segments are consecutive slots), so the table holds them from the first
(up to kStatsTableSlots, less the roots of the segment before the block's first run); the block's other labels go
to the accumulators as without a table. Any base would be exact. Every thread calls it, with warp 0's task (y,
c0) the block's first; it ends with the barrier that the table's merges need. */
__device__ __forceinline__ void startTable(StatsTable& table, const RunTable& t, const RankedNodes& runs, int y, unsigned c0,
                                           int warp)
{
    table.reset();
    if (warp == 0 && laneId() == 0)
    {
        const size_t rowWord = static_cast<size_t>(y) * t.wordsPerRow;
        const unsigned firstSlot = t.rowSlots[y] + (c0 > 0 ? (t.edgesBefore[rowWord + c0] + 1u) >> 1 : 0u);
        table.base = runs.segmentOffsets[firstSlot >> runs.shift] + 1;
        table.y0 = y;
    }
    __syncthreads();
}

/** Statistics of every label from the runs: one warp per row segment (RowSegments: a whole row where the rows are
enough warps), one thread per run that starts in it (forEachRunRound). Atomic: one set of atomics per run.
ConflictDetection: Algorithm 3 first, then the leaders through the warp's carry. OnTheFly: the root runs copy their
slot (one root per label: plain stores). The background of a segment is counted from its bitmap words
(segmentBackground), reduced per block: 7 atomics per block. A run's
label is read from the ranked run table (RankedNodes::label), never from the label image. Does nothing when the
accumulators hold fewer labels than the ranking found (*componentCount + 1): the host sized them before it
knew N, and starts again once it does (connected_components.cpp, runPipeline). This is block `block`'s part,
its `rings` in shared memory (kRowsPerBlock of them): accumulateRunsKernel and writeLabelsAndAccumulateKernel
run it. With `table` (ConflictDetection only: accumulateRunsTableKernel), the groups of the labels it holds go there
instead (StatsTable). */
template <RunFeatureMerge kMerge>
__device__ __forceinline__ void accumulateRunsBlock(unsigned block, RunRing* rings, const RunTable& t, RowSegments segments,
                                                    const RankedNodes& runs, const StatsAccumulators& acc,
                                                    const RunFeatures& features, const int* componentCount,
                                                    StatsTable* table = nullptr)
{
    if (*componentCount + 1 > acc.count) // the same value for every thread: every block returns
        return;
    segments = segments.forRuns(t); // the same for every thread
    if (static_cast<unsigned long long>(block) * kRowsPerBlock >= static_cast<unsigned long long>(t.rows) * segments.perRow)
        return; // a block with no task (the grid has the blocks of the dense case): every thread of it returns
    __shared__ ComponentFeatures blockBackground;
    __shared__ device::BlockCarry blockCarry;
    if (threadIdx.x == 0)
    {
        blockBackground.reset();
        blockCarry.reset();
    }
    const unsigned lane = laneId();
    const int warp = threadIdx.x / kWarpSize;
    int y;
    const int cols = t.cols;
    unsigned c0, c1;
    // warp-uniform; every warp reaches the __syncthreads below
    const bool activeRow = segments.task(block * kRowsPerBlock + warp, t.rows, t.wordsPerRow, y, c0, c1);
    if (table)
        startTable(*table, t, runs, y, c0, warp); // warp 0's task is the block's first: it is active

    ComponentFeatures background; // this lane's words' background
    background.reset();
    device::WarpCarry carry; // ConflictDetection
    if (activeRow)
    {
        const size_t rowWord = static_cast<size_t>(y) * t.wordsPerRow;
        // the runs that start before the segment: the slots before its first run
        const unsigned rowSlot = t.rowSlots[y] + (c0 > 0 ? (t.edgesBefore[rowWord + c0] + 1u) >> 1 : 0u);
        const unsigned lanesBelow = (1u << lane) - 1u;
        const unsigned lanesAbove = ~((2u << lane) - 1u);
        const unsigned long long y64 = static_cast<unsigned>(y);
        background = segmentBackground(t.bits + rowWord, c0, c1, cols, y);

        forEachRunRound<false>(t.bits + rowWord, nullptr, nullptr, t.wordsPerRow, cols, c0, c1, rings[warp],
                               [&](bool valid, int s, int e, int r, unsigned) {
            const int len = e - s; // 0 when !valid
            const unsigned long long sx = valid ? runSumX(s, len) : 0ull;

            // A label's top is its root run's row (the root is the component's raster-first run), so only the
            // root's set carries its row as minY; the others carry INT_MAX, whose atomic the merges skip.
            if (kMerge == RunFeatureMerge::Atomic)
            {
                if (!valid)
                    return;
                bool root;
                const int l = runs.label(rowSlot + r, root);
                ComponentFeatures f = device::runFeatures(s, y, len);
                f.minY = root ? y : INT_MAX;
                f.atomicMergeInto(acc, l);
            }
            else if (kMerge == RunFeatureMerge::ConflictDetection)
            {
                // Algorithm 3: group the lanes by label, reduce each group into its lowest lane (the
                // leader) with the masked tree reduction, only leaders vote. Lanes without a run form a
                // group of their own (label -1) and do not vote.
                bool root = false;
                const int l = valid ? runs.label(rowSlot + r, root) : -1;
                const unsigned peers = __match_any_sync(kFullMask, l);
                const unsigned rank0 = __popc(peers & lanesBelow);
                // Runs are in increasing x along the lanes: the group's max x is its highest lane's.
                const int groupEnd = __shfl_sync(kFullMask, e, 31 - __clz(peers));
                int area = len;
                unsigned long long sumX = sx;
                unsigned rank = rank0;
                unsigned rest = peers & lanesAbove;
                while (__any_sync(kFullMask, rest != 0))
                {
                    const int next = __ffs(rest); // 1 + the next peer above, 0 if none
                    const int src = next ? next - 1 : static_cast<int>(lane);
                    const int area2 = __shfl_sync(kFullMask, area, src);
                    const unsigned long long sumX2 = __shfl_sync(kFullMask, sumX, src);
                    if (next)
                    {
                        area += area2;
                        sumX += sumX2;
                    }
                    rest &= __ballot_sync(kFullMask, (rank & 1u) == 0);
                    rank >>= 1;
                }
                // The leaders' sets, through the warp's carry (statistics.cuh): the label that goes on
                // from round to round (above the percolation threshold, the one component holding
                // nearly every run) is merged in registers, not by the same seven atomics every round.
                ComponentFeatures group;
                group.minX = s; // the leader's start: the group's min x
                group.maxX = groupEnd - 1;
                // The top from the root alone (above): a group holds its label's root run only as its leader,
                // since the lanes' runs go in x order and the root is its label's leftmost run in its row.
                group.minY = root ? y : INT_MAX;
                group.maxY = y;
                group.area = area;
                group.sumX = sumX;
                group.sumY = y64 * static_cast<unsigned>(area);
                // A label the block's table holds: its group there, its top stored by its root (one root a label),
                // and no part in the carry (the lanes of a group agree).
                const bool inTable = table && valid && table->holds(l);
                if (inTable && rank0 == 0)
                {
                    table->merge(l, group);
                    if (root)
                        acc.minY[l] = y;
                }
                carry.offer(valid && rank0 == 0 && !inTable, l, group, acc, valid && !inTable); // (every lane of a run a member)
            }
            else // OnTheFly: after the unions, exactly the roots' slots are non-empty
            {
                if (!valid)
                    return;
                const unsigned slot = rowSlot + static_cast<unsigned>(r);
                const int area = features.area[slot];
                if (area == 0)
                    return;
                ComponentFeatures root;
                root.area = area;
                root.minX = features.minX[slot];
                root.maxX = features.maxX[slot];
                root.minY = y; // the root is the component's raster-first pixel
                root.maxY = features.maxY[slot];
                root.sumX = features.sumX[slot];
                root.sumY = features.sumY[slot];
                root.storeTo(acc, runs.label(static_cast<int>(slot)));
            }
        });
    }
    __syncthreads(); // the resets of blockBackground and blockCarry are seen
    if (kMerge == RunFeatureMerge::ConflictDetection && activeRow)
        carry.finishInto(blockCarry, acc, false, 0, background);
    device::mergeBlockBackground(background, blockBackground, acc); // its barrier follows every merge
    if (kMerge == RunFeatureMerge::ConflictDetection && threadIdx.x == 0)
        blockCarry.flush(acc);
    if (table)
        table->flush(acc);
}

template <RunFeatureMerge kMerge>
__global__ void __launch_bounds__(kRowThreads)
accumulateRunsKernel(const RunTable t, const RowSegments segments, const RankedNodes runs, const StatsAccumulators acc,
                     const RunFeatures features, const int* componentCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ RunRing rings[kRowsPerBlock];
    accumulateRunsBlock<kMerge>(blockIdx.x, rings, t, segments, runs, acc, features, componentCount);
}

/** accumulateRunsKernel<ConflictDetection> with a table of labels per block (StatsTable, startTable): CCA_DEFAULT's
statistics where the table may pay (FullRunLabeling::statsTable); each block keeps it where tableWanted() says. */
__global__ void __launch_bounds__(kRowThreads)
accumulateRunsTableKernel(const RunTable t, const RowSegments segments, const RankedNodes runs, const StatsAccumulators acc,
                          const RunFeatures features, const int* componentCount, bool forceTable)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ RunRing rings[kRowsPerBlock];
    __shared__ StatsTable table;
    accumulateRunsBlock<RunFeatureMerge::ConflictDetection>(blockIdx.x, rings, t, segments, runs, acc, features,
                                                            componentCount,
                                                            tableWanted(t, componentCount, forceTable) ? &table : nullptr);
}

/** CCA_DEFAULT's statistics from the runs that the early up-link pass recorded (RecordedRuns: at most kRecordedRuns,
e.g. the 8192² full image's 8192), in place of accumulateRunsBlock's pass over every row's bitmap words, whose blocks
hold their SMs beside the label write for a chain of some twenty dependent loads a row (8192², the full image: the
label write with them 102-104 us, without 93-95; doc/benchmarks.md, "The statistics from the recorded runs, landed"). A
thread per run (its start, row and end as recorded, its label from the ranked table); the sets offered to the
block's carry (offerToBlock: a candidate label merged in the warp, the others atomically). The background from the
gaps between the runs: a run's gap before it (from the previous run's end, or from the row's start for its row's
first run) and, for its row's last run, the gap after it to cols; a thread per row adds the rows without runs. So
every pixel of the image is in exactly one run or one gap. A label's top from its root run alone (the component's
raster-first run), as accumulateRunsBlock. Does nothing when the accumulators hold fewer labels than the ranking
found, as accumulateRunsBlock. This is block `block` of runStatsBlocks(). */
__device__ __forceinline__ void runStatsBlock(unsigned block, const RunTable& t, const int2* starts, const int* ends,
                                              const RankedNodes& runs, const StatsAccumulators& acc,
                                              const int* componentCount)
{
    if (*componentCount + 1 > acc.count) // the same value for every thread: every block returns
        return;
    __shared__ ComponentFeatures blockBackground;
    __shared__ device::BlockCarry blockCarry;
    if (threadIdx.x == 0)
    {
        blockBackground.reset();
        blockCarry.reset();
    }
    __syncthreads(); // the resets are seen
    const unsigned i = block * blockDim.x + threadIdx.x;
    const bool has = i < t.rowSlots[t.rows];
    ComponentFeatures run, background;
    run.reset();
    background.reset();
    int l = 0;
    if (has)
    {
        const int2 p = starts[i]; // (x, row)
        const int e = ends[i];
        bool root;
        l = runs.label(static_cast<int>(i), root);
        run = device::runFeatures(p.x, p.y, e - p.x);
        if (!root)
            run.minY = INT_MAX; // the merges skip it
        const int gapFrom = i > t.rowSlots[p.y] ? ends[i - 1] : 0;
        if (p.x > gapFrom)
            background.addRun(gapFrom, p.y, p.x - gapFrom);
        if (i + 1 == t.rowSlots[p.y + 1] && e < t.cols)
            background.addRun(e, p.y, t.cols - e);
    }
    device::offerToBlock(has, l, run, blockCarry, acc);
    if (i < static_cast<unsigned>(t.rows) && t.rowSlots[i] == t.rowSlots[i + 1])
        background.addRun(0, static_cast<int>(i), t.cols);
    device::mergeBlockBackground(background, blockBackground, acc); // its barrier follows every offer
    if (threadIdx.x == 0)
        blockCarry.flush(acc);
}

/** runStatsBlock's blocks of kRowThreads threads: a thread per run and per row. */
unsigned runStatsBlocks(int rows, size_t runs)
{
    return blocksFor(static_cast<long long>(std::max<size_t>(runs, static_cast<size_t>(rows))), kRowThreads);
}

__global__ void __launch_bounds__(kRowThreads)
runStatsKernel(const RunTable t, const int2* starts, const int* ends, const RankedNodes runs, const StatsAccumulators acc,
               const int* componentCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    runStatsBlock(blockIdx.x, t, starts, ends, runs, acc, componentCount);
}

// ---- the label image, written once --------------------------------------------------------------------

/** Four labels, stored with one vector store when `vector` (aligned and inside the row) else one by one.
Streaming stores (`st.global.cs`: the lines evicted from the L2 first): nothing in the call reads the labels
back, while the write itself reads the bitmap, the edge counts and the ranked run table, which the labels
(4 bytes a pixel) would otherwise push out of the L2. 8192², full CCA, Nsight Compute in the call: the label and
statistics kernel 128.7 -> 114.8 us at g = 16, d = 50 % (DRAM read 23.5 -> 8.6 MB), 109.1 -> 102.9 on the full
image (doc/benchmarks.md, "The L2 kept for the run table"). */
__device__ __forceinline__ void storeQuad(int* p, const int (&v)[4], int n, bool vector)
{
    if (vector)
        __stcs(reinterpret_cast<int4*>(p), make_int4(v[0], v[1], v[2], v[3]));
    else
        for (int k = 0; k < n; ++k)
            __stcs(p + k, v[k]);
}
__device__ __forceinline__ void storeQuad(unsigned short* p, const int (&v)[4], int n, bool vector)
{
    if (vector)
        __stcs(reinterpret_cast<ushort4*>(p), make_ushort4(static_cast<unsigned short>(v[0]), static_cast<unsigned short>(v[1]),
                                                           static_cast<unsigned short>(v[2]), static_cast<unsigned short>(v[3])));
    else
        for (int k = 0; k < n; ++k)
            __stcs(p + k, static_cast<unsigned short>(v[k]));
}

/** Which rows writeLabelsKernel writes. The run table may live in the caller's int32 label image (slot k's label
in bytes 4k .. 4k+3 of it, whose rows are contiguous: RunLabeling::TableHome); its rows are then written in two
launches, with the analysis, which reads the runs' labels, queued between them (runPipeline). Why that is safe:
row y covers the bytes y * step .. y * step + 4 cols - 1 and the table the bytes 0 .. 4 R - 1 (R runs), so the
rows y >= y0 = ceil(4 R / step) (rowsOverTable) overwrite no slot. The first launch writes those rows, reading
the table, and each row y < y0 copies its runs' labels, slots rowSlots[y] .. rowSlots[y+1] - 1, aside: together
the slots 0 .. rowSlots[y0] - 1, every slot a row < y0 reads. The second writes the rows y < y0 from that copy,
over the table, which nobody reads after it. */
enum class LabelRows
{
    All,       //!< every row, from the run table (in memory of its own)
    PastTable, //!< the rows past the table, from it; the rows over it copy their runs' labels aside
    OverTable, //!< the rows over the table, from the copy
};

/** The rows of a label image with rows `step` bytes apart whose bytes hold the run table (see LabelRows). */
__device__ __forceinline__ unsigned rowsOverTable(const RunTable& t, size_t step)
{
    const unsigned long long tableBytes = 4ull * t.rowSlots[t.rows];
    return static_cast<unsigned>(min(static_cast<unsigned long long>(t.rows), (tableBytes + step - 1) / step));
}

/** Every pixel's final label, from the ranked run table: one warp per 32 consecutive bitmap words of a row
(1024 pixels), lane i the word i. The lane fills its 32 labels piece by piece (a piece: the part of a run in
the word; its run's label read from `runs` (RunLabels::labels), the slot from the word's bits and edge count as in
RunTable::slotOf) into the warp's tile in shared memory; the warp then writes the tile as consecutive
stores, 4 labels per lane (16 bytes for int32), 512 bytes per warp store. Measured on the H100 (8192^2):
100 us on the full image, 103 at g = 16 and 123 at g = 1, against 117, 122 and 138 with a thread per 4
pixels, each with its own loads and one 16-byte store. From 2^24 pixels, writeLabelsKernel keeps 5 blocks (40
warps) per SM (kWriteMinBlocks, registers capped at 48, the largest shared-memory carveout): at g = 1 and 4 a warp
waits on two rounds of dependent loads per batch of pieces, and its 64 registers left 4 blocks; perf/label_write.cu,
8192^2, d = 50 %: g = 1 167 -> 148 us, g = 4 124 -> 115, the full image and g = 16 unchanged (doc/benchmarks.md,
"The label write's occupancy"). `part` and `saved`: LabelRows (int32 labels only).
This is block `block`'s part, its warps' tiles in shared memory (`tile`, kRowsPerBlock of them):
writeLabelsKernel and writeLabelsAndAccumulateKernel run it. */
constexpr int kPad = kWarpSize + 1; //!< a lane's 32 labels padded: the lanes fill their rows without bank conflicts
using LabelTile = int[kWarpSize * kPad];

template <typename LabelT>
__device__ __forceinline__ void writeLabelsBlock(unsigned block, LabelTile* tile, const RunTable& t, const RunLabels& runs,
                                                 char* labels, size_t step, unsigned tilesPerRow, bool vectorRows,
                                                 LabelRows part, int* saved)
{
    const unsigned lane = laneId();
    const unsigned warp = threadIdx.x / kWarpSize;
    const unsigned task = block * kRowsPerBlock + warp;
    const unsigned y = task / tilesPerRow;
    if (y >= static_cast<unsigned>(t.rows)) // the whole warp
        return;
    if (part != LabelRows::All && (part == LabelRows::PastTable) == (y < rowsOverTable(t, step)))
    {
        if (part == LabelRows::PastTable) // a row over the table: its runs' labels aside, spread over its tiles
            for (unsigned k = t.rowSlots[y] + (task - y * tilesPerRow) * kWarpSize + lane; k < t.rowSlots[y + 1];
                 k += tilesPerRow * kWarpSize)
                saved[k] = runs.label(static_cast<int>(k));
        return; // the whole warp
    }
    const unsigned w = (task - y * tilesPerRow) * kWarpSize + lane; // this lane's word
    int* mine = tile[warp] + lane * kPad;
    if (w < static_cast<unsigned>(t.wordsPerRow))
    {
        const size_t c = static_cast<size_t>(y) * t.wordsPerRow + w;
        const unsigned f = t.bits[c];
        const unsigned before = t.edgesBefore[c];
        const unsigned edgeMask = f ^ ((f << 1) | (before & 1u));
        const unsigned rowSlot = t.rowSlots[y];
        // A piece starts where a foreground bit follows a background one, and at bit 0 when the word begins
        // inside a run (an odd number of edges before it).
        unsigned starts = f & edgeMask;
        if ((before & 1u) && (f & 1u))
            starts |= 1u;
#pragma unroll
        for (int b = 0; b < kWarpSize; ++b)
            mine[b] = 0;
        // Up to 16 pieces in a word; kPieceBatch at a time, their loads issued together (a word of a fine
        // random image has several: one after the other, each load would wait for the previous piece's fill).
        constexpr int kPieceBatch = 8;
        while (starts)
        {
            int first[kPieceBatch], run[kPieceBatch], label[kPieceBatch];
#pragma unroll
            for (int j = 0; j < kPieceBatch; ++j)
            {
                first[j] = starts ? __ffs(starts) - 1 : -1;
                starts &= starts - 1; // no-op at 0
                run[j] = first[j] < 0 ? -1
                       : static_cast<int>(rowSlot + ((before + __popc(edgeMask & ((2u << first[j]) - 1u)) - 1u) >> 1));
            }
            runs.labels(run, label);
#pragma unroll
            for (int j = 0; j < kPieceBatch; ++j)
            {
                if (first[j] < 0)
                    break;
                const unsigned rest = ~f & (~0u << first[j]); // background from the start on: the piece ends there
                const int end = rest ? __ffs(rest) - 1 : kWarpSize;
                for (int k = first[j]; k < end; ++k)
                    mine[k] = label[j];
            }
        }
    }
    __syncwarp(); // the tile is filled
    // Lane i stores labels 4i .. 4i+3 of each 128-label stretch of the warp's 1024 (words past the row are
    // not stored: their columns are past cols).
    const unsigned x0 = (task - y * tilesPerRow) * (kWarpSize * kWarpSize);
    LabelT* row = reinterpret_cast<LabelT*>(labels + y * step);
#pragma unroll
    for (int k = 0; k < kWarpSize / 4; ++k)
    {
        const unsigned e = k * 4 * kWarpSize + lane * 4;
        const unsigned x = x0 + e;
        if (x >= static_cast<unsigned>(t.cols))
            break;
        const int n = min(4, t.cols - static_cast<int>(x));
        const int* src = tile[warp] + (e / kWarpSize) * kPad + e % kWarpSize; // 4 labels of one word
        const int v[4] = { src[0], src[1], src[2], src[3] };
        storeQuad(row + x, v, n, vectorRows && n == 4);
    }
}

template <typename LabelT, int kMinBlocks>
__global__ void __launch_bounds__(kRowThreads, kMinBlocks)
writeLabelsKernel(const RunTable t, const RunLabels runs, char* labels, size_t step, unsigned tilesPerRow,
                  bool vectorRows, LabelRows part, int* saved)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ LabelTile tile[kRowsPerBlock];
    writeLabelsBlock<LabelT>(blockIdx.x, tile, t, runs, labels, step, tilesPerRow, vectorRows, part, saved);
}

/** writeLabelsKernel's `writeBlocks` blocks and accumulateRunsKernel's `accumulateBlocks` in ONE grid: both read
only the ranked run table (and write disjoint memory: the labels, the accumulators), so neither waits for the
other. One launch less in the chain, and the two overlap: the label write is bound by DRAM bandwidth, the
statistics at fine granularity by the L2's atomics. The statistics' blocks are spread evenly among the label
blocks (the grid is scheduled in block order): block b is the statistics' block a(b) = floor(b * A / (W + A))
when a(b + 1) > a(b), else the labels' block b - a(b); so a(W + A) = A blocks of statistics and W of labels. The
shared memory of the two parts is one union (each alone is 21-34 KB). */
template <typename LabelT, RunFeatureMerge kMerge>
__global__ void __launch_bounds__(kRowThreads)
writeLabelsAndAccumulateKernel(const RunTable t, const RankedNodes runs, char* labels, size_t step, unsigned tilesPerRow,
                               bool vectorRows, LabelRows part, int* saved, unsigned writeBlocks, unsigned accumulateBlocks,
                               const RowSegments segments, const StatsAccumulators acc, const RunFeatures features, const int* componentCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ union
    {
        LabelTile tile[kRowsPerBlock];
        RunRing rings[kRowsPerBlock];
    } shared;
    const unsigned long long all = static_cast<unsigned long long>(writeBlocks) + accumulateBlocks;
    const unsigned b = blockIdx.x;
    const unsigned a = static_cast<unsigned>(b * static_cast<unsigned long long>(accumulateBlocks) / all);
    const unsigned aNext = static_cast<unsigned>((b + 1ull) * accumulateBlocks / all);
    if (aNext > a)
        accumulateRunsBlock<kMerge>(a, shared.rings, t, segments, runs, acc, features, componentCount);
    else
        writeLabelsBlock<LabelT>(b - a, shared.tile, t, RunLabels{ runs }, labels, step, tilesPerRow, vectorRows, part, saved);
}

/** writeLabelsKernel's blocks after runStatsBlock's `statsBlocks` (a few: a thread per recorded run and per row) in
one grid, as writeLabelsAndAccumulateKernel with accumulateRunsBlock: one launch, the two overlapping. The statistics'
blocks come first; they are done long before the label write. */
template <int kMinBlocks>
__global__ void __launch_bounds__(kRowThreads, kMinBlocks)
writeLabelsAndRunStatsKernel(const RunTable t, const RankedNodes runs, char* labels, size_t step, unsigned tilesPerRow,
                             bool vectorRows, LabelRows part, int* saved, unsigned statsBlocks, const int2* starts,
                             const int* ends, const StatsAccumulators acc, const int* componentCount)
{
    device::dependentKernelStart(); // launched by launchDependent()
    __shared__ LabelTile tile[kRowsPerBlock];
    if (blockIdx.x < statsBlocks)
        runStatsBlock(blockIdx.x, t, starts, ends, runs, acc, componentCount);
    else
        writeLabelsBlock<int>(blockIdx.x - statsBlocks, tile, t, RunLabels{ runs }, labels, step, tilesPerRow, vectorRows,
                              part, saved);
}

unsigned rowBlocks(int rows) { return static_cast<unsigned>((rows + kRowsPerBlock - 1ll) / kRowsPerBlock); }

// ---- the labeling and analysis objects ----------------------------------------------------------------

/** The FLSL labeling (Algorithm 1) on the run table. With onTheFly (FLSL+OTF, Algorithm 2) and statistics
wanted, it also moves every run's features to its root while the runs are united. Keeps the run table,
the ranked runs (their labels read in place) and OTF's feature table for writeLabels and RunAnalysis. */
class FullRunLabeling : public RunLabeling
{
public:
    explicit FullRunLabeling(bool onTheFly) : onTheFly_(onTheFly) {}

    void labelAndRank(const BinaryImage& image, int connectivity, bool wantStats, int* d_componentCount,
                      int* h_scratch, cudaEvent_t countReady, const TableHome& home, cudaStream_t stream) override;
    void writeLabels(void* labels, size_t step, bool labels16u, cudaStream_t stream) const override;
    void writeLabelsAndAccumulate(void* labels, size_t step, const Analysis& analysis, const StatsAccumulators& stats,
                                  cudaStream_t stream) const override;
    void finishLabels(cudaStream_t stream) const override;
    size_t labelBound() const override { return runs_ + 1; }

    /** Queues the statistics of every label, with the runs' features merged as `merge` says. */
    void accumulate(RunFeatureMerge merge, const StatsAccumulators& stats, cudaStream_t stream) const;

private:
    /** Lays out the bitmap, edge counts and row slots (plus the row scan's storage) in tableBuffer_. */
    void allocateTable(const BinaryImage& image, cudaStream_t stream);
    /** Nodes and unions; leaves every run pointing at its root. */
    template <int kConnectivity>
    void unite(bool onTheFly, cudaStream_t stream, bool upLinksQueued = false);
    /** The up-link pass into `parent`, a table of `capacity` slots, queued before the host knows the run count. */
    template <int kConnectivity>
    void queueEarlyUpLinks(int* parent, unsigned capacity, RecordedRuns recorded, cudaStream_t stream) const;
    void compressRuns(cudaStream_t stream);
    void compressUpLinks(cudaStream_t stream);
    int linkWordsPerThread() const;
    bool linkSplit(unsigned& minRunsTimes4) const;
    /** Whether CCA_DEFAULT's statistics come from the recorded runs (runStatsBlock): wherever they were recorded, unless
    OPENCV_CUDACCA_RUN_STATS=1 (runStatsOverride) asks for the row segments (accumulateRunsBlock). */
    bool runStats(RunFeatureMerge merge) const
    {
        return merge == RunFeatureMerge::ConflictDetection && recorded_.starts && runStatsOverride() != 1;
    }
    RowSegments statsSegments() const;
    bool statsTable(RunFeatureMerge merge, const StatsAccumulators& stats) const;
    unsigned segmentBlocks(const RowSegments& s) const
    {
        return blocksFor(static_cast<long long>(s.perRow) * table_.rows, kRowsPerBlock);
    }
    void launchWriteLabels(void* labels, size_t step, bool labels16u, LabelRows part, unsigned rows,
                           cudaStream_t stream) const;
    void checkAccumulate(RunFeatureMerge merge) const;
    void checkLabelsHome(const void* labels, size_t step, bool labels16u) const;
    /** Whether the label image passes the L2 (kWriteLargePixels): the label write then keeps kWriteMinBlocks blocks
    an SM, with the largest shared-memory carveout. */
    bool largeLabels() const
    {
        return static_cast<size_t>(table_.rows) * static_cast<size_t>(table_.cols) >= kWriteLargePixels;
    }
    /** writeLabelsKernel's blocks for `rows` rows (a warp per 32 bitmap words of a row: `tilesPerRow` per row). */
    unsigned writeGrid(unsigned rows, unsigned& tilesPerRow) const
    {
        tilesPerRow = (static_cast<unsigned>(table_.wordsPerRow) + kWarpSize - 1) / kWarpSize;
        return blocksFor(static_cast<long long>(tilesPerRow) * rows, kRowsPerBlock);
    }

    bool onTheFly_;
    bool featuresReady_ = false; //!< OTF ran with features: they sit at the roots
    bool ranked_ = false;
    const int* componentCount_ = nullptr; //!< the last labelAndRank's d_componentCount: accumulate() reads N there
    RunTable table_ = {};
    size_t runs_ = 0;              //!< slots in the run table: the runs, or their bound (small images)
    bool runsCounted_ = false;     //!< runs_ is the number of runs, not a bound
    RecordedRuns recorded_ = {};   //!< the runs as the early up-link pass recorded them (starts null: not recorded)
    void* scanTemp_ = nullptr;
    size_t scanBytes_ = 0;
    int* runLabels_ = nullptr;     //!< per slot: the parent, then (ranked) the root's rank or the root (RankedNodes)
    RankedNodes rankedRuns_ = {};  //!< runLabels_ once ranked, with the ranking's segment offsets
    TableHome home_;               //!< runLabels_ is home_.data (the label image) when not null
    int* savedLabels_ = nullptr;   //!< with a home: the labels of the runs of the rows over the table (LabelRows)
    unsigned overTableRows_ = 0;   //!< with a home: a bound of rowsOverTable, the rows finishLabels() writes
    StreamBuffer tableBuffer_;     //!< bitmap, edge counts, row slots, scan storage
    StreamBuffer runBuffer_;       //!< run parents / labels (without a home), ranking scratch, saved labels
    StreamBuffer featuresBuffer_;  //!< OTF: the feature table
    RunFeatures features_ = {};
};

void FullRunLabeling::allocateTable(const BinaryImage& image, cudaStream_t stream)
{
    const int rows = image.rows;
    const int wordsPerRow = (image.cols - 1) / kWarpSize + 1; // cols >= 1; cols + 31 may pass INT_MAX
    const size_t words = static_cast<size_t>(rows) * wordsPerRow;
    scanBytes_ = exclusiveSumTempBytes<unsigned>(rows);
    const size_t wordBytes = alignUp(words * sizeof(unsigned));
    const size_t rowBytes = alignUp((rows + 1ull) * sizeof(unsigned));
    char* p = static_cast<char*>(tableBuffer_.allocate(2 * wordBytes + rowBytes + scanBytes_, stream));
    table_.bits = reinterpret_cast<unsigned*>(p);
    table_.edgesBefore = reinterpret_cast<unsigned*>(p + wordBytes);
    table_.rowSlots = reinterpret_cast<unsigned*>(p + 2 * wordBytes);
    scanTemp_ = p + 2 * wordBytes + rowBytes;
    table_.rows = rows;
    table_.cols = image.cols;
    table_.wordsPerRow = wordsPerRow;
}

void FullRunLabeling::labelAndRank(const BinaryImage& image, int connectivity, bool wantStats,
                                   int* d_componentCount, int* h_scratch, cudaEvent_t countReady, const TableHome& home,
                                   cudaStream_t stream)
{
    ranked_ = featuresReady_ = false;
    home_ = TableHome();
    recorded_ = {};
    componentCount_ = d_componentCount;
    allocateTable(image, stream);
    const int rows = table_.rows;
    unsigned* rowSlots = const_cast<unsigned*>(table_.rowSlots);

    // The size of the run table (step 2). A small image takes the bound (at most ceil(cols / 2) runs per row);
    // the slots past the last run are left unwritten and unread: every pass over the slots stops at the
    // number of runs, rowSlots[rows] on the device. Otherwise (and for OTF, whose feature table is 32
    // bytes per run) the number of runs, at the cost of a wait.
    const bool onTheFly = onTheFly_ && wantStats;
    const size_t bound = static_cast<size_t>(rows) * ((static_cast<size_t>(table_.cols) + 1) / 2);
    const bool sizedByBound = !onTheFly && !countRunsOverride() && bound * sizeof(int) <= kBoundTableBytes;
    runsCounted_ = !sizedByBound;
    // h_scratch takes the run count, then N: pending until the GPU writes each (awaitMappedCount). No write of
    // the GPU to it is on its way (this function's contract, labeling.hpp: the caller before this one read its N, or
    // waited for its stream when it failed first, connected_components.cpp's CountWrites).
    *static_cast<volatile int*>(h_scratch) = kCountPending;

    // 1. Runs of every row; their counts, scanned in place, give each row's first slot and the total, which the
    // scan also writes into the mapped h_scratch when the host is to wait for it (no copy between the kernels).
    const bool wideRows = reinterpret_cast<size_t>(image.data) % 16 == 0 && image.step % 16 == 0;
    launchDependent(detectRunsKernel, rowBlocks(rows), kRowThreads, stream, "FLSL run detection", image,
                    const_cast<unsigned*>(table_.bits), const_cast<unsigned*>(table_.edgesBefore), table_.wordsPerRow,
                    rowSlots, wideRows);
    exclusiveSumWithTotal<unsigned>(scanTemp_, scanBytes_, rowSlots, rowSlots, rows, stream, "FLSL row slots", nullptr,
                                    runsCounted_ ? reinterpret_cast<unsigned*>(h_scratch) : nullptr);

    // 2a. Where the host is to wait for the count: the event that its wait (awaitMappedCount) watches, then the
    // up-link pass (queueEarlyUpLinks), which the GPU runs while the host waits for the count, not for the stream.
    if (!sizedByBound && countReady)
        queueEventRecord(countReady, stream, "cudaEventRecord (FLSL run count)");
    const size_t pixels = static_cast<size_t>(rows) * static_cast<size_t>(table_.cols);
    size_t guess = 0;
    char* guessMemory = nullptr;
    RecordedRuns recorded = {}; // the runs where they are few (fewRunsChainKernel, runStatsBlock)
    if (!sizedByBound && !onTheFly && countReady)
    {
        guess = std::min(bound, pixels / kEarlyTablePixelsPerSlot);
        const size_t tableAndScratch = alignUp(guess * sizeof(int)) + alignUp(rankScratchBytesUpTo(static_cast<int>(guess)));
        const size_t recordable = std::min<size_t>(guess, kRecordedRuns); // the early pass records runs <= guess only
        guessMemory = static_cast<char*>(runBuffer_.allocate(
            tableAndScratch + alignUp(recordable * sizeof(int2)) + recordable * sizeof(int), stream));
        recorded.starts = reinterpret_cast<int2*>(guessMemory + tableAndScratch);
        recorded.ends = reinterpret_cast<int*>(guessMemory + tableAndScratch + alignUp(recordable * sizeof(int2)));
        withConnectivity(connectivity, [&](auto c) {
            queueEarlyUpLinks<decltype(c)::value>(reinterpret_cast<int*>(guessMemory), static_cast<unsigned>(guess),
                                                  recorded, stream);
        });
    }

    // 2. The wait for the run count, where the table is sized by it.
    if (sizedByBound)
        runs_ = bound;
    else
    {
        if (countReady)
            runs_ = static_cast<unsigned>(awaitMappedCount(h_scratch, countReady, "the wait for the FLSL run count"));
        else
        {
            endLaunchRecording();
            checkCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (FLSL run count)");
            runs_ = static_cast<unsigned>(*h_scratch);
        }
        *static_cast<volatile int*>(h_scratch) = kCountPending; // for N; the run count's write has arrived
    }
    const bool early = guessMemory && runs_ <= guess;
    if (early && runs_ <= kRecordedRuns)
        recorded_ = recorded;
    if (runs_ == 0)
    {
        endLaunchRecording();
        checkCuda(cudaMemsetAsync(d_componentCount, 0, sizeof(int), stream), "cudaMemsetAsync (component count)");
        *h_scratch = 0; // N for the host (labelAndRank's contract); the scan that wrote it is done (the wait above)
        ranked_ = true;
        featuresReady_ = onTheFly;
        return;
    }

    // 3. Nodes (parent = up link), unions (down links), compression, then the shared ranking on the
    // 1 x runs forest of slots, read in place by the label write and the statistics (RankedNodes: no relabeling).
    // In the label image when there is one to live in, the runs were counted and their table would take more
    // than half a byte per pixel (the saved labels' bound: the rows over a table of runs_ slots, each with at
    // most ceil(cols / 2) runs), else in memory of our own. The second write of the labels costs a launch: 3-5 %
    // of a 2048^2 call, whose table is sized by its bound (it would also make the saved labels up to a byte
    // per pixel), and 1-3 % of an 8192^2 full image, whose table is 32 KiB (H100, doc/benchmarks.md).
    const LabelForest slots = { nullptr, static_cast<int>(runs_), 1, static_cast<int>(runs_) };
    size_t rankBytes = rankScratchBytes(slots.rows, slots.cols);
    void* rankScratch;
    if (early)
    {
        runLabels_ = reinterpret_cast<int*>(guessMemory);
        rankScratch = guessMemory + alignUp(guess * sizeof(int));
        rankBytes = rankScratchBytesUpTo(static_cast<int>(guess)); // what was allocated, enough for runs_ <= guess
        savedLabels_ = nullptr;
    }
    else if (home.data && !sizedByBound && runs_ * sizeof(int) <= home.bytes && 8 * runs_ > pixels)
    {
        home_ = home;
        overTableRows_ = static_cast<unsigned>(
            std::min<size_t>(rows, (runs_ * sizeof(int) + home.step - 1) / home.step));
        const size_t saved = std::min(runs_, overTableRows_ * ((static_cast<size_t>(table_.cols) + 1) / 2));
        char* p = static_cast<char*>(runBuffer_.allocate(alignUp(rankBytes) + saved * sizeof(int), stream));
        rankScratch = p;
        savedLabels_ = reinterpret_cast<int*>(p + alignUp(rankBytes));
        runLabels_ = static_cast<int*>(home.data);
    }
    else
    {
        char* p = static_cast<char*>(runBuffer_.allocate(alignUp(runs_ * sizeof(int)) + rankBytes, stream));
        runLabels_ = reinterpret_cast<int*>(p);
        rankScratch = p + alignUp(runs_ * sizeof(int));
        savedLabels_ = nullptr;
    }
    if (onTheFly)
    {
        const size_t sums = alignUp(runs_ * sizeof(unsigned long long));
        const size_t ints = alignUp(runs_ * sizeof(int));
        char* q = static_cast<char*>(featuresBuffer_.allocate(2 * sums + 4 * ints, stream));
        features_.sumX = reinterpret_cast<unsigned long long*>(q);
        features_.sumY = reinterpret_cast<unsigned long long*>(q + sums);
        features_.area = reinterpret_cast<int*>(q + 2 * sums);
        features_.minX = reinterpret_cast<int*>(q + 2 * sums + ints);
        features_.maxX = reinterpret_cast<int*>(q + 2 * sums + 2 * ints);
        features_.maxY = reinterpret_cast<int*>(q + 2 * sums + 3 * ints);
    }
    if (early && runs_ <= kFewRuns)
    {
        // The whole chain in one block (fewRunsChainKernel): one segment, its offset in the ranking's scratch.
        int* segmentOffsets = static_cast<int*>(rankScratch);
        withConnectivity(connectivity, [&](auto c) {
            launchDependent(fewRunsChainFor<decltype(c)::value>(runs_), 1, kFewRunsThreads, stream, "FLSL few runs",
                            table_, runLabels_, const_cast<const int2*>(recorded.starts), static_cast<int>(runs_),
                            segmentOffsets, d_componentCount, h_scratch);
        });
        rankedRuns_ = { runLabels_, segmentOffsets, 30 }; // one segment: every slot's index >> 30 is 0
    }
    else
    {
        withConnectivity(connectivity, [&](auto c) { unite<decltype(c)::value>(onTheFly, stream, early); });
        LabelForest forest = slots;
        forest.data = runLabels_;
        compressAndRank(forest, rankScratch, rankBytes, d_componentCount, stream, table_.rowSlots + rows, h_scratch);
        rankedRuns_ = rankedNodes(forest, rankScratch);
    }
    ranked_ = true;
    featuresReady_ = onTheFly;
}

template <int kConnectivity>
void FullRunLabeling::unite(bool onTheFly, cudaStream_t stream, bool upLinksQueued)
{
    if (onTheFly)
    {
        const unsigned blocks = rowBlocks(table_.rows);
        launchDependent(initRunFeaturesKernel, blocks, kRowThreads, stream, "FLSL+OTF nodes", table_, runLabels_, features_);
        launchDependent(uniteOnTheFlyKernel<kConnectivity>, blocks, kRowThreads, stream, "FLSL+OTF union", table_,
                        runLabels_, features_);
        compressRuns(stream);
        return;
    }
    // Nodes with their up links, whose chains (one run per row under a tall component) are compressed
    // before the unions walk them (by bands for a large table), then the down links, then the compression for
    // the ranking.
    const unsigned words = static_cast<unsigned>(table_.rows) * static_cast<unsigned>(table_.wordsPerRow);
    auto link = [&](auto down, const char* what) {
        constexpr bool kDown = decltype(down)::value;
        const int k = linkWordsPerThread();
        const unsigned blocks = blocksFor((words + k - 1) / k, kWordThreads);
        unsigned minRunsTimes4 = 0;
        if (linkSplit(minRunsTimes4))
            launchDependent(linkRunsSplitKernel<kConnectivity, kDown>, blocksFor(2ll * words, kWordThreads), kWordThreads,
                            stream, what, table_, runLabels_, words, minRunsTimes4);
        else if (k == 4)
            launchDependent(linkRunsKernel<kConnectivity, kDown, 4>, blocks, kWordThreads, stream, what, table_,
                            runLabels_, words);
        else if (k == 2)
            launchDependent(linkRunsKernel<kConnectivity, kDown, 2>, blocks, kWordThreads, stream, what, table_,
                            runLabels_, words);
        else
            launchDependent(linkRunsKernel<kConnectivity, kDown, 1>, blocks, kWordThreads, stream, what, table_,
                            runLabels_, words);
    };
    if (!upLinksQueued)
        link(std::false_type(), "FLSL nodes");
    compressUpLinks(stream);
    link(std::true_type(), "FLSL union");
    compressRuns(stream);
}

/** The up-link pass queued before the wait for the run count (labelAndRank, step 2a), after the event the host waits
on, into a table of our own guessed at a slot per kEarlyTablePixelsPerSlot pixels (allocated before the wait too):
linkUpRunsEarlyKernel does nothing where the runs do not fit (the host then takes the counted table's path), else the
words a thread that the pass after the wait would take. H100, A/B against 46fb240 (no early pass, a stream wait),
full CCA / labels only / stats only: 8192², g = 16, 0.954 / 0.955 / 0.934 of the time, the full image 0.900 / 0.920
/ 0.844; 4096², g = 16, 0.907 / 0.899 / 0.894. Waiting for the stream instead (the pass then ran
before the host woke) gave 0.98 at best and lost 4 % on the 8192² full image; two words a thread whatever the count
lost up to 8 % where dense runs fit (4096², g = 4, d = 50 %) (doc/benchmarks.md, "The up-link pass before the
run-count wait, landed"). */
template <int kConnectivity>
void FullRunLabeling::queueEarlyUpLinks(int* parent, unsigned capacity, RecordedRuns recorded, cudaStream_t stream) const
{
    const unsigned words = static_cast<unsigned>(table_.rows) * static_cast<unsigned>(table_.wordsPerRow);
    // The grid of four words a thread, but at least one wave where the words allow it: with two or one word a thread
    // (many runs) the quarter grid of a 4096² image (128 K threads) would leave the GPU half empty.
    const unsigned blocks = std::max(blocksFor((words + 3ll) / 4, kWordThreads),
                                     waveBlocks(linkUpRunsEarlyKernel<kConnectivity>, kWordThreads, blocksFor(words, kWordThreads)));
    launchDependent(linkUpRunsEarlyKernel<kConnectivity>, blocks, kWordThreads, stream,
                    "FLSL nodes (before the run count)", table_, parent, words, capacity, recorded);
}

/** Bitmap words per thread of the link passes (linkRunsKernel): where the runs were counted, 4 for at most a run per
16 words, 2 for at most one per 6, else 1 (also for a table sized by its bound, images of up to about 2^23 pixels:
at 2048^2 every choice took the same time). H100, 8192^2, up links + unions in us, one word a thread against the
choice (perf/link_runs.cu): the full image (a run per 256 words) 26.9 against 16.5; g = 256, d = 50 % (one per 30)
28.8 against 20.1; g = 64, d = 50 % (one per 8) 30.7 against 25.0 (two words); g = 16, d = 5 % (one per 10) 28.7
against 27.6 (two). With more runs a thread's links, made one after another, cost more than its loads: g = 4,
d = 5 % (one per 2.6 words) took 36.0 with two words against 32.7, g = 4 and g = 1 at d = 50 % 2-2.6 times as long
with four. */
/** Whether the link passes split each bitmap word between two threads (linkRunsSplitKernel), and from which density
(its `minRunsTimes4`): a table sized by its bound (images of up to about 2^23 pixels, inside the L2) from 1.75 runs
a word, decided on the device; a counted table where the runs are at least 4 a word (0: split). H100,
perf/link_runs.cu, up links + unions, us, one word a thread against split: 2048^2, g = 1, d = 25 % 35.7 -> 27.8,
d = 50 % 77.4 -> 64.5, g = 4, d = 50 % (2 runs a word) 26.9 -> 23.0; 8192^2, g = 1, d = 50 % (8 a word) 729 -> 671,
but g = 4, d = 50 % (2 a word) up links 26.1 -> 36.9 (doc/benchmarks.md, "The link passes split"). */
bool FullRunLabeling::linkSplit(unsigned& minRunsTimes4) const
{
    const size_t words = static_cast<size_t>(table_.rows) * static_cast<size_t>(table_.wordsPerRow);
    minRunsTimes4 = runsCounted_ ? 0u : 7u;
    return !runsCounted_ || runs_ >= 4 * words;
}

int FullRunLabeling::linkWordsPerThread() const
{
    const size_t words = static_cast<size_t>(table_.rows) * static_cast<size_t>(table_.wordsPerRow);
    return runsCounted_ ? linkWordsFor(runs_, words) : 1;
}

/** The statistics' warps (accumulateRunsBlock): a row each where the rows are at least kStatsWarps, else each row
cut into segments of at least kMinSegmentWords bitmap words, as many as make kStatsWarps warps, where the runs are
dense (at least 4 a word: the kernel decides from the run count on the device; the grid has the blocks of the cut).
With a warp per row, 2048^2 runs 2048 warps, about 16 an SM, each through up to 16 rounds of runs one after
another. H100, 2048^2, g = 1, statistics only (the benchmark, fastest of 4 rounds), a warp per row against
segments of 16 words: d = 50 % 152 -> 138 us, d = 60 % 149 -> 128, d = 75 % 121 -> 113; where the runs are sparse
(d = 95 %, g = 16) the cut cost 3-6 us, hence the density rule (doc/benchmarks.md, "The statistics by row
segments"). */
RowSegments FullRunLabeling::statsSegments() const
{
    constexpr unsigned kStatsWarps = 8192, kMinSegmentWords = 16, kMinRunsTimes4 = 16;
    const unsigned words = static_cast<unsigned>(table_.wordsPerRow);
    if (const size_t forced = statsSegmentWordsOverride())
    {
        const unsigned segmentWords = static_cast<unsigned>(std::min<size_t>(forced, words));
        return { segmentWords, (words + segmentWords - 1) / segmentWords, 0u };
    }
    const unsigned rows = static_cast<unsigned>(table_.rows);
    const unsigned wanted = rows >= kStatsWarps ? 1u : (kStatsWarps + rows - 1) / rows;
    const unsigned segments = std::max(1u, std::min(wanted, words / kMinSegmentWords));
    const unsigned segmentWords = (words + segments - 1) / segments;
    return { segmentWords, (words + segmentWords - 1) / segmentWords, kMinRunsTimes4 };
}

/** Whether CCA_DEFAULT's (FLSL_CD's) statistics go through accumulateRunsTableKernel, whose blocks then keep a table of
labels where the device's run count and N ask for it (tableWanted): where they might by what the host knows, the
accumulators' count (N after the wait; before it, their capacity) and the run table's size (the runs, or their bound),
as tableWanted's rule reads them; never past the table's kTableMaxCols. The kernel costs 1-2 % more than
accumulateRunsKernel where its blocks keep no table (its shared memory: 8192², statistics only, g = 1, d = 95 %, or
g = 4, d = 50 %, where only the capacity is known), so the host's rule leaves out what it can. OPENCV_CUDACCA_STATS_TABLE
(statsTableOverride): 1 never, 2 always where the columns allow. */
bool FullRunLabeling::statsTable(RunFeatureMerge merge, const StatsAccumulators& stats) const
{
    if (merge != RunFeatureMerge::ConflictDetection || table_.cols > device::kTableMaxCols || statsTableOverride() == 1)
        return false;
    if (statsTableOverride() == 2)
        return true;
    const size_t labels = static_cast<size_t>(std::max(stats.count, 0));
    return runs_ >= kTableMinRuns && labels >= kTableMinLabels && (!runsCounted_ || runs_ <= kTableMaxRunsPerLabel * labels);
}

void FullRunLabeling::compressRuns(cudaStream_t stream)
{
    const unsigned blocks = std::min(blocksFor(static_cast<long long>(runs_), kWordThreads), kMaxCompressBlocks);
    launchDependent(compressRunsKernel, blocks, kWordThreads, stream, "FLSL run compression", runLabels_,
                    table_.rowSlots + table_.rows);
}

/** The first compression, of the up-link trees: by bands for a large table (compressBandRowsKernel: at least
kBandMinRuns counted runs, or bandMinRunsOverride() slots where that is set), else as every compression. */
void FullRunLabeling::compressUpLinks(cudaStream_t stream)
{
    const size_t overrideRuns = bandMinRunsOverride();
    const bool byBands = overrideRuns > 0 ? runs_ >= overrideRuns : runsCounted_ && runs_ >= kBandMinRuns;
    if (!byBands)
        return compressRuns(stream);
    const unsigned bands = static_cast<unsigned>((table_.rows + kBandRows - 1) / kBandRows);
    launchDependent(compressBandRowsKernel, bands, kBandThreads, stream, "FLSL band compression", runLabels_,
                    table_.rowSlots, table_.rows);
    launchDependent(compressBandTopsKernel, bands, kBandThreads, stream, "FLSL band tops", runLabels_, table_.rowSlots);
}

/** A run table kept in the caller's labels (home_) is overwritten by the labels: they may go there only, as int32. */
void FullRunLabeling::checkLabelsHome(const void* labels, size_t step, bool labels16u) const
{
    if (home_.data && (labels != home_.data || step != home_.step || labels16u))
        checkCuda(cudaErrorInvalidValue, "FLSL: labels written elsewhere than in the image that holds the run table");
}

void FullRunLabeling::writeLabels(void* labels, size_t step, bool labels16u, cudaStream_t stream) const
{
    if (!ranked_)
        checkCuda(cudaErrorInvalidValue, "FLSL: labels written before labeling");
    checkLabelsHome(labels, step, labels16u);
    launchWriteLabels(labels, step, labels16u, home_.data ? LabelRows::PastTable : LabelRows::All,
                      static_cast<unsigned>(table_.rows), stream);
}

void FullRunLabeling::finishLabels(cudaStream_t stream) const
{
    if (home_.data && overTableRows_ > 0)
        launchWriteLabels(home_.data, home_.step, false, LabelRows::OverTable, overTableRows_, stream);
}

/** writeLabelsKernel over the first `rows` rows. */
void FullRunLabeling::launchWriteLabels(void* labels, size_t step, bool labels16u, LabelRows part, unsigned rows,
                                        cudaStream_t stream) const
{
    unsigned tilesPerRow = 0;
    const unsigned blocks = writeGrid(rows, tilesPerRow);
    const size_t vectorBytes = labels16u ? 8 : 16;
    const bool vectorRows = reinterpret_cast<size_t>(labels) % vectorBytes == 0 && step % vectorBytes == 0;
    char* out = static_cast<char*>(labels);
    const RunLabels from = { rankedRuns_, part == LabelRows::OverTable ? savedLabels_ : nullptr };
    auto launch = [&](auto kernel) {
        launchDependent(kernel, blocks, kRowThreads, stream, "FLSL labels", table_, from, out, step, tilesPerRow,
                        vectorRows, part, savedLabels_);
    };
    // kWriteMinBlocks with the largest carveout only where the labels leave the L2: at 2048^2 (16 MB) they gained
    // nothing measurable (perf/label_write.cu: -3 to +1 us of 11-20; an A/B with them everywhere: 2048^2 labels only
    // 1.03-1.04 of the time, at that size's noise) and they take L1 from the loads.
    const bool large = largeLabels();
    if (labels16u && large)
    {
        preferSharedMemoryCarveout<writeLabelsKernel<unsigned short, kWriteMinBlocks>>();
        launch(writeLabelsKernel<unsigned short, kWriteMinBlocks>);
    }
    else if (labels16u)
        launch(writeLabelsKernel<unsigned short, 1>);
    else if (large)
    {
        preferSharedMemoryCarveout<writeLabelsKernel<int, kWriteMinBlocks>>();
        launch(writeLabelsKernel<int, kWriteMinBlocks>);
    }
    else
        launch(writeLabelsKernel<int, 1>);
}

void FullRunLabeling::checkAccumulate(RunFeatureMerge merge) const
{
    if (!ranked_)
        checkCuda(cudaErrorInvalidValue, "FLSL: statistics before labeling");
    if (merge == RunFeatureMerge::OnTheFly && !featuresReady_)
        checkCuda(cudaErrorInvalidValue, "FLSL+OTF: statistics of a labeling that gathered no features");
}

void FullRunLabeling::accumulate(RunFeatureMerge merge, const StatsAccumulators& stats, cudaStream_t stream) const
{
    checkAccumulate(merge);
    if (runStats(merge))
    {
        launchDependent(runStatsKernel, runStatsBlocks(table_.rows, runs_), kRowThreads, stream, "FLSL statistics (runs)",
                        table_, const_cast<const int2*>(recorded_.starts), const_cast<const int*>(recorded_.ends),
                        rankedRuns_, stats, componentCount_);
        return;
    }
    const RowSegments segments = statsSegments();
    const unsigned blocks = segmentBlocks(segments);
    if (merge == RunFeatureMerge::OnTheFly)
        launchDependent(accumulateRunsKernel<RunFeatureMerge::OnTheFly>, blocks, kRowThreads, stream, "FLSL statistics",
                        table_, segments, rankedRuns_, stats, features_, componentCount_);
    else if (statsTable(merge, stats))
    {
        preferSharedMemoryCarveout<accumulateRunsTableKernel>();
        launchDependent(accumulateRunsTableKernel, blocks, kRowThreads, stream, "FLSL statistics (table)", table_,
                        segments, rankedRuns_, stats, features_, componentCount_, statsTableOverride() == 2);
    }
    else if (merge == RunFeatureMerge::ConflictDetection)
        launchDependent(accumulateRunsKernel<RunFeatureMerge::ConflictDetection>, blocks, kRowThreads, stream,
                        "FLSL statistics", table_, segments, rankedRuns_, stats, features_, componentCount_);
    else
        launchDependent(accumulateRunsKernel<RunFeatureMerge::Atomic>, blocks, kRowThreads, stream, "FLSL statistics",
                        table_, segments, rankedRuns_, stats, features_, componentCount_);
}

/** The statistics of the FLSL family, from the run table its FullRunLabeling kept (no label image read). */
class RunAnalysis : public Analysis
{
public:
    explicit RunAnalysis(RunFeatureMerge merge) : merge_(merge) {}
    RunFeatureMerge merge() const { return merge_; }
    void accumulate(const BinaryImage& /*image*/, const LabelImage& /*labels*/, const Labeling& labeling,
                    const StatsAccumulators& stats, cudaStream_t stream) override
    {
        const FullRunLabeling* runs = dynamic_cast<const FullRunLabeling*>(&labeling);
        if (!runs)
            checkCuda(cudaErrorInvalidValue, "FLSL statistics: the row pairs them with another labeling");
        runs->accumulate(merge_, stats, stream);
    }

private:
    RunFeatureMerge merge_;
};

void FullRunLabeling::writeLabelsAndAccumulate(void* labels, size_t step, const Analysis& analysis,
                                               const StatsAccumulators& stats, cudaStream_t stream) const
{
    const RunAnalysis* runAnalysis = dynamic_cast<const RunAnalysis*>(&analysis);
    if (!runAnalysis)
        checkCuda(cudaErrorInvalidValue, "FLSL statistics: the row pairs them with another analysis");
    const RunFeatureMerge merge = runAnalysis->merge();
    checkAccumulate(merge);
    checkLabelsHome(labels, step, false);
    unsigned tilesPerRow = 0;
    const unsigned writeBlocks = writeGrid(static_cast<unsigned>(table_.rows), tilesPerRow);
    const RowSegments segments = statsSegments();
    const unsigned accumulateBlocks = segmentBlocks(segments);
    const bool vectorRows = reinterpret_cast<size_t>(labels) % 16 == 0 && step % 16 == 0;
    const LabelRows part = home_.data ? LabelRows::PastTable : LabelRows::All;
    if (runStats(merge))
    {
        const unsigned statsBlocks = runStatsBlocks(table_.rows, runs_);
        auto launchRuns = [&](auto kernel) {
            launchDependent(kernel, statsBlocks + writeBlocks, kRowThreads, stream, "FLSL labels and statistics (runs)",
                            table_, rankedRuns_, static_cast<char*>(labels), step, tilesPerRow, vectorRows, part,
                            savedLabels_, statsBlocks, const_cast<const int2*>(recorded_.starts),
                            const_cast<const int*>(recorded_.ends), stats, componentCount_);
        };
        if (largeLabels()) // as writeLabelsKernel (launchWriteLabels)
        {
            preferSharedMemoryCarveout<writeLabelsAndRunStatsKernel<kWriteMinBlocks>>();
            launchRuns(writeLabelsAndRunStatsKernel<kWriteMinBlocks>);
        }
        else
            launchRuns(writeLabelsAndRunStatsKernel<1>);
        return;
    }
    auto launch = [&](auto kernel) {
        launchDependent(kernel, writeBlocks + accumulateBlocks, kRowThreads, stream, "FLSL labels and statistics", table_,
                        rankedRuns_, static_cast<char*>(labels), step, tilesPerRow, vectorRows, part, savedLabels_,
                        writeBlocks, accumulateBlocks, segments, stats, features_, componentCount_);
    };
    if (merge == RunFeatureMerge::OnTheFly)
        launch(writeLabelsAndAccumulateKernel<int, RunFeatureMerge::OnTheFly>);
    else if (merge == RunFeatureMerge::ConflictDetection)
        launch(writeLabelsAndAccumulateKernel<int, RunFeatureMerge::ConflictDetection>);
    else
        launch(writeLabelsAndAccumulateKernel<int, RunFeatureMerge::Atomic>);
}

} // namespace

namespace flsl {
Labeling* createLabeling() { return new FullRunLabeling(false); }
Analysis* createAnalysis() { return new RunAnalysis(RunFeatureMerge::Atomic); }
} // namespace flsl

namespace flsl_cd {
Analysis* createAnalysis() { return new RunAnalysis(RunFeatureMerge::ConflictDetection); }
} // namespace flsl_cd

namespace flsl_otf {
Labeling* createLabeling() { return new FullRunLabeling(true); }
Analysis* createAnalysis() { return new RunAnalysis(RunFeatureMerge::OnTheFly); }
} // namespace flsl_otf

}}} // namespace cv::cuda::cudacca
