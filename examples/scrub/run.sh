#!/usr/bin/env bash
# Bit rot on Exadata, on cellsim: find where a table's block lives on the grid
# disks (DBA_SEGMENTS, V$DATAFILE, X$KFFXP, V$ASM_DISK), change four bytes of
# one copy behind everyone's back, and watch ASM's scrub find the bad copy by
# Oracle's block checksum and repair it from the mirror; see a read repair
# what it reads; and see the one damage no check can judge (a lost write: a
# block of zeros), and what makes the copies agree again. Every step is a
# command a DBA types; the checks say what each one must show.
# docs/labs/scrub.md explains the steps.
#
#   examples/scrub/run.sh [WORKDIR]
#
# WORKDIR defaults to a new folder under $TMPDIR (or /tmp), removed at the end
# (KEEP=1 keeps it). CELLSIM is the binary (default: build/release, built or
# brought up to date first). The rack is small and sparse: ~60 MiB on disk.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=scrub
source "$here/../lab_steps.sh"
rack=$work/rack

# row SQL: the first row of a query's result, its columns separated by blanks.
row() {
  "$CELLSIM" sql "$rack" -e "$1" 2>/dev/null | awk '/^-+( +-+)*$/ { getline; print; exit }'
}
# has_rot FILE OFFSET: whether the 8 KiB block at OFFSET of FILE holds "ROT!".
has_rot() {
  if dd if="$1" bs=8192 skip=$(($2 / 8192)) count=1 status=none | grep -qa 'ROT!'; then
    echo "ROT! in the block"
  else
    echo "no ROT! in the block"
  fi
}

step "A rack: 3 cells x 2 disks, DATA mirrored (NORMAL) off the flash cache, and a table"
"$CELLSIM" rack create "$rack" --cells 3 --disks-per-cell 2 \
  --disk-group DATA:NORMAL:1g:4m:none --disk-group RECO:NORMAL:512m:4m:none \
  --flash-size 128m >/dev/null
show sql "$rack" --standard-files \
  -e "create table orders (id number primary key, status varchar2(10), note varchar2(200))" \
  -e "insert into orders select level, 'NEW', rpad('x', 200, 'x') from dual connect by level <= 20000" \
  -e "commit" 2>/dev/null | grep -v '^$'

step "Where does the first data block of ORDERS live?"
show sql "$rack" -e "select header_file, header_block, blocks from dba_segments where segment_name = 'ORDERS'" \
  2>/dev/null | grep -v '^$'
read -r file_id header <<<"$(row "select header_file, header_block from dba_segments where segment_name = 'ORDERS'")"
block=$((header + 1))
name=$(row "select name from v\$datafile where file# = $file_id" | tr -d ' ')
asm_file=$(sed -E 's/.*\.([0-9]+)\.[0-9]+$/\1/' <<<"$name")
read -r group au <<<"$(row "select group_number, allocation_unit_size from v\$asm_diskgroup where name = 'DATA'")"
xnum=$((block * 8192 / au))
echo "block $block of file $file_id ($name): ASM file $asm_file, byte $((block * 8192)), extent $xnum (AU $au bytes)"
map=$(show sql "$rack" -e "select xnum_kffxp, lxn_kffxp, disk_kffxp, au_kffxp from x\$kffxp
  where group_kffxp = $group and number_kffxp = $asm_file and xnum_kffxp = $xnum order by lxn_kffxp" \
  2>/dev/null | grep -v '^$')
echo "$map"
check "two copies: the primary (LXN 0) and its mirror (LXN 1)" "$map" "^ *$xnum +1 +[0-9]+ +[0-9]+$"
# copy_at LXN: the grid disk name, its file and the byte offset of the block in
# copy LXN (0 the primary, 1 the mirror).
copy_at() {
  local disk au_no path
  read -r _ _ disk au_no <<<"$(grep -E "^ *$xnum +$1 " <<<"$map")"
  path=$(row "select path from v\$asm_disk where group_number = $group and disk_number = $disk" | tr -d ' ')
  # o/cel02/DATA_CD_01_cel02: the grid disk's file is cel02/DATA_CD_01_cel02.img
  echo "$(basename "$path") $rack/$(cut -d/ -f2 <<<"$path")/$(basename "$path").img $((au_no * au + block * 8192 % au))"
}
read -r primary_disk primary_file primary_off <<<"$(copy_at 0)"
read -r mirror_disk mirror_file mirror_off <<<"$(copy_at 1)"
echo "primary: $primary_disk, byte $primary_off of ${primary_file#"$work/"}"
echo "mirror:  $mirror_disk, byte $mirror_off of ${mirror_file#"$work/"}"
echo "$ od -A d -t x1 -N 16 -j $primary_off ${primary_file#"$work/"}"
od -A d -t x1 -N 16 -j "$primary_off" "$primary_file" | head -1
check "the block is a data block (type 06) on the primary's disk" \
  "$(od -A n -t x1 -N 1 -j "$primary_off" "$primary_file")" "^ *06$"

step "Bit rot: four bytes of the primary copy change on its disk, and nobody is told"
echo "$ printf 'ROT!' | dd of=${primary_file#"$work/"} bs=1 seek=$((primary_off + 200)) conv=notrunc"
printf 'ROT!' | dd of="$primary_file" bs=1 seek=$((primary_off + 200)) conv=notrunc status=none
check "the primary holds the rot" "$(has_rot "$primary_file" "$primary_off")" "^ROT!"

step "SCRUB finds it: the primary's block fails its checksum, the mirror's passes"
out=$(show sql "$rack" -e "alter diskgroup data scrub" 2>/dev/null)
echo "$out"
check "one difference, judged" "$out" "1 difference between copies: 1 judged"
check "the primary fails its checksum, the mirror is kept" "$out" \
  "$mirror_disk +$primary_disk +1 +NO +block $block fails its checksum"
check "without REPAIR nothing is rewritten" "$(has_rot "$primary_file" "$primary_off")" "^ROT!"

step "SCRUB FILE ... REPAIR rewrites the primary from the mirror"
out=$(show sql "$rack" -e "alter diskgroup data scrub file '$name' repair power low" 2>/dev/null)
echo "$out"
check "repaired" "$out" "$primary_disk +1 +YES +block $block fails its checksum"
check "the primary's block is whole again" "$(has_rot "$primary_file" "$primary_off")" "^no ROT!"
out=$(show sql "$rack" -e "alter diskgroup data scrub" 2>/dev/null)
echo "$out"
check "every copy matches" "$out" "every copy matches"

step "A read repairs what it reads: the same rot again, then a full scan of ORDERS"
printf 'ROT!' | dd of="$primary_file" bs=1 seek=$((primary_off + 200)) conv=notrunc status=none
out=$(show sql "$rack" -e "select count(*), sum(length(note)) from orders" 2>/dev/null)
echo "$out"
check "every row, right" "$out" "20000 +4000000"
check "the read failed over to the mirror and rewrote the primary" \
  "$(has_rot "$primary_file" "$primary_off")" "^no ROT!"

step "A lost write: the mirror's block reads as zeros, which pass every check too"
echo "$ dd if=/dev/zero of=${mirror_file#"$work/"} bs=8192 seek=$((mirror_off / 8192)) count=1 conv=notrunc"
dd if=/dev/zero of="$mirror_file" bs=8192 seek=$((mirror_off / 8192)) count=1 conv=notrunc status=none
out=$(show sql "$rack" -e "alter diskgroup data scrub repair" 2>/dev/null)
echo "$out"
check "found, but which copy is right cannot be told" "$out" \
  "$primary_disk +$mirror_disk +1 +NO +block $block differs .* cannot be told"
check "so REPAIR rewrites neither" "$(od -A n -t x1 -N 1 -j "$mirror_off" "$mirror_file")" "^ *00$"

step "Writing the block again makes the copies agree: an update, then a checkpoint"
show sql "$rack" -e "update orders set status = status" -e "commit" -e "alter system checkpoint" \
  2>/dev/null | grep -v '^$'
out=$(show sql "$rack" -e "alter diskgroup data scrub" 2>/dev/null)
echo "$out"
check "every copy matches" "$out" "every copy matches"
check "the mirror holds a data block again" "$(od -A n -t x1 -N 1 -j "$mirror_off" "$mirror_file")" "^ *06$"

finish
