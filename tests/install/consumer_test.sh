#!/usr/bin/env bash
# Installs the freshly built cellsim into a temporary prefix, builds
# examples/consumer against it with find_package(cellsim), and runs it.
#   consumer_test.sh BUILD_DIR SOURCE_DIR [CXX_COMPILER [FLAGS]]
# FLAGS (e.g. the sanitizer flags cellsim was built with) go to the consumer's
# compile and link lines, so an instrumented cellsim links into it.
set -euo pipefail
build_dir=$1 source_dir=$2 compiler=${3:-c++} flags=${4:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cellsim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source_dir/examples/consumer" -B "$tmp/build" -G Ninja \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer" "$tmp"
