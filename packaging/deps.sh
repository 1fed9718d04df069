#!/usr/bin/env bash
# Installs the Debian 12 packages fxlens needs to build, test and run (dpkg-dev and file: the
# .deb that test_package builds with cpack). Idempotent and quiet
# when everything is already there. Sourced by ../run.sh and ../test.sh.
fxlens_install_deps() {
    local want=(cmake g++ make ninja-build pkg-config ccache qt6-base-dev libgl-dev libgraphviz-dev graphviz
                nlohmann-json3-dev libsqlite3-dev libzip-dev clang-14 libclang-rt-14-dev lld python3 fonts-dejavu-core
                dpkg-dev file "$@")
    local missing=()
    local p
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "fxlens: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
