#!/usr/bin/env bash
# Installs the freshly built cellsim into a temporary prefix, builds
# examples/consumer against it with find_package(cellsim), and runs it.
set -euo pipefail
build_dir=$1 source_dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cellsim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source_dir/examples/consumer" -B "$tmp/build" -G Ninja \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer" "$tmp"
