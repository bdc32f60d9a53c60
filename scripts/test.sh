#!/usr/bin/env bash
# The full test suite: installs missing packages, builds, and runs every test in
# a normal build and again under ASan+UBSan (and TSan for the threaded parts).
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh --quick    the normal build only, for edit-compile loops
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
flavours=(debug asan tsan)
[ "${1:-}" = "--quick" ] && flavours=(debug)
for f in "${flavours[@]}"; do
  echo "=== build: $f"
  # TSan runs only the threaded tests, so it builds only their binaries.
  if [ "$f" = tsan ]; then scripts/build.sh "$f" cellsim_concurrent_tests; else scripts/build.sh "$f"; fi
  echo "=== test: $f"
  label_args=()
  # Under TSan run the tests labelled 'concurrent' (the threaded parts).
  [ "$f" = tsan ] && label_args=(-L concurrent)
  ctest --test-dir "build/$f" --output-on-failure -j2 --timeout 600 "${label_args[@]}"
done
echo "=== all test flavours passed: ${flavours[*]}"
