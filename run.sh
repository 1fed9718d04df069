#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job on the bundled example
# (resources/examples/gpt2_tiny.joint.code.py), or on the file or folder given.
# Until the viewer lands (see README), the main job is `fxlens info` in the terminal.
set -euo pipefail
cd "$(dirname "$0")"
. packaging/deps.sh
. packaging/configure.sh
fxlens_install_deps

fxlens_configure build -DCMAKE_BUILD_TYPE=Release -DFXLENS_CORPUS_DIR="$(pwd)/../shared/corpus"
cmake --build build -j"$(nproc)" --target fxlens >/dev/null

target=${1:-resources/examples/gpt2_tiny.joint.code.py}
[ $# -gt 0 ] && shift
exec build/app/fxlens info "$target" "$@"
