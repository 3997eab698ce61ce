// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#include "test_precomp.hpp"
#include "test_utils.hpp"

// Not CV_CUDA_TEST_MAIN: that one iterates over the devices and misbehaves where there is no driver.
// Say once, at start-up, whether the GPU tests will run or skip.
CV_TEST_MAIN("cv", std::cout << "[ cudacca  ] " << opencv_test::cudacca_test::cudaDeviceDescription() << std::endl)
