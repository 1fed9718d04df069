#!/usr/bin/env bash
# Screenshots of the real window, as a user sees it: fxlens under Xvfb at a screen size, keys
# pressed with xdotool, the screen taken with ImageMagick's import. Makes the README's
# window_<view>_<size>.png in docs/images (or $OUT): the bundled example (its remat step's
# diff), a graph, a TORCH_TRACE log's index, and focus mode (F11), at 1366x768 and 1920x1080.
# Needs: xvfb, xdotool, imagemagick (Debian packages), a built build/app/fxlens, and the
# corpus for the log (../shared/corpus/tlparse/cache_hit_miss.log).
# Usage: tests/tools/window_screenshots.sh [SIZE...]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(pwd)/build/app/fxlens
out=${OUT:-docs/images}
corpus=${FXLENS_CORPUS_DIR:-$(pwd)/../shared/corpus}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1366x768 1920x1080)
n=70

# shot SIZE NAME WAIT KEYS -- ARGS...: fxlens ARGS on a fresh screen and fresh settings, WAIT
# seconds, then KEYS (xdotool key names, comma separated, "" for none), then the screen.
shot() {
    local size=$1 name=$2 wait=$3 keys=$4
    shift 5
    local home display
    home=$(mktemp -d)
    n=$((n + 1))
    display=:$n  # a fresh server each time: nothing of the shot before on screen
    Xvfb $display -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 &
    local xvfb=$!
    sleep 1
    HOME=$home XDG_CONFIG_HOME=$home/.config XDG_DATA_HOME=$home/.local/share DISPLAY=$display \
        "$bin" "$@" >/dev/null 2>&1 &
    local app=$!
    DISPLAY=$display xdotool search --sync --name fxlens >/dev/null
    sleep "$wait"
    if [ -n "$keys" ]; then
        local wid
        wid=$(DISPLAY=$display xdotool search --onlyvisible --name fxlens | head -1)
        IFS=, read -ra ks <<<"$keys"
        for k in "${ks[@]}"; do DISPLAY=$display xdotool windowfocus --sync "$wid" key "$k"; sleep 1; done
    fi
    DISPLAY=$display import -window root "$out/window_${name}_${size}.png"
    echo "$out/window_${name}_${size}.png"
    kill $app 2>/dev/null || true
    wait $app 2>/dev/null || true
    kill $xvfb 2>/dev/null || true
    wait $xvfb 2>/dev/null || true
    rm -rf "$home"
}

for size in "${sizes[@]}"; do
    shot "$size" example 25 "" --
    shot "$size" graph 6 "" -- resources/examples/gpt2_tiny.joint.code.py
    shot "$size" focus 6 "F11" -- resources/examples/gpt2_tiny.joint.code.py
    [ -f "$corpus/tlparse/cache_hit_miss.log" ] && shot "$size" log 8 "" -- "$corpus/tlparse/cache_hit_miss.log"
done
