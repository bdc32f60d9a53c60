#!/usr/bin/env bash
# Configures and builds one flavour of cellsim into build/<flavour>.
#   scripts/build.sh release   g++ Release: benchmarks, the demo
#   scripts/build.sh debug     g++ RelWithDebInfo: quick local test runs
#   scripts/build.sh asan      clang ASan+UBSan (-O1), with the libFuzzer targets
#                              and the benchmarks: the full test suite (CI)
#   scripts/build.sh tsan      clang TSan (-O1): the threaded tests (CI)
# Extra arguments are target names to build instead of everything.
# CELLSIM_CMAKE_ARGS (environment) adds configure arguments, e.g.
#   CELLSIM_CMAKE_ARGS=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
# CELLSIM_UNITY=1 (environment) compiles each library in batches of 16 sources
# (CMake's unity build, also what a plain `cmake` build does by default): half
# the compile time of a cold build, which is what CI pays for its sanitizer
# flavours (scripts/test.sh). Without it these flavours compile file by file:
# edit loops are faster (a changed file recompiles alone), and a source that
# lacks an include fails there, where a unity batch could hide it. (Public
# headers are checked one by one: tests/install/headers_alone_test.sh.)
# When ccache is installed it is used automatically.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}; shift || true
# Sanitizer flavours: clang (libFuzzer needs it, and it compiles this code base
# faster than g++), -O1 with line tables only: enough for sanitizer reports.
san=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug
     "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only")
# They link with lld when it is there (scripts/deps.sh installs it): a
# sanitized test binary links in ~1.2 s instead of ~4.9 s with GNU ld, and CI
# links about 70 of them per sanitizer. The release and debug flavours and
# the plain build keep the system's default linker, as a user's build does.
if command -v ld.lld >/dev/null; then
  san+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
        -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
fi
case "$flavour" in
  release) args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug)   args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    args=("${san[@]}" "-DCELLSIM_SANITIZE=address,undefined" -DCELLSIM_BUILD_FUZZERS=ON) ;;
  tsan)    args=("${san[@]}" -DCELLSIM_SANITIZE=thread -DCELLSIM_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release|debug|asan|tsan)" >&2; exit 2 ;;
esac
# Warnings are errors in every flavour built by the scripts (and so in CI); a
# plain `cmake` build leaves CELLSIM_WERROR off so new compilers do not break it.
args+=(-DCELLSIM_WERROR=ON)
if command -v ccache >/dev/null; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ "${CELLSIM_UNITY:-0}" = 1 ]; then
  args+=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
else
  args+=(-DCMAKE_UNITY_BUILD=OFF)
fi
# shellcheck disable=SC2206
args+=(${CELLSIM_CMAKE_ARGS:-})
dir=build/$flavour
# (Re)configure when new or when the arguments changed since the last time.
stamp="$dir/.cellsim-configure-args"
if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${args[*]}" ]; then
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
  printf '%s' "${args[*]}" >"$stamp"
fi
if (($#)); then
  cmake --build "$dir" -j"$(nproc)" --target "$@"
else
  cmake --build "$dir" -j"$(nproc)"
fi
