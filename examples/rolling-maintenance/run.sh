#!/usr/bin/env bash
# Exadata's rolling cell maintenance on cellsim: take one cell's grid disks out
# with CellCLI (ALTER GRIDDISK ALL INACTIVE), keep the database writing on the
# mirrors, bring them back (ALL ACTIVE) and watch ASM resync only what changed;
# see why a second cell may not go while the first is out. Every step is a
# command a DBA types; the checks say what each one must show.
# docs/labs/rolling-cell-maintenance.md explains the steps.
#
#   examples/rolling-maintenance/run.sh [WORKDIR]
#
# WORKDIR defaults to a new folder under $TMPDIR (or /tmp), removed at the end
# (KEEP=1 keeps it). CELLSIM is the binary (default: build/release, built or
# brought up to date first). The rack is small and sparse: ~60 MiB on disk.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=rolling-maintenance
source "$here/../lab_steps.sh"
rack=$work/rack

step "A rack: 3 cells x 2 disks, DATA and RECO mirrored (NORMAL), and a database"
"$CELLSIM" rack create "$rack" --cells 3 --disks-per-cell 2 --disk-group DATA:NORMAL:1g \
  --disk-group RECO:NORMAL:512m --flash-size 128m >/dev/null
show sql "$rack" --standard-files \
  -e "create table orders (id number primary key, status varchar2(10), note varchar2(200))" \
  -e "insert into orders select level, 'NEW', rpad('x', 200, 'x') from dual connect by level <= 20000" \
  -e "commit" 2>/dev/null | grep -v '^$'

step "Before: can every grid disk go? (asmDeactivationOutcome)"
out=$(show cellcli "$rack" -e "list griddisk attributes name, status, asmModeStatus, asmDeactivationOutcome")
echo "$out"
check "every grid disk ONLINE and Yes" "$out" "ONLINE +Yes"
check_not "no grid disk refuses" "$out" "Cannot"

step "cel01 goes out: ALTER GRIDDISK ALL INACTIVE"
show cellcli "$rack" -c cel01 -e "alter griddisk all inactive"
out=$(show cellcli "$rack" -e "list griddisk attributes name, status, asmModeStatus, asmDeactivationOutcome")
echo "$out"
check "cel01's disks inactive and OFFLINE" "$out" "cel01: +DATA_CD_00_cel01 +inactive +OFFLINE"
check "the other cells' disks now hold the only copies" "$out" "cel02: .*Cannot de-activate due to other offline disks in the diskgroup"
out=$(show asmcmd "$rack" lsdg)
echo "$out"
check "lsdg counts cel01's 2 DATA disks offline" "$out" " 2 +N +DATA/"

step "cel02 may not follow while cel01 is out"
out=$(show cellcli "$rack" -c cel02 -e "alter griddisk all inactive" 2>&1 || true)
echo "$out"
check "refused with ORA-15066" "$out" "cannot be made inactive: ORA-15066"

step "The database goes on writing on the mirrors"
out=$(show sql "$rack" -e "update orders set status = 'SHIPPED' where id <= 5000" -e "commit" \
  -e "select status, count(*) from orders group by status order by status" 2>/dev/null)
echo "$out"
check "5,000 rows shipped" "$out" "SHIPPED +5000"

step "cel01 comes back: ALTER GRIDDISK ALL ACTIVE (ASM resyncs the stale extents)"
show cellcli "$rack" -c cel01 -e "alter griddisk all active"
out=$(show cellcli "$rack" -e "list griddisk where asmModeStatus != ONLINE")
echo "$out"
check_not "every grid disk ONLINE again (the list is empty)" "$out" "cel0"
out=$(show asmcmd "$rack" lsdg)
echo "$out"
check "no offline disk" "$out" " 0 +N +DATA/"

step "Proof that cel01 holds the new data: take cel02 out and read"
show cellcli "$rack" -c cel02 -e "alter griddisk all inactive" >/dev/null
out=$(show sql "$rack" -e "select status, count(*) from orders group by status order by status" 2>/dev/null)
echo "$out"
check "the shipped rows, read without cel02" "$out" "SHIPPED +5000"
show cellcli "$rack" -c cel02 -e "alter griddisk all active" >/dev/null

finish
