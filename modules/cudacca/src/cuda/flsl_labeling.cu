// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// FLSL: Full-Line Segment Labeling, the GPU connected component ANALYSIS of Lemaitre, Hennequin and
// Lacassagne 2021 ("Taming voting algorithms on GPUs for an efficient connected component analysis
// algorithm", ICASSP 2021). Produces a LabelForest whose nodes are the run starts, and the statistics by
// the paper's three ways of merging the features of the runs into their components:
//   FLSL      (section 3.1)               one set of atomics per FULL run, after labeling;
//   FLSL+CD   (section 3.3, Algorithm 3)  a warp's runs of one component are reduced into a leader first;
//   FLSL+OTF  (section 3.2, Algorithm 2)  the features move with each union and end at the roots.
// Key idea: one warp per row finds its runs with __ballot_sync (Algorithm 1, detectRunsKernel) and keeps
// only a 1-bit foreground bitmap; one thread per run then makes at most two unions (uniteRunsKernel).
// Departures from the paper, proofs and memory: doc/algorithms.md, section "FLSL".

#include <climits>

#include <cub/device/device_scan.cuh>

#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "launch.hpp"
#include "labeling_common.cuh"
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
constexpr int kWordThreads = 256;
constexpr int kDetectUnroll = 8; //!< 32-pixel chunks whose loads a detection warp issues together
constexpr int kRing = 128;       //!< edges a warp keeps in flight (power of two; see forEachRunRound)
__device__ __forceinline__ unsigned laneId() { return threadIdx.x & (kWarpSize - 1); }

/** The row of this warp in the one-warp-per-row kernels; false past the last row. Unsigned: the last
block's rows may pass INT_MAX when rows is close to 2^31 (a one-column image). */
__device__ __forceinline__ bool warpRow(int rows, int& y)
{
    const unsigned row = blockIdx.x * kRowsPerBlock + threadIdx.x / kWarpSize;
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

// ---- run detection (Algorithm 1) --------------------------------------------------------------------

/** Algorithm 1, one warp per row. Per 32-pixel chunk: the ballot of the foreground (m_c), the run starts
R = m_c & ~(m_c << 1 | last bit of the previous chunk) (the rising half of the edge mask m_c ^ funnelshift),
and each pixel's run start: the highest start at or below its lane, or the start carried from earlier
chunks. Writes the forest (every element of the row), the bitmap words and, for OTF, the edge count of
each chunk; the row's closing edge (a run reaching the last column) is counted in the last chunk, so every
row contributes an even count. */
template <bool kEdgeCounts>
__global__ void __launch_bounds__(kRowThreads)
detectRunsKernel(const BinaryImage img, const LabelForest forest, unsigned* bits, int wordsPerRow,
                 unsigned* edgeCounts)
{
    const unsigned lane = laneId();
    int y;
    if (!warpRow(forest.rows, y)) // the whole warp: this kernel has no block-wide barrier
        return;
    const unsigned cols = static_cast<unsigned>(forest.cols);
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    const unsigned char* src = img.data + static_cast<size_t>(y) * img.step;
    const int rowBase = y * forest.ld;
    int* dst = forest.data + rowBase;
    const size_t wordBase = static_cast<size_t>(y) * words;
    const unsigned lanesUpTo = (2u << lane) - 1u; // lanes 0..lane

    unsigned prevBallot = 0; // m_p
    int openStart = 0;       // start of the last run begun so far (the run open at a chunk's end)
    unsigned rowEdges = 0;
    for (unsigned w0 = 0; w0 < words; w0 += kWarpSize)
    {
        const unsigned chunks = min(static_cast<unsigned>(kWarpSize), words - w0);
        unsigned myWord = 0, myCount = 0; // lane j keeps chunk w0 + j's, stored together below
        for (unsigned g = 0; g < chunks; g += kDetectUnroll)
        {
            unsigned char v[kDetectUnroll];
#pragma unroll
            for (int u = 0; u < kDetectUnroll; ++u)
            {
                const unsigned x = (w0 + g + u) * kWarpSize + lane; // < 2^31 + 2^8: no overflow in unsigned
                v[u] = x < cols ? src[x] : 0;
            }
#pragma unroll
            for (int u = 0; u < kDetectUnroll; ++u)
            {
                const unsigned j = g + u;
                if (j >= chunks) // warp-uniform
                    break;
                const unsigned x0 = (w0 + j) * kWarpSize;
                const bool fg = v[u] != 0;
                const unsigned ballot = __ballot_sync(kFullMask, fg);
                const unsigned shifted = (ballot << 1) | (prevBallot >> 31); // __funnelshift_l(m_p, m_c, 1)
                const unsigned starts = ballot & ~shifted;
                const unsigned startsUpTo = starts & lanesUpTo;
                const int start = startsUpTo ? static_cast<int>(x0 + 31u - __clz(startsUpTo)) : openStart;
                if (x0 + lane < cols)
                    dst[x0 + lane] = fg ? rowBase + start + 1 : 0;
                if (starts)
                    openStart = static_cast<int>(x0 + 31u - __clz(starts));
                if (kEdgeCounts)
                {
                    const unsigned count = __popc(ballot ^ shifted);
                    rowEdges += count;
                    if (lane == j)
                        myCount = count;
                }
                if (lane == j)
                    myWord = ballot;
                prevBallot = ballot;
            }
        }
        // Algorithm 1, lines 12-13: a row that ends inside a run gets its closing edge (at cols) here.
        if (kEdgeCounts && w0 + chunks == words && lane == chunks - 1)
            myCount += rowEdges & 1u;
        if (lane < chunks)
        {
            bits[wordBase + w0 + lane] = myWord;
            if (kEdgeCounts)
                edgeCounts[wordBase + w0 + lane] = myCount;
        }
    }
}

// ---- the runs of a row, one per lane ----------------------------------------------------------------

/** A warp's ring of run edges (shared memory): edge k of the row at edge[k % kRing]; for a run start, the
foreground bits around it in the rows above and below (see forEachRunRound). */
struct RunRing
{
    int edge[kRing];
    unsigned char neighbours[kRing];
};

/** Hands out the runs of a row, in order, one per lane: onRound(valid, s, e, r, neighbours) is called by
the whole warp (warp-uniform), lane i holding run r = 32 * round + i, the pixels [s, e) of the row; lanes
past the last run have valid == false. With kNeighbours, `neighbours` holds the bits of the row above at
s-2, s-1, s (bits 0-2) and of the row below (bits 3-5) (0 where there is no such row).

This is Algorithm 1's compress-store, run from the bitmap instead of the image: 32 words per load, the
edge mask of each word (m_c ^ funnelshift(m_p, m_c, 1)), and each edge stored at its rank
edges + __popc(mask & lanes below). Only words with edges are visited (a ballot over the 32 words), so a
long run costs nothing per word. Ring bound: before a word, fewer than 32 complete runs wait (< 64 edges)
plus maybe one open start; a word adds at most 32 edges (so at most 17 complete runs: a round after it
leaves fewer than 32), hence at most 96 edges are live and the 128-entry ring never overwrites one. */
template <bool kNeighbours, typename OnRound>
__device__ __forceinline__ void forEachRunRound(const unsigned* row, const unsigned* above, const unsigned* below,
                                                int wordsPerRow, int cols, RunRing& ring, OnRound&& onRound)
{
    const unsigned lane = laneId();
    const unsigned lanesBelow = (1u << lane) - 1u;
    const unsigned words = static_cast<unsigned>(wordsPerRow);
    unsigned carry = 0, carryAbove = 0, carryBelow = 0; // the words just before the current 32
    int edges = 0;    // edges stored so far (same in every lane)
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

    for (unsigned w0 = 0; w0 < words; w0 += kWarpSize)
    {
        const unsigned c = w0 + lane;
        const bool inRow = c < words;
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
        const unsigned edgeMask = f ^ ((f << 1) | (fPrev >> 31));
        unsigned withEdges = __ballot_sync(kFullMask, edgeMask != 0);
        while (withEdges) // warp-uniform
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
    // Algorithm 1, lines 12-14: a run that reaches the last column closes at cols (when cols is a multiple
    // of 32; otherwise the bitmap's zero bits past cols already gave that edge).
    if (edges & 1)
    {
        if (lane == 0)
            ring.edge[edges & (kRing - 1)] = cols;
        ++edges;
    }
    while (runsDone < edges / 2)
        round();
}

// ---- on-the-fly features (OTF) -----------------------------------------------------------------------

/** OTF's feature table, structure of arrays over run slots (runs in raster order). The neutral values
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

/** Where OTF finds a node's features: the bitmap, the scanned edge counts and the forest's stride. */
struct SlotMap
{
    const unsigned* bits;
    const unsigned* edgesBefore; //!< per chunk, raster order: edges in all chunks before it
    int wordsPerRow;
    int ld;

    /** Slot of the run that starts at pitched index p: (rank of its start edge - 1) / 2. */
    __device__ __forceinline__ unsigned operator()(int p) const
    {
        const int y = p / ld;
        const int x = p - y * ld;
        const size_t c = static_cast<size_t>(y) * wordsPerRow + (x >> 5);
        const unsigned f = bits[c];
        const unsigned before = edgesBefore[c];
        const unsigned edgeMask = f ^ ((f << 1) | (before & 1u)); // odd count before: the previous pixel is foreground
        return (before + __popc(edgeMask & ((2u << (x & 31)) - 1u)) - 1u) >> 1;
    }
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

/** Algorithm 2 (on-the-fly merge) of the trees of nodes l1 and l2, with our forest convention
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
__device__ void mergeOnTheFly(int* parent, const RunFeatures& f, const SlotMap& slot, int l1, int l2)
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
        moveFeatures(f, slot(l2), slot(l1)); // extraction, merge into the current root
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
        moveFeatures(f, slot(l1), slot(a));
        __threadfence();
        l1 = a;
        a = device::findRootCompress(parent, l1);
        __threadfence();
    }
}

// ---- union of the runs ------------------------------------------------------------------------------

/** OTF's state in the union kernel (unused otherwise). */
struct OnTheFlyState
{
    RunFeatures features;
    SlotMap slot;
};

/** One thread per run (forEachRunRound), at most two unions each. The paper's one thread per run walks
every run of the previous row that overlaps its own (LSL's ER indexing); a run under a comb then makes
thousands of unions in one thread. Here a pair of adjacent runs (rows y-1, y) is united by the thread of
the run that STARTS LATER (the lower run on a tie), so every thread makes at most two unions, both found
in O(1):
  up link:   the run of row y-1 that starts at or before our start s and touches us: it contains
             pixel s (4-conn), or s-1, else s (8-conn);
  down link: the run of row y+1 that starts strictly before s and touches us: it contains s and s-1
             (4-conn), or s-1 (8-conn).
Proof that each adjacent pair is united exactly once: for an adjacent lower run [s,t] and upper run
[s',t'], with 4-connectivity (s <= t' and s' <= t): if s' <= s then s' <= s <= t', the upper run holds
s: the lower run's up link; if s' > s then s < s' <= t, the lower run holds s' and s'-1: the upper
run's down link. With 8-connectivity (s <= t'+1 and s' <= t+1): if s' <= s the upper run holds s-1 or,
if not, starts at s; if s' > s then s <= s'-1 <= t, the lower run holds s'-1. Conversely every link
found is an adjacent pair, and each direction finds at most one run because runs are disjoint.
The node of the run holding pixel q of a neighbouring row is q itself when q starts a run (bitmap),
else forest[q] - 1: the detection wrote it, and no union ever writes a pixel that is not a node. */
template <int kConnectivity, bool kOnTheFly>
__global__ void __launch_bounds__(kRowThreads)
uniteRunsKernel(const LabelForest forest, const unsigned* bits, int wordsPerRow, const OnTheFlyState otf)
{
    __shared__ RunRing rings[kRowsPerBlock];
    const int warp = threadIdx.x / kWarpSize;
    int y;
    if (!warpRow(forest.rows, y)) // the whole warp: no block-wide barrier here
        return;
    const size_t words = static_cast<size_t>(wordsPerRow);
    const unsigned* row = bits + y * words;
    const unsigned* above = y > 0 ? row - words : nullptr;
    const unsigned* below = y + 1 < forest.rows ? row + words : nullptr;
    int* const parent = forest.data;
    const int ld = forest.ld;

    auto link = [&](int p, int q) {
        if (kOnTheFly)
            mergeOnTheFly(parent, otf.features, otf.slot, p, q);
        else // plain loads: a stale parent is still an ancestor, and atomicMin decides (union_find.cuh)
            device::unite(parent, p, q, device::OwnSlot());
    };
    // The node of the run holding the neighbour q: q when q starts a run, else what the detection wrote
    // there (no union writes a pixel that is not a run start, so that read does not race).
    auto nodeOf = [&](int q, bool startsRun) { return startsRun ? q : parent[q] - 1; };

    forEachRunRound<true>(row, above, below, wordsPerRow, forest.cols, rings[warp],
                          [&](bool valid, int s, int /*e*/, int /*r*/, unsigned nb) {
        if (!valid)
            return;
        const int p = y * ld + s;
        const unsigned up = nb & 7u;          // rows y-1 at s-2, s-1, s
        const unsigned down = (nb >> 3) & 7u; // row y+1 at s-2, s-1, s
        if (kConnectivity == 4)
        {
            if (up & 4u) // the upper run holds s
                link(p, nodeOf(p - ld, !(up & 2u)));
            if ((down & 6u) == 6u) // the lower run holds s-1 and s: it starts before us
                link(p, parent[p + ld] - 1);
        }
        else
        {
            if (up & 2u) // the upper run holds s-1
                link(p, nodeOf(p - ld - 1, !(up & 1u)));
            else if (up & 4u) // the upper run starts at s
                link(p, p - ld);
            if (down & 2u) // the lower run holds s-1
                link(p, nodeOf(p + ld - 1, !(down & 1u)));
        }
    });
}

/** Points every run node straight at its root, so that compressAndRank walks pixel -> node -> root. One
thread per bitmap word, for each run starting in it. compressSlot with plain loads: no union runs, roots are
fixed since the union kernel ended (its writes are visible to this launch), only this thread writes its
node, and every value another thread writes meanwhile is an ancestor, so a stale read still leads to the
root (union_find.cuh); threads walking one long chain (an all-foreground image links row under row) jump
along each other's progress. */
__global__ void __launch_bounds__(kWordThreads)
compressRunNodesKernel(const LabelForest forest, const unsigned* bits, int wordsPerRow, unsigned totalWords)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= totalWords)
        return;
    const unsigned y = i / static_cast<unsigned>(wordsPerRow);
    const unsigned c = i - y * static_cast<unsigned>(wordsPerRow);
    const unsigned f = bits[i];
    const unsigned prev = c > 0 ? bits[i - 1] >> 31 : 0u;
    unsigned starts = f & ~((f << 1) | prev);
    const int base = static_cast<int>(y) * forest.ld + static_cast<int>(c) * kWarpSize;
    while (starts)
    {
        const int b = __ffs(starts) - 1;
        starts &= starts - 1;
        const int node = base + b;
        device::compressSlot(forest.data, node, forest.data[node] - 1, device::OwnSlot());
    }
}

/** OTF: every run's own features in its slot, before any union moves them. */
__global__ void __launch_bounds__(kRowThreads)
initRunFeaturesKernel(int rows, int cols, const unsigned* bits, int wordsPerRow, const unsigned* edgesBefore,
                      const RunFeatures f)
{
    __shared__ RunRing rings[kRowsPerBlock];
    const int warp = threadIdx.x / kWarpSize;
    int y;
    if (!warpRow(rows, y))
        return;
    const size_t rowWord = static_cast<size_t>(y) * wordsPerRow;
    const unsigned rowSlot = edgesBefore[rowWord] / 2; // every earlier row has an even edge count
    forEachRunRound<false>(bits + rowWord, nullptr, nullptr, wordsPerRow, cols, rings[warp],
                           [&](bool valid, int s, int e, int r, unsigned) {
        if (!valid)
            return;
        const unsigned slot = rowSlot + static_cast<unsigned>(r);
        const int len = e - s;
        f.area[slot] = len;
        f.minX[slot] = s;
        f.maxX[slot] = e - 1;
        f.maxY[slot] = y;
        f.sumX[slot] = runSumX(s, len);
        f.sumY[slot] = static_cast<unsigned long long>(y) * static_cast<unsigned>(len);
    });
}

// ---- statistics --------------------------------------------------------------------------------------

/** Statistics of every label from the runs: one warp per row, one thread per run (forEachRunRound).
Atomic: one set of atomics per run. ConflictDetection: Algorithm 3 first. OnTheFly: the root runs copy
their slot (one root per label: plain stores). The background of the row is the complement of its runs
(per row: area = cols - (sum of run lengths), sum x = cols(cols-1)/2 - (sum over the runs), first and
last background pixels from the first and last runs), reduced per block: 7 atomics per block. */
template <RunFeatureMerge kMerge, typename LabelT>
__global__ void __launch_bounds__(kRowThreads)
accumulateRunsKernel(int rows, int cols, const unsigned* bits, int wordsPerRow, const LabelImage labels,
                     const StatsAccumulators acc, const RunFeatures features, const unsigned* edgesBefore)
{
    __shared__ RunRing rings[kRowsPerBlock];
    __shared__ ComponentFeatures blockBackground;
    if (threadIdx.x == 0)
        blockBackground.reset();
    const unsigned lane = laneId();
    const int warp = threadIdx.x / kWarpSize;
    int y;
    const bool activeRow = warpRow(rows, y); // warp-uniform; every warp reaches the __syncthreads below

    int lengthSum = 0;             // this lane's runs
    unsigned long long sumXSum = 0; // this lane's runs
    int firstStart = -1, firstEnd = -1, lastStart = -1, lastEnd = -1; // the row's first and last runs (uniform)
    if (activeRow)
    {
        const size_t rowWord = static_cast<size_t>(y) * wordsPerRow;
        const LabelT* labelRow = reinterpret_cast<const LabelT*>(static_cast<const char*>(labels.data) +
                                                                 static_cast<size_t>(y) * labels.step);
        const unsigned rowSlot = kMerge == RunFeatureMerge::OnTheFly ? edgesBefore[rowWord] / 2 : 0u;
        const unsigned lanesBelow = (1u << lane) - 1u;
        const unsigned lanesAbove = ~((2u << lane) - 1u);
        const unsigned long long y64 = static_cast<unsigned>(y);

        forEachRunRound<false>(bits + rowWord, nullptr, nullptr, wordsPerRow, cols, rings[warp],
                               [&](bool valid, int s, int e, int r, unsigned) {
            const int len = e - s; // 0 when !valid
            const unsigned long long sx = valid ? runSumX(s, len) : 0ull;
            lengthSum += len;
            sumXSum += sx;
            const unsigned validLanes = __ballot_sync(kFullMask, valid); // lanes 0..k-1
            if (validLanes)
            {
                const int last = 31 - __clz(validLanes);
                lastStart = __shfl_sync(kFullMask, s, last);
                lastEnd = __shfl_sync(kFullMask, e, last);
                const int s0 = __shfl_sync(kFullMask, s, 0);
                const int e0 = __shfl_sync(kFullMask, e, 0);
                if (firstStart < 0)
                {
                    firstStart = s0;
                    firstEnd = e0;
                }
            }

            if (kMerge == RunFeatureMerge::Atomic)
            {
                if (!valid)
                    return;
                device::runFeatures(s, y, len).atomicMergeInto(acc, labelRow[s]);
            }
            else if (kMerge == RunFeatureMerge::ConflictDetection)
            {
                // Algorithm 3: group the lanes by label, reduce each group into its lowest lane (the
                // leader) with the masked tree reduction, only leaders vote. Lanes without a run form a
                // group of their own (label -1) and do not vote.
                const int l = valid ? static_cast<int>(labelRow[s]) : -1;
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
                if (valid && rank0 == 0)
                {
                    ComponentFeatures group;
                    group.minX = s; // the leader's start: the group's min x
                    group.maxX = groupEnd - 1;
                    group.minY = group.maxY = y;
                    group.area = area;
                    group.sumX = sumX;
                    group.sumY = y64 * static_cast<unsigned>(area);
                    group.atomicMergeInto(acc, l);
                }
            }
            else // OnTheFly: after label(), exactly the roots' slots are non-empty
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
                root.storeTo(acc, labelRow[s]);
            }
        });

        for (int d = kWarpSize / 2; d > 0; d /= 2)
        {
            lengthSum += __shfl_down_sync(kFullMask, lengthSum, d);
            sumXSum += __shfl_down_sync(kFullMask, sumXSum, d);
        }
    }
    ComponentFeatures rowBackground; // lane 0: this row's background; the other lanes: nothing
    rowBackground.reset();
    const int backgroundArea = activeRow ? cols - lengthSum : 0;
    if (lane == 0 && backgroundArea > 0)
    {
        rowBackground.area = backgroundArea;
        rowBackground.minY = rowBackground.maxY = y;
        // First background pixel: 0 unless a run starts there, then that run's end (< cols, as the row
        // has background). Last: cols - 1 unless a run ends there, then before that run's start.
        rowBackground.minX = firstStart != 0 ? 0 : firstEnd;
        rowBackground.maxX = lastEnd != cols ? cols - 1 : lastStart - 1;
        rowBackground.sumX = static_cast<unsigned long long>(cols) * static_cast<unsigned>(cols - 1) / 2ull - sumXSum;
        rowBackground.sumY = static_cast<unsigned long long>(y) * static_cast<unsigned>(backgroundArea);
    }
    __syncthreads(); // blockBackground's reset is seen
    device::mergeBlockBackground(rowBackground, blockBackground, acc);
}

unsigned rowBlocks(int rows) { return static_cast<unsigned>((rows + kRowsPerBlock - 1ll) / kRowsPerBlock); }

// ---- the labeling and analysis objects ----------------------------------------------------------------

/** The FLSL labeling (Algorithm 1). With onTheFly (FLSL+OTF, Algorithm 2) and statistics wanted, it also
moves every run's features to its root while the runs are united. Keeps the foreground bitmap (and the
OTF feature table) for RunAnalysis. */
class FullRunLabeling : public Labeling
{
public:
    explicit FullRunLabeling(bool onTheFly) : onTheFly_(onTheFly) {}

    void label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool wantStats,
               cudaStream_t stream) override;

    /** Queues the statistics of the final labels, with the runs' features merged as `merge` says. */
    void accumulate(RunFeatureMerge merge, const LabelImage& labels, const StatsAccumulators& stats,
                    cudaStream_t stream) const;

private:
    /** OTF: run detection with edge counts, scanned into run slots; the feature table. */
    void detectRunsWithFeatures(const BinaryImage& image, const LabelForest& forest, OnTheFlyState& otf,
                                cudaStream_t stream);
    template <RunFeatureMerge kMerge>
    void accumulate(const LabelImage& labels, const StatsAccumulators& stats, cudaStream_t stream) const;

    bool onTheFly_;
    bool featuresReady_ = false; //!< OTF ran with features: they sit at the roots
    int rows_ = 0, cols_ = 0, wordsPerRow_ = 0;
    StreamBuffer bitsBuffer_;       //!< the foreground bitmap (all variants)
    StreamBuffer edgesBeforeBuffer_; //!< OTF: scanned edge counts per chunk
    StreamBuffer featuresBuffer_;   //!< OTF: the feature table
    unsigned* bits_ = nullptr;
    unsigned* edgesBefore_ = nullptr;
    RunFeatures features_ = {};
};

void FullRunLabeling::label(const BinaryImage& image, const LabelForest& forest, int connectivity, bool wantStats,
                            cudaStream_t stream)
{
    rows_ = forest.rows;
    cols_ = forest.cols;
    wordsPerRow_ = (forest.cols - 1) / kWarpSize + 1; // cols >= 1; cols + 31 may pass INT_MAX
    const size_t words = static_cast<size_t>(rows_) * wordsPerRow_;
    bits_ = static_cast<unsigned*>(bitsBuffer_.allocate(words * sizeof(unsigned), stream));

    const bool onTheFly = wantStats && onTheFly_;
    featuresReady_ = false;
    OnTheFlyState otf = {};
    if (onTheFly)
        detectRunsWithFeatures(image, forest, otf, stream);
    else
    {
        detectRunsKernel<false><<<rowBlocks(rows_), kRowThreads, 0, stream>>>(image, forest, bits_, wordsPerRow_,
                                                                              nullptr);
        checkLaunch("FLSL run detection");
    }

    withConnectivity(connectivity, [&](auto c) {
        if (onTheFly)
            uniteRunsKernel<decltype(c)::value, true>
                <<<rowBlocks(rows_), kRowThreads, 0, stream>>>(forest, bits_, wordsPerRow_, otf);
        else
            uniteRunsKernel<decltype(c)::value, false>
                <<<rowBlocks(rows_), kRowThreads, 0, stream>>>(forest, bits_, wordsPerRow_, otf);
        checkLaunch("FLSL union");
    });

    compressRunNodesKernel<<<blocksFor(static_cast<long long>(words), kWordThreads), kWordThreads, 0, stream>>>(
        forest, bits_, wordsPerRow_, static_cast<unsigned>(words));
    checkLaunch("FLSL node compression");
}

void FullRunLabeling::detectRunsWithFeatures(const BinaryImage& image, const LabelForest& forest,
                                             OnTheFlyState& otf, cudaStream_t stream)
{
    // Edge counts per chunk, scanned in place into the edges before each chunk; the extra last entry
    // becomes the total (twice the number of runs).
    const size_t words = static_cast<size_t>(rows_) * wordsPerRow_;
    const int items = static_cast<int>(words + 1);
    size_t scanBytes = 0;
    checkCuda(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, static_cast<const unsigned*>(nullptr),
                                            static_cast<unsigned*>(nullptr), items),
              "cub::DeviceScan::ExclusiveSum (size query)");
    edgesBefore_ = static_cast<unsigned*>(edgesBeforeBuffer_.allocate(items * sizeof(unsigned), stream));
    StreamBuffer scanBuffer;
    void* scanTemp = scanBuffer.allocate(scanBytes, stream);

    detectRunsKernel<true><<<rowBlocks(rows_), kRowThreads, 0, stream>>>(image, forest, bits_, wordsPerRow_,
                                                                         edgesBefore_);
    checkLaunch("FLSL run detection");
    checkCuda(cudaMemsetAsync(edgesBefore_ + words, 0, sizeof(unsigned), stream), "cudaMemsetAsync (FLSL edges)");
    checkCuda(cub::DeviceScan::ExclusiveSum(scanTemp, scanBytes, edgesBefore_, edgesBefore_, items, stream),
              "cub::DeviceScan::ExclusiveSum (FLSL run slots)");

    // The feature table is sized by the number of runs: the one wait of label().
    unsigned totalEdges = 0;
    checkCuda(cudaMemcpyAsync(&totalEdges, edgesBefore_ + words, sizeof(unsigned), cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (FLSL run count)");
    checkCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (FLSL run count)");
    const size_t runs = totalEdges / 2;
    if (runs > 0)
    {
        const size_t sums = alignUp(runs * sizeof(unsigned long long));
        const size_t ints = alignUp(runs * sizeof(int));
        char* p = static_cast<char*>(featuresBuffer_.allocate(2 * sums + 4 * ints, stream));
        features_.sumX = reinterpret_cast<unsigned long long*>(p);
        features_.sumY = reinterpret_cast<unsigned long long*>(p + sums);
        features_.area = reinterpret_cast<int*>(p + 2 * sums);
        features_.minX = reinterpret_cast<int*>(p + 2 * sums + ints);
        features_.maxX = reinterpret_cast<int*>(p + 2 * sums + 2 * ints);
        features_.maxY = reinterpret_cast<int*>(p + 2 * sums + 3 * ints);
        initRunFeaturesKernel<<<rowBlocks(rows_), kRowThreads, 0, stream>>>(rows_, cols_, bits_, wordsPerRow_,
                                                                            edgesBefore_, features_);
        checkLaunch("FLSL+OTF feature initialization");
    }
    otf.features = features_;
    otf.slot.bits = bits_;
    otf.slot.edgesBefore = edgesBefore_;
    otf.slot.wordsPerRow = wordsPerRow_;
    otf.slot.ld = forest.ld;
    featuresReady_ = true;
}

template <RunFeatureMerge kMerge>
void FullRunLabeling::accumulate(const LabelImage& labels, const StatsAccumulators& stats, cudaStream_t stream) const
{
    const unsigned blocks = rowBlocks(rows_);
    if (labels.is16u)
        accumulateRunsKernel<kMerge, unsigned short><<<blocks, kRowThreads, 0, stream>>>(
            rows_, cols_, bits_, wordsPerRow_, labels, stats, features_, edgesBefore_);
    else
        accumulateRunsKernel<kMerge, int><<<blocks, kRowThreads, 0, stream>>>(
            rows_, cols_, bits_, wordsPerRow_, labels, stats, features_, edgesBefore_);
    checkLaunch("FLSL statistics");
}

void FullRunLabeling::accumulate(RunFeatureMerge merge, const LabelImage& labels, const StatsAccumulators& stats,
                                 cudaStream_t stream) const
{
    if (!bits_)
        checkCuda(cudaErrorInvalidValue, "FLSL: statistics before labeling");
    if (merge == RunFeatureMerge::OnTheFly && !featuresReady_)
        checkCuda(cudaErrorInvalidValue, "FLSL+OTF: statistics of a labeling that gathered no features");
    if (merge == RunFeatureMerge::OnTheFly)
        accumulate<RunFeatureMerge::OnTheFly>(labels, stats, stream);
    else if (merge == RunFeatureMerge::ConflictDetection)
        accumulate<RunFeatureMerge::ConflictDetection>(labels, stats, stream);
    else
        accumulate<RunFeatureMerge::Atomic>(labels, stats, stream);
}

/** The statistics of the FLSL family, from the runs its FullRunLabeling kept. */
class RunAnalysis : public Analysis
{
public:
    explicit RunAnalysis(RunFeatureMerge merge) : merge_(merge) {}
    void accumulate(const BinaryImage& /*image*/, const LabelImage& labels, const Labeling& labeling,
                    const StatsAccumulators& stats, cudaStream_t stream) override
    {
        const FullRunLabeling* runs = dynamic_cast<const FullRunLabeling*>(&labeling);
        if (!runs)
            checkCuda(cudaErrorInvalidValue, "FLSL statistics: the row pairs them with another labeling");
        runs->accumulate(merge_, labels, stats, stream);
    }

private:
    RunFeatureMerge merge_;
};

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
