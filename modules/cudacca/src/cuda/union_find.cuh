// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Union-find on the GPU, written once and used by every algorithm, in shared or global memory
// (generic pointers). Follows Algorithm 1 of Bolelli et al. 2024 (section III-A): Find walks parent
// links; Union links the larger root under the smaller one with atomicMin and retries when another
// thread got there first.
//
// Storage convention (see LabelForest in contracts.hpp): parent[i] holds (parent index + 1), 0 means
// background. Because Union always keeps the smaller index as the root, a tree's root is the smallest
// index in it; with raster (row-major) indices that is the component's first pixel in raster order.

#ifndef CUDACCA_UNION_FIND_CUH
#define CUDACCA_UNION_FIND_CUH

namespace cv { namespace cuda { namespace cudacca { namespace device {

/** Root of node a while other threads may be linking trees: volatile loads see their updates (no
stale register or L1 copy), so the Union retry loop makes progress. */
__device__ __forceinline__ int findRootVolatile(const volatile int* parent, int a)
{
    int next = parent[a] - 1;
    while (next != a)
    {
        a = next;
        next = parent[a] - 1;
    }
    return a;
}

/** Root of a, then a is pointed straight at it (InlineCompress of Bolelli et al. 2024, Algorithm 1,
for the first node of the path: it keeps later walks from the same pixel short). Safe while other
threads link trees: a is not a root, only roots are linked, and the root is an ancestor of a. */
__device__ __forceinline__ int findRootCompress(volatile int* parent, int a)
{
    const int root = findRootVolatile(parent, a);
    if (root != a && parent[a] != root + 1)
        parent[a] = root + 1;
    return root;
}

/** Root of a; a's parent is moved up to each ancestor on the way (InlineCompress of Bolelli et al.
2024, Algorithm 1, in full). Meant for the compression passes, where no union runs and only the thread
of a writes parent[a] (KE's Compression, OLE's Analysis): every value written is an ancestor of a, so
concurrent walks stay valid, and threads that walk one long chain at the same time (the pixels of a row
or column run) jump along each other's progress instead of each walking the whole chain. */
__device__ __forceinline__ int findRootInlineCompress(volatile int* parent, int a)
{
    const int id = a;
    a = parent[id] - 1;
    int next = parent[a] - 1;
    while (next != a)
    {
        parent[id] = next + 1;
        a = next;
        next = parent[a] - 1;
    }
    return a;
}

/** Union of the trees of a and b (Bolelli et al. 2024, Algorithm 1, Union). atomicMin returns the
value it replaced: if that is not the root we looked at, someone linked it meanwhile: retry from there.
Parents only ever decrease, so the loop terminates. */
__device__ __forceinline__ void unite(int* parent, int a, int b)
{
    bool done;
    do
    {
        a = findRootCompress(parent, a);
        b = findRootCompress(parent, b);
        if (a < b)
        {
            const int old = atomicMin(parent + b, a + 1) - 1;
            done = (old == b);
            b = old;
        }
        else if (b < a)
        {
            const int old = atomicMin(parent + a, b + 1) - 1;
            done = (old == a);
            a = old;
        }
        else
        {
            done = true;
        }
    } while (!done);
}

// ---- slot-mapped union-find (the block-based algorithms, block_connectivity.cuh; FLSL's runs, OwnSlot) -----
// Node k keeps its parent in parent[slot(k)] instead of parent[k]: a 2x2 block is named by its KEY (the
// pitched index of its first foreground pixel) but its parent lives in its top-left pixel's element.
// A node is a root when its slot holds its own key + 1. Same algorithms as above; with
// slot(k) == k they are the functions above. Values written are always keys.
//
// PLAIN LOADS (no volatile), as in the reference implementation of BKE/BUF (YACCLAB, opencv_contrib): the
// loads may hit L1, which other multiprocessors' stores do not update, so a walk may read an older
// parent. That is safe because a slot only ever moves to an ANCESTOR (a union links a root under a node
// of the other tree; a compression writes a node's root), so every value ever held by a slot, stale or
// not, is an ancestor of the node: a walk always ends in the right tree, and a compression pass (no
// union running, roots fixed) always ends at the true root. In unite, progress does not depend on the
// loads: atomicMin returns the slot's true value, and every failed round strictly lowers max(a, b) (see
// unite), so it terminates however stale the finds are. What it buys: the walks along long chains (an
// all-foreground image) and around the giant component past the percolation threshold hit L1 instead of
// making an L2 round trip per step (measured on the H100: BKE's Reduce took 2-3 ms at 8192^2, g = 1,
// d = 50-75 %, and its two Compressions 1.2 ms on the full image, with volatile loads).

/** The slot map of a forest whose every node keeps its parent in its own element (the run nodes of FLSL):
the plain-load functions below then walk the ordinary forest of the functions above. */
struct OwnSlot
{
    __device__ __forceinline__ int operator()(int k) const { return k; }
};

/** Root of a (see findRootVolatile above, but with plain loads). a may also be any index whose slot is a node's slot (a
pointer to a block that is not its key): the walk then takes one more step, to the key. */
template <class Slot>
__device__ __forceinline__ int findRoot(const int* parent, int a, const Slot& slot)
{
    int next = parent[slot(a)] - 1;
    while (next != a)
    {
        a = next;
        next = parent[slot(a)] - 1;
    }
    return a;
}

/** Root of the node a, then a points straight at it (findRootCompress above). a must be a node's key:
then a != root means another node, whose slot is not the root's. */
template <class Slot>
__device__ __forceinline__ int findRootCompress(int* parent, int a, const Slot& slot)
{
    const int s = slot(a);
    const int next = parent[s] - 1;
    if (next == a)
        return a;
    const int root = findRoot(parent, next, slot);
    if (root != next)
        parent[s] = root + 1;
    return root;
}

/** Compression of the node whose slot is s and whose parent is a (parent[s] == a + 1): walks to the
root and moves the node's parent up to every ancestor met on the way (findRootInlineCompress above);
returns the root. Only for passes where no union runs and only this thread writes parent[s]. a may be a
pointer that is not a key (BKE's initialization links to a neighbour's top-left pixel); the value left
in parent[s] is the root's key + 1. */
template <class Slot>
__device__ __forceinline__ int compressSlot(int* parent, int s, int a, const Slot& slot)
{
    int next = parent[slot(a)] - 1;
    while (next != a)
    {
        parent[s] = next + 1;
        a = next;
        next = parent[slot(a)] - 1;
    }
    return a;
}

/** Union of the trees of the nodes a and b (unite above, Bolelli et al. 2024, Algorithm 1); a and b
must be keys. */
template <class Slot>
__device__ __forceinline__ void unite(int* parent, int a, int b, const Slot& slot)
{
    bool done;
    do
    {
        a = findRootCompress(parent, a, slot);
        b = findRootCompress(parent, b, slot);
        if (a < b)
        {
            const int old = atomicMin(parent + slot(b), a + 1) - 1;
            done = (old == b);
            b = old;
        }
        else if (b < a)
        {
            const int old = atomicMin(parent + slot(a), b + 1) - 1;
            done = (old == a);
            a = old;
        }
        else
        {
            done = true;
        }
    } while (!done);
}

/** The roots of a and of b in a forest whose nodes keep their parent in their own element, HALVING the paths on
the way (each node met is pointed at its grandparent: plain stores of ancestors, which the argument above allows,
as findRootCompress's store; later walks through the same path take half the steps: the one-launch kernel's joins
across tiles all walk into the same few trees). Both walks at once: each round loads the next nodes of both
together, so that a union waits for the longer walk, not for the sum of the two (the joins across tiles are chains
of L2 loads: H100, 512^2, the phase 0.2-1.2 us shorter; doc/benchmarks.md, "N before the kernel ends"). */
__device__ __forceinline__ void findRootsHalving(int* parent, int& a, int& b)
{
    // One walk's step from node x with parent p and grandparent g: at the root (g == p), or x is pointed at g and the
    // walk goes on from there (true: its next parent is to be loaded).
    auto step = [parent](int& x, int p, int g) {
        if (g == p)
        {
            x = p; // (then its parent is itself: the walk has ended)
            return false;
        }
        parent[x] = g + 1;
        x = g;
        return true;
    };
    int pa = parent[a] - 1, pb = parent[b] - 1; // a is a root once pa == a (b: pb == b)
    while (pa != a || pb != b)
    {
        const int ga = pa != a ? parent[pa] - 1 : a; // the grandparents, loaded together
        const int gb = pb != b ? parent[pb] - 1 : b;
        const bool loadA = pa != a && step(a, pa, ga);
        const bool loadB = pb != b && step(b, pb, gb);
        if (loadA) // (the parents, loaded together)
            pa = parent[a] - 1;
        if (loadB)
            pb = parent[b] - 1;
    }
}

/** unite() above (Bolelli et al. 2024, Algorithm 1, plain loads) with findRootsHalving. */
__device__ __forceinline__ void uniteHalving(int* parent, int a, int b)
{
    for (;;)
    {
        findRootsHalving(parent, a, b);
        if (a == b)
            return;
        if (a > b)
        {
            const int t = a;
            a = b;
            b = t;
        }
        const int old = atomicMin(parent + b, a + 1) - 1;
        if (old == b)
            return;
        b = old;
    }
}

}}}} // namespace cv::cuda::cudacca::device

#endif
