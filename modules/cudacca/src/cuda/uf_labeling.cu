// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// UF: union-find labeling of Oliveira and Lotufo (2010), as described in Bolelli et al. 2024,
// section III-B-1 and Algorithm 6, with tile merging:
//   LocalMerge  - each thread block unites the pixels of one tile in shared memory;
//   Merge       - unions across tile borders only, in global memory;
//   Compression - done by the shared analysis (compressAndRank), which flattens every tree anyway.
// 8-connectivity adds the diagonal directions to the half-neighbourhood (the review's reference [56]).
// Output: the LabelForest of contracts.hpp. More: doc/algorithms.md, section "UF".

#include "../labeling.hpp"
#include "launch.hpp"
#include "labeling_common.cuh"
#include "tile_borders.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kTileW = 32;
constexpr int kTileH = 16;
constexpr int kBorderThreads = 256;

using device::isForeground;

/** LocalMerge (Algorithm 6): one block per tile, one thread per pixel. Trees live in shared memory
with tile-local indices; each pixel then stores its tile root's global pitched index + 1. The local
root is the tile's raster-first pixel of the tree, so parents still precede children globally.

Intentional race (compute-sanitizer racecheck reports it as shared-memory hazards in this kernel, and
only here): the unions of the tile's threads run concurrently on `parent`, as Algorithm 1 of Bolelli et
al. 2024 does. A thread's find reads parent entries (volatile loads) that other threads are changing:
atomicMin on a root (a link), or a plain store of an ancestor into a non-root (InlineCompress in
findRootCompress). It is safe because an entry only ever moves to an ancestor (a smaller index of the
same tree): a read of the old or of the new value leads to the same root, a root is changed only by
atomicMin, whose returned value tells unite whether to retry, and nothing but a root is ever linked.
The barrier after the unions orders them before the final finds. */
template <int kConnectivity>
__global__ void localMergeKernel(const BinaryImage img, const LabelForest forest, int tilesPerRow)
{
    __shared__ int parent[kTileW * kTileH];

    const int tileX = blockIdx.x % tilesPerRow;
    const int tileY = blockIdx.x / tilesPerRow;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = tileX * kTileW + tx;
    const int y = tileY * kTileH + ty;
    const int l = ty * kTileW + tx;
    const bool inside = x < forest.cols && y < forest.rows;
    const bool fg = inside && isForeground(img, y, x);

    parent[l] = fg ? l + 1 : 0;
    __syncthreads();

    // Half-neighbourhood inside the tile; a nonzero entry means foreground and stays nonzero while
    // other threads link trees, so it is a safe test.
    if (fg)
    {
        if (tx > 0 && parent[l - 1])
            device::unite(parent, l, l - 1);
        if (ty > 0 && parent[l - kTileW])
            device::unite(parent, l, l - kTileW);
        if (kConnectivity == 8 && ty > 0)
        {
            if (tx > 0 && parent[l - kTileW - 1])
                device::unite(parent, l, l - kTileW - 1);
            if (tx < kTileW - 1 && parent[l - kTileW + 1])
                device::unite(parent, l, l - kTileW + 1);
        }
    }
    __syncthreads();

    if (inside)
    {
        int value = 0;
        if (fg)
        {
            const int root = device::findRootVolatile(parent, l);
            const int rootX = tileX * kTileW + root % kTileW;
            const int rootY = tileY * kTileH + root / kTileW;
            value = rootY * forest.ld + rootX + 1;
        }
        forest.data[y * forest.ld + x] = value;
    }
}

/** Merge across vertical tile borders: uniteAcrossColumnBorder (tile_borders.cuh) for every pixel of a
tile's first column right of another tile. One thread per border pixel; i enumerates (border, y). */
template <int kConnectivity>
__global__ void mergeColumnBordersKernel(const BinaryImage img, const LabelForest forest, long long borderPixels)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= borderPixels)
        return;
    const int y = static_cast<int>(i % forest.rows);
    const int x = static_cast<int>(i / forest.rows + 1) * kTileW;
    uniteAcrossColumnBorder<kConnectivity>(img, forest, y, x, y % kTileH != 0);
}

template <int kConnectivity>
void runUf(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    const int tilesPerRow = (forest.cols + kTileW - 1) / kTileW;
    const int tileRows = (forest.rows + kTileH - 1) / kTileH;
    const long long tiles = static_cast<long long>(tilesPerRow) * tileRows;
    localMergeKernel<kConnectivity><<<static_cast<unsigned>(tiles), dim3(kTileW, kTileH), 0, stream>>>(
        img, forest, tilesPerRow);
    checkLaunch("UF local merge");

    const long long rowBorderPixels = static_cast<long long>(tileRows - 1) * forest.cols;
    if (rowBorderPixels > 0)
    {
        mergeRowBordersKernel<kConnectivity, kTileW, kTileH>
            <<<static_cast<unsigned>((rowBorderPixels + kBorderThreads - 1) / kBorderThreads), kBorderThreads, 0,
               stream>>>(img, forest, rowBorderPixels);
        checkLaunch("UF row border merge");
    }
    const long long columnBorderPixels = static_cast<long long>(tilesPerRow - 1) * forest.rows;
    if (columnBorderPixels > 0)
    {
        mergeColumnBordersKernel<kConnectivity>
            <<<static_cast<unsigned>((columnBorderPixels + kBorderThreads - 1) / kBorderThreads), kBorderThreads,
               0, stream>>>(img, forest, columnBorderPixels);
        checkLaunch("UF column border merge");
    }
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(uf, runUf)

}}} // namespace cv::cuda::cudacca
