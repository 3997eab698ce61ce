#!/usr/bin/env bash
# Per-kernel report of cudacca calls: Nsight Compute over perf/profile_call.py for each case, then
# perf/ncu_table.py (doc/benchmarks.md, "Per kernel"). Run on the GPU machine, from the repository root, with cv2
# and the module's libraries found (e.g. PYTHONPATH=.carry/python LD_LIBRARY_PATH=.carry/lib:/usr/local/cuda/lib64).
#   perf/kernel_report.sh [SIZE] [CASES] [ALGORITHM]
#     SIZE       image side (default 8192)
#     CASES      granularity:density pairs, comma-separated; granularity 0 is the full image
#                (default "1:0.5,4:0.5,16:0.5,0:1")
#     ALGORITHM  cv2.cuda algorithm name without CCA_ (default DEFAULT)
# Environment: KERNEL_REPORT_CLOCKS=base keeps ncu's default clock and cache control (base clocks, caches
# flushed); the default is `--clock-control none --cache-control none` (the clocks the benchmark runs at).
# KERNEL_REPORT_SOL=regex adds Nsight Compute's SpeedOfLight section for the kernels matching regex (e.g.
# accumulateRuns) in each case. KERNEL_REPORT_CONNECTIVITY=4 profiles 4-connectivity (default 8). The CSV files go
# to $OUT (or /tmp/kernel_report).
set -u
size=${1:-8192}
cases=${2:-1:0.5,4:0.5,16:0.5,0:1}
algorithm=${3:-DEFAULT}
conn=${KERNEL_REPORT_CONNECTIVITY:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
out=${OUT:-/tmp/kernel_report}; mkdir -p "$out"
clocks="--clock-control none --cache-control none"
[ "${KERNEL_REPORT_CLOCKS:-}" = base ] && clocks=""
status=0
for c in ${cases//,/ }; do
  g=${c%%:*}; d=${c#*:}
  csv=$out/kernels_${algorithm}_${size}_c${conn}_g${g}_d${d}.csv
  echo "== $algorithm ${size}x${size}, ${conn}-conn, g=$g, d=$d (${clocks:-base clocks, caches flushed})"
  timeout 300 "$ncu" $clocks --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    python3 "$root/perf/profile_call.py" --size "$size" --granularity "$g" --density "$d" --algorithm "$algorithm" \
    --connectivity "$conn" --calls 2 > "$csv" 2> "$csv.err" || { echo "ncu or the call failed (rc $?): $(tail -n 2 "$csv.err")"; status=1; continue; }
  python3 "$root/perf/ncu_table.py" "$csv" --calls 2 --pixels $((size * size)) || status=1
  if [ -n "${KERNEL_REPORT_SOL:-}" ]; then
    sol=$out/sol_${algorithm}_${size}_c${conn}_g${g}_d${d}.csv
    timeout 300 "$ncu" $clocks --csv -k "regex:${KERNEL_REPORT_SOL}" --section SpeedOfLight \
      python3 "$root/perf/profile_call.py" --size "$size" --granularity "$g" --density "$d" --algorithm "$algorithm" \
      --connectivity "$conn" --calls 1 > "$sol" 2> "$sol.err" || { echo "ncu (SpeedOfLight) failed: $(tail -n 2 "$sol.err")"; status=1; continue; }
    # one line per kernel launch and metric: its name, the metric, the value and unit
    python3 - "$sol" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
if h is None:
    sys.exit("no ncu CSV header")
hdr = rows[h]
k, m, u, v = (hdr.index(x) for x in ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
for r in rows[h + 1:]:
    if len(r) > v:
        print("  %-40s %-32s %12s %s" % (r[k].split("(")[0][-40:], r[m], r[v], r[u]))
PY
  fi
done
exit $status
