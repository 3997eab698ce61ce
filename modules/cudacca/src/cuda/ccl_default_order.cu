// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// CCA_ORDER_CCL_DEFAULT (ccl_default_order.hpp): renumbers an 8-connectivity result from raster order of each
// component's first pixel (every cudacca algorithm's, CCL_SAUF's) to raster order of its first 2x2 block, the
// order in which the CPU's block-based algorithms (cv::CCL_DEFAULT = BBDT in 4.10, Spaghetti in 5.0) create
// their provisional labels: block (k, j) covers rows 2k, 2k+1 and columns 2j, 2j+1; blocks go by (k, j).
// The key idea: with 8-connectivity all foreground pixels of a 2x2 block touch each other, so a block belongs
// to at most one component, and a component's rank in the new order is the rank of its smallest block index.
//  1 keys    key[l] = the smallest index k * blocksPerRow + j of the blocks of label l (atomicMin, only from
//            blocks that can be first: see firstBlockKeys);
//  2 sort    CUB's radix sort of the keys with the labels alongside; newLabel[sorted label] = its position + 1;
//  3 apply   every pixel's label through newLabel, and each stats and centroid row moved to its new row.

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <climits>

#include "../ccl_default_order.hpp"
#include "launch.hpp"

namespace cv { namespace cuda { namespace cudacca {

namespace {

constexpr int kThreads = 256;

struct Scratch
{
    int *key, *labelsIn, *keysOut, *labelsOut, *newLabel;
    int* statsCopy;
    double* centroidsCopy;
    void* sortTemp;
    size_t sortTempBytes;
};

size_t sortTempBytes(int items)
{
    size_t bytes = 0;
    checkCuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                              static_cast<const int*>(nullptr), static_cast<int*>(nullptr), items),
              "cub::DeviceRadixSort::SortPairs (size query)");
    return bytes;
}

Scratch layout(void* memory, int labelCount)
{
    const size_t ints = alignUp(sizeof(int) * static_cast<size_t>(labelCount));
    char* p = static_cast<char*>(memory);
    Scratch s;
    s.key = reinterpret_cast<int*>(p), p += ints;
    s.labelsIn = reinterpret_cast<int*>(p), p += ints;
    s.keysOut = reinterpret_cast<int*>(p), p += ints;
    s.labelsOut = reinterpret_cast<int*>(p), p += ints;
    s.newLabel = reinterpret_cast<int*>(p), p += ints;
    s.statsCopy = reinterpret_cast<int*>(p), p += alignUp(sizeof(int) * 5 * static_cast<size_t>(labelCount));
    s.centroidsCopy = reinterpret_cast<double*>(p), p += alignUp(sizeof(double) * 2 * static_cast<size_t>(labelCount));
    s.sortTemp = p;
    s.sortTempBytes = sortTempBytes(labelCount);
    return s;
}

__global__ void initKeysKernel(int* key, int* labelsIn, int labelCount)
{
    const int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l < labelCount)
    {
        key[l] = INT_MAX;
        labelsIn[l] = l;
    }
}

__device__ __forceinline__ int labelAt(const int* labels, size_t step, int rows, int cols, int y, int x)
{
    if (y < 0 || x < 0 || y >= rows || x >= cols)
        return 0;
    return reinterpret_cast<const int*>(reinterpret_cast<const char*>(labels) + static_cast<size_t>(y) * step)[x];
}

/** Step 1: one thread per 2x2 block. Its label is any nonzero label of its pixels (with 8-connectivity they are
all the same). It offers its index unless an earlier block certainly has the same label: a pixel of that label
in the row just above the block (columns 2j - 1 .. 2j + 2, its 8-neighbours there; those pixels are in block row
k - 1) or in the block to its left. A component's first block is never skipped: no earlier block holds its
label, so neither check can see it. */
__global__ void firstBlockKeysKernel(const int* labels, size_t step, int rows, int cols, int blocksPerRow, int blockRows,
                                     int* key)
{
    const long long b = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= static_cast<long long>(blocksPerRow) * blockRows)
        return;
    const int k = static_cast<int>(b / blocksPerRow), j = static_cast<int>(b % blocksPerRow);
    const int y = 2 * k, x = 2 * j;
    int l = labelAt(labels, step, rows, cols, y, x);
    l = l ? l : labelAt(labels, step, rows, cols, y, x + 1);
    l = l ? l : labelAt(labels, step, rows, cols, y + 1, x);
    l = l ? l : labelAt(labels, step, rows, cols, y + 1, x + 1);
    if (l == 0)
        return;
    for (int dx = -1; dx <= 2; ++dx)
        if (labelAt(labels, step, rows, cols, y - 1, x + dx) == l)
            return;
    for (int dy = 0; dy <= 1; ++dy)
        for (int dx = -2; dx <= -1; ++dx)
            if (labelAt(labels, step, rows, cols, y + dy, x + dx) == l)
                return;
    atomicMin(key + l, static_cast<int>(b));
}

/** Step 2's result: the component at sorted position i gets label i + 1; the background keeps 0. */
__global__ void newLabelsKernel(const int* sortedLabels, int components, int* newLabel)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < components)
        newLabel[sortedLabels[i]] = i + 1;
    if (i == 0)
        newLabel[0] = 0;
}

__global__ void relabelKernel(int* labels, size_t step, int rows, int cols, const int* newLabel)
{
    const long long pixels = static_cast<long long>(rows) * cols;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
    {
        const int y = static_cast<int>(i / cols), x = static_cast<int>(i % cols);
        int* const p = reinterpret_cast<int*>(reinterpret_cast<char*>(labels) + static_cast<size_t>(y) * step) + x;
        const int l = *p;
        if (l)
            *p = newLabel[l];
    }
}

/** Row l of the copies goes to row newLabel[l] of the outputs (a permutation: every row written once). */
__global__ void permuteRowsKernel(const int* statsCopy, int* stats, size_t statsStep, const double* centroidsCopy,
                                  double* centroids, size_t centroidsStep, const int* newLabel, int labelCount)
{
    const int l = blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= labelCount)
        return;
    const int to = newLabel[l];
    if (stats)
    {
        int* const row = reinterpret_cast<int*>(reinterpret_cast<char*>(stats) + static_cast<size_t>(to) * statsStep);
        for (int c = 0; c < 5; ++c)
            row[c] = statsCopy[5 * static_cast<size_t>(l) + c];
    }
    if (centroids)
    {
        double* const row = reinterpret_cast<double*>(reinterpret_cast<char*>(centroids) + static_cast<size_t>(to) * centroidsStep);
        row[0] = centroidsCopy[2 * static_cast<size_t>(l)];
        row[1] = centroidsCopy[2 * static_cast<size_t>(l) + 1];
    }
}

} // namespace

size_t cclDefaultOrderScratchBytes(int labelCount)
{
    const size_t ints = alignUp(sizeof(int) * static_cast<size_t>(labelCount));
    return 5 * ints + alignUp(sizeof(int) * 5 * static_cast<size_t>(labelCount)) +
           alignUp(sizeof(double) * 2 * static_cast<size_t>(labelCount)) + sortTempBytes(labelCount);
}

void renumberInCclDefaultOrder(int* labels, size_t labelsStep, int rows, int cols, int labelCount, int* stats,
                               size_t statsStep, double* centroids, size_t centroidsStep, void* scratch,
                               size_t scratchBytes, cudaStream_t stream)
{
    const int components = labelCount - 1;
    if (components <= 1)
        return; // nothing to reorder
    (void)scratchBytes; // cclDefaultOrderScratchBytes(labelCount), as the caller allocated it
    const Scratch s = layout(scratch, labelCount);

    // 1 keys
    initKeysKernel<<<blocksFor(labelCount, kThreads), kThreads, 0, stream>>>(s.key, s.labelsIn, labelCount);
    checkCuda(cudaGetLastError(), "initKeysKernel");
    const int blocksPerRow = (cols + 1) / 2, blockRows = (rows + 1) / 2;
    firstBlockKeysKernel<<<blocksFor(static_cast<long long>(blocksPerRow) * blockRows, kThreads), kThreads, 0, stream>>>(
        labels, labelsStep, rows, cols, blocksPerRow, blockRows, s.key);
    checkCuda(cudaGetLastError(), "firstBlockKeysKernel");

    // 2 sort the components' keys (labels 1..N-1), whose values are all below blocksPerRow * blockRows
    int endBit = 1;
    while (endBit < 31 && (1ll << endBit) < static_cast<long long>(blocksPerRow) * blockRows)
        ++endBit;
    size_t tempBytes = s.sortTempBytes;
    checkCuda(cub::DeviceRadixSort::SortPairs(s.sortTemp, tempBytes, s.key + 1, s.keysOut, s.labelsIn + 1, s.labelsOut,
                                              components, 0, endBit, stream),
              "cub::DeviceRadixSort::SortPairs (first blocks)");
    newLabelsKernel<<<blocksFor(components, kThreads), kThreads, 0, stream>>>(s.labelsOut, components, s.newLabel);
    checkCuda(cudaGetLastError(), "newLabelsKernel");

    // 3 apply: pixels, then rows (from copies: the permutation moves rows onto each other)
    const long long pixels = static_cast<long long>(rows) * cols;
    relabelKernel<<<static_cast<unsigned>(std::min<long long>(blocksFor(pixels, kThreads), 1 << 20)), kThreads, 0, stream>>>(
        labels, labelsStep, rows, cols, s.newLabel);
    checkCuda(cudaGetLastError(), "relabelKernel");
    if (!stats && !centroids)
        return;
    if (stats)
        checkCuda(cudaMemcpy2DAsync(s.statsCopy, sizeof(int) * 5, stats, statsStep, sizeof(int) * 5, labelCount,
                                    cudaMemcpyDeviceToDevice, stream), "cudaMemcpy2DAsync (stats)");
    if (centroids)
        checkCuda(cudaMemcpy2DAsync(s.centroidsCopy, sizeof(double) * 2, centroids, centroidsStep, sizeof(double) * 2,
                                    labelCount, cudaMemcpyDeviceToDevice, stream), "cudaMemcpy2DAsync (centroids)");
    permuteRowsKernel<<<blocksFor(labelCount, kThreads), kThreads, 0, stream>>>(s.statsCopy, stats, statsStep,
                                                                               s.centroidsCopy, centroids, centroidsStep,
                                                                               s.newLabel, labelCount);
    checkCuda(cudaGetLastError(), "permuteRowsKernel");
}

}}} // namespace cv::cuda::cudacca
