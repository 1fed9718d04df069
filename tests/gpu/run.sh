#!/usr/bin/env bash
# The GPU check, on a lent GPU machine (README.md here), from the repository's root, with
# .gpu_check carried (tests/gpu/prepare.sh made it):
#   bash tests/gpu/run.sh
# Prints one table (also to $OUT/gpu_check.txt when $OUT is set) and exits 0 when everything
# that ran is bitwise equal to the CPU. Within 8 minutes on an H100 / H200 machine (16 cores).
#   FXLENS_GPU_CHECK_DIR     the prepared files (default: .gpu_check)
#   FXLENS_GPU_CHECK_DEVICE  the device (default: cuda:0; cpu or cuda-emu:0 to check the check)
#   FXLENS_GPU_CHECK_BITS    f32 functions over 2^N inputs (default: 32, every float)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${FXLENS_GPU_CHECK_DIR:-$root/.gpu_check}
device=${FXLENS_GPU_CHECK_DEVICE:-cuda:0}
bits=${FXLENS_GPU_CHECK_BITS:-32}
bin="$dir/fxlens_gpu_check"
if [ ! -x "$bin" ] || [ ! -d "$dir/graphs" ]; then
    echo "fxlens GPU check: $dir has no check binary or graphs: run tests/gpu/prepare.sh and carry .gpu_check"
    exit 2
fi
[ -d "$root/tests/data/kernels" ] || { echo "fxlens GPU check: no tests/data/kernels under $root"; exit 2; }
log=${OUT:-/tmp}/gpu_check.txt
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
timeout 470 "$bin" --device "$device" --data "$root/tests/data" --graphs "$dir/graphs" \
    --graphs "$root/tests/data/models" --sweep-bits "$bits" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 124 ] && echo "fxlens GPU check: stopped after 470 s"
exit "$status"
