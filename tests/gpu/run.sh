#!/usr/bin/env bash
# The GPU check, on a lent GPU machine (README.md here), from the repository's root, with
# .gpu_check carried (tests/gpu/prepare.sh made it):
#   bash tests/gpu/run.sh
# Prints one table (also to $OUT/gpu_check.txt when $OUT is set) and exits 0 when everything
# that ran is bitwise equal to the CPU; then, where python3 has PyTorch with CUDA, the train
# steps in PyTorch's eager mode against fxlens' (tests/gpu/torch_eager.py). Within 8 minutes on
# an H100 / H200 machine (16 cores): the check stops itself at 420 s, the eager table at 45 s.
#   FXLENS_GPU_CHECK_DIR     the prepared files (default: .gpu_check)
#   FXLENS_GPU_CHECK_DEVICE  the device (default: cuda:0; cpu or cuda-emu:0 to check the check)
#   FXLENS_GPU_CHECK_BITS    f32 functions over 2^N inputs (default: 32, every float)
#   FXLENS_GPU_CHECK_PYTHON  the Python with PyTorch for the eager comparison (default: python3)
#   FXLENS_GPU_CHECK_EAGER_DEVICE, FXLENS_GPU_CHECK_EAGER_REPS  PyTorch's device (cuda) and runs (5)
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
outputs=$(mktemp -d)
trap 'rm -rf "$outputs"' EXIT
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
timeout 420 "$bin" --device "$device" --data "$root/tests/data" --graphs "$dir/graphs" \
    --graphs "$root/tests/data/models" --outputs "$outputs" --sweep-bits "$bits" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 124 ] && echo "fxlens GPU check: stopped after 420 s" | tee -a "$log"
# the train step in PyTorch's own eager mode on the same device, against fxlens' run (not bitwise:
# how far apart, and the times)
python=${FXLENS_GPU_CHECK_PYTHON:-python3}
eager=${FXLENS_GPU_CHECK_EAGER_DEVICE:-cuda}
if "$python" -c "import sys, torch; sys.exit(0 if '$eager' == 'cpu' or torch.cuda.is_available() else 1)" 2>/dev/null; then
    timeout 45 "$python" "$root/tests/gpu/torch_eager.py" --graphs "$dir/graphs" --graphs "$root/tests/data/models" \
        --outputs "$outputs" --device "$eager" --reps "${FXLENS_GPU_CHECK_EAGER_REPS:-5}" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 124 ] && echo "train step against PyTorch's eager: stopped after 45 s" | tee -a "$log"
else
    printf '\ntrain step against PyTorch eager: skipped (%s has no PyTorch with %s)\n' "$python" "$eager" | tee -a "$log"
fi
exit "$status"
