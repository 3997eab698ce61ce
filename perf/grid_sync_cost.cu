// grid_sync_cost: what a cooperative launch and each grid-wide barrier (cooperative groups' grid.sync) cost in a
// kernel of the one-launch kernel's shape (512 threads a block, one or two blocks per SM, about 40 KB of static shared
// memory), on an idle GPU: the median time between CUDA events around the launch of a kernel with 0, 1, 4 and 16
// barriers and nothing else (doc/benchmarks.md, "N before the kernel ends"). A diagnostic, not part of the benchmark
// protocol. Standalone:
//   nvcc -O3 -arch=sm_90 perf/grid_sync_cost.cu -o grid_sync_cost && ./grid_sync_cost

#include <algorithm>
#include <cstdio>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(512, 2) barriers(int count, int* out)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int pad[10000]; // (about the one-launch kernel's shared memory)
    pad[threadIdx.x] = threadIdx.x;
    for (int i = 0; i < count; ++i)
        grid.sync();
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[0] = pad[5];
}

int main()
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int* out = nullptr;
    cudaMalloc(&out, sizeof(int));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int blocks : { sms, 2 * sms })
        for (int count : { 0, 1, 4, 16 })
        {
            std::vector<float> us;
            for (int r = 0; r < 300; ++r)
            {
                void* args[] = { &count, &out };
                cudaEventRecord(a);
                cudaLaunchCooperativeKernel(reinterpret_cast<void*>(barriers), dim3(blocks), dim3(512), args, 0, 0);
                cudaEventRecord(b);
                cudaEventSynchronize(b);
                float ms = 0;
                cudaEventElapsedTime(&ms, a, b);
                us.push_back(ms * 1000);
            }
            std::sort(us.begin(), us.end());
            std::printf("blocks %d, barriers %2d: median %.2f us (p10 %.2f)\n", blocks, count, us[us.size() / 2],
                        us[us.size() / 10]);
        }
    const cudaError_t e = cudaGetLastError();
    std::printf("%s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
