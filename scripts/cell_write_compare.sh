#!/usr/bin/env bash
# Durable 8 KiB random writes, one at a time: a write-back cell and a
# write-through cell (bench/cell_bench BM_RandomWrite8K/mode:0|1) beside fio
# `randwrite bs=8k direct=1 fdatasync=1 iodepth=1` on the same filesystem
# ($TMPDIR, default /tmp), run in alternating rounds (fio, write-back,
# write-through, fio, ...) so that a machine whose speed drifts moves both
# sides of each ratio; then the 1- and 8-writer group-commit rows
# (BM_RandomWrite8KWriters). Prints each round and the medians (issue 14 asks
# write-back / fio >= 0.9, and 8 writers >= 2 x 1 writer).
#
#   scripts/cell_write_compare.sh [--rounds 5] [--seconds 3] [--bench BIN]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=5 secs=3 bench=""
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "cell_write_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "cell_write_compare: fio is not installed (scripts/deps.sh)" >&2; exit 1; }
bench=${bench:-$root/build/release/bench/cell_bench}
[ -x "$bench" ] || "$root/scripts/build.sh" release cell_bench >&2
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/cell-write-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "cell_write_compare: $tmp ($(stat -f -c %T "$tmp")), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
cs_iops() {  # filter -> IOPS of the first matching benchmark
  "$bench" --benchmark_filter="$1" --benchmark_min_time="$secs" --benchmark_format=json 2>/dev/null |
    jq -r '[.benchmarks[] | .IOPS] | first | floor'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
printf '%-6s %10s %10s %10s %8s %8s\n' round fio_iops wb_iops wt_iops wb/fio wt/fio
for ((r = 1; r <= rounds; r++)); do
  fio_iops=$(fio --name=rw --filename="$work/fio.img" --size=1g --rw=randwrite --bs=8k --direct=1 \
               --fdatasync=1 --iodepth=1 --ioengine=psync --runtime="$secs" --time_based \
               --output-format=json | jq -r '.jobs[0].write.iops | floor')
  rm -f "$work/fio.img"
  wb=$(cs_iops '^BM_RandomWrite8K/mode:0/')
  wt=$(cs_iops '^BM_RandomWrite8K/mode:1/')
  printf '%-6s %10s %10s %10s %8.2f %8.2f\n' "$r" "$fio_iops" "$wb" "$wt" \
    "$(bc -l <<<"$wb / $fio_iops")" "$(bc -l <<<"$wt / $fio_iops")"
  echo "$fio_iops $wb $wt" >>"$work/rounds"
done
f=$(cut -d' ' -f1 "$work/rounds" | median)
b=$(cut -d' ' -f2 "$work/rounds" | median)
t=$(cut -d' ' -f3 "$work/rounds" | median)
awk '{print $2 / $1}' "$work/rounds" | median | xargs printf 'median: fio %s, write-back %s, write-through %s IOPS; median of round ratios write-back/fio %.2f\n' "$f" "$b" "$t"
one=$(cs_iops '^BM_RandomWrite8KWriters/.*threads:1$')
eight=$(cs_iops '^BM_RandomWrite8KWriters/.*threads:8$')
printf 'group commit: 1 writer %s IOPS, 8 writers %s IOPS: %.2fx\n' "$one" "$eight" "$(bc -l <<<"$eight / $one")"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
