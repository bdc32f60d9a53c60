#!/usr/bin/env bash
# Configures and builds one flavour of cellsim into build/<flavour>.
#   scripts/build.sh release   RelWithDebInfo-free Release build (benchmarks, demo)
#   scripts/build.sh debug     RelWithDebInfo build for the tests
#   scripts/build.sh asan      ASan+UBSan build of the tests
#   scripts/build.sh tsan      TSan build of the tests
# Extra arguments are target names to build instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}; shift || true
case "$flavour" in
  release) args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug)   args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan)    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCELLSIM_SANITIZE=address,undefined"
                 -DCELLSIM_BUILD_BENCH=OFF) ;;
  tsan)    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCELLSIM_SANITIZE=thread
                 -DCELLSIM_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release|debug|asan|tsan)" >&2; exit 2 ;;
esac
dir=build/$flavour
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
fi
if (($#)); then
  cmake --build "$dir" -j"$(nproc)" --target "$@"
else
  cmake --build "$dir" -j"$(nproc)"
fi
