// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "perf_precomp.hpp"

// Plain OpenCV perf main, not CV_PERF_TEST_CUDA_MAIN: the CUDA variant selects the "cuda" implementation by
// default and exits(-1) on a machine without a usable device. Here every test checks for a device itself and
// skips with a printed reason, so the binary runs (and skips) everywhere.
// Init: print OS + CUDA device info (no-op without a device) and register the end-of-run throughput summary.
CV_PERF_TEST_MAIN(cudacca, perf::printCudaInfo(); opencv_test::registerThroughputSummary())
