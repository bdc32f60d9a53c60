#!/usr/bin/env bash
# The full test suite (what CI runs): installs missing packages, builds, and runs
#   1. every test under clang ASan+UBSan: unit tests, the crash campaign, the
#      kill -9 tests, fault scenarios, the install check, smoke runs of
#      creation_bench and io_buffer_bench (the other benchmarks are built, not
#      run: each of their cases costs seconds to minutes), and each libFuzzer
#      target for CELLSIM_FUZZ_SECONDS (default 10);
#   2. the threaded tests (label 'concurrent') again under TSan;
#   3. the plain build a user types (`cmake -DCMAKE_BUILD_TYPE=Release`, the
#      default compiler, no -Werror) of every target, installed, with
#      examples/consumer built against the install both with
#      find_package(cellsim) and with pkg-config.
#   scripts/test.sh            everything (CI)
#   scripts/test.sh --quick    the g++ build without sanitizers, for edit-compile loops
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
start=$SECONDS
run() {  # run FLAVOUR [ctest args...]
  local f=$1; shift
  echo "=== test: $f (at $((SECONDS - start)) s)"
  ctest --test-dir "build/$f" --output-on-failure -j"$(nproc)" --timeout 600 "$@"
}
if [ "${1:-}" = "--quick" ]; then
  echo "=== build: debug"; scripts/build.sh debug
  run debug
  exit 0
fi
echo "=== check: layering"; scripts/check_layering.sh
echo "=== check: function length"
scripts/check_function_length.py --known scripts/function_length_known.txt
# The sanitizer flavours build as unity builds (scripts/build.sh): CI builds
# them cold, and that halves their compile time.
echo "=== build: asan (at $((SECONDS - start)) s)"; CELLSIM_UNITY=1 scripts/build.sh asan
run asan
# TSan runs only the threaded tests, so it builds only their binaries.
echo "=== build: tsan (at $((SECONDS - start)) s)"; CELLSIM_UNITY=1 scripts/build.sh tsan cellsim_concurrent_tests
run tsan -L concurrent
echo "=== build: plain cmake Release (default compiler, CELLSIM_WERROR off)"
plain_start=$SECONDS
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Ninja when it is there (scripts/deps.sh installs it): the same compile
# commands as the default Makefiles, scheduled across the whole build instead
# of directory by directory (cold on 2 cores, file by file: 542 s instead of
# ~695 s; as the unity build a plain cmake build now is: 420 s).
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# A build/plain left by the other generator cannot be reconfigured: start over.
if [ -f build/plain/CMakeCache.txt ] &&
   ! grep -q "^CMAKE_GENERATOR:INTERNAL=${generator[1]:-Unix Makefiles}\$" build/plain/CMakeCache.txt; then
  rm -rf build/plain
fi
cmake -S . -B build/plain "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build/plain -j"$(nproc)"
tests/install/consumer_test.sh build/plain "$PWD"
echo "=== plain Release build and consumers: $((SECONDS - plain_start)) s"
echo "=== all test flavours passed (asan, tsan, plain Release) in $((SECONDS - start)) s"
