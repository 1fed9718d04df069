#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job on the bundled example
# (resources/examples/gpt2_tiny.joint.code.py), or on the file given.
# The desktop window is being built (README, "Viewer"): today the main job draws the graph
# view with `fxlens render` (the window's own grouping, layout and colours) to a PNG whose
# path it prints, then prints `fxlens info`.
set -euo pipefail
cd "$(dirname "$0")"
. packaging/deps.sh
. packaging/configure.sh
fxlens_install_deps

fxlens_configure build -DCMAKE_BUILD_TYPE=Release -DFXLENS_CORPUS_DIR="$(pwd)/../shared/corpus"
cmake --build build -j"$(nproc)" --target fxlens >/dev/null

target=${1:-resources/examples/gpt2_tiny.joint.code.py}
[ $# -gt 0 ] && shift
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "fxlens: no display (DISPLAY and WAYLAND_DISPLAY are unset): drawing the first view to a PNG instead"
else
    echo "fxlens: the desktop window is not built yet: drawing the first view to a PNG instead"
fi
png="build/fxlens-view.png"
if build/app/fxlens render "$target" --out "$png" --force 2>/dev/null; then
    echo "fxlens: the first view is in $(pwd)/$png"
else
    echo "fxlens: $target has no graph to draw (or several: see fxlens info for their ids)"
fi
exec build/app/fxlens info "$target" "$@"
