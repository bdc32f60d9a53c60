# Shared by the labs' run.sh scripts (sourced): the binary, the work folder and
# the step / show / check helpers. The sourcing script sets `lab` (its name,
# for the folder and the summary) and passes its arguments on.
#
# WORKDIR ($1) defaults to a new folder under $TMPDIR (or /tmp), removed at the
# end (KEEP=1 keeps it). CELLSIM is the binary (default: build/release, built
# or brought up to date first: a stale binary lacks what the lab uses).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${CELLSIM:-}" ]; then
  CELLSIM=$repo/build/release/cellsim/cli/cellsim
  "$repo/scripts/build.sh" release cellsim_cli >/dev/null
fi
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/cellsim-$lab.XXXXXX")}
mkdir -p "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
failures=0
step() { printf '\n### %s\n' "$*"; }
# show ARGS...: prints the command (paths relative to the work folder), runs it.
show() { printf '$ cellsim %s\n' "$*" | sed "s|$work/||g"; "$CELLSIM" "$@"; }
check() {  # check WHAT TEXT PATTERN: the text must match the extended regex
  if grep -Eq -- "$3" <<<"$2"; then
    echo "check: $1: ok"
  else
    echo "check: $1: FAILED (no match for /$3/)"
    failures=$((failures + 1))
  fi
}
check_not() {  # check_not WHAT TEXT PATTERN: no line may match
  if grep -Eq -- "$3" <<<"$2"; then
    echo "check: $1: FAILED (/$3/ matched)"
    failures=$((failures + 1))
  else
    echo "check: $1: ok"
  fi
}
# The lab's verdict: exit 1 when a check failed.
finish() {
  echo
  if [ "$failures" -ne 0 ]; then
    echo "$lab lab: $failures check(s) failed"
    exit 1
  fi
  echo "$lab lab: all checks passed"
}
