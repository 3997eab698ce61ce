// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// Union-find on the GPU, written once and used by every algorithm, in shared or global memory
// (generic pointers). Follows Algorithm 1 of Bolelli et al. 2024 (section III-A): Find walks parent
// links; Union links the larger root under the smaller one with atomicMin and retries when another
// thread got there first.
//
// Storage convention (see LabelForest in cca_internal.hpp): parent[i] holds (parent index + 1), 0 means
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

}}}} // namespace cv::cuda::cudacca::device

#endif
