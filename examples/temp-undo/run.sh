#!/usr/bin/env bash
# The temp-undo seed ("Big Savings on Oracle REDO Via Temp UNDO") on cellsim:
# a rack, the seed's schema (create/create.sql), the seed's sqlrun.sh twice
# (temp_undo_enabled FALSE, then TRUE set with `alter system`), the seed's
# comparison table, each run's allseg report, a PNG of redo per 10 s, and
# Connor McDonald's demo that the mode is latched at a session's first use.
# docs/labs/temp-undo.md explains every step and the figures.
#
#   examples/temp-undo/run.sh [WORKDIR]
#
# WORKDIR defaults to /dev/shm/cellsim-temp-undo (a tmpfs: the two racks'
# sparse files take ~400 MiB each; the FALSE run writes ~1 GB of redo, twice
# mirrored, which on a disk with O_DIRECT costs more wall time than the whole
# simulation), or /tmp/cellsim-temp-undo where /dev/shm is not writable.
#
# Environment: CELLSIM (the binary; default: build/release, built or brought up to date),
# RUNTIME (300), SESSIONS (10), ROWS (ALL_OBJECTS rows, 70000), CLOCK
# (simulated; real runs in wall time). The rack's files are sparse and
# removed at the end (KEEP=1 keeps them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
lab_start=$(date +%s.%N)
default_work=/tmp/cellsim-temp-undo
[ -d /dev/shm ] && [ -w /dev/shm ] && default_work=/dev/shm/cellsim-temp-undo
work=${1:-$default_work}
runtime=${RUNTIME:-300} sessions=${SESSIONS:-10} rows=${ROWS:-70000} clock=${CLOCK:-simulated}
if [ -z "${CELLSIM:-}" ]; then
  CELLSIM=$repo/build/release/cellsim/cli/cellsim
  # Built (or brought up to date: a stale binary lacks what the lab uses).
  "$repo/scripts/build.sh" release cellsim_cli >/dev/null
fi
command -v jq >/dev/null || "$repo/scripts/deps.sh" jq >&2
rm -rf "$work"
mkdir -p "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"/FALSE.rack "$work"/TRUE.rack' EXIT
# An eighth rack of X3-2 (the clock lab's): 3 cells x 6 disks x 2 flash cards.
rack=(--profile x3-2 --rack eighth --clock "$clock")
# One run: a rack, the database with its standard files (SYSTEM, SYSAUX,
# UNDOTBS1, USERS, 3 log groups of 32 MiB in +DATA and +RECO) and a TEMP of
# 256 MiB (10 sessions hold a 70,000-row GTT segment and, with TRUE, a
# temp-undo segment each), the seed's schema (create.sql as SQL*Plus runs it:
# its DROPs fail on a new database and the script goes on), then the seed's
# sqlrun.sh with temp_undo_enabled set by `alter system` in the same instance.
one_run() {
  local setting=$1 mode=$2 start=$3 r="$work/$1.rack"
  "$CELLSIM" rack create "$r" "${rack[@]}" --disk-group DATA:NORMAL:1g \
    --disk-group RECO:NORMAL:512m --flash-size 256m >/dev/null
  "$CELLSIM" sql "$r" "${rack[@]}" --standard-files --all-objects-rows "$rows" \
    -e "whenever sqlerror continue" -e "drop tablespace temp including contents and datafiles" \
    -e "create temporary tablespace temp tempfile '+DATA' size 256m" \
    -f create/create.sql >"$work/$setting.create.log" 2>&1
  echo "== temp_undo_enabled = $setting: $sessions sessions x $runtime s" >&2
  "$CELLSIM" sqlrun "$r" "${rack[@]}" --fixed-time "$start" --all-objects-rows "$rows" \
    --setup "set-temp-undo-$mode.sql" \
    --exe-mode sequential --connect-mode flood --tx-behavior commit \
    --max-sessions "$sessions" --exe-delay 0.25 --db p2 --username undotest --password XXXX \
    --runtime "$runtime" --sqldir "$(pwd)/SQL" --monitor 5 --allseg --json \
    >"$work/$setting.json" 2>"$work/$setting.log"
}
cd "$here"
# The seed ran FALSE on 2022-07-05 from 12:46, TRUE later; each run's clock
# starts at its own time. The two runs are independent racks: under the
# simulated clock they run side by side (PARALLEL=0: one after the other),
# with the same figures either way; under the real clock one after the other,
# as the seed's did (side by side they would compete for this machine's CPUs,
# PARALLEL=1).
start=1657025160
parallel=${PARALLEL:-1}
[ "$clock" = real ] && parallel=${PARALLEL:-0}
if [ "$parallel" = 1 ]; then
  one_run FALSE off "$start" &
  false_pid=$!
  one_run TRUE on $((start + 3600)) &
  wait "$false_pid"
  wait $!
else
  one_run FALSE off "$start"
  one_run TRUE on $((start + 3600))
fi
# The seed's comparison: redo, undo, transactions (sum(txacts) of txcount).
row() {
  jq -r --arg run "$1" '[$run, .final.redo_size, (.final.redo_size / 1048576 * 100 | round / 100),
    .final.undo_change_vector_size, .final.txcount, .elapsed_s, .wall_s] | @tsv' "$work/$1.json"
}
{
  echo "The seed: FALSE ~816 MB of redo, TRUE 2.54 MB; TRUE ran 99 more transactions."
  echo
  { printf 'RUN\tREDO SIZE (B)\tREDO (MB)\tUNDO CHANGE VECTOR SIZE (B)\tTRANSACTIONS (TXCOUNT)\tRUN (s)\tWALL (s)\n'
    row FALSE; row TRUE; } | column -t -s $'\t'
  f=$(jq .final.txcount "$work/FALSE.json") t=$(jq .final.txcount "$work/TRUE.json")
  echo "TRUE - FALSE transactions: $((t - f))"
  for setting in FALSE TRUE; do
    echo
    echo "SQL# @allseg    (after the $setting run)"
    jq -r .allseg_report "$work/$setting.json"
  done
} | tee "$work/table.txt"
# The second step: Connor McDonald's latch demo (docs/labs/temp-undo.md).
"$CELLSIM" sql "$work/FALSE.rack" "${rack[@]}" -f connor-latch.sql >"$work/connor.log" 2>&1
mapfile -t redo < <(awk '/^redo size/ {print $3}' "$work/connor.log")
{
  echo
  echo "Connor McDonald's latch demo: TRUE set after the session's first GTT change"
  echo "  delete of 50,000 char(1000) GTT rows: $((redo[1] - redo[0])) B of redo"
  echo "  (Connor, 12c: 60,566,000 B; with the parameter never set: 60,562,540 B)"
} | tee -a "$work/table.txt"
# Redo per 10 s of each run (the monitor samples every 5 s).
for setting in FALSE TRUE; do
  jq -r '[.samples[] | select((.t_s * 1000 | round) % 10000 == 0)] as $s
         | range(1; $s | length) as $i
         | "\($s[$i].t_s) \(($s[$i].redo_size - $s[$i - 1].redo_size) / 1048576)"' \
    "$work/$setting.json" >"$work/$setting.redo10s"
done
if command -v gnuplot >/dev/null || "$repo/scripts/deps.sh" gnuplot-nox >&2; then
  gnuplot <<EOF
set terminal pngcairo size 900,480 noenhanced
set output "$work/redo-per-10s.png"
set title "Redo per 10 s, $sessions sessions (cellsim, $clock clock)"
set xlabel "seconds into the run"
set ylabel "redo (MB per 10 s)"
set logscale y
set key top right
plot "$work/FALSE.redo10s" using 1:(\$2 > 0 ? \$2 : 1e-3) with linespoints title "temp_undo_enabled = FALSE", \
     "$work/TRUE.redo10s" using 1:(\$2 > 0 ? \$2 : 1e-3) with linespoints title "temp_undo_enabled = TRUE"
EOF
  echo "plot: $work/redo-per-10s.png" >&2
fi
echo "lab wall time: $(awk -v a="$lab_start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s" \
  | tee -a "$work/table.txt"
