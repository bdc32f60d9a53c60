#!/usr/bin/env bash
# Runs fio and `cellsim io zero` on the same workload, one after the other, and
# prints both throughputs and their ratio (issue 2 asks cellsim >= 0.9 x fio at
# 1 MiB / QD 32 / O_DIRECT / 2 GiB).
#
#   scripts/fio_compare.sh [DIR] [--size 2g] [--block-size 1m] [--queue-depth 32]
#                          [--runs 1] [--min-ratio R]
#
# fio: io_uring engine, --direct=1, --zero_buffers, sequential writes of a fresh
# file. cellsim: `cellsim io zero --json` (O_DIRECT, io_uring) on a fresh file.
# DIR defaults to a temporary directory under build/; both files are removed.
# The binary is $CELLSIM, else build/release/cellsim/cli/cellsim (built if missing).
# With --min-ratio, exits 1 when a run's ratio is below R.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
size=2g bs=1m qd=32 runs=1 min_ratio="" dir=""
while (($#)); do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --block-size|--bs) bs=$2; shift 2 ;;
    --queue-depth|--qd) qd=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --min-ratio) min_ratio=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "fio_compare: unknown option $1" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
command -v fio >/dev/null || { echo "fio_compare: fio is not installed (scripts/deps.sh)" >&2; exit 1; }
cellsim=${CELLSIM:-$root/build/release/cellsim/cli/cellsim}
if [ ! -x "$cellsim" ]; then
  echo "fio_compare: building $cellsim" >&2
  "$root/scripts/build.sh" release cellsim_cli >&2
fi
made_dir=""
if [ -z "$dir" ]; then
  mkdir -p "$root/build"
  dir=$(mktemp -d "$root/build/fio-compare.XXXXXX")
  made_dir=$dir
fi
[ -d "$dir" ] || { echo "fio_compare: $dir is not a directory" >&2; exit 2; }
fio_file="$dir/fio_compare.fio.img"
cs_file="$dir/fio_compare.cellsim.img"
cleanup() {
  rm -f "$fio_file" "$cs_file"
  if [ -n "$made_dir" ]; then rmdir "$made_dir" 2>/dev/null || true; fi
}
trap cleanup EXIT

fs=$(stat -f -c %T "$dir" 2>/dev/null || echo "?")
echo "fio_compare: $size in $bs requests, queue depth $qd, O_DIRECT, io_uring, in $dir ($fs)"
status=0
for ((run = 1; run <= runs; run++)); do
  rm -f "$fio_file" "$cs_file"
  # Terse output: field 48 is the write bandwidth in KiB/s.
  fio_line=$(fio --name=zero --filename="$fio_file" --ioengine=io_uring --direct=1 \
               --rw=write --bs="$bs" --iodepth="$qd" --size="$size" --zero_buffers \
               --minimal) || { echo "fio_compare: fio failed" >&2; exit 1; }
  fio_mib=$(awk -F';' '{printf "%.1f", $48 / 1024}' <<<"$fio_line")
  rm -f "$fio_file"
  cs_json=$("$cellsim" io zero "$cs_file" --size "$size" --block-size "$bs" \
              --queue-depth "$qd" --json) || { echo "fio_compare: cellsim io zero failed" >&2; exit 1; }
  cs_mib=$(sed -E 's/.*"mib_per_s":([0-9.eE+-]+).*/\1/' <<<"$cs_json")
  cs_mib=$(awk -v v="$cs_mib" 'BEGIN {printf "%.1f", v}')
  cs_p99=$(sed -E 's/.*"p99_us":([0-9.eE+-]+).*/\1/' <<<"$cs_json")
  rm -f "$cs_file"
  ratio=$(awk -v a="$cs_mib" -v b="$fio_mib" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
  printf 'run %d: fio %9s MiB/s   cellsim %9s MiB/s (p99 %.0f us)   ratio cellsim/fio %s\n' \
    "$run" "$fio_mib" "$cs_mib" "$cs_p99" "$ratio"
  if [ -n "$min_ratio" ] && awk -v r="$ratio" -v m="$min_ratio" 'BEGIN {exit !(r < m)}'; then
    echo "fio_compare: run $run ratio $ratio is below $min_ratio" >&2
    status=1
  fi
done
exit $status
