// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// DLP: Distanceless Label Propagation of Cabaret et al. 2017, as described in Bolelli et al. 2024, section
// III-B-5. 8-connectivity (the paper's). Four kernels on a 2x2 mask (p, right, down, down-right: every pair
// of foreground pixels of a 2x2 window is 8-adjacent, and every 8-adjacency lies in the mask of some p):
//   DLP-I   - provisional label = own pitched index (a root) for foreground, 0 for background;
//   DLP-SR  - SetRoot: gather the minimum label m of the mask, scatter it to the root of every pixel of the
//             mask with atomicMin (one shot, no retry: a heuristic that may lose links, repaired by DLP-RUF);
//   DLP-R   - compression: every pixel pointed at its root;
//   DLP-RUF - the same mask, but a real union (union_find.cuh's unite, retried until it holds).
// Tile labeling (32 x 16 tiles: masks cut to the tile): DLP-I, DLP-SR, DLP-R, DLP-RUF, DLP-R; border
// merging: DLP-RUF on the pixels whose mask crosses a tile border; relabeling (DLP-R on the whole image):
// the shared analysis's compressAndRank. Output: the LabelForest of contracts.hpp. More: doc/algorithms.md.

#include "../labeling.hpp"
#include "compress_forest.cuh"
#include "labeling_common.cuh"
#include "launch.hpp"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kTileW = 32;
constexpr int kTileH = 16;

/** The pixel of this thread: one (kTileW x kTileH) block per tile, the tiles in raster order along a 1D grid
(a 2D grid would cap the image at 65535 tile rows); false outside the image. */
__device__ __forceinline__ bool tilePixel(const LabelForest& forest, int tilesPerRow, int& y, int& x)
{
    x = static_cast<int>(blockIdx.x % tilesPerRow) * kTileW + static_cast<int>(threadIdx.x);
    y = static_cast<int>(blockIdx.x / tilesPerRow) * kTileH + static_cast<int>(threadIdx.y);
    return x < forest.cols && y < forest.rows;
}

/** The foreground pixels of p's mask (p, right, down, down-right), as pitched indices; `inTile`: only
those in p's tile. Returns their number; p itself first when it is foreground. */
__device__ __forceinline__ int maskPixels(const BinaryImage& img, const LabelForest& forest, int y, int x,
                                          bool inTile, int (&q)[4])
{
    const bool hasRight = x + 1 < forest.cols && (!inTile || (x + 1) % kTileW != 0);
    const bool hasDown = y + 1 < forest.rows && (!inTile || (y + 1) % kTileH != 0);
    const int p = y * forest.ld + x;
    int n = 0;
    if (device::isForeground(img, y, x))
        q[n++] = p;
    if (hasRight && device::isForeground(img, y, x + 1))
        q[n++] = p + 1;
    if (hasDown && device::isForeground(img, y + 1, x))
        q[n++] = p + forest.ld;
    if (hasRight && hasDown && device::isForeground(img, y + 1, x + 1))
        q[n++] = p + forest.ld + 1;
    return n;
}

/** DLP-I. Each thread writes only its own pixel. */
__global__ void initKernel(const BinaryImage img, const LabelForest forest, int tilesPerRow)
{
    int y, x;
    if (!tilePixel(forest, tilesPerRow, y, x))
        return;
    const int p = y * forest.ld + x;
    forest.data[p] = device::isForeground(img, y, x) ? p + 1 : 0;
}

/** DLP-SR, masks cut to the tile. Gather: m = the smallest label (parent) in the mask. Scatter: the root r
of every mask pixel gets atomicMin(parent[r], m + 1). Every link written joins two pixels of one connected
component (m is in the tree of a mask pixel, all mask pixels are connected), and only when m < r, so
parents stay below children; walks only use volatile loads and write nothing, and parents only decrease, so
they terminate. A link may be lost (r stopped being a root before the atomicMin: it is then re-parented to m
and leaves its former parent's tree): the trees stay inside components, and DLP-RUF adds what is missing. */
__global__ void setRootKernel(const BinaryImage img, const LabelForest forest, int tilesPerRow)
{
    int y, x;
    if (!tilePixel(forest, tilesPerRow, y, x))
        return;
    int q[4];
    const int n = maskPixels(img, forest, y, x, true, q);
    if (n < 2)
        return;
    volatile int* parent = forest.data;
    int m = parent[q[0]] - 1;
    for (int i = 1; i < n; ++i)
        m = min(m, parent[q[i]] - 1);
    for (int i = 0; i < n; ++i)
    {
        const int r = device::findRootVolatile(parent, q[i]);
        if (m < r)
            atomicMin(forest.data + r, m + 1);
    }
}

/** DLP-RUF: every foreground pixel of the mask united with the first (8-adjacent to all of them). With
`borders`, only the pixels whose full mask crosses a tile border, with the full mask; otherwise the mask cut
to the tile. Together the two passes unite every 8-adjacent pair of the image (each lies in some p's full
mask: either inside p's tile or across its border), so the trees are exactly the components. unite
(union_find.cuh) keeps the smaller root: parents below children, root = raster-first pixel. */
template <bool kBorders>
__global__ void recursiveUnionKernel(const BinaryImage img, const LabelForest forest, int tilesPerRow)
{
    int y, x;
    if (!tilePixel(forest, tilesPerRow, y, x))
        return;
    if (kBorders && (x + 1) % kTileW != 0 && (y + 1) % kTileH != 0)
        return; // the full mask is inside the tile: done by the tile pass
    int q[4];
    const int n = maskPixels(img, forest, y, x, !kBorders, q);
    for (int i = 1; i < n; ++i)
        device::unite(forest.data, q[0], q[i]);
}

template <int kConnectivity>
void runDlp(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    static_assert(kConnectivity == 8, "DLP is 8-connectivity only");
    const dim3 block(kTileW, kTileH);
    const int tilesPerRow = (forest.cols + kTileW - 1) / kTileW;
    const unsigned tiles = static_cast<unsigned>(static_cast<long long>(tilesPerRow) * ((forest.rows + kTileH - 1) / kTileH));
    // DLP-R is the shared compression (compress_forest.cuh: one thread per pixel, inline compression).
    const unsigned pixelBlocks = blocksFor(static_cast<long long>(forest.rows) * forest.cols, kTileW * kTileH);
    // Tile labeling.
    initKernel<<<tiles, block, 0, stream>>>(img, forest, tilesPerRow);
    checkLaunch("DLP-I");
    setRootKernel<<<tiles, block, 0, stream>>>(img, forest, tilesPerRow);
    checkLaunch("DLP-SR");
    compressForestKernel<<<pixelBlocks, kTileW * kTileH, 0, stream>>>(forest);
    checkLaunch("DLP-R");
    recursiveUnionKernel<false><<<tiles, block, 0, stream>>>(img, forest, tilesPerRow);
    checkLaunch("DLP-RUF (tiles)");
    compressForestKernel<<<pixelBlocks, kTileW * kTileH, 0, stream>>>(forest);
    checkLaunch("DLP-R");
    // Border merging.
    recursiveUnionKernel<true><<<tiles, block, 0, stream>>>(img, forest, tilesPerRow);
    checkLaunch("DLP-RUF (borders)");
    // Relabeling: the shared analysis (compressAndRank) flattens every tree.
}

} // namespace

namespace dlp {
Labeling* createLabeling()
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) { runDlp<8>(image, forest, stream); });
}
} // namespace dlp

}}} // namespace cv::cuda::cudacca
