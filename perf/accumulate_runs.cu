// accumulate_runs: the FLSL family's statistics from the ranked run table (flsl_labeling.cu, accumulateRunsKernel,
// with Conflict Detection as in CCA_DEFAULT) timed for several widths of the row segments a warp takes
// (statsSegments; issue 12's 2048², g = 1 miss: with a warp per row, 2048 rows make 2048 warps, about 16 an SM).
// Standalone (no OpenCV): flsl_labeling.cu and analysis.cu are compiled into this translation unit.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I modules/cudacca/src -I perf -o accumulate_runs perf/accumulate_runs.cu
//   ./accumulate_runs [side 2048] [granularity 1] [density 0.5] [calls 30] [connectivity 8]   (granularity 0: the full image)
//
// Variants (median us of `calls` calls, CUDA events around the kernel alone, each call preceded untimed by the
// accumulators' initialization): the module's choice (`auto`), then W words a segment (`wW`; the row's words: a
// warp per row, as before segments), each without and with the statistics' block table (`wW table`: StatsTable,
// forced), and last FLSL's plain atomics (`atomic`) in the module's segments. Checked: every variant's accumulators
// equal the first's, byte for byte.
// With ACCUMULATE_RUNS_DUMP=FILE only `auto` runs, and its accumulators go to FILE (to compare two builds with cmp).
// Tables of at most 65536 counted runs (e.g. the 8192² full image) take the statistics from the recorded runs
// (runStatsBlock) in every Conflict Detection variant (`atomic` keeps the row segments); OPENCV_CUDACCA_RUN_STATS=1
// times the row segments there.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "standalone_flsl.hpp"

using namespace cv::cuda::cudacca;
using standalone::check;

int main(int argc, char** argv)
{
    standalone::Ranked r;
    if (argc <= 1) // this tool's default size
        r.side = 2048;
    if (!r.setUp(argc, argv, "accumulate_runs", false))
        return 2;
    FullRunLabeling& labeling = r.labeling;
    cudaStream_t stream = r.stream;
    int n = 0;
    check(cudaMemcpy(&n, r.dCount, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const int count = n + 1; // the labels and the background
    const size_t bytes = statsAccumulatorBytes(count);
    void* memory = nullptr;
    check(cudaMalloc(&memory, bytes), "cudaMalloc");
    const int shift = statsAreaShift(r.side, r.side);
    const unsigned wordsPerRow = static_cast<unsigned>(labeling.table_.wordsPerRow);
    std::printf("accumulate_runs: %d^2, %d-conn, g = %d, d = %.2f, %zu runs, %d labels, %d calls; the module's segments: %u words\n",
                r.side, r.connectivity, r.g, r.g > 0 ? r.d : 1.0, labeling.runs_, n, r.calls, labeling.statsSegments().words);

    standalone::EventTimer timer;
    std::vector<unsigned char> reference, got(bytes);
    int status = 0;
    const char* dump = std::getenv("ACCUMULATE_RUNS_DUMP");
    std::vector<unsigned> widths = { 0, wordsPerRow };
    for (unsigned w : { 64u, 32u, 16u, 8u })
        if (w < wordsPerRow)
            widths.push_back(w);
    if (dump)
        widths.resize(1);
    struct Variant { unsigned words; size_t table; RunFeatureMerge merge; };
    std::vector<Variant> variants;
    for (unsigned w : widths)
        for (size_t table : { size_t(1), size_t(2) })
            variants.push_back({ w, w == 0 ? 0 : table, RunFeatureMerge::ConflictDetection }); // `auto` once
    variants.erase(std::unique(variants.begin(), variants.end(),
                               [](const Variant& a, const Variant& b) { return a.words == b.words && a.table == b.table; }),
                   variants.end());
    if (!dump)
        variants.push_back({ 0, 0, RunFeatureMerge::Atomic }); // FLSL's plain atomics, the module's segments
    for (const Variant& v : variants)
    {
        const unsigned w = v.words;
        standalone_settings::statsSegmentWords = w;
        standalone_settings::statsTable = v.table;
        std::vector<float> us;
        StatsAccumulators acc = {};
        for (int i = 0; i <= r.calls; ++i)
        {
            acc = initStatsAccumulators(memory, count, stream, nullptr, shift);
            const float t = timer.us(stream, [&] { labeling.accumulate(v.merge, acc, stream); },
                                     "accumulate");
            if (i > 0) // the first: warm-up
                us.push_back(t);
        }
        check(cudaMemcpy(got.data(), memory, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
        const char* verdict = standalone::compareWithReference(reference, got, status);
        std::sort(us.begin(), us.end());
        char name[24];
        if (v.merge == RunFeatureMerge::Atomic)
            std::snprintf(name, sizeof name, "atomic (FLSL)");
        else if (w == 0)
            std::snprintf(name, sizeof name, "auto (%s)",
                          labeling.statsTable(RunFeatureMerge::ConflictDetection, acc) ? "table kernel" : "no table");
        else
            std::snprintf(name, sizeof name, "w%u%s", w, v.table == 2 ? " table" : "");
        std::printf("  %-16s %8.2f us (min %.2f, max %.2f) %s\n", name, us[us.size() / 2], us.front(), us.back(), verdict);
    }
    if (dump)
    {
        FILE* f = std::fopen(dump, "wb");
        if (!f || std::fwrite(got.data(), 1, got.size(), f) != got.size())
            status = 1;
        if (f)
            std::fclose(f);
    }
    return status;
}
