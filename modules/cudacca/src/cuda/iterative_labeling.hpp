// This file is part of cudacca, an OpenCV extra module.
// It is subject to the license terms in the LICENSE file found in the top-level directory.

// The host loop of the iterative labelings (label propagation or label equivalence, repeated until a
// round changes nothing): rounds are queued on the stream in batches, and the host reads a device
// "changed" flag only once per batch. Host code; included by the .cu files that need it.

#ifndef CUDACCA_ITERATIVE_LABELING_HPP
#define CUDACCA_ITERATIVE_LABELING_HPP

#include <string>

#include <cuda_runtime_api.h>

#include "../contracts.hpp"
#include "../device_memory.hpp"
#include "cuda_check.hpp"

namespace cv { namespace cuda { namespace cudacca {

/** How many rounds are queued per host check: `first` for the first batch, then twice as many per
batch, up to `max`. */
struct RoundBatches
{
    int first;
    int max;
};

/** Calls queueRound(previous, changed) for round after round until a round changes nothing.

queueRound queues one round on `stream`. Its kernels must do nothing when `previous` is non-null and
*previous == 0 (the previous round changed nothing: the labels are final), and must set *changed = 1
(device memory, zeroed before the round) when they change a label. The first round of every batch gets
previous == nullptr and always runs.

Reading the flag costs a device-to-host copy and a wait for the stream, during which the GPU idles, so
rounds are queued in batches: flags[r] is round r's flag, and the host reads the batch's last one. 0 means
that some round of the batch changed nothing (converged: the rounds after it did nothing), 1 that more
rounds are needed. There is no cap on the rounds: the caller's rounds must reach a round that changes
nothing. A round queued past convergence costs only its launches. The flags come from cudacca's
stream-ordered pool (StreamBuffer): no device-wide synchronization, nothing shared between calls; they are
freed on the stream when this function returns or throws. `name` prefixes the error messages. */
template <typename QueueRound>
void iterateUntilUnchanged(QueueRound&& queueRound, RoundBatches batches, const char* name, cudaStream_t stream)
{
    auto check = [name](cudaError_t status, const char* what) {
        if (status != cudaSuccess)
            checkCuda(status, (std::string(name) + " " + what).c_str());
    };
    StreamBuffer flagBuffer;
    int* const flags = static_cast<int*>(flagBuffer.allocate(batches.max * sizeof(int), stream));
    for (int rounds = batches.first;; rounds = rounds * 2 < batches.max ? rounds * 2 : batches.max)
    {
        check(cudaMemsetAsync(flags, 0, rounds * sizeof(int), stream), "cudaMemsetAsync (round flags)");
        for (int r = 0; r < rounds; ++r)
            queueRound(r == 0 ? static_cast<const int*>(nullptr) : flags + r - 1, flags + r);
        int changed = 0;
        check(cudaMemcpyAsync(&changed, flags + rounds - 1, sizeof(int), cudaMemcpyDeviceToHost, stream),
              "cudaMemcpyAsync (round flag)");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (round flag)");
        if (changed == 0)
            break;
    }
}

}}} // namespace cv::cuda::cudacca

#endif
