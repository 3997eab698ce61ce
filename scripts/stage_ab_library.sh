#!/usr/bin/env bash
# Puts one build's cudacca library into a staged bundle as an A/B variant: BUNDLE/var/NAME holds the stripped
# libopencv_cudacca.so.<version> and its soname link, about 4.5 MB, which `gpu_verify.sh` part `ab` puts first on
# LD_LIBRARY_PATH to run the bundle's benchmark on that build's code (doc/benchmarks.md, "Comparing two builds").
# Usage: scripts/stage_ab_library.sh BUILD_DIR NAME [BUNDLE, default .carry]
#   e.g. build the base commit, stage_gpu_bundle.sh, stage_ab_library.sh build base; then build the change and
#   stage_ab_library.sh build new
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
name=$2
dest=${3:-$root/.carry}/var/$name
[[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "NAME: letters, digits, . _ - only" >&2; exit 2; }
rm -rf "$dest" && mkdir -p "$dest"
cp -P "$build"/opencv/lib/libopencv_cudacca.so.* "$dest/"
find "$dest" -type f -exec strip --strip-unneeded {} +
git -C "$root" rev-parse --short HEAD > "$dest/COMMIT" 2>/dev/null || true
git -C "$root" diff --quiet HEAD 2>/dev/null || echo "(+ uncommitted changes)" >> "$dest/COMMIT"
du -sh "$dest"
