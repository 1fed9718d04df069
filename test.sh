#!/usr/bin/env bash
# Sets everything up and runs all tests in two builds: the unit and corpus tests in a release
# build (g++), then, in one clang build with ASan+UBSan, the same tests again (the window's
# included, offscreen) and a short libFuzzer run of every parser.
# Usage: ./test.sh [--quick]
#   default  both stages (CI runs this)
#   --quick  the release build and its tests only (for a fast local check)
# FXLENS_FUZZ_SECONDS (default 5) sets the fuzzing time per parser.
set -euo pipefail
cd "$(dirname "$0")"
. packaging/deps.sh
. packaging/configure.sh
# python3-torch (PyTorch 1.13, CPU) lets the tests run fxlens' step graphs in real PyTorch;
# those tests skip, saying so, where it is missing. libmpfr-dev: MPFR, the oracle of the
# runtime's own math functions (tests/runtime/math).
fxlens_install_deps python3-torch libmpfr-dev

# The builds take one job per core; the tests one more: a test waits on the fxlens process it
# runs (on CI's 2 cores the sanitizer stage's tests took 388 s at -j3 against 421 s at -j2,
# while the release build took 637 s at -j3 against 608 s at -j2).
jobs=$(nproc)
test_jobs=$((jobs + 1))
corpus="$(pwd)/../shared/corpus"
sanitize=1
case "${1:-}" in
    "") ;;
    --quick) sanitize=0 ;;
    --full) ;;  # the default; kept for old habits
    *) echo "usage: ./test.sh [--quick]" >&2; exit 2 ;;
esac
fuzz_seconds=${FXLENS_FUZZ_SECONDS:-5}
status=0
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() { echo; echo "== $*"; }
# Builds a build dir; on failure prints what failed (ninja's FAILED: blocks: the command and its
# output, with warnings as errors) and counts the stage as failed. A compiler or linker that
# died on a signal (killed for memory, or crashed) gets one more try with one job, said so.
build_dir() {
    local dir=$1
    if nice cmake --build "$dir" -j"$jobs" >"$log" 2>&1; then return 0; fi
    if grep -q -E "due to signal|unable to execute command|Killed signal terminated" "$log"; then
        print_failures
        echo "fxlens: a tool in the build of $dir died on a signal (above); memory and disk then:"
        free -m | sed -n 1,2p; df -h "$dir" | tail -1
        echo "fxlens: building $dir again with one job"
        if nice cmake --build "$dir" -j1 >"$log" 2>&1; then return 0; fi
    fi
    print_failures
    echo "fxlens: the build in $dir FAILED"
    status=1; failed=$((failed + 1))
    return 1
}
print_failures() {
    if grep -q "^FAILED: " "$log"; then
        awk '/^FAILED: /{p=1; n=0} /^\[[0-9]+\/[0-9]+\] |^ninja: build stopped/{p=0} p && n++<40' "$log" | head -120
    else
        grep -E "error|warning:" "$log" | head -60
    fi
}
# Runs ctest in a build dir and adds its counts to the totals.
run_ctest() {
    local dir=$1; shift
    (cd "$dir" && ctest --output-on-failure -j"$test_jobs" "$@") 2>&1 | tee "$log" || true
    local line
    line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -1 || true)
    if [ -z "$line" ]; then echo "fxlens: ctest in $dir printed no summary"; status=1; return; fi
    local f t
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/')
    t=$(echo "$line" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/')
    passed=$((passed + t - f)); failed=$((failed + f))
    [ "$f" -eq 0 ] || status=1
}

step "release build and tests (build/)"
# the tests' own code at -O0 (FXLENS_TESTS_O0): the libraries and the fxlens binary they test
# are the release build's, and their compile time halves. The benchmarks (tests/bench, run by
# hand; 90 s of compiling on CI's 2 cores) are not built here: `cmake --build build` builds
# them (FXLENS_BUILD_BENCH is on by default).
fxlens_configure build -DCMAKE_BUILD_TYPE=Release -DFXLENS_WERROR=ON -DFXLENS_TESTS_O0=ON \
    -DFXLENS_BUILD_BENCH=OFF -DFXLENS_CORPUS_DIR="$corpus"
build_dir build && run_ctest build --timeout 600

if [ $sanitize -eq 1 ]; then
    step "ASan+UBSan tests and libFuzzer, ${fuzz_seconds}s per parser (build-sanitize/, clang)"
    # One build for both: -O0 with line tables (for the sanitizers' stack traces) compiles
    # fastest, and the build is the long part of this stage on 2 cores. Without the CUDA
    # Toolkit: the sanitizers see no device code, the emulated CUDA device is built either way,
    # and CI so builds and tests fxlens as it is where no toolkit is installed.
    CC=clang-14 CXX=clang++-14 fxlens_configure build-sanitize -DCMAKE_BUILD_TYPE=Debug \
          -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
          -DCMAKE_CXX_FLAGS_DEBUG="-O0 -gline-tables-only" -DFXLENS_FUZZ=ON -DFXLENS_WERROR=ON \
          -DFXLENS_BUILD_BENCH=OFF -DFXLENS_FUZZ_SECONDS="$fuzz_seconds" \
          -DFXLENS_CORPUS_DIR="$corpus"
    build_dir build-sanitize && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_ctest build-sanitize --timeout 900
fi

step "summary"
if [ $status -eq 0 ]; then echo "all test stages passed"; else echo "some test stage FAILED"; fi
echo "fxlens: $passed passed, $failed failed"
exit $status
