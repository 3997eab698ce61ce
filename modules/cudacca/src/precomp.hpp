// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

#ifndef CUDACCA_PRECOMP_HPP
#define CUDACCA_PRECOMP_HPP

#include "opencv2/cudacca.hpp"
#include "opencv2/core.hpp"
#include "opencv2/core/cuda.hpp"
#include "opencv2/core/cuda_stream_accessor.hpp"
#include "opencv2/imgproc.hpp" // CC_STAT_* column layout
#include "opencv2/core/utility.hpp"
#include "opencv2/core/private.hpp"

#include <cuda_runtime_api.h>

#include "analysis.hpp"
#include "contracts.hpp"
#include "device_memory.hpp"
#include "registry.hpp"
#include "cuda/cuda_check.hpp"

#endif
