#!/usr/bin/env bash
# The GPU verification run: on a machine with an NVIDIA GPU, runs the whole accuracy suite, the Python
# tests, the sample with --check and a short perf run, and prints a compact summary last.
# Binaries may come from the build tree (default) or from a bundle made by stage_gpu_bundle.sh:
#   scripts/gpu_verify.sh [bundle dir with bin/ lib/ python/]
# Logs go to $OUT (or /tmp/cudacca-verify).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/cudacca-verify}; mkdir -p "$out"
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

status=0
echo "== accuracy suite"
"$bin/opencv_test_cudacca" --gtest_output=xml:"$out/accuracy.xml" >"$out/accuracy.log" 2>&1 || status=1
tail -n 5 "$out/accuracy.log"
grep -E '^\[  FAILED  \]' "$out/accuracy.log" | head -20

echo "== python tests"
python3 -m unittest discover -v -s "$root/modules/cudacca/misc/python/test" -p 'test_*.py' >"$out/python.log" 2>&1 || status=1
tail -n 4 "$out/python.log"

echo "== sample --check"
if [ -x "$bin/cudacca_sample" ]; then
  (cd "$out" && "$bin/cudacca_sample" --check >"$out/sample.log" 2>&1) || status=1
  grep -E 'MATCH|labels|components' "$out/sample.log" | head -4
fi
python3 "$root/samples/cudacca_sample.py" --check --output "$out/sample_py.png" >"$out/sample_py.log" 2>&1 || status=1
grep -E 'MATCH' "$out/sample_py.log" | head -2

echo "== perf (short)"
"$bin/opencv_perf_cudacca" ${CUDACCA_PERF_ARGS:---perf_min_samples=10 --perf_force_samples=10} \
  --gtest_output=xml:"$out/perf.xml" >"$out/perf.log" 2>&1 || status=1
grep -E 'Gpix/s' "$out/perf.log" > "$out/perf_throughput.txt" || true
tail -n 3 "$out/perf.log"

echo
echo "================ SUMMARY (commit $commit, $(date -u +%F), ${gpu:-no GPU}) ================"
python3 - "$out" <<'PY'
import sys, xml.etree.ElementTree as ET, os, re
out = sys.argv[1]
def counts(name, log):
    p = os.path.join(out, name)
    if not os.path.exists(p): return "missing"
    r = ET.parse(p).getroot()
    t, f = int(r.get("tests", 0)), int(r.get("failures", 0)) + int(r.get("errors", 0))
    # OpenCV ts reports skips in the log only ("[ SKIPSTAT ] N tests skipped")
    m = re.search(r"SKIPSTAT \] (\d+) tests? skipped", open(os.path.join(out, log)).read())
    sk = int(m.group(1)) if m else 0
    return f"{t} tests, {t - f - sk} passed, {f} failed, {sk} skipped"
print("accuracy:", counts("accuracy.xml", "accuracy.log"))
py = open(os.path.join(out, "python.log")).read() if os.path.exists(os.path.join(out, "python.log")) else ""
m = re.search(r"Ran (\d+) tests?.*?\n\n(OK.*|FAILED.*)", py, re.S)
print("python:  ", (m.group(1) + " tests, " + m.group(2).strip()) if m else "no result")
for name in ("sample.log", "sample_py.log"):
    p = os.path.join(out, name)
    if os.path.exists(p):
        s = open(p).read(); print(f"{name:9}", "MATCH" if "MATCH" in s and "MISMATCH" not in s else "NO MATCH / error")
print("perf:    ", counts("perf.xml", "perf.log"))
p = os.path.join(out, "perf_throughput.txt")
if os.path.exists(p):
    lines = open(p).read().splitlines()
    for l in lines[-40:]: print("  ", l.strip())
PY
exit $status
