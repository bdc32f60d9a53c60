#!/usr/bin/env bash
# The seed statement by fast data file creation beside its kernel peer, in
# alternating rounds on one filesystem ($TMPDIR, default /tmp): creation_bench
# `BM_Create/path:fast/logical_mib:8192/red:NORMAL/au_mib:4/members:2/io:IO`
# (`alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4g`,
# 16 GiB of physical copies) and `BM_PeerFallocateZeroRange/file_mib:4096/files:4`
# (fallocate(FALLOC_FL_ZERO_RANGE) of 4 new 4 GiB files, then an fsync each),
# each the median of --repetitions runs of 3 statements, one after the other
# in every round, so that a disk whose sync latency drifts moves both sides of
# a round's ratio. Prints each round (with where the statement's time went:
# control-file writes, the cells' creation waits, header writes, ASM
# allocation) and the median of the rounds' ratios (issue 14 asks <= 2).
#
#   scripts/fast_create_compare.sh [--rounds 7] [--repetitions 3] [--io buffered|direct] [--bench BIN]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=7 reps=3 io=buffered bench=""
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --repetitions) reps=$2; shift 2 ;;
    --io) io=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "fast_create_compare: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$io" in buffered|direct) ;; *) echo "fast_create_compare: --io buffered|direct" >&2; exit 2 ;; esac
command -v jq >/dev/null || { echo "fast_create_compare: jq is not installed (scripts/deps.sh jq)" >&2; exit 1; }
bench=${bench:-$root/build/release/bench/creation_bench}
[ -x "$bench" ] || "$root/scripts/build.sh" release creation_bench >&2
tmp=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmp/fast-create-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "fast_create_compare: $tmp ($(stat -f -c %T "$tmp")), grid disks and flash $io, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # filter -> the median aggregate's JSON object (or the error)
  "$bench" --benchmark_filter="$1" --benchmark_repetitions="$reps" --benchmark_format=json 2>/dev/null |
    jq -c '([.benchmarks[] | select(.error_occurred)] | first) //
           ([.benchmarks[] | select(.aggregate_name == "median")] | first) //
           ([.benchmarks[] | select(.run_type == "iteration")] | first)'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
printf '%-6s %9s %9s %7s | %s\n' round fast_ms peer_ms ratio \
  'statement: cf_write cell_waits headers asm_alloc cpu (ms), flash syncs'
for ((r = 1; r <= rounds; r++)); do
  fast=$(run "^BM_Create/path:fast/logical_mib:8192/red:NORMAL/au_mib:4/members:2/io:$io/")
  peer=$(run "^BM_PeerFallocateZeroRange/file_mib:4096/files:4/")
  for j in "$fast" "$peer"; do
    if [ "$(jq -r '.error_occurred // false' <<<"$j")" = true ]; then
      echo "fast_create_compare: $(jq -r .error_message <<<"$j")" >&2
      exit 1
    fi
  done
  f_ms=$(jq -r .real_time <<<"$fast")
  p_ms=$(jq -r .real_time <<<"$peer")
  printf '%-6s %9.2f %9.2f %7.2f | %s\n' "$r" "$f_ms" "$p_ms" "$(bc -l <<<"$f_ms / $p_ms")" \
    "$(jq -r '[.cf_write_s, .wait_s, .header_write_s, .asm_alloc_s, .cpu_s] |
              map(. * 1000 * 100 | round / 100 | tostring) | join(" ")' <<<"$fast"), $(jq -r .flash_syncs <<<"$fast")"
  echo "$f_ms $p_ms" >>"$work/rounds"
done
awk '{print $1 / $2}' "$work/rounds" >"$work/ratios"
printf 'median: fast %.2f ms, fallocate peer %.2f ms; median of round ratios %.2f (%s of %s rounds <= 2)\n' \
  "$(cut -d' ' -f1 "$work/rounds" | median)" "$(cut -d' ' -f2 "$work/rounds" | median)" \
  "$(median <"$work/ratios")" "$(awk '$1 <= 2' "$work/ratios" | wc -l)" "$rounds"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
