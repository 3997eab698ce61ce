// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// NP: the neighbour propagation of Hawick et al. 2010, as described in Bolelli et al. 2024, section III-A-1
// and Algorithm 2 (kernel NP). Produces a flat LabelForest. Iterative:
//   Initialization - every foreground pixel gets its own pitched index + 1 as label (0 = background);
//   Round          - every foreground pixel takes the smallest of its label and its foreground neighbours'
//                    labels (4 or 8), in place; repeated until a round changes nothing.
// Key idea: none beyond the paper's; a round moves a label one pixel, so the rounds grow with the longest
// path inside a component (`paths = long` in algorithm_list.hpp; doc/algorithms.md, "Long paths").
// What we add for speed: a round reads the image by 32 x 32 tiles held in shared memory with a one-pixel
// halo (coalesced loads, the neighbours read from shared memory), along a one-wave grid that exits at once
// once a round has changed nothing. The kernels and the correctness arguments (races, termination, the
// contract) are in neighbour_propagation.cuh, shared with LNP. More: doc/algorithms.md, section "NP".

#include "../labeling.hpp"
#include "neighbour_propagation.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

//! 32 x 32 tiles, 256 threads: a warp loads and stores one tile row (128 bytes, coalesced), and each thread
//! owns 4 pixels of a column, so the halo adds 13 % to the loads (34 x 34 for 32 x 32) instead of the 33 %
//! of one pixel per thread (34 x 10 for 32 x 8). One step per tile and round: NP.
using NpTiles = PropagationTiles<32, 32, 256, false>;

template <int kConnectivity>
void runNp(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    runTilePropagation<kConnectivity, NpTiles>(img, forest, stream, { "NP", "NP initialization", "NP round" });
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(np, runNp)

}}} // namespace cv::cuda::cudacca
