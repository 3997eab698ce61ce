// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#ifndef OPENCV_CUDACCA_PERF_PRECOMP_HPP
#define OPENCV_CUDACCA_PERF_PRECOMP_HPP

#include "opencv2/ts.hpp"
#include "opencv2/ts/ts_perf.hpp"
#include "opencv2/ts/cuda_perf.hpp"

#include "opencv2/core/cuda.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/cudacca.hpp"

#include "../src/algorithm_list.hpp" // the one list of algorithms

namespace opencv_test {
using namespace perf;
using namespace testing;

//! Adds a gtest environment that prints, at the end of the run, the mean throughput (Gpix/s) over the
//! densities of every measured configuration (the papers' metric). Defined in perf_connected_components.cpp.
void registerThroughputSummary();
}

#endif
