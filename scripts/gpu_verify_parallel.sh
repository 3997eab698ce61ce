#!/usr/bin/env bash
# The whole GPU verification in one device command, on a machine of 4 GPUs (device kind nvidia-h100-x4): the four
# jobs below run at once, one per GPU (CUDA_VISIBLE_DEVICES), each a scripts/gpu_verify.sh run with its own output
# packed into $OUT/jobN.tgz; their summaries are printed last, in order. On one GPU the same jobs take about 20
# minutes of device time (half A 450 s, half B 460, job 3 130, job 4 180: session 31), here about the longest, 8.
#   1  accuracy half A (shards in parallel)
#   2  accuracy half B
#   3  fuzzing (CUDACCA_FUZZ_SECONDS, 40, every algorithm; then the run pipeline's algorithms with
#      OPENCV_CUDACCA_BAND_MIN_RUNS=1, OPENCV_CUDACCA_STATS_SEGMENT_WORDS=1 and OPENCV_CUDACCA_STATS_TABLE=2 (the
#      statistics' block table wherever it can be); then with OPENCV_CUDACCA_COUNT_RUNS=1,
#      so that small images take the run-count wait, the early table, the few-runs block and the statistics from the
#      recorded runs; then with OPENCV_CUDACCA_LAUNCH_GRAPHS=1, the run pipeline without its launch graphs (on by
#      default since session 59; the fuzz above and the tests run them), then
#      compute-sanitizer
#      on CUDACCA_SANITIZE_ALGOS (FLSL_CD FLSL DEFAULT BKE), then on FLSL_CD and FLSL with OPENCV_CUDACCA_COUNT_RUNS=1,
#      then on FLSL_CD with OPENCV_CUDACCA_STATS_TABLE=2;
#      with CUDACCA_JOB3_FIRST (gpu_verify.sh parts, e.g. "ab" with CUDACCA_AB_* and CUDACCA_BENCH_ARGS set, or
#      "perf"), those parts first: job 3 ends well before half B (session 35: an A/B of 2048² took 150 s there,
#      the whole command 519 s on 4 H200s), so a benchmark fits the same device command
#   4  CUDACCA_Memory.OutOfDeviceMemory alone (it takes the whole GPU's memory; in job 1 until session 34, when on
#      H100s half A's shards and it passed the 590 s of a command), the large images (16384², 32768², 46340²:
#      CUDACCA_LARGE_ALGORITHMS, default the run pipeline's four), Python tests, both samples
# With fewer GPUs job k runs on GPU k mod n, after the job before it there; two GPUs then need more than one device
# command (10 minutes): set CUDACCA_PARALLEL_JOBS (e.g. "1 2", then "3 4").
# Usage: OUT=/path scripts/gpu_verify_parallel.sh BUNDLE   (BUNDLE: scripts/stage_gpu_bundle.sh's .carry)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:?usage: gpu_verify_parallel.sh BUNDLE}
out=${OUT:?OUT: the folder that comes back}
mkdir -p "$out"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || { echo "no GPU"; exit 1; }
fuzz=${CUDACCA_FUZZ_SECONDS:-40}
run_pipeline=DEFAULT,FLSL,FLSL_CD,FLSL_OTF

job() {  # N: runs job N, its output in $out/jobN (packed into jobN.tgz), its printout in $out/jobN.txt
  local n=$1 dir=$out/job$1 rc=0
  verify() { bash "$root/scripts/gpu_verify.sh" "$bundle" || rc=1; }
  {
    case $n in
      1) CUDACCA_VERIFY=accuracy CUDACCA_ACCURACY_SHARDS=A CUDACCA_OOM_ALONE=0 OUT=$dir/a verify ;;
      2) CUDACCA_VERIFY=accuracy CUDACCA_ACCURACY_SHARDS=B OUT=$dir/b verify ;;
      3) [ -z "${CUDACCA_JOB3_FIRST:-}" ] || CUDACCA_VERIFY=$CUDACCA_JOB3_FIRST OUT=$dir/first verify
         CUDACCA_VERIFY=fuzz CUDACCA_FUZZ_SECONDS=$fuzz CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$dir/fuzz verify
         OPENCV_CUDACCA_BAND_MIN_RUNS=1 OPENCV_CUDACCA_STATS_SEGMENT_WORDS=1 OPENCV_CUDACCA_STATS_TABLE=2 \
           CUDACCA_TEST_ALGORITHMS=$run_pipeline CUDACCA_VERIFY=fuzz \
           CUDACCA_FUZZ_SECONDS=$fuzz CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$dir/fuzz_bands verify
         OPENCV_CUDACCA_COUNT_RUNS=1 CUDACCA_TEST_ALGORITHMS=$run_pipeline CUDACCA_VERIFY=fuzz \
           CUDACCA_FUZZ_SECONDS=$fuzz CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$dir/fuzz_counted verify
         OPENCV_CUDACCA_LAUNCH_GRAPHS=1 CUDACCA_TEST_ALGORITHMS=$run_pipeline CUDACCA_VERIFY=fuzz \
           CUDACCA_FUZZ_SECONDS=$fuzz CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$dir/fuzz_no_graphs verify
         CUDACCA_SANITIZE_ALGOS=${CUDACCA_SANITIZE_ALGOS:-FLSL_CD FLSL DEFAULT BKE} CUDACCA_VERIFY=sanitizer \
           OUT=$dir/sanitizer verify
         OPENCV_CUDACCA_COUNT_RUNS=1 CUDACCA_SANITIZE_ALGOS="FLSL_CD FLSL" CUDACCA_VERIFY=sanitizer \
           OUT=$dir/sanitizer_counted verify
         OPENCV_CUDACCA_STATS_TABLE=2 CUDACCA_SANITIZE_ALGOS="FLSL_CD" CUDACCA_VERIFY=sanitizer \
           OUT=$dir/sanitizer_table verify ;;
      4) CUDACCA_VERIFY=accuracy CUDACCA_GTEST_FILTER=CUDACCA_Memory.OutOfDeviceMemory OUT=$dir/oom verify
         CUDACCA_TEST_ALGORITHMS=${CUDACCA_LARGE_ALGORITHMS:-$run_pipeline} CUDACCA_VERIFY=large OUT=$dir/large verify
         CUDACCA_VERIFY="python samples" OUT=$dir/pysamples verify ;;
    esac
  } > "$out/job$n.txt" 2>&1
  tar czf "$out/job$n.tgz" -C "$out" "job$n" && rm -rf "$dir"
  return $rc
}

declare -A queue
for n in ${CUDACCA_PARALLEL_JOBS:-1 2 3 4}; do
  g=$(( (n - 1) % gpus ))
  queue[$g]="${queue[$g]:-} $n"
done
pids=()
t0=$(date +%s)
for g in "${!queue[@]}"; do
  ( export CUDA_VISIBLE_DEVICES=$g
    for n in ${queue[$g]}; do
      s=$(date +%s); job "$n"; echo "job $n on GPU $g: rc=$?, $(( $(date +%s) - s )) s" >> "$out/times.txt"
    done ) &
  pids+=($!)
done
wait "${pids[@]}"
echo "all jobs: $(( $(date +%s) - t0 )) s on $gpus GPU(s)"
sort "$out/times.txt"
status=0
for n in ${CUDACCA_PARALLEL_JOBS:-1 2 3 4}; do
  echo; echo "######## job $n"
  # the summaries' lines (the whole printout: jobN.txt)
  grep -E 'SUMMARY|shard|then alone|passed|failed|FAILED|MEMORY|FUZZ|mismatch|rc=|Gpixel|OK|MATCH|python' \
    "$out/job$n.txt" | grep -v '^cudacca GPU verification' | head -n 40
  grep -q "^job $n .*rc=0" "$out/times.txt" || status=1
done
exit $status
