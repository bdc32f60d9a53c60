#!/usr/bin/env bash
# What cellsim_add_test declares reaches CTest intact (tests/CMakeLists.txt):
# a test with two labels is listed under both, and a campaign keeps its
# TIMEOUT, COST and ENVIRONMENT. Once, a second label shifted the properties
# after it: the "unit concurrent" and "kill concurrent" tests never ran under
# TSan, and every check still passed.
#   ctest_properties_test.sh BUILD_DIR
set -euo pipefail
build=$1
status=0
listed() {  # listed LABEL TEST_REGEX: fails unless a test matches both
  local n
  n=$(ctest --test-dir "$build" -N -L "^$1\$" -R "$2" | grep -c ' Test *#') || true
  if [ "$n" -eq 0 ]; then
    echo "no test matching '$2' is labelled '$1'" >&2
    status=1
  fi
}
# Every test has a label (CI's TSan run selects by label, and a test with
# none, or whose discovery dropped them, silently runs nowhere but the
# unlabelled runs).
unlabelled=$(ctest --test-dir "$build" -N -LE . | grep ' Test *#') || true
if [ -n "$unlabelled" ]; then
  printf 'tests without a label:\n%s\n' "$unlabelled" >&2
  status=1
fi
listed unit '^MutexTest\.'
listed concurrent '^MutexTest\.'
listed kill '^TxnCrash\.'
listed concurrent '^TxnCrash\.'
props() { ctest --test-dir "$build" --show-only=json-v1 -R "$1"; }
killed=$(props '^TxnCrash\.KilledSessions')
wants=('"name" : "TIMEOUT"' '"name" : "COST"')
# TMPFS sets TMPDIR only where /dev/shm is large enough: expect it on this
# two-label test where a one-label TMPFS campaign has it.
if props '^CorruptionCampaign\.' | grep -q '"name" : "ENVIRONMENT"'; then
  wants+=('"name" : "ENVIRONMENT"')
fi
for want in "${wants[@]}"; do
  if ! grep -q "$want" <<<"$killed"; then
    echo "TxnCrash.KilledSessionsLoseNoAcknowledgedCommit lacks $want" >&2
    status=1
  fi
done
# In the ASan flavour, every kind of test runs with the test environment's
# ASAN_OPTIONS (CELLSIM_TEST_ENVIRONMENT_MODIFICATION in CMakeLists.txt).
if grep -q '^CELLSIM_SANITIZE:STRING=.*address' "$build/CMakeCache.txt"; then
  for t in '^TxnCrash\.KilledSessions' '^Lab\.RowLocks$' '^lab_row_lock_waits$' \
           '^install_consumer$'; do
    if ! props "$t" | grep -q 'ASAN_OPTIONS=string_prepend:quarantine_size_mb='; then
      echo "the tests matching $t run without the tests' ASAN_OPTIONS" >&2
      status=1
    fi
  done
fi
[ "$status" -eq 0 ] && echo "labels, timeouts, costs and environments reach CTest"
exit "$status"
