// cudacca_bench: timing helpers (CUDA events on a stream, wall clock) and sample statistics.

#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace bench {

static void cudaOrThrow(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

namespace {
double busyUs = 0;
}

void setBusyGpu(double us) { busyUs = us; }
double busyGpu() { return busyUs; }

double Samples::median() const
{
    if (us.empty())
        return 0;
    std::vector<double> v(us);
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Samples::percentile(double p) const
{
    if (us.empty())
        return 0;
    std::vector<double> v(us);
    std::sort(v.begin(), v.end());
    const size_t rank = (size_t)std::ceil(p / 100.0 * (double)v.size());
    return v[std::min(v.size(), std::max<size_t>(rank, 1)) - 1];
}

std::vector<Samples> timeGpuInterleaved(cudaStream_t stream, int warmup, int n,
                                        const std::vector<std::function<void()>>& calls)
{
    for (const auto& call : calls)
        for (int i = 0; i < warmup; ++i)
            call();
    cudaOrThrow(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    cudaEvent_t start, stop;
    cudaOrThrow(cudaEventCreate(&start), "cudaEventCreate");
    cudaOrThrow(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<Samples> s(calls.size());
    for (int i = 0; i < n; ++i)
        for (size_t k = 0; k < calls.size(); ++k)
        {
            if (busyUs > 0)
                spinGpu(stream, busyUs);
            cudaOrThrow(cudaEventRecord(start, stream), "cudaEventRecord");
            calls[k]();
            cudaOrThrow(cudaEventRecord(stop, stream), "cudaEventRecord");
            cudaOrThrow(cudaEventSynchronize(stop), "cudaEventSynchronize");
            float ms = 0;
            cudaOrThrow(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
            s[k].us.push_back(ms * 1e3);
        }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return s;
}

Samples timeGpu(cudaStream_t stream, int warmup, int n, const std::function<void()>& call)
{
    return timeGpuInterleaved(stream, warmup, n, { call }).front();
}

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double secondsSince(double t0)
{
    return now() - t0;
}

std::vector<Samples> timeWallInterleaved(int warmup, int n, const std::vector<std::function<void()>>& calls)
{
    for (const auto& call : calls)
        for (int i = 0; i < warmup; ++i)
            call();
    std::vector<Samples> s(calls.size());
    for (int i = 0; i < n; ++i)
        for (size_t k = 0; k < calls.size(); ++k)
        {
            const double t0 = now();
            calls[k]();
            s[k].us.push_back(secondsSince(t0) * 1e6);
        }
    return s;
}

Samples timeWall(int warmup, int n, const std::function<void()>& call)
{
    return timeWallInterleaved(warmup, n, { call }).front();
}

} // namespace bench
