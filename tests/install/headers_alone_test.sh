#!/usr/bin/env bash
# Every public header (include/cellsim/**/*.h) compiles on its own, first in
# a file, as a consumer may include it. The libraries build as unity builds
# (batches of sources in one file; the top-level CMakeLists.txt), where an
# include one source lacks can come from the source before it: this check is
# what keeps the headers an outside project sees self-contained.
#   headers_alone_test.sh SOURCE_DIR [CXX_COMPILER]
set -euo pipefail
source_dir=$1 compiler=${2:-c++}
cd "$source_dir/include"
mapfile -t headers < <(find cellsim -name '*.h' | sort)
check() {  # check HEADER: prints the compiler's errors and fails if any
  printf '#include "%s"\n' "$1" |
    "$compiler" -std=c++20 -fsyntax-only -Wall -I. -x c++ - 2>&1 | sed "s|^|$1: |"
  return "${PIPESTATUS[1]}"
}
export -f check
export compiler
if printf '%s\n' "${headers[@]}" | xargs -P"$(nproc)" -I{} bash -c 'check "$@"' _ {}; then
  echo "${#headers[@]} public headers compile on their own"
else
  echo "headers_alone_test: a public header above does not compile on its own" >&2
  exit 1
fi
