#!/usr/bin/env bash
# Sets everything up, builds, and opens the fxlens window on the bundled example workspace
# (resources/examples/gpt2_tiny.joint.code.py with remove_detach,sac(policy=alternate_mm),
# remat,dce stepped, the remat step's diff and memory timeline shown, the last step checked
# bitwise against the input), or on the file given (a graph, a log, a folder, a *.fxlens
# workspace; two graphs open as a diff). Without a display it says so, draws the window's first
# view of the file to a PNG with `fxlens render` (the same grouping, layout and colours) and
# prints the path, then prints `fxlens info`.
set -euo pipefail
cd "$(dirname "$0")"
. packaging/deps.sh
. packaging/configure.sh
fxlens_install_deps

fxlens_configure build -DCMAKE_BUILD_TYPE=Release -DFXLENS_CORPUS_DIR="$(pwd)/../shared/corpus"
cmake --build build -j"$(nproc)" --target fxlens >/dev/null

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec build/app/fxlens "$@"
fi
target=${1:-resources/examples/gpt2_tiny.joint.code.py}
[ $# -gt 0 ] && shift
echo "fxlens: no display (DISPLAY and WAYLAND_DISPLAY are unset): drawing the first view to a PNG instead of opening the window"
png="build/fxlens-view.png"
if build/app/fxlens render "$target" --out "$png" --force 2>/dev/null; then
    echo "fxlens: the first view is in $(pwd)/$png"
else
    echo "fxlens: $target has no graph to draw (or several: see fxlens info for their ids)"
fi
exec build/app/fxlens info "$target" "$@"
