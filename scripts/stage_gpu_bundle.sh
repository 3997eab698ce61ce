#!/usr/bin/env bash
# Copies what the GPU run needs (test, perf and benchmark binaries, OpenCV libraries, cv2) into .carry/, stripped,
# so that it travels to a GPU machine (the device tool carries at most 64 MiB).
# Usage: scripts/stage_gpu_bundle.sh [build dir, default build] [bundle dir, default .carry]
# (two bundles in one carry, e.g. OpenCV 4.10 and 5.0: stage build into .carry, then build-5.0 into .carry/v50)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
dest=${2:-$root/.carry}
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib" "$dest/python"
cp "$build"/opencv/bin/opencv_test_cudacca "$build"/opencv/bin/opencv_perf_cudacca "$dest/bin/"
cp -P "$build"/opencv/lib/libopencv_*.so* "$dest/lib/"
cp "$build"/opencv/lib/python3/cv2*.so "$dest/python/"
[ -x "$build/samples/cudacca_sample" ] && cp "$build/samples/cudacca_sample" "$dest/bin/"
# The benchmark (perf/): NPP is not carried, the GPU machine has libnpp*.so.13 in /usr/local/cuda/lib64
# (in the binary's RUNPATH); libnppif alone would take most of the 64 MiB.
[ -x "$build/perf/cudacca_bench" ] && cp "$build/perf/cudacca_bench" "$dest/bin/"
# System libraries of this machine (Debian) that an Ubuntu GPU machine lacks (imgcodecs needs them).
for so in libjpeg.so.62 libpng16.so.16; do
  # awk reads to the end (no early exit): under pipefail, ldconfig killed by SIGPIPE would stop the script
  p=$(ldconfig -p | awk -v n="$so" '$1 == n && /x86-64/ && !found {print $NF; found = 1}')
  [ -n "$p" ] && cp -L "$p" "$dest/lib/"
done
git -C "$root" rev-parse --short HEAD > "$dest/COMMIT" 2>/dev/null || true
git -C "$root" diff --quiet HEAD 2>/dev/null || echo "(+ uncommitted changes)" >> "$dest/COMMIT"
find "$dest" -type f \( -name '*.so*' -o -perm -u+x \) -exec strip --strip-unneeded {} + 2>/dev/null || true
du -sh "$dest"
