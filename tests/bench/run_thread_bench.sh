#!/usr/bin/env bash
# The default thread count (issue 10 item 14): `fxlens run` on every traced corpus graph (the
# 100k-node one included) and on two graphs of large kernels made here, R times each with the
# default (no --threads), --threads 1 and --threads 2, in turns, so that load changes hit all
# three alike. Prints per graph the threads the default chose and the median and best run
# times (the executor's own "seconds": the graph's run, inputs generated or read included).
#
# Usage: tests/bench/run_thread_bench.sh [BUILD_DIR] [repeats]
#   BUILD_DIR  a build dir with app/fxlens (default: <repo>/build)
#   repeats    runs per setting and graph (default 15)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
repeats="${2:-15}"
fxlens="$build/app/fxlens"
corpus="${FXLENS_CORPUS_DIR:-$root/../shared/corpus}"
data="$build/bench-data"

if [[ ! -x "$fxlens" ]]; then
    echo "no $fxlens: build it first" >&2
    exit 1
fi
mkdir -p "$data"
cat > "$data/matmul512.py" <<'PY'
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[512, 512][512, 1]cpu", b: "f32[512, 512][512, 1]cpu"):
        mm: "f32[512, 512][512, 1]cpu" = torch.ops.aten.mm.default(a, b)
        relu: "f32[512, 512][512, 1]cpu" = torch.ops.aten.relu.default(mm)
        mm_1: "f32[512, 512][512, 1]cpu" = torch.ops.aten.mm.default(relu, b)
        return (mm_1,)
PY
cat > "$data/pointwise2m.py" <<'PY'
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2048, 1024][1024, 1]cpu"):
        exp: "f32[2048, 1024][1024, 1]cpu" = torch.ops.aten.exp.default(a)
        mul: "f32[2048, 1024][1024, 1]cpu" = torch.ops.aten.mul.Tensor(exp, a)
        return (mul,)
PY

graphs=()
for f in "$corpus"/pytorch/*.joint.code.py "$corpus"/pytorch/large/*.joint.code.py; do
    [[ -f "$f" ]] && graphs+=("$f")
done
graphs+=("$data/matmul512.py" "$data/pointwise2m.py")

# seconds of one run, in ms
run_ms() {
    "$fxlens" run "$@" --json | sed -n 's/^ *"seconds": \([0-9.e-]*\),*$/\1/p' | head -1 | awk '{printf "%.3f\n", $1 * 1000}'
}
# median and best of a list of numbers
stats() {
    sort -g | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%9.3f %9.3f", m, v[1]}'
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $repeats runs each"
printf '%-34s %7s | %19s | %19s | %19s | %s\n' graph default "default median/best" "1 thread med/best" "2 threads med/best" "default/1 (median)"
for g in "${graphs[@]}"; do
    chosen=$("$fxlens" run "$g" --json | sed -n 's/^ *"threads": \([0-9]*\),*$/\1/p' | head -1)
    d=() one=() two=()
    for ((i = 0; i < repeats; i++)); do
        d+=("$(run_ms "$g")")
        one+=("$(run_ms "$g" --threads 1)")
        two+=("$(run_ms "$g" --threads 2)")
    done
    sd=$(printf '%s\n' "${d[@]}" | stats)
    s1=$(printf '%s\n' "${one[@]}" | stats)
    s2=$(printf '%s\n' "${two[@]}" | stats)
    ratio=$(awk -v a="$(echo "$sd" | awk '{print $1}')" -v b="$(echo "$s1" | awk '{print $1}')" 'BEGIN {printf "%.2f", a / b}')
    printf '%-34s %7s | %19s | %19s | %19s | %s\n' "$(basename "$g")" "$chosen" "$sd" "$s1" "$s2" "$ratio"
done
