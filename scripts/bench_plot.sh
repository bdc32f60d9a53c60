#!/usr/bin/env bash
# Turns the JSON of scripts/bench_compare.sh into PNG figures with gnuplot
# (docs/benchmarks.md):
#
#   scripts/bench_plot.sh RESULTS_DIR [FIGDIR]     (FIGDIR default: RESULTS_DIR)
#
#   creation_time.png  creation time vs logical size per path and io mode,
#                      log-log, with fio and fallocate zero-range + fsync on the
#                      same physical bytes as reference lines (summary.json)
#   scaling.png        fast creation 1..64 GiB: time, and metadata bytes
#                      persisted per created GiB (scaling.json, if present)
#   read.png           sequential read after each path: throughput and the
#                      share of blocks generated from fast-creation metadata
#                      (read.json, if present)
# gnuplot (Debian's gnuplot-nox) and jq are installed with apt-get if missing.
set -euo pipefail
if (($# < 1)) || [ "$1" = -h ] || [ "$1" = --help ]; then sed -n '2,15p' "$0"; exit 2; fi
results=$1
figs=${2:-$1}
[ -f "$results/summary.json" ] || { echo "bench_plot: $results/summary.json not found (run scripts/bench_compare.sh)" >&2; exit 2; }
command -v gnuplot >/dev/null && command -v jq >/dev/null ||
  "$(dirname "$0")/deps.sh" gnuplot-nox jq >&2
mkdir -p "$figs"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
machine=$(jq -r '.machine | "\(.nproc) CPUs, kernel \(.kernel), \(.filesystem)"' "$results/summary.json")

# ------------------------------------------------------- creation time
# One data file per series: logical GiB, seconds.
series=()
declare -A color=([zero-fill]='#d62728' [smart]='#1f77b4' [fast]='#2ca02c')
declare -A dash=([buffered]=1 [direct]=4)
for row in zero-fill smart fast; do
  for io in buffered direct; do
    f="$data/$row-$io.dat"
    jq -r --arg r "$row" --arg io "$io" '.rows[] | select(.row == $r and .io == $io and .time_s)
      | "\(.logical / 1073741824) \(.time_s)"' "$results/summary.json" | sort -g >"$f"
    [ -s "$f" ] && series+=("'$f' using 1:2 with linespoints lw 2 pt 7 dt ${dash[$io]} lc rgb '${color[$row]}' title '$row ($io)'")
  done
done
# Peers against the logical size of the creation they stand beside (2 x member).
for peer in fio fallocate; do
  f="$data/$peer.dat"
  jq -r --arg r "$peer" '.rows[] | select(.row == $r and .time_s)
    | "\(.size_mib * 2 / 1024) \(.time_s)"' "$results/summary.json" | sort -g >"$f"
done
[ -s "$data/fio.dat" ] && series+=("'$data/fio.dat' using 1:2 with lines dt 2 lw 2 lc rgb 'black' title 'fio io\\_uring direct (same physical bytes)'")
[ -s "$data/fallocate.dat" ] && series+=("'$data/fallocate.dat' using 1:2 with lines dt 3 lw 2 lc rgb 'gray40' title 'fallocate zero-range + fsync (same physical bytes)'")
if ((${#series[@]})); then
  plot=$(IFS=,; echo "${series[*]}")
  gnuplot <<EOF
set terminal pngcairo size 1000,750 font ",10"
set output '$figs/creation_time.png'
set title "File creation time vs logical size (NORMAL, AU 4 MiB, 2 members)\n$machine"
set logscale xy 2
set format y "%g"
set xlabel 'logical size (GiB; physical = 2x)'
set ylabel 'time (s)'
set grid
set key below maxrows 3 width -4
plot $plot
EOF
  echo "bench_plot: $figs/creation_time.png"
fi

# -------------------------------------------------------------- scaling
scaling_dat() {  # JSON -> GiB, s, s/GiB, KiB/GiB total, cells, ASM, ranges
  jq -r '.benchmarks[] | select(.error_occurred | not)
    | "\(.logical_bytes / 1073741824) \(.real_time / 1000) \(.s_per_GiB) \(.meta_bytes_per_GiB / 1024) \(.cell_meta_bytes_per_GiB / 1024) \(.asm_meta_bytes_per_GiB / 1024) \(.template_ranges)"' \
    "$1" | sort -g
}
if [ -s "$results/scaling.json" ]; then
  scaling_dat "$results/scaling.json" >"$data/scaling.dat"
  extra=""
  if [ -s "$results/scaling_4cells.json" ]; then
    scaling_dat "$results/scaling_4cells.json" >"$data/scaling4.dat"
    [ -s "$data/scaling4.dat" ] && extra=", '$data/scaling4.dat' using 1:2 with linespoints lw 2 dt 4 title 'fast creation time, 4 cells'"
  fi
  if [ -s "$data/scaling.dat" ]; then
    t1=$(awk 'NR == 1 {print $2}' "$data/scaling.dat")
    x1=$(awk 'NR == 1 {print $1}' "$data/scaling.dat")
    gnuplot <<EOF
set terminal pngcairo size 1000,800 font ",10"
set output '$figs/scaling.png'
set multiplot layout 2,1 title "Fast creation, NORMAL, AU 4 MiB, 2 members, 12 disks per cell: $machine"
set logscale xy 2
set format y "%g"
set grid
set xlabel 'logical size (GiB)'
set ylabel 'time (s)'
set key top left
plot '$data/scaling.dat' using 1:2 with linespoints lw 2 title 'fast creation time, 3 cells'$extra, \
     $t1 * x / $x1 with lines dt 2 lc rgb 'gray40' title 'linear from the smallest point'
unset logscale y
set logscale x 2
set ylabel 'metadata persisted (KiB per created GiB)'
set yrange [0:*]
plot '$data/scaling.dat' using 1:4 with linespoints lw 2 title 'total (3 cells)', \
     '' using 1:5 with linespoints title 'cells: flash metadata (journal, checkpoints)', \
     '' using 1:6 with linespoints title 'ASM metadata (extent maps)'
unset multiplot
EOF
    echo "bench_plot: $figs/scaling.png"
  fi
fi

# ----------------------------------------------------------------- read
if [ -s "$results/read.json" ]; then
  jq -r '.benchmarks[] | select(.error_occurred | not)
    | (.name | capture("path:(?<p>[a-z-]+)/logical_mib:(?<m>[0-9]+)/io:(?<io>[a-z]+)")) as $n
    | "\"\($n.p) \($n.io) \($n.m) MiB\" \(.bytes_per_second / 1048576) \(100 * .generated_bytes / .logical_bytes)"' \
    "$results/read.json" >"$data/read.dat"
  if [ -s "$data/read.dat" ]; then
    gnuplot <<EOF
set terminal pngcairo size 1000,600 font ",10"
set output '$figs/read.png'
set title "Sequential read of a freshly created file (page cache dropped): $machine"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -30
set ylabel 'MiB/s'
set yrange [0:*]
set key top left
set y2label 'blocks generated from metadata (%)'
set y2range [0:110]
set y2tics
set ytics nomirror
set grid y
plot '$data/read.dat' using 2:xtic(1) title 'read throughput', \
     '' using 0:3 axes x1y2 with points pt 7 ps 1.5 lc rgb 'black' title 'generated share'
EOF
    echo "bench_plot: $figs/read.png"
  fi
fi
