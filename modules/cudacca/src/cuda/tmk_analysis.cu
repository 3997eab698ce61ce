// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// TMK: the Tree Merge Kernel feature extraction of Windisch, Kaever, Juckeland, Bieberle 2023 ("Parallel
// algorithm for connected-component analysis using CUDA", Algorithms 16(2), 80), section 3.2, as an
// Analysis: the statistics from the FINAL label image, whichever labeling made it (algorithm_list.hpp
// pairs it with KE for 4-connectivity and BKE for 8: Playne's block union-find lineage, as in the paper).
// Key idea: one object feature struct (Node, the paper's OFS) per horizontal pixel pair of a row; groups
// of nodes are merged level by level into one binary trie over the label bits, whose nodes are then the
// components, and the balanced trie gives each label its features with a plain store.
//   step 1 + 2a initializeAndMergeBlocksKernel (3.2.1-3.2.2, Algorithm 1; levels in shared memory),
//   step 2b mergeLevelKernel (one launch per further level), step 3 treeSizesKernel (3.2.3, Algorithm 2),
//   step 4 balanceKernel (3.2.4, Algorithm 3), step 5 storeStatisticsKernel.
// Departures from the paper, proofs and memory: doc/algorithms.md, section "TMK".


#include "../device_memory.hpp"
#include "../labeling.hpp"
#include "launch.hpp"
#include "labeling_common.cuh"
#include "statistics.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

using device::ComponentFeatures;
using device::kFullMask;
using device::kWarpSize;
using device::mergeBlockBackground;

constexpr int kLogBlockNodes = 9;
constexpr int kBlockNodes = 1 << kLogBlockNodes; //!< nodes (threads) of a block in steps 1 and 2a
constexpr int kBlockWarps = kBlockNodes / kWarpSize;
constexpr int kBlocksPerSM = 4;                  //!< step 1-2a blocks resident per SM: 2048 threads, 32 registers
constexpr int kThreads = 256;                    //!< threads of the later kernels
constexpr int kNone = -1;                        //!< no node (child, parent, root)

/** An object feature struct (the paper's OFS): a component's features and its place in the tree. Node
indices are global node indices in F, compact positions in C. 64 bytes: F holds one per pixel pair
(32 bytes per pixel), C one per component (doc/algorithms.md, "TMK", has the whole memory table). */
struct alignas(16) Node
{
    ComponentFeatures features;
    int label;  //!< 0: no foreground, or merged into another node
    int left;   //!< child whose label has bit `depth` clear, kNone if none
    int right;  //!< child whose label has bit `depth` set, kNone if none
    int parent; //!< kNone for the root
    int size;   //!< nodes in its subtree, itself included (final after step 3)
};
static_assert(sizeof(Node) == 64, "Node: 64 bytes, the bytes per node quoted above");

/** Writes all 64 bytes of *dst, its padding as zeros, with four 16-byte stores: a whole-node load of it
later reads no uninitialized byte (compute-sanitizer initcheck), and the write is fully vectorized. */
__device__ __forceinline__ void storeNode(Node* dst, const Node& src)
{
    union
    {
        Node node;
        uint4 words[4];
    } bits;
#pragma unroll
    for (int i = 0; i < 4; ++i)
        bits.words[i] = make_uint4(0u, 0u, 0u, 0u);
    bits.node.features.minX = src.features.minX; // member by member: no padding copied over the zeros
    bits.node.features.minY = src.features.minY;
    bits.node.features.maxX = src.features.maxX;
    bits.node.features.maxY = src.features.maxY;
    bits.node.features.area = src.features.area;
    bits.node.features.sumX = src.features.sumX;
    bits.node.features.sumY = src.features.sumY;
    bits.node.label = src.label;
    bits.node.left = src.left;
    bits.node.right = src.right;
    bits.node.parent = src.parent;
    bits.node.size = src.size;
    uint4* out = reinterpret_cast<uint4*>(dst);
#pragma unroll
    for (int i = 0; i < 4; ++i)
        out[i] = bits.words[i];
}

/** A block's nodes in shared memory during step 2a (structure of arrays: the per-thread accesses of the
initialization and of the write-out are conflict-free). root[i] is the root of the group starting at i. */
struct BlockTries
{
    ComponentFeatures features[kBlockNodes];
    int label[kBlockNodes];
    int child[2][kBlockNodes];
    int parent[kBlockNodes];
    int root[kBlockNodes];
    ComponentFeatures background; //!< mergeBlockBackground's block set
    int warpValid[kBlockWarps];   //!< valid nodes per warp, then their exclusive scan
    int listOffset;               //!< the block's first slot in the valid list
};
static_assert(sizeof(BlockTries) < 48 * 1024, "step 2a: static shared memory must stay below 48 KB");

// ---- the insertion, written once for shared (step 2a) and global (step 2b) memory --------------------

/** The tries of a block in shared memory. Child and root pointers are only ever accessed with atomics
(peek returns "empty", so every look at a slot is an atomicCAS): racecheck does not compare atomics. */
struct SharedTries
{
    BlockTries* s;
    __device__ int label(int i) const { return s->label[i]; }
    __device__ int* childSlot(int i, int side) const { return &s->child[side][i]; }
    __device__ int peek(const int* /*slot*/) const { return kNone; }
    __device__ ComponentFeatures& features(int i) const { return s->features[i]; }
    __device__ void setParent(int i, int p) const { s->parent[i] = p; }
    __device__ void retire(int /*i*/) const {} // validity lives in the thread's register
    __device__ void publish() const { __threadfence_block(); }
};

/** The tries in F (global memory). A slot is first read with a volatile load (an L2 read, cheaper than an
atomic, and most slots on a walk are taken); only an empty one is claimed with atomicCAS. Ordering: the
inserting thread clears its children, then __threadfence(), then claims; a walker that reads its index
(from L2, where the claim is performed) reads its slots next, with loads whose address depends on that
index, also from L2, so it sees them cleared. Labels and features on a walk were written by earlier
kernels. */
struct GlobalTries
{
    Node* nodes;
    __device__ int label(int i) const { return nodes[i].label; }
    __device__ int* childSlot(int i, int side) const { return side ? &nodes[i].right : &nodes[i].left; }
    __device__ int peek(const int* slot) const { return *static_cast<const volatile int*>(slot); }
    __device__ ComponentFeatures& features(int i) const { return nodes[i].features; }
    __device__ void setParent(int i, int p) const { nodes[i].parent = p; }
    __device__ void retire(int i) const { nodes[i].label = 0; } // later levels and steps 3-4 skip it
    __device__ void publish() const { __threadfence(); }
};

/** kNone if `slot` was empty and now holds j; else the node it holds. */
template <class Tries>
__device__ __forceinline__ int claimOrRead(const Tries& tries, int* slot, int j)
{
    const int seen = tries.peek(slot);
    return seen != kNone ? seen : atomicCAS(slot, kNone, j);
}

/** Section 3.2.2: valid node j of group S (label `label`) enters the trie of group T, whose root pointer is
*root. Returns true if j is attached (case (b), or case (c): j becomes T's root), false if T held its label
and j's features were merged there (case (d)): j is then no longer valid. The trie is keyed by the label
bits: the children of a node at depth d hold labels with bit d clear (left) or set (right); two labels
below 2^31 differ in one of bits 0..30, so the depth stays below 32 (doc/algorithms.md, "TMK").

Why this is race-free (racecheck must report nothing for step 2a) and correct:
  - A label is written once, at initialization, before the first barrier; afterwards it is only read.
  - Child and root pointers are only accessed atomically (atomicExch, atomicCAS; in global memory also
    volatile loads). A walk descends to the value its atomicCAS returned (or its volatile load saw), so it
    never goes through a slot's stale copy.
  - Features: only T nodes are merged into, and only by the thread of the S node with the same label. That
    thread is unique (labels in S are unique: S is one trie), and T's own threads do nothing this level. A
    node's features are thus written by at most one thread per level and read by others only after the
    level's barrier (or kernel boundary).
  - parent[j] is written only by j's thread.
  - Only T nodes are reachable from T's root when the level starts, and their links stay in T. j is
    reachable only once its claim succeeded, and it cleared its children before (the fence orders the two
    for the thread that later reads j's slots), so no walk ever follows a link of S's abandoned trie.
  - T's node with j's label, if any, lies on the path of j's label bits from the root, whose slots are
    all taken (claims only fill empty slots), so j finds it instead of attaching elsewhere: after the
    level the labels of the joined trie are still unique. The walk is lock-free: a failed claim descends
    to the winner. */
template <class Tries>
__device__ __forceinline__ bool insertIntoTrie(const Tries& tries, int* root, int j, int label)
{
    atomicExch(tries.childSlot(j, 0), kNone); // S's links are abandoned
    atomicExch(tries.childSlot(j, 1), kNone);
    tries.publish();
    int cur = claimOrRead(tries, root, j);
    if (cur == kNone) // case (c): T was empty, j becomes its root in place
    {
        tries.setParent(j, kNone);
        return true;
    }
    for (int depth = 0;; ++depth) // depth < 32: labels below 2^31 differ in one of bits 0..30
    {
        if (tries.label(cur) == label) // case (d)
        {
            tries.features(cur).merge(tries.features(j));
            tries.retire(j);
            return false;
        }
        int* slot = tries.childSlot(cur, (label >> depth) & 1);
        const int next = claimOrRead(tries, slot, j);
        if (next == kNone) // case (b)
        {
            tries.setParent(j, cur);
            return true;
        }
        cur = next;
    }
}

// ---- steps 1 and 2a ----------------------------------------------------------------------------------

/** Step 1 (Algorithm 1, on row pairs) and step 2a: one thread per node, kBlockNodes per block. Writes the
block's valid nodes to `nodes` (F) with global links, their indices to the valid list, the block's root to
blockRoots[blockIdx.x], and adds the background of its pixels to label 0. With no foreground in the image
(nodes == nullptr) only the background is gathered. Every thread reaches every barrier: the threads past
the last node take part with an invalid node. */
template <typename LabelT>
__global__ void __launch_bounds__(kBlockNodes, kBlocksPerSM)
initializeAndMergeBlocksKernel(const LabelImage labels, unsigned pairsPerRow, unsigned numNodes,
                               const StatsAccumulators acc, Node* nodes, int* blockRoots, int* validList,
                               int* validCount)
{
    __shared__ BlockTries s;
    const int t = threadIdx.x;
    const unsigned firstNode = blockIdx.x * static_cast<unsigned>(kBlockNodes);
    const unsigned n = firstNode + t; // < 2^31 + kBlockNodes: unsigned

    // Step 1: the pair's foreground makes the node, its background goes to label 0.
    int label = 0;
    ComponentFeatures own, background;
    own.reset();
    background.reset();
    if (n < numNodes)
    {
        const unsigned y = n / pairsPerRow;
        const int x0 = static_cast<int>(2 * (n - y * pairsPerRow));
        const LabelT* row = reinterpret_cast<const LabelT*>(static_cast<const char*>(labels.data) +
                                                            static_cast<size_t>(y) * labels.step);
        const int label0 = row[x0];
        if (label0 != 0)
            own.addPixel(x0, static_cast<int>(y));
        else
            background.addPixel(x0, static_cast<int>(y));
        label = label0;
        if (x0 + 1 < labels.cols) // the last pair of an odd row has one pixel
        {
            const int label1 = row[x0 + 1];
            if (label1 != 0)
                own.addPixel(x0 + 1, static_cast<int>(y));
            else
                background.addPixel(x0 + 1, static_cast<int>(y));
            if (label0 == 0)
                label = label1; // both foreground: one label (adjacent in a row)
        }
    }
    s.label[t] = label;
    s.features[t] = own;
    s.child[0][t] = kNone;
    s.child[1][t] = kNone;
    s.parent[t] = kNone;
    s.root[t] = label != 0 ? t : kNone; // level 0: every group is one node
    if (t == 0)
        s.background.reset();
    __syncthreads();
    mergeBlockBackground(background, s.background, acc);

    // Step 2a: levels 0 .. kLogBlockNodes - 1 in shared memory. A thread's validity lives in a register.
    bool valid = label != 0;
    const SharedTries tries{&s};
#pragma unroll 1
    for (int level = 0; level < kLogBlockNodes; ++level)
    {
        if (valid && ((t >> level) & 1)) // a valid node of S
        {
            const int groupStart = (t >> (level + 1)) << (level + 1);
            valid = insertIntoTrie(tries, &s.root[groupStart], t, label);
        }
        __syncthreads();
    }

    // The block's valid nodes: their slots in the valid list (one atomicAdd per block), then F.
    const unsigned lane = t % kWarpSize;
    const int warp = t / kWarpSize;
    const unsigned ballot = __ballot_sync(kFullMask, valid);
    if (lane == 0)
        s.warpValid[warp] = __popc(ballot);
    __syncthreads();
    if (t == 0)
    {
        int total = 0;
        for (int w = 0; w < kBlockWarps; ++w)
        {
            const int c = s.warpValid[w];
            s.warpValid[w] = total;
            total += c;
        }
        s.listOffset = total > 0 ? atomicAdd(validCount, total) : 0;
        if (blockRoots)
            blockRoots[blockIdx.x] = s.root[0] == kNone ? kNone : static_cast<int>(firstNode) + s.root[0];
    }
    __syncthreads();
    if (valid) // implies n < numNodes and foreground in the image
    {
        const int base = static_cast<int>(firstNode);
        validList[s.listOffset + s.warpValid[warp] + __popc(ballot & ((1u << lane) - 1u))] = static_cast<int>(n);
        Node node;
        node.features = s.features[t];
        node.label = label;
        node.left = s.child[0][t] == kNone ? kNone : base + s.child[0][t];
        node.right = s.child[1][t] == kNone ? kNone : base + s.child[1][t];
        node.parent = s.parent[t] == kNone ? kNone : base + s.parent[t];
        node.size = 1; // the node itself; step 3 adds its children's subtrees
        storeNode(nodes + n, node);
    }
}

// ---- step 2b -----------------------------------------------------------------------------------------

/** Step 2b, level `level` (>= kLogBlockNodes): a thread per entry of the valid list (grid-stride). The root
of the group starting at i (a multiple of kBlockNodes) is blockRoots[i / kBlockNodes]. Node labels are
final before the launch (the kernel boundary makes them visible); only retired nodes' labels change
during it, and those are never reached by a walk. */
__global__ void __launch_bounds__(kThreads)
mergeLevelKernel(Node* nodes, int* blockRoots, const int* validList, const int* validCount, int level)
{
    const unsigned count = static_cast<unsigned>(*validCount);
    const GlobalTries tries{nodes};
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
    {
        const unsigned j = static_cast<unsigned>(validList[k]);
        if (((j >> level) & 1u) == 0) // in T: its trie receives
            continue;
        const int label = nodes[j].label;
        if (label == 0) // merged at an earlier level
            continue;
        const unsigned groupStart = (j >> (level + 1)) << (level + 1);
        insertIntoTrie(tries, blockRoots + (groupStart >> kLogBlockNodes), static_cast<int>(j), label);
    }
}

// ---- step 3 ------------------------------------------------------------------------------------------

/** Step 3 (section 3.2.3, Algorithm 2 corrected): one thread per valid leaf walks up the parent links.
Every size starts at 1; each arriving child adds its subtree's size with atomicAdd. At a node with two
children the arrival that reads 1 (the first) stops; the second reads 1 + the first subtree, so the sum it
carries on with is the node's final size. With one child the arrival goes on at once. Every node is thus
left by exactly one thread with its final size, up to the root (size = number of valid nodes). No fence is
needed: what the continuing thread learns from the other child comes in the atomic's return value, and
the links it reads were written by earlier kernels. */
__global__ void __launch_bounds__(kThreads)
treeSizesKernel(Node* nodes, const int* validList, const int* validCount)
{
    const unsigned count = static_cast<unsigned>(*validCount);
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
    {
        const int j = validList[k];
        const Node& leaf = nodes[j];
        if (leaf.label == 0 || leaf.left != kNone || leaf.right != kNone) // merged, or not a leaf
            continue;
        int size = 1;
        for (int p = leaf.parent; p != kNone; p = nodes[p].parent)
        {
            const bool twoChildren = nodes[p].left != kNone && nodes[p].right != kNone;
            const int before = atomicAdd(&nodes[p].size, size);
            if (twoChildren && before == 1) // the first of two: the second one carries both sizes up
                break;
            size += before;
        }
    }
}

// ---- steps 4 and 5 -----------------------------------------------------------------------------------

/** Step 4 (section 3.2.4, Algorithm 3): each valid node walks from the root along its label's bits,
summing its pre-order position (1 when it goes left; 1 + the left subtree's size when it goes right), and
writes itself to compact[position] with its links as positions. F is only read here. */
__global__ void __launch_bounds__(kThreads)
balanceKernel(const Node* __restrict__ nodes, const int* __restrict__ blockRoots, const int* __restrict__ validList,
              const int* __restrict__ validCount, Node* __restrict__ compact)
{
    const unsigned count = static_cast<unsigned>(*validCount);
    const int root = blockRoots[0]; // the group of all nodes
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
    {
        const int j = validList[k];
        const Node node = nodes[j];
        if (node.label == 0)
            continue;
        int cur = root, position = 0, parentPosition = kNone;
        for (int depth = 0; cur != j; ++depth) // Algorithm 3 stops at the equal label: the same node
        {
            const int left = nodes[cur].left;
            parentPosition = position;
            if ((node.label >> depth) & 1)
            {
                position += 1 + (left != kNone ? nodes[left].size : 0);
                cur = nodes[cur].right;
            }
            else
            {
                position += 1;
                cur = left;
            }
        }
        Node placed = node;
        placed.parent = parentPosition;
        placed.left = node.left != kNone ? position + 1 : kNone;
        placed.right = node.right != kNone ? position + 1 + (node.left != kNone ? nodes[node.left].size : 0) : kNone;
        storeNode(compact + position, placed);
    }
}

/** Step 5: one thread per compact node; each label 1..N-1 is in exactly one node. */
__global__ void __launch_bounds__(kThreads)
storeStatisticsKernel(const Node* __restrict__ compact, unsigned count, const StatsAccumulators acc)
{
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count)
        return;
    compact[k].features.storeTo(acc, compact[k].label);
}

// ---- the analysis object ------------------------------------------------------------------------------

class TreeMergeAnalysis : public Analysis
{
public:
    void accumulate(const BinaryImage& image, const LabelImage& labels, const Labeling& labeling,
                    const StatsAccumulators& stats, cudaStream_t stream) override;

private:
    StreamBuffer treeBuffer_;    //!< counter, block roots, valid list, F
    StreamBuffer compactBuffer_; //!< C
};

void TreeMergeAnalysis::accumulate(const BinaryImage& /*image*/, const LabelImage& labels,
                                   const Labeling& /*labeling: any; only the final labels are read*/,
                                   const StatsAccumulators& stats, cudaStream_t stream)
{
    if (labels.rows <= 0 || labels.cols <= 0)
        return;
    const unsigned pairsPerRow = (static_cast<unsigned>(labels.cols) + 1u) / 2u;
    const unsigned numNodes = static_cast<unsigned>(labels.rows) * pairsPerRow; // <= rows * cols < 2^31
    const unsigned nodeBlocks = (numNodes + kBlockNodes - 1) / kBlockNodes;
    const int components = stats.count - 1; // foreground labels 1..N-1: the valid nodes of the final tree

    Node* nodes = nullptr;
    int* blockRoots = nullptr;
    int* validList = nullptr;
    int* validCount = nullptr;
    if (components > 0)
    {
        const size_t countBytes = alignUp(sizeof(int));
        const size_t rootBytes = alignUp(sizeof(int) * nodeBlocks);
        const size_t listBytes = alignUp(sizeof(int) * static_cast<size_t>(numNodes));
        const size_t nodeBytes = sizeof(Node) * static_cast<size_t>(numNodes);
        char* p = static_cast<char*>(treeBuffer_.allocate(countBytes + rootBytes + listBytes + nodeBytes, stream));
        validCount = reinterpret_cast<int*>(p);
        blockRoots = reinterpret_cast<int*>(p + countBytes);
        validList = reinterpret_cast<int*>(p + countBytes + rootBytes);
        nodes = reinterpret_cast<Node*>(p + countBytes + rootBytes + listBytes);
        checkCuda(cudaMemsetAsync(validCount, 0, sizeof(int), stream), "cudaMemsetAsync (TMK valid count)");
    }

    // Steps 1 and 2a.
    if (labels.is16u)
        initializeAndMergeBlocksKernel<unsigned short><<<nodeBlocks, kBlockNodes, 0, stream>>>(
            labels, pairsPerRow, numNodes, stats, nodes, blockRoots, validList, validCount);
    else
        initializeAndMergeBlocksKernel<int><<<nodeBlocks, kBlockNodes, 0, stream>>>(
            labels, pairsPerRow, numNodes, stats, nodes, blockRoots, validList, validCount);
    checkLaunch("TMK initialization and block merge");

    if (components > 0)
    {
        // Step 2b: levels kLogBlockNodes .. ceil(log2(numNodes)) - 1.
        int levels = 0;
        while ((1ull << levels) < numNodes)
            ++levels;
        const unsigned gridBlocks = waveBlocks(mergeLevelKernel, kThreads, blocksFor(numNodes, kThreads)); // grid-stride
        for (int level = kLogBlockNodes; level < levels; ++level)
        {
            mergeLevelKernel<<<gridBlocks, kThreads, 0, stream>>>(nodes, blockRoots, validList, validCount, level);
            checkLaunch("TMK global merge level");
        }

        // Step 3.
        treeSizesKernel<<<gridBlocks, kThreads, 0, stream>>>(nodes, validList, validCount);
        checkLaunch("TMK tree sizes");

        // Steps 4 and 5.
        Node* compact = static_cast<Node*>(
            compactBuffer_.allocate(sizeof(Node) * static_cast<size_t>(components), stream));
        balanceKernel<<<gridBlocks, kThreads, 0, stream>>>(nodes, blockRoots, validList, validCount, compact);
        checkLaunch("TMK balancing");
        storeStatisticsKernel<<<blocksFor(components, kThreads), kThreads, 0, stream>>>(
            compact, static_cast<unsigned>(components), stats);
        checkLaunch("TMK statistics");
    }

    // Stream-ordered frees: after the kernels above, before the caller's next allocations.
    compactBuffer_.release();
    treeBuffer_.release();
}

} // namespace

namespace tmk {
Analysis* createAnalysis() { return new TreeMergeAnalysis(); }
} // namespace tmk

}}} // namespace cv::cuda::cudacca
