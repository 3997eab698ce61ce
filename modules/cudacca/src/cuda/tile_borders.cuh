// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The Merge step of tile merging (Bolelli et al. 2024, section III-B-1): unions across the borders between
// tiles that a LocalMerge labeled separately, in global memory. Shared by UF (32 x 16 tiles), LBUF (lines) and
// STAVA (the borders inside each group of its hierarchical merge).

#ifndef CUDACCA_TILE_BORDERS_CUH
#define CUDACCA_TILE_BORDERS_CUH

#include "labeling_common.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** The unions of the border pixel (y, x), in the first row of a tile (y > 0), with its foreground
neighbours in the row above, which lies in another tile. `notFirstColumn`: x is not its tile's first
column (so the pixel to its left, if foreground, is in the same tile).

Most of these unions are redundant: a row run is one component, so only the leftmost pixel of a run
needs to unite with an upper neighbour that the pixel to its left also touches. A union is skipped only
when that left pixel is in the SAME tile (its link to us is then made inside the tile, and its own unions
by the same border pass), so the skips never rely on a union that is itself skipped for a reason
depending on us; the tile's first column always unites. On an all-foreground image this leaves one union
per tile border instead of three per pixel. */
template <int kConnectivity>
__device__ __forceinline__ void uniteAcrossRowBorder(const BinaryImage& img, const LabelForest& forest, int y, int x,
                                                     bool notFirstColumn)
{
    if (!device::isForeground(img, y, x))
        return;
    const int p = y * forest.ld + x;
    const bool leftInTile = notFirstColumn && device::isForeground(img, y, x - 1);
    const bool up = device::isForeground(img, y - 1, x);
    const bool upLeft = x > 0 && device::isForeground(img, y - 1, x - 1);
    if (kConnectivity == 4)
    {
        // The left pixel reaches up-left, which is in the same row run as up.
        if (up && !(leftInTile && upLeft))
            device::unite(forest.data, p, p - forest.ld);
        return;
    }
    // 8-connectivity: the left pixel touches up-left and up itself; up-right is in up's row run.
    if (up)
    {
        if (!leftInTile)
            device::unite(forest.data, p, p - forest.ld);
        return;
    }
    if (upLeft && !leftInTile)
        device::unite(forest.data, p, p - forest.ld - 1);
    if (x + 1 < forest.cols && device::isForeground(img, y - 1, x + 1))
        device::unite(forest.data, p, p - forest.ld + 1);
}

/** The unions of the border pixel (y, x), in the first column of a tile (x > 0), with its foreground
neighbours in the column to the left, which lies in another tile: uniteAcrossRowBorder transposed, with
the pixel above (skipped only when it is in the same tile: `notFirstRow`, y is not its tile's first row).
Together with the row borders this covers every neighbour pair that straddles two tiles. */
template <int kConnectivity>
__device__ __forceinline__ void uniteAcrossColumnBorder(const BinaryImage& img, const LabelForest& forest, int y,
                                                        int x, bool notFirstRow)
{
    if (!device::isForeground(img, y, x))
        return;
    const int p = y * forest.ld + x;
    const bool aboveInTile = notFirstRow && device::isForeground(img, y - 1, x);
    const bool left = device::isForeground(img, y, x - 1);
    const bool upLeft = y > 0 && device::isForeground(img, y - 1, x - 1);
    if (kConnectivity == 4)
    {
        if (left && !(aboveInTile && upLeft))
            device::unite(forest.data, p, p - 1);
        return;
    }
    if (left)
    {
        if (!aboveInTile)
            device::unite(forest.data, p, p - 1);
        return;
    }
    if (upLeft && !aboveInTile)
        device::unite(forest.data, p, p - forest.ld - 1);
    if (y + 1 < forest.rows && device::isForeground(img, y + 1, x - 1))
        device::unite(forest.data, p, p + forest.ld - 1);
}

/** Merge across horizontal tile borders of a fixed tile grid: uniteAcrossRowBorder for every pixel of a
tile's first row below another tile. One thread per border pixel; i enumerates (border, x). kTileW == 0:
the tile spans the whole row (LBUF's lines). */
template <int kConnectivity, int kTileW, int kTileH>
__global__ void mergeRowBordersKernel(const BinaryImage img, const LabelForest forest, long long borderPixels)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= borderPixels)
        return;
    const int x = static_cast<int>(i % forest.cols);
    const int y = static_cast<int>(i / forest.cols + 1) * kTileH;
    // Is x not its tile's first column? (kTileW == 0: one tile per row; the guard only keeps the modulo's divisor nonzero.)
    const bool notFirstColumn = kTileW == 0 ? x != 0 : x % (kTileW > 0 ? kTileW : 1) != 0;
    uniteAcrossRowBorder<kConnectivity>(img, forest, y, x, notFirstColumn);
}

} // namespace

}}} // namespace cv::cuda::cudacca

#endif
