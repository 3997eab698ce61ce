#!/usr/bin/env bash
# session 35's one device command (not committed): the whole suite on 4 GPUs, with job 3 replaced by an A/B on GPU 2
# first, then job 3's fuzzing and sanitizers there; GPU 2's logs packed into $OUT/g2.tgz after each step
set -u
out=$OUT
w=/tmp/g2; rm -rf $w; mkdir -p $w
( OUT=$out/v CUDACCA_PARALLEL_JOBS="1 2 4" timeout 520 bash scripts/gpu_verify_parallel.sh .carry > /tmp/v.txt 2>&1 ) &
vp=$!
(
  export CUDA_VISIBLE_DEVICES=2
  pack() { tar czf $out/g2.tgz -C /tmp g2; }
  CUDACCA_VERIFY=ab CUDACCA_AB_ROUNDS=2 CUDACCA_AB_VARIANTS="base new" CUDACCA_BENCH_ARGS="--sizes 2048 --algorithms DEFAULT --libraries cudacca --interleave" OUT=$w/ab timeout 150 bash scripts/gpu_verify.sh .carry > $w/ab.txt 2>&1; pack
  echo "######## A/B (GPU 2)"; grep -A40 "fastest of 2 rounds" $w/ab.txt | head -45
  CUDACCA_VERIFY=fuzz CUDACCA_FUZZ_SECONDS=30 CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$w/fuzz timeout 60 bash scripts/gpu_verify.sh .carry > $w/fuzz.txt 2>&1; pack
  OPENCV_CUDACCA_BAND_MIN_RUNS=1 CUDACCA_TEST_ALGORITHMS=DEFAULT,FLSL,FLSL_CD,FLSL_OTF CUDACCA_VERIFY=fuzz CUDACCA_FUZZ_SECONDS=25 CUDACCA_FUZZ_ALGOS_PER_IMAGE=3 OUT=$w/fuzz_bands timeout 55 bash scripts/gpu_verify.sh .carry > $w/fuzz_bands.txt 2>&1; pack
  echo "######## fuzz"; grep -h "FUZZ  \|mismatch" $w/fuzz.txt $w/fuzz_bands.txt | sort -u | head -8
  CUDACCA_SANITIZE_ALGOS="DEFAULT BKE FLSL_CD" CUDACCA_VERIFY=sanitizer OUT=$w/sanitizer timeout 180 bash scripts/gpu_verify.sh .carry > $w/sanitizer.txt 2>&1; pack
  echo "######## sanitizer"; grep -E "initcheck|memcheck|racecheck|synccheck" $w/sanitizer.txt | sort -u | head -16
) &
gp=$!
wait $gp; wait $vp
echo "######## suite"; grep -E "^job|all jobs|shard|accuracy:|large:|python:|MATCH|FAILED|Failure" /tmp/v.txt | head -40
