// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// LNP: the local neighbour propagation of Hawick et al. 2010, as described in Bolelli et al. 2024, section
// III-A-2 and Algorithm 2 (kernel LNP). Produces a flat LabelForest. Iterative:
//   Initialization - every foreground pixel gets its own pitched index + 1 as label (0 = background);
//   Round          - per 16 x 16 tile in shared memory: each pixel takes the smallest of its label and its
//                    neighbours' labels read from global memory (Algorithm 2 lines 9-13), then the tile
//                    repeats the propagation in shared memory until it changes nothing (lines 17-27), and
//                    the lowered labels go back to global memory; rounds repeat until one changes nothing.
// Key idea: a round carries a label across a whole tile instead of one pixel: fewer rounds than NP, but
// still a bounded distance per round across tiles (`paths = long` in algorithm_list.hpp; doc/algorithms.md,
// "Long paths").
// Departures: the tile's neighbours outside it are loaded once into a shared-memory halo (the paper reads
// them from global memory in the first step and then only looks inside the block; the halo values do not
// change during the local loop, so the result is the same); tiles along a one-wave 1D grid (any number of
// tile rows) that exits at once once a round has changed nothing. The kernels and the correctness arguments
// (races, termination, the contract) are in neighbour_propagation.cuh, shared with NP. More:
// doc/algorithms.md, section "LNP".

#include "../labeling.hpp"
#include "neighbour_propagation.cuh"

namespace cv { namespace cuda { namespace cudacca {

namespace {

//! The paper's 16 x 16 blocks, one pixel per thread; local steps until the tile converges: LNP.
using LnpTiles = PropagationTiles<16, 16, 256, true>;

template <int kConnectivity>
void runLnp(const BinaryImage& img, const LabelForest& forest, cudaStream_t stream)
{
    runTilePropagation<kConnectivity, LnpTiles>(img, forest, stream, { "LNP", "LNP initialization", "LNP round" });
}

} // namespace

CUDACCA_LABELING_BY_CONNECTIVITY(lnp, runLnp)

}}} // namespace cv::cuda::cudacca
