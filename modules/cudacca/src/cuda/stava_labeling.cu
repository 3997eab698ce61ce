// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// STAVA: the labeling of Stava and Benes 2011 (Bolelli et al. 2024, section III-A-5 and Algorithm 4),
// 8-connectivity: label equivalence in tiles, then a hierarchical merge of the tiles.
//   LocalLabeling     - 16 x 16 tiles in shared memory, Algorithm 4's light label equivalence (atomicMin),
//                       repeated until the tile converges; each pixel then points at its tile-local root;
//   GlobalLabeling    - step n merges groups of 4 x 4 macro-tiles of step n - 1 (UF's unions across the
//                       borders between them, tile_borders.cuh), until one macro-tile covers the image;
//   BorderCompression - a find on the pixels next to the borders that the next step merges;
//   PathCompression   - a find on every pixel (compress_forest.cuh).
// Key idea: the atomic unite of union_find.cuh makes one merge pass per step enough; any image size.
// Departures: doc/algorithms.md, section "STAVA".

#include "../labeling.hpp"
#include "launch.hpp"
#include "compress_forest.cuh"
#include "labeling_common.cuh"
#include "tile_borders.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kTile = 16;        //!< LocalLabeling's tiles: kTile x kTile pixels, one block each
constexpr int kGroup = 4;        //!< GlobalLabeling merges groups of kGroup x kGroup macro-tiles per step
constexpr int kThreads = 256;    //!< the flat kernels (GlobalLabeling, BorderCompression, PathCompression)

/** LocalLabeling (Algorithm 4), 8-connectivity, one block of 16 x 16 threads per tile (a 1D grid of tiles).
Local labels are tile-local raster indices l = ty * 16 + tx, so a tile-local component's smallest label is
its raster-first pixel in the tile, which is also its raster-first pixel in the image (a tile's rows keep
the image's order). sL[i] is pixel i's reference (the paper's union-find array in shared memory); pixels
outside the image are background, and the background takes no part (the paper labels it too).

Each pass: (line 11) every pixel writes its current label l into its own sL entry; (15-18) takes the
smallest label new_l among itself and its foreground neighbours inside the tile; (20-22) if new_l < l,
atomicMin(sL[l], new_l) links its label's tree; the tile stops when no pixel linked (__syncthreads_or for
the paper's shared `changes` flag); else (26) l = Find(sL, l). The barriers separate the phases, so the only
concurrent writes are the atomicMins, on which no read depends in the same phase: no race.

Invariants: sL[i] <= i for every foreground pixel i (line 11 writes l <= i: a label never grows; atomicMin
lowers); every label is the index of a foreground pixel of the same tile-local component. So Find ends (its
walk strictly decreases) in the same component, and after line 11 the forest is flat: each pixel's l is a
root of the previous sL, so pixel l's own Find returned l and it writes sL[l] = l.
Termination: in a pass where some pixel links, its label l stops being a root, so that pixel's Find returns
a smaller label; no label ever grows: the sum of the labels drops at every pass but the last.
Result: in the last pass no pixel has a foreground neighbour with a smaller label: tile-locally connected
pixels share one label, and it is their component's smallest index m (m's label is never below m, and
no label is below it), the raster-first pixel. Each pixel stores m's pitched index + 1: a parent with a
smaller index, trees = the tile-local components. */
__global__ void localLabelingKernel(const BinaryImage img, const LabelForest forest, int tilesPerRow)
{
    __shared__ unsigned char sI[kTile * kTile];
    __shared__ int sL[kTile * kTile];

    const int tileX = static_cast<int>(blockIdx.x % static_cast<unsigned>(tilesPerRow));
    const int tileY = static_cast<int>(blockIdx.x / static_cast<unsigned>(tilesPerRow));
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int id = ty * kTile + tx;
    // tileX * kTile + tx may exceed cols (a partial tile), never INT_MAX: the tile starts below cols.
    const int x = tileX * kTile + tx;
    const int y = tileY * kTile + ty;
    const bool inside = x < forest.cols && y < forest.rows;
    const bool fg = inside && device::isForeground(img, y, x);
    sI[id] = fg ? 1 : 0; // load the input patch
    __syncthreads();

    int l = id;
    for (;;)
    {
        sL[id] = l;
        __syncthreads();
        int newL = l;
        if (fg)
        {
            for (int dy = -1; dy <= 1; ++dy)
            {
                const int ny = ty + dy;
                if (ny < 0 || ny >= kTile)
                    continue;
                for (int dx = -1; dx <= 1; ++dx)
                {
                    const int nx = tx + dx;
                    const int n = ny * kTile + nx;
                    if (nx >= 0 && nx < kTile && sI[n])
                        newL = min(newL, sL[n]);
                }
            }
        }
        __syncthreads();
        const bool link = newL < l;
        if (link)
            atomicMin(sL + l, newL);
        if (!__syncthreads_or(link))
            break; // local solution found (the same decision in every thread)
        if (fg)
            while (sL[l] != l)
                l = sL[l];
        __syncthreads();
    }

    if (inside)
    {
        int value = 0;
        if (fg)
        {
            const int rootX = tileX * kTile + l % kTile;
            const int rootY = tileY * kTile + l / kTile;
            value = rootY * forest.ld + rootX + 1;
        }
        forest.data[y * forest.ld + x] = value;
    }
}

/** The sub-tile borders inside the groups of one GlobalLabeling step: the macro-tiles of the previous step are
`sub` pixels wide and high, a group is kGroup x kGroup of them. A border line k (k = 1, 2, ...: the line
k * sub, the first row or column of a sub-tile) lies inside a group when k is not a multiple of kGroup; the
j-th such line (j = 0, 1, ...) is k = j / 3 * 4 + j % 3 + 1. */
struct GroupBorders
{
    long long sub;

    //! The number of border lines inside groups among the lines k * sub < extent.
    long long lines(int extent) const
    {
        const long long k = (extent - 1) / sub; // lines k * sub <= extent - 1
        return k - k / kGroup;
    }
    //! The j-th border line's first row (or column).
    __host__ __device__ static long long line(long long j, long long sub)
    {
        return (j / (kGroup - 1) * kGroup + j % (kGroup - 1) + 1) * sub;
    }
};

/** GlobalLabeling, row borders of one step: every pixel of the first row of a sub-tile below another sub-tile
of its group unites with its neighbours in the row above (uniteAcrossRowBorder, tile_borders.cuh: UF's unions
across a tile border, with the sub-tile as the tile). The paper unites the South border of the upper
sub-tile with the row below: the same pairs. Its skips rely only on the sub-tile being one tree already
(the previous steps, queued before this one, merged it) and on the unions of the same border line. A pixel's
diagonal neighbour may lie in the next group: that union is a true adjacency, merely made one step early.
No race beyond union_find.cuh's atomic unite, which keeps every parent below its child. One thread per border
pixel, i = (line, x), a 1D grid. */
__global__ void mergeGroupRowBordersKernel(const BinaryImage img, const LabelForest forest, long long sub,
                                           long long borderPixels)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= borderPixels)
        return;
    const int x = static_cast<int>(i % forest.cols);
    const int y = static_cast<int>(GroupBorders::line(i / forest.cols, sub));
    uniteAcrossRowBorder<8>(img, forest, y, x, x % sub != 0);
}

/** GlobalLabeling, column borders of one step: mergeGroupRowBordersKernel transposed (uniteAcrossColumnBorder,
the East border of the left sub-tile). With the row borders, every pair of neighbours that lie in two
sub-tiles of one group is united (or joined through the unions the skips rely on). i = (line, y). */
__global__ void mergeGroupColumnBordersKernel(const BinaryImage img, const LabelForest forest, long long sub,
                                              long long borderPixels)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= borderPixels)
        return;
    const int y = static_cast<int>(i % forest.rows);
    const int x = static_cast<int>(GroupBorders::line(i / forest.rows, sub));
    uniteAcrossColumnBorder<8>(img, forest, y, x, y % sub != 0);
}

/** BorderCompression before the step that merges sub-tiles of size `sub`: a find, with inline compression,
on the pixels that the step's unions start from or reach, the two rows (then the two columns) on either side
of each border line inside a group. i enumerates the row pixels (rowLines pairs of rows x cols), then the
column pixels ((pairs of columns) x rows), the latter skipping the pixels already on a compressed row, so
that each pixel has one writer. No union runs meanwhile, roots do not change, and a pixel's parent only moves
to an ancestor (union_find.cuh, findRootInlineCompress): every walk stays valid. */
__global__ void borderCompressionKernel(const LabelForest forest, long long sub, long long rowPixels,
                                        long long pixels)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= pixels)
        return;
    int y, x;
    if (i < rowPixels)
    {
        const long long pair = i / forest.cols;
        x = static_cast<int>(i % forest.cols);
        y = static_cast<int>(GroupBorders::line(pair / 2, sub) - 1 + pair % 2);
    }
    else
    {
        const long long c = i - rowPixels;
        const long long pair = c / forest.rows;
        y = static_cast<int>(c % forest.rows);
        x = static_cast<int>(GroupBorders::line(pair / 2, sub) - 1 + pair % 2);
        // Is y one of the compressed rows (a line inside the image, or the row above one)?
        auto isLine = [&](long long r) { return r > 0 && r < forest.rows && r % sub == 0 && r / sub % kGroup != 0; };
        if (isLine(y) || isLine(y + 1))
            return;
    }
    const int p = y * forest.ld + x;
    if (forest.data[p] != 0)
        device::findRootInlineCompress(forest.data, p);
}

/** The steps: GlobalLabeling with sub-tiles of 16, 64, 256, ... pixels, while a sub-tile does not cover the
image (sub < max(rows, cols)); the last step's group covers it. Any size: a partial sub-tile or group is
only a shorter border line, and lines past the image are not enumerated. Every pair of 8-neighbours in two
different tiles is in two different sub-tiles of one group at exactly one step (the first whose macro-tile
holds both), where it is united. After the steps the trees are the components, with parents below children
(LocalLabeling's and unite's), and PathCompression points every pixel at its root. */
void runStava(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    if (forest.rows == 0 || forest.cols == 0)
        return;
    const int tilesPerRow = (forest.cols + kTile - 1) / kTile;
    const long long tiles = static_cast<long long>(tilesPerRow) * ((forest.rows + kTile - 1) / kTile);
    localLabelingKernel<<<static_cast<unsigned>(tiles), dim3(kTile, kTile), 0, stream>>>(img, forest, tilesPerRow);
    checkLaunch("STAVA LocalLabeling");

    const int extent = forest.rows > forest.cols ? forest.rows : forest.cols;
    for (long long sub = kTile; sub < extent; sub *= kGroup)
    {
        const GroupBorders borders{ sub };
        const long long rowLines = borders.lines(forest.rows);
        const long long columnLines = borders.lines(forest.cols);
        if (sub > kTile) // after LocalLabeling every pixel already points at its root
        {
            const long long rowPixels = 2 * rowLines * forest.cols;
            const long long pixels = rowPixels + 2 * columnLines * forest.rows;
            if (pixels > 0)
            {
                borderCompressionKernel<<<blocksFor(pixels, kThreads), kThreads, 0, stream>>>(
                    forest, sub, rowPixels, pixels);
                checkLaunch("STAVA BorderCompression");
            }
        }
        const long long rowPixels = rowLines * forest.cols;
        if (rowPixels > 0)
        {
            mergeGroupRowBordersKernel<<<blocksFor(rowPixels, kThreads), kThreads, 0, stream>>>(img, forest, sub,
                                                                                               rowPixels);
            checkLaunch("STAVA GlobalLabeling (rows)");
        }
        const long long columnPixels = columnLines * forest.rows;
        if (columnPixels > 0)
        {
            mergeGroupColumnBordersKernel<<<blocksFor(columnPixels, kThreads), kThreads, 0, stream>>>(
                img, forest, sub, columnPixels);
            checkLaunch("STAVA GlobalLabeling (columns)");
        }
    }

    compressForestKernel<<<blocksFor(static_cast<long long>(forest.rows) * forest.cols, kThreads), kThreads, 0,
                           stream>>>(forest);
    checkLaunch("STAVA PathCompression");
}

} // namespace

namespace stava {
Labeling* createLabeling()
{
    return new FunctionLabeling([](const BinaryImage& image, const LabelForest& forest, int /*connectivity*/,
                                   cudaStream_t stream) { runStava(image, forest, stream); });
}
} // namespace stava

}}} // namespace cv::cuda::cudacca
