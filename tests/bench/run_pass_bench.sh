#!/usr/bin/env bash
# Passes on the 100k-node graph (issue 3): runs bench_passes on the large corpus graph
# (gpt2_deep640, ~100k nodes) and on a 10x smaller one made by make_gpt2_deep.py (64 blocks,
# ~10k nodes), prints both tables and, per step, the time ratio large/small against the
# node-count ratio: linear growth is a time ratio close to the node ratio (exponent ~1).
#
# Usage: tests/bench/run_pass_bench.sh [BUILD_DIR] [repeats]
#   BUILD_DIR  a build dir with tests/bench/bench_passes built (default: <repo>/build)
#   repeats    best of N per step (default 3)
# The small graph goes to BUILD_DIR/bench-data/ (made once; needs a python3 with PyTorch 1.13,
# e.g. Debian's python3-torch; skipped with a message when there is none).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
repeats="${2:-3}"
bench="$build/tests/bench/bench_passes"
corpus="${FXLENS_CORPUS_DIR:-$root/../shared/corpus}"
large="$corpus/pytorch/large/gpt2_deep640.joint.code.py"
data="$build/bench-data"
small="$data/gpt2_deep64.joint.code.py"

if [[ ! -x "$bench" ]]; then
    echo "no $bench: build it first (cmake --build $build --target bench_passes)" >&2
    exit 1
fi

# A python3 that has torch: the one on PATH first, then Debian's.
py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch" >/dev/null 2>&1; then
        py="$cand"
        break
    fi
done
if [[ ! -f "$small" || "$here/make_gpt2_deep.py" -nt "$small" ]]; then
    if [[ -n "$py" ]]; then
        mkdir -p "$data"
        echo "generating the 64-block graph into $data ..."
        "$py" "$here/make_gpt2_deep.py" "$data" --blocks 64 --name gpt2_deep64
    else
        echo "no python3 with torch: the small graph cannot be made, the growth comparison is skipped" >&2
    fi
fi

echo "machine: $(uname -srm), $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load before: $(uptime)"
out_small="$data/bench_passes.small.txt"
out_large="$data/bench_passes.large.txt"
mkdir -p "$data"
if [[ -f "$small" ]]; then
    echo
    echo "=== small: $(basename "$small")"
    "$bench" "$small" "$repeats" | tee "$out_small"
fi
echo
echo "=== large: $(basename "$large")"
"$bench" "$large" "$repeats" | tee "$out_large"
echo "load after: $(uptime)"

[[ -f "$small" ]] || exit 0
echo
echo "=== growth: large / small (linear: time ratio ~ node ratio, exponent ~ 1.0)"
# Rows: a 40-column step name, then nodes in, nodes out, wall s, cpu s, ns/node.
awk '
function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
function expo(r) { return (r > 0 && nr > 1) ? log(r) / log(nr) : 0 }
FNR == 1 { file++ }
/^nodes: / { n[file] = $2 + 0 }
length($0) > 40 && $0 !~ /^(file|nodes|step|    )/ {
    step = trim(substr($0, 1, 40)); split(trim(substr($0, 41)), f, / +/)
    if (f[3] !~ /^[0-9.]+$/) next
    if (file == 1) { ws[step] = f[3]; cs[step] = f[4]; order[++k] = step }
    else { wl[step] = f[3]; cl[step] = f[4] }
}
END {
    nr = n[2] / n[1]
    printf "node ratio: %d / %d = %.2f; exponent = log(time ratio) / log(node ratio)\n\n", n[2], n[1], nr
    printf "%-40s %8s %8s %6s %5s | %8s %8s %6s %5s\n", "step", "wall sm", "wall lg", "ratio", "exp", "cpu sm", "cpu lg", "ratio", "exp"
    for (i = 1; i <= k; i++) {
        s = order[i]
        if (!(s in wl)) continue
        rw = (ws[s] > 0) ? wl[s] / ws[s] : 0
        rc = (cs[s] > 0) ? cl[s] / cs[s] : 0
        flag = (wl[s] > 1.0 ? "  over 1 s" : "") (expo(rc) > 1.25 && expo(rw) > 1.25 ? "  superlinear" : "")
        printf "%-40s %8.4f %8.4f %6.1f %5.2f | %8.4f %8.4f %6.1f %5.2f%s\n", s, ws[s], wl[s], rw, expo(rw), cs[s], cl[s], rc, expo(rc), flag
    }
}' "$out_small" "$out_large"
