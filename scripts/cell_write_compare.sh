#!/usr/bin/env bash
# Durable 8 KiB random writes, one at a time: a write-back cell and a
# write-through cell (bench/cell_bench BM_RandomWrite8K/mode:0|1) beside fio
# `randwrite bs=8k direct=1 fdatasync=1 iodepth=1` on the same filesystem
# ($TMPDIR, default /tmp), and the 1- and 8-writer group-commit rows
# (BM_RandomWrite8KWriters), run in alternating rounds (fio, write-back,
# write-through, 1 writer, 8 writers, fio, ...) so that a machine whose speed
# drifts moves both sides of each ratio. Prints each round and the medians of
# the rounds' ratios (issue 14 asks
# write-back / fio >= 0.9, and 8 writers >= 2 x 1 writer).
#
# The cell's files are buffered, or O_DIRECT like fio's with --direct 1.
# With buffered files the group-commit pair also runs with the grid disks on
# another filesystem than flash.img (devices:2: $CELLSIM_BENCH_GRID_DIR,
# default /dev/shm), as a cell's disks are other devices than its flash: the
# "sep" columns. On one device the cleaner's destage writes share the device
# with the flash journal. "dev8/1" is the device's own ceiling for the pair
# (BM_PeerSyncedPages: 8 random pages + a journal write per fdatasync from one
# thread, against 1 page per fdatasync).
#
#   scripts/cell_write_compare.sh [--rounds 5] [--seconds 3] [--direct 0|1] [--bench BIN]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=5 secs=3 bench="" direct=0
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --direct) direct=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "cell_write_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "cell_write_compare: fio is not installed (scripts/deps.sh)" >&2; exit 1; }
bench=${bench:-$root/build/release/bench/cell_bench}
[ -x "$bench" ] || "$root/scripts/build.sh" release cell_bench >&2
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/cell-write-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "cell_write_compare: $tmp ($(stat -f -c %T "$tmp")), cell files $( ((direct)) && echo O_DIRECT || echo buffered), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
cs_iops() {  # filter -> IOPS of the first matching benchmark
  "$bench" --benchmark_filter="$1" --benchmark_min_time="$secs" --benchmark_format=json 2>/dev/null |
    jq -r '[.benchmarks[] | .IOPS] | first | floor'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
sep=$((direct == 0))
printf '%-6s %10s %10s %10s %8s %8s %10s %10s %8s' round fio_iops wb_iops wt_iops wb/fio wt/fio 1_writer 8_writers 8/1
((sep)) && printf ' %10s %10s %8s' 1_sep 8_sep 8/1_sep
printf ' %8s\n' dev8/1
for ((r = 1; r <= rounds; r++)); do
  fio_iops=$(fio --name=rw --filename="$work/fio.img" --size=1g --rw=randwrite --bs=8k --direct=1 \
               --fdatasync=1 --iodepth=1 --ioengine=psync --runtime="$secs" --time_based \
               --output-format=json | jq -r '.jobs[0].write.iops | floor')
  rm -f "$work/fio.img"
  wb=$(cs_iops "^BM_RandomWrite8K/mode:0/direct:$direct/")
  wt=$(cs_iops "^BM_RandomWrite8K/mode:1/direct:$direct/")
  one=$(cs_iops "^BM_RandomWrite8KWriters/direct:$direct/devices:1/.*threads:1\$")
  eight=$(cs_iops "^BM_RandomWrite8KWriters/direct:$direct/devices:1/.*threads:8\$")
  printf '%-6s %10s %10s %10s %8.2f %8.2f %10s %10s %8.2f' "$r" "$fio_iops" "$wb" "$wt" \
    "$(bc -l <<<"$wb / $fio_iops")" "$(bc -l <<<"$wt / $fio_iops")" "$one" "$eight" \
    "$(bc -l <<<"$eight / $one")"
  one_sep=1 eight_sep=1
  if ((sep)); then
    one_sep=$(cs_iops "^BM_RandomWrite8KWriters/direct:0/devices:2/.*threads:1\$")
    eight_sep=$(cs_iops "^BM_RandomWrite8KWriters/direct:0/devices:2/.*threads:8\$")
    printf ' %10s %10s %8.2f' "$one_sep" "$eight_sep" "$(bc -l <<<"$eight_sep / $one_sep")"
  fi
  dev1=$(cs_iops '^BM_PeerSyncedPages/pages:1/')
  dev8=$(cs_iops '^BM_PeerSyncedPages/pages:8/')
  printf ' %8.2f\n' "$(bc -l <<<"$dev8 / $dev1")"
  echo "$fio_iops $wb $wt $one $eight $one_sep $eight_sep $dev1 $dev8" >>"$work/rounds"
done
col() { cut -d' ' -f"$1" "$work/rounds" | median; }
awk '{print $2 / $1}' "$work/rounds" | median |
  xargs printf 'median: fio %s, write-back %s, write-through %s IOPS; median of round ratios write-back/fio %.2f\n' \
    "$(col 1)" "$(col 2)" "$(col 3)"
awk '{print $5 / $4}' "$work/rounds" | median |
  xargs printf 'group commit: median 1 writer %s, 8 writers %s IOPS; median of round ratios 8/1 %.2fx\n' \
    "$(col 4)" "$(col 5)"
if ((sep)); then
  awk '{print $7 / $6}' "$work/rounds" | median |
    xargs printf 'group commit, grid disks on another device: median 1 writer %s, 8 writers %s IOPS; median of round ratios 8/1 %.2fx\n' \
      "$(col 6)" "$(col 7)"
fi
awk '{print $9 / $8}' "$work/rounds" | median |
  xargs printf "the device's ceiling (8 pages per sync vs 1): median %s vs %s IOPS; median of round ratios %.2fx\n" \
    "$(col 9)" "$(col 8)"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
