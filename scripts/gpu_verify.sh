#!/usr/bin/env bash
# The GPU verification run: on a machine with an NVIDIA GPU, runs the parts named in CUDACCA_VERIFY
# (default "accuracy python samples perf") and prints a compact summary last. Parts:
#   accuracy   the whole accuracy suite (opencv_test_cudacca; large-image tests skip); CUDACCA_GTEST_FILTER (a
#              gtest filter) and CUDACCA_TEST_ALGORITHMS (the parameterized rows) narrow it.
#              CUDACCA_ACCURACY_SHARDS runs it as parallel processes, one per algorithm list: "A" or "B" (the two
#              halves of the whole suite, one device command each, see doc/verification.md), or lists separated
#              by ";" (e.g. "DEFAULT,FLSL;KE,BKE"); each shard stops after CUDACCA_ACCURACY_SECONDS (540), and the
#              summary adds the shards up. Shards skip CUDACCA_Memory.OutOfDeviceMemory (it takes the whole GPU's
#              memory from the others); half A runs it alone afterwards unless CUDACCA_OOM_ALONE=0
#   python     the Python binding tests
#   samples    the C++ and Python samples with --check
#   perf       a short perf run (CUDACCA_PERF_ARGS)
#   fuzz       differential fuzzing: CUDACCA_FUZZ_IMAGES (100000) images, stops after CUDACCA_FUZZ_SECONDS (540);
#              CUDACCA_FUZZ_ALGOS_PER_IMAGE=k runs k random algorithms per image (0: all)
#   sanitizer  compute-sanitizer memcheck, racecheck, synccheck, initcheck on the representative subset,
#              per algorithm (CUDACCA_SANITIZE_ALGOS), with OPENCV_CUDACCA_BAND_MIN_RUNS=1 and
#              OPENCV_CUDACCA_STATS_SEGMENT_WORDS=1 unless set (the subset's images are far too small for the FLSL
#              family's band compression and row segments otherwise: labeling.hpp)
#   large      16384^2, 32768^2 and 46340^2 images against the CPU (CUDACCA_LARGE_TESTS=1)
#   bench      the cross-library benchmark (cudacca_bench, doc/benchmarks.md) into $OUT/bench, then
#              perf/peers.py (CuPy) and perf/plot.py's summary; CUDACCA_BENCH_ARGS (e.g. --quick) go to the bench
#   ab         A/B of builds (doc/benchmarks.md, "Comparing two builds"): the bundle's benchmark once per library
#              variant staged by scripts/stage_ab_library.sh in BUNDLE/var/ (CUDACCA_AB_VARIANTS: names, the
#              first is the base; default all, in name order), CUDACCA_AB_ROUNDS rounds (1), with
#              CUDACCA_BENCH_ARGS (default --sizes 2048 --interleave), then perf/compare.py of each run against
#              the base's first (grouped by connectivity too), and with several rounds the median per case and
#              perf/process_means.py per side (images of side CUDACCA_AB_WIDTH, default 2048); `--max-seconds S`
#              in CUDACCA_BENCH_ARGS stops each benchmark process between cases, so that rounds too long for the
#              device command still end and pack.
#              A variant's folder may hold a file ENV (lines NAME=VALUE, e.g. OPENCV_CUDACCA_LAUNCH_GRAPHS=2) set for
#              its processes, and then needs no library: a setting of one build against its default
# Each device command may run 10 minutes: run fuzz, sanitizer and large as separate commands.
# Binaries may come from the build tree (default) or from a bundle made by stage_gpu_bundle.sh:
#   CUDACCA_VERIFY="fuzz" scripts/gpu_verify.sh [bundle dir with bin/ lib/ python/]
# Logs go to $OUT (or build/verify); CUDACCA_PACK=FILE.tgz packs them into one file at the end (the device tool
# brings back at most 8 files).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/build/verify}; mkdir -p "$out"
if [ $# -ge 1 ]; then
  bundle=$(cd "$1" && pwd); bin=$bundle/bin; lib=$bundle/lib; py=$bundle/python
else
  bin=$root/build/opencv/bin; lib=$root/build/opencv/lib; py=$root/build/opencv/lib/python3
fi
export LD_LIBRARY_PATH=$lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONPATH=$py${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1 OPENCV_TEST_DATA_PATH=${OPENCV_TEST_DATA_PATH:-$root}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
commit=$(cat "${bundle:-/nonexistent}/COMMIT" 2>/dev/null | tr '\n' ' ' || true)
[ -n "$commit" ] || commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "cudacca GPU verification: commit $commit, $(date -u +%F), GPU: ${gpu:-none}"

parts=" ${CUDACCA_VERIFY:-accuracy python samples perf} "
want() { [[ "$parts" == *" $1 "* ]]; }
status=0

# The whole suite in two halves, balanced by the per-algorithm times of session 22's run and timed in session 23
# (doc/verification.md): the slow iterative algorithms (NP, LNP, DPL, RASMUSSEN, 8DLS, M8DLS) in half B. Session 23:
# half A's shards 156-195 s plus OutOfDeviceMemory alone 187 s; half B's first three 335-402 s, its fourth (ten
# algorithms) over 510 s, hence split in two. Session 34, on H100s: LE,STAVA,BRB,BE,LBUF passed the 540 s limit, hence
# split in two again.
shards_A="DEFAULT,FLSL,FLSL_CD;FLSL_OTF,KE,BKE;UF,BUF,HA,TMK;OLE,RCU"
shards_B="NP,RASMUSSEN;LNP,DPL;8DLS,M8DLS;LE,STAVA;BRB,BE,LBUF;ACCL,DLP,C_SAUF,C_BBDT,C_DRAG"
if want accuracy; then
  echo "== accuracy suite"
  shards=${CUDACCA_ACCURACY_SHARDS:-}
  [ "$shards" = A ] && shards=$shards_A
  [ "$shards" = B ] && shards=$shards_B
  if [ -z "$shards" ]; then
    "$bin/opencv_test_cudacca" --gtest_filter="${CUDACCA_GTEST_FILTER:-*}" --gtest_output=xml:"$out/accuracy.xml" \
      >"$out/accuracy.log" 2>&1 || status=1
    tail -n 5 "$out/accuracy.log"
  else
    IFS=';' read -r -a lists <<< "$shards"
    filter=${CUDACCA_GTEST_FILTER:-*}
    [[ "$filter" == *-* ]] && filter="$filter:CUDACCA_Memory.OutOfDeviceMemory" || filter="$filter-CUDACCA_Memory.OutOfDeviceMemory"
    pids=()
    for i in "${!lists[@]}"; do
      CUDACCA_TEST_ALGORITHMS=${lists[$i]} timeout "${CUDACCA_ACCURACY_SECONDS:-540}" "$bin/opencv_test_cudacca" \
        --gtest_filter="$filter" \
        --gtest_output=xml:"$out/accuracy_$i.xml" >"$out/accuracy_$i.log" 2>&1 &
      pids+=($!)
    done
    for i in "${!lists[@]}"; do
      wait "${pids[$i]}"; rc=$?
      [ $rc -eq 0 ] || status=1
      echo "shard $i (${lists[$i]}): rc=$rc, $(grep -cE '^\[       OK \]' "$out/accuracy_$i.log") passed, $(grep -cE '^\[  FAILED  \]' "$out/accuracy_$i.log") failure lines$([ $rc -eq 124 ] && echo ', STOPPED AT THE TIME LIMIT')"
    done
    if [ "${CUDACCA_ACCURACY_SHARDS}" = A ] && [ "${CUDACCA_OOM_ALONE:-1}" != 0 ]; then
      i=${#lists[@]}
      "$bin/opencv_test_cudacca" --gtest_filter=CUDACCA_Memory.OutOfDeviceMemory --gtest_output=xml:"$out/accuracy_$i.xml" \
        >"$out/accuracy_$i.log" 2>&1 || status=1
      echo "then alone: $(grep -E '^\[ +(OK|FAILED) +\] CUDACCA_Memory' "$out/accuracy_$i.log" | head -1)"
    fi
    cat "$out"/accuracy_*.log > "$out/accuracy.log"
  fi
  grep -E '^\[  FAILED  \]' "$out/accuracy.log" | head -20
  grep -E '^\[ (MEMORY|FUZZ) ' "$out/accuracy.log" > "$out/accuracy_figures.txt" || true
fi

if want python; then
  echo "== python tests"
  python3 -m unittest discover -v -s "$root/modules/cudacca/misc/python/test" -p 'test_*.py' >"$out/python.log" 2>&1 || status=1
  tail -n 4 "$out/python.log"
fi

if want samples; then
  echo "== sample --check"
  if [ -x "$bin/cudacca_sample" ]; then
    (cd "$out" && "$bin/cudacca_sample" --check >"$out/sample.log" 2>&1) || status=1
    grep -E 'MATCH|labels|components' "$out/sample.log" | head -4
  fi
  python3 "$root/samples/cudacca_sample.py" --check --output "$out/sample_py.png" >"$out/sample_py.log" 2>&1 || status=1
  grep -E 'MATCH' "$out/sample_py.log" | head -2
fi

if want perf; then
  echo "== perf (short)"
  "$bin/opencv_perf_cudacca" ${CUDACCA_PERF_ARGS:---perf_min_samples=10 --perf_force_samples=10} \
    --gtest_output=xml:"$out/perf.xml" >"$out/perf.log" 2>&1 || status=1
  grep -E 'Gpix/s' "$out/perf.log" > "$out/perf_throughput.txt" || true
  tail -n 3 "$out/perf.log"
fi

if want fuzz; then
  echo "== fuzz"
  CUDACCA_FUZZ_IMAGES=${CUDACCA_FUZZ_IMAGES:-100000} CUDACCA_FUZZ_SECONDS=${CUDACCA_FUZZ_SECONDS:-540} \
    CUDACCA_FUZZ_ALGOS_PER_IMAGE=${CUDACCA_FUZZ_ALGOS_PER_IMAGE:-0} \
    "$bin/opencv_test_cudacca" --gtest_filter='CUDACCA_Fuzz.DifferentialAgainstCpu' \
    --gtest_output=xml:"$out/fuzz.xml" >"$out/fuzz.log" 2>&1 || status=1
  grep -E '^\[ (FUZZ|fuzz) |seed 0x|FAILED' "$out/fuzz.log" | head -12
fi

if want sanitizer; then
  echo "== compute-sanitizer"
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  : > "$out/sanitizer_summary.txt"
  # One job per algorithm x tool, CUDACCA_SANITIZE_JOBS (8) at a time: each is a separate process on the
  # same GPU, and serially the 44 jobs would take far longer than one device command may run.
  sanitize_one() {  # algo tool
    local algo=$1 tool=$2 log="$out/sanitizer_$1_$2.log" extra="" rc tests summ
    [ "$tool" = memcheck ] && extra="--leak-check full"
    CUDACCA_TEST_ALGORITHMS=$algo timeout 400 "$cs" --tool "$tool" $extra --error-exitcode 9 \
      "$bin/opencv_test_cudacca" --gtest_filter='CUDACCA_Sanitizer.*' >"$log" 2>&1
    rc=$?
    tests=$(grep -oE '\[  PASSED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || echo 0)
    summ=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^========= //')
    printf '%-8s %-9s rc=%d passed=%s  %s\n' "$algo" "$tool" "$rc" "${tests:-0}" "${summ:-no summary}"
  }
  export -f sanitize_one; export cs bin out
  export OPENCV_CUDACCA_BAND_MIN_RUNS=${OPENCV_CUDACCA_BAND_MIN_RUNS:-1}
  export OPENCV_CUDACCA_STATS_SEGMENT_WORDS=${OPENCV_CUDACCA_STATS_SEGMENT_WORDS:-1}
  # Every algorithm of the module's one list (modules/cudacca/src/algorithm_list.hpp), names without CCA_, and
  # DEFAULT (its one-launch path for small images).
  all_algos="$(sed -nE 's/^ *X\(CCA_([A-Z0-9_]+),.*/\1/p' "$root/modules/cudacca/src/algorithm_list.hpp" | tr '\n' ' ')DEFAULT"
  for algo in ${CUDACCA_SANITIZE_ALGOS:-$all_algos}; do
    for tool in memcheck racecheck synccheck initcheck; do echo "$algo $tool"; done
  done | xargs -P "${CUDACCA_SANITIZE_JOBS:-8}" -L 1 bash -c 'sanitize_one "$0" "$1"' | sort | tee "$out/sanitizer_summary.txt"
  grep -q ' rc=[^0]' "$out/sanitizer_summary.txt" && status=1
fi

if want large; then
  echo "== large images"
  CUDACCA_LARGE_TESTS=1 "$bin/opencv_test_cudacca" --gtest_filter='CUDACCA_Large.*' \
    --gtest_output=xml:"$out/large.xml" >"$out/large.log" 2>&1 || status=1
  grep -E 'Gpixel|FAILED|OK \]' "$out/large.log" | head -12
fi

if want bench; then
  echo "== bench"
  mkdir -p "$out/bench"
  bench_bin=$bin/cudacca_bench
  [ -x "$bench_bin" ] || bench_bin=$root/build/perf/cudacca_bench
  # keep $out/bench small (few files come back from a device run): the real images for peers.py go to build/
  "$bench_bin" --out "$out/bench" --commit "$commit" --data "$root/samples/data" \
    --inputs-dir "$root/build/bench-inputs" ${CUDACCA_BENCH_ARGS:-} >"$out/bench/bench.log" 2>&1 || status=1
  grep -E '^\[ (time|stop) \]|MISMATCH|no CUDA' "$out/bench/bench.log" | tail -20
  if [ -f "$root/perf/peers.py" ]; then
    python3 "$root/perf/peers.py" --out "$out/bench" >"$out/bench/peers.log" 2>&1 || status=1
    tail -n 4 "$out/bench/peers.log"
  fi
  # summary.md only: the plots are drawn from results.csv afterwards (few files in $out/bench)
  python3 "$root/perf/plot.py" "$out/bench/results.csv" --out "$out/bench" --no-plots 2>&1 | tail -n 3
fi

if want ab; then
  echo "== A/B benchmark"
  if [ -z "${bundle:-}" ] || [ ! -d "$bundle/var" ]; then
    echo "ab: no library variants (scripts/stage_ab_library.sh puts them in BUNDLE/var)"; status=1
  else
    variants=${CUDACCA_AB_VARIANTS:-$(ls "$bundle/var" | tr '\n' ' ')} # (one line: the first is the base)
    read -r -a order <<< "$variants"
    base=""
    for round in $(seq 1 "${CUDACCA_AB_ROUNDS:-1}"); do
      # The order turns by one each round: no variant always runs first (the first process on a machine ran up to
      # 15 % faster at 2048², g = 16: doc/benchmarks.md, "The A/B protocol's first round").
      for i in "${!order[@]}"; do
        v=${order[$(( (i + round - 1) % ${#order[@]} ))]}
        run=$out/ab/${v}_$round; mkdir -p "$run"
        LD_LIBRARY_PATH=$bundle/var/$v:$LD_LIBRARY_PATH ldd "$bin/cudacca_bench" | grep -o 'libopencv_cudacca[^ ]* => [^ ]*'
        settings=()
        [ -f "$bundle/var/$v/ENV" ] && mapfile -t settings < <(grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$bundle/var/$v/ENV")
        [ ${#settings[@]} -eq 0 ] || echo "$v: ${settings[*]}"
        started=$(date +%s)
        env "${settings[@]}" LD_LIBRARY_PATH=$bundle/var/$v:$LD_LIBRARY_PATH "$bin/cudacca_bench" --out "$run" \
          --commit "$(head -1 "$bundle/var/$v/COMMIT" 2>/dev/null || echo "$v")" --data "$root/samples/data" \
          --inputs-dir "$root/build/bench-inputs" ${CUDACCA_BENCH_ARGS:---sizes 2048 --interleave} >"$run/bench.log" 2>&1 || status=1
        echo "$v round $round ($(( $(date +%s) - started )) s): $(tail -n 1 "$run/bench.log")"
        rm -f "$run/inputs.csv"
        [ -n "$base" ] || base=$run/results.csv
      done
    done
    for run in "$out"/ab/*/results.csv; do
      [ "$run" = "$base" ] && continue
      echo "-- $(basename "$(dirname "$run")") against $(basename "$(dirname "$base")") (time ratio, below 1: faster)"
      python3 "$root/perf/compare.py" "$base" "$run" --by library,algorithm,connectivity,variant,g --worst 3
    done
    # With several rounds: each variant against the base, per case the median of each side's rounds.
    if [ "${CUDACCA_AB_ROUNDS:-1}" -gt 1 ]; then
      first=${variants%% *}
      rounds() { ls "$out"/ab/"$1"_*/results.csv | paste -sd, -; }
      for v in $variants; do
        [ "$v" = "$first" ] && continue
        echo "-- $v against $first, the median of ${CUDACCA_AB_ROUNDS} rounds per case (time ratio, below 1: faster)"
        python3 "$root/perf/compare.py" "$(rounds "$first")" "$(rounds "$v")" --by library,algorithm,connectivity,variant,width,g --worst 3 --median
      done
      # and each side's processes: the summary's means per process, their median and range (perf/process_means.py)
      sides=()
      for v in $variants; do sides+=("$v=$(rounds "$v")"); done
      python3 "$root/perf/process_means.py" "${sides[@]}" --width "${CUDACCA_AB_WIDTH:-2048}"
    fi
  fi
fi

echo
echo "================ SUMMARY (commit $commit, $(date -u +%F), ${gpu:-no GPU}) ================"
python3 - "$out" <<'PY'
import sys, xml.etree.ElementTree as ET, os, re
out = sys.argv[1]
def counts(names, log):
    # the shards' XML files are added up; a shard stopped at its time limit wrote none (its log says how far it got)
    t = f = 0
    for name in names:
        r = ET.parse(os.path.join(out, name)).getroot()
        t, f = t + int(r.get("tests", 0)), f + int(r.get("failures", 0)) + int(r.get("errors", 0))
    # OpenCV ts reports skips in the log only ("[ SKIPSTAT ] N tests skipped")
    sk = sum(int(m) for m in re.findall(r"SKIPSTAT \] (\d+) tests? skipped", open(os.path.join(out, log)).read()))
    return f"{t} tests, {t - f - sk} passed, {f} failed, {sk} skipped"
shard_xml = sorted(n for n in os.listdir(out) if re.fullmatch(r"accuracy_\d+\.xml", n))
for part, xmls, log in (("accuracy", ["accuracy.xml"] if os.path.exists(os.path.join(out, "accuracy.xml")) else shard_xml,
                         "accuracy.log"), ("fuzz", ["fuzz.xml"], "fuzz.log"), ("large", ["large.xml"], "large.log")):
    there = [x for x in xmls if os.path.exists(os.path.join(out, x))]
    if there:
        print(f"{part + ':':9}", counts(there, log))
    if part == "accuracy":
        logs = sorted(n for n in os.listdir(out) if re.fullmatch(r"accuracy_\d+\.log", n))
        stopped = [n for n in logs if n[:-4] + ".xml" not in there]
        if stopped:
            print("          NO RESULT (stopped at the time limit, or crashed):", ", ".join(stopped))
for name in ("accuracy.log", "fuzz.log", "large.log"):
    p = os.path.join(out, name)
    if os.path.exists(p):
        for l in open(p).read().splitlines():
            if l.startswith(("[ FUZZ ", "[ MEMORY ")) or "Gpixel)" in l:
                print("  ", l.strip())
p = os.path.join(out, "sanitizer_summary.txt")
if os.path.exists(p):
    print("sanitizer:")
    for l in open(p).read().splitlines(): print("  ", l)
if os.path.exists(os.path.join(out, "python.log")):
    py = open(os.path.join(out, "python.log")).read()
    m = re.search(r"Ran (\d+) tests?.*?\n\n(OK.*|FAILED.*)", py, re.S)
    print("python:  ", (m.group(1) + " tests, " + m.group(2).strip()) if m else "no result")
for name in ("sample.log", "sample_py.log"):
    p = os.path.join(out, name)
    if os.path.exists(p):
        s = open(p).read(); print(f"{name:9}", "MATCH" if "MATCH" in s and "MISMATCH" not in s else "NO MATCH / error")
if os.path.exists(os.path.join(out, "perf.xml")):
    print("perf:    ", counts(["perf.xml"], "perf.log"))
p = os.path.join(out, "perf_throughput.txt")
if os.path.exists(p):
    lines = open(p).read().splitlines()
    for l in lines[-40:]: print("  ", l.strip())
PY
# The device tool brings back at most 8 files from $OUT: CUDACCA_PACK=FILE.tgz packs this run's whole output
# folder into one archive (and removes the folder), e.g. D=$OUT; OUT=/tmp/v CUDACCA_PACK=$D/v.tgz. Not
# OUT=/tmp/v CUDACCA_PACK=$OUT/v.tgz: bash expands $OUT there after the assignment before it, so the archive would
# lie inside the folder it packs (session 47 lost an A/B's files that way); such a CUDACCA_PACK is refused.
if [ -n "${CUDACCA_PACK:-}" ]; then
  pack_dir=$(mkdir -p "$(dirname "$CUDACCA_PACK")" && cd "$(dirname "$CUDACCA_PACK")" && pwd)
  out_dir=$(cd "$out" && pwd)
  case "$pack_dir/" in
    "$out_dir"/*)
      echo "CUDACCA_PACK=$CUDACCA_PACK lies inside OUT=$out, which packing removes: not packed (name it outside OUT)"
      status=1 ;;
    *)
      tar czf "$CUDACCA_PACK" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out" && echo "packed into $CUDACCA_PACK" ;;
  esac
fi
exit $status
