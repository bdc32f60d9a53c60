#!/usr/bin/env bash
# Draws a cellsim --trace file (Chrome trace-event JSON) as a timeline PNG with
# gnuplot: one row per session and, per cell, one row for its disks and one for
# its flash cards (the slices of every cell disk / card of the cell overlaid);
# the runs of one trace (cellsim demo: zero-fill, smart, fast) stacked on one
# time axis, so their lengths compare at a glance (docs/sim.md).
#
#   scripts/trace_plot.sh TRACE.json OUT.png [TITLE]
#
# gnuplot (Debian's gnuplot-nox) and jq are installed with apt-get if missing.
set -euo pipefail
if (($# < 2)) || [ "$1" = -h ] || [ "$1" = --help ]; then sed -n '2,9p' "$0"; exit 2; fi
trace=$1 out=$2 title=${3:-cellsim timeline}
[ -f "$trace" ] || { echo "trace_plot: $trace not found" >&2; exit 2; }
command -v gnuplot >/dev/null && command -v jq >/dev/null ||
  "$(dirname "$0")/deps.sh" gnuplot-nox jq >&2
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
# Rows: "<process> | <kind>" where kind is session, disks, flash (others dropped).
jq -r '
  .traceEvents as $e
  | ($e | map(select(.ph=="M" and .name=="process_name") | {key: (.pid|tostring), value: .args.name}) | from_entries) as $proc
  | ($e | map(select(.ph=="M" and .name=="thread_name") | {key: "\(.pid)/\(.tid)", value: .args.name}) | from_entries) as $thr
  | $e[] | select(.ph=="X")
  | ($thr["\(.pid)/\(.tid)"] // "") as $t
  | (if ($t|startswith("session")) then "session"
     elif ($t|startswith("disk") or startswith("flash CD")) then "disks"
     elif ($t|startswith("flash")) then "flash"
     else empty end) as $kind
  | [($proc[(.pid|tostring)] | sub("cel[0-9]+$"; "") | sub("database$"; "")), ($proc[(.pid|tostring)]), $kind, (.ts/1e6), ((.ts+.dur)/1e6)]
  | @tsv' "$trace" > "$data/slices.tsv"
[ -s "$data/slices.tsv" ] || { echo "trace_plot: $trace has no session, disk or flash slices" >&2; exit 1; }
# Rows: runs in order of first appearance; in a run the session, then per cell
# its disks and its flash.
awk -F'\t' '{
  if (!($1 in run)) run[$1] = ++runs
  label = ($3 == "session") ? $1 "session" : $2 " " $3
  cell = 0; if (match($2, /cel[0-9]+$/)) cell = substr($2, RSTART + 3) + 0
  key = run[$1] * 100000 + ($3 == "session" ? 0 : cell * 2 + ($3 == "flash"))
  if (!(label in seen)) { seen[label] = 1; printf "%d\t%s\n", key, label }
}' "$data/slices.tsv" | sort -n -k1,1 | awk -F'\t' '{ printf "%d\t%s\n", NR, $2 }' > "$data/rows.tsv"
awk -F'\t' 'NR == FNR { row[$2] = $1; next }
  { label = ($3 == "session") ? $1 "session" : $2 " " $3
    printf "%s\t%d\t%s\t%s\n", $3, row[label], $4, $5 }' "$data/rows.tsv" "$data/slices.tsv" \
  > "$data/boxes.tsv"
rows=$(wc -l < "$data/rows.tsv")
height=$((160 + rows * 22))
ytics=$(awk -F'\t' '{ printf "%s\"%s\" %d", (NR>1?", ":""), $2, $1 }' "$data/rows.tsv")
gnuplot <<GP
set terminal pngcairo size 1400,${height} font "DejaVu Sans,10"
set output "${out}"
set title "${title}"
set xlabel "time (s)"
set yrange [${rows}+0.6:0.4]
set ytics (${ytics})
set grid xtics
set style fill solid 0.35 noborder
set key outside bottom center horizontal
plot "${data}/boxes.tsv" using (strcol(1) eq "session" ? (\$3+\$4)/2 : 1/0):2:3:4:(\$2-0.35):(\$2+0.35) with boxxyerror lc rgb "#4c72b0" title "session (statement, cell calls)", \
     "" using (strcol(1) eq "disks" ? (\$3+\$4)/2 : 1/0):2:3:4:(\$2-0.35):(\$2+0.35) with boxxyerror lc rgb "#dd8452" title "cell disk busy", \
     "" using (strcol(1) eq "flash" ? (\$3+\$4)/2 : 1/0):2:3:4:(\$2-0.35):(\$2+0.35) with boxxyerror lc rgb "#55a868" title "flash card busy"
GP
echo "trace_plot: wrote $out ($rows rows)"
