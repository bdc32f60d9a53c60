#!/usr/bin/env bash
# Installs the freshly built cellsim into a temporary prefix and builds
# examples/consumer against it twice, the two ways an outside project does:
#   1. CMake: find_package(cellsim) (examples/consumer/CMakeLists.txt);
#   2. pkg-config: c++ main.cc $(pkg-config --cflags --libs cellsim);
# then runs both programs (each builds a small rack and runs the seed statement).
#   consumer_test.sh BUILD_DIR SOURCE_DIR [CXX_COMPILER [FLAGS]]
# FLAGS (e.g. the sanitizer flags cellsim was built with) go to the consumer's
# compile and link lines, so an instrumented cellsim links into it.
set -euo pipefail
build_dir=$1 source_dir=$2 compiler=${3:-c++} flags=${4:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cellsim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null

echo "--- consumer via find_package(cellsim)"
cmake -S "$source_dir/examples/consumer" -B "$tmp/build" -G Ninja \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/build" >/dev/null
mkdir "$tmp/run-cmake"
"$tmp/build/consumer" "$tmp/run-cmake"

echo "--- consumer via pkg-config --cflags --libs cellsim"
pc=$(find "$tmp/prefix" -name cellsim.pc -print -quit)
if [ -z "$pc" ]; then
  echo "consumer_test: no cellsim.pc installed under $tmp/prefix" >&2
  exit 1
fi
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2086,SC2046
"$compiler" $flags -O1 "$source_dir/examples/consumer/main.cc" -o "$tmp/consumer-pc" \
  $(pkg-config --cflags --libs cellsim)
mkdir "$tmp/run-pc"
"$tmp/consumer-pc" "$tmp/run-pc"
