// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#ifndef OPENCV_CUDACCA_TEST_PRECOMP_HPP
#define OPENCV_CUDACCA_TEST_PRECOMP_HPP

#include "opencv2/ts.hpp"
#include "opencv2/ts/cuda_test.hpp"

#include "opencv2/cudacca.hpp"
#include "opencv2/imgproc.hpp"
#include "opencv2/core/cuda.hpp"

#include "../src/algorithm_list.hpp" // the one list of algorithms

// Tests live in namespace opencv_test (OpenCV's ts checks it). cv::cuda is NOT imported there:
// cv::connectedComponentsWithStats (the CPU reference) and cv::cuda::connectedComponentsWithStats
// (the function under test) have the same name, so every call below is fully qualified.
namespace opencv_test {
} // namespace opencv_test

#endif // OPENCV_CUDACCA_TEST_PRECOMP_HPP
