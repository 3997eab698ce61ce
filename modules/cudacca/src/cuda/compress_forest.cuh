// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The Compression kernel of the pixel union-find labelings (KE, LBUF): every pixel pointed at its root.

#ifndef CUDACCA_COMPRESS_FOREST_CUH
#define CUDACCA_COMPRESS_FOREST_CUH

#include "labeling_common.cuh"
#include "union_find.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

/** Compression (Bolelli et al. 2024, III-B-1): L[x] <- Find(L, x), one thread per pixel, no union running.
Other threads rewrite their own pixels meanwhile, always to an ancestor (never a root: roots do not change
in this kernel), so whichever value a volatile load sees, the walk ends at the same root. Forests with
long chains (KE's initialization: a row run in row 0 for 4-connectivity, every column run; LBUF's lines:
every row run) are walked by many threads at once: the walk rewrites x's parent at every step (inline
compression, union_find.cuh) so that they shorten each other's walks. */
__global__ void compressForestKernel(const LabelForest forest)
{
    int y, x;
    if (!device::threadPixel(forest.rows, forest.cols, y, x))
        return;
    const int p = y * forest.ld + x;
    if (forest.data[p] != 0) // only this thread writes data[p]
        device::findRootInlineCompress(forest.data, p);
}

} // namespace

}}} // namespace cv::cuda::cudacca

#endif
