#!/usr/bin/env bash
# Row locks on cellsim: sessions that change the same row wait for each other
# (enq: TX - row lock contention), SELECT ... FOR UPDATE takes the row first,
# NOWAIT refuses to wait, opposite orders deadlock (ORA-00060), and V$LOCK
# shows what a transaction holds. Every step is a command a user types; the
# checks say what each one must show. docs/labs/row-locks.md explains them.
#
#   examples/row-locks/run.sh [WORKDIR]
#
# WORKDIR defaults to a new folder under $TMPDIR (or /tmp), removed at the end
# (KEEP=1 keeps it); CELLSIM is the binary (examples/lab_steps.sh). The runs
# use the simulated clock of an X3-2 eighth rack: the figures are the same on
# every machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=row-locks
source "$here/../lab_steps.sh"
rack=$work/rack
# sqldir NAME FILE=SQL ...: a Sqlrun SQL directory, one statement per file.
sqldir() {
  local dir=$work/$1/Oracle
  shift
  mkdir -p "$dir"
  echo ',' >"$dir/sqlfile.conf"
  for entry in "$@"; do
    echo "1,${entry%%=*}" >>"$dir/sqlfile.conf"
    echo "${entry#*=}" >"$dir/${entry%%=*}"
  done
}
sqlrun() {  # sqlrun SQLDIR OPTIONS...: 4 sessions, 10 s, committing, modeled time
  local dir=$1
  shift
  show sqlrun "$rack" --profile x3-2 --rack eighth --sqldir "$work/$dir" --max-sessions 4 \
    --runtime 10 --exe-delay 0.01 --tx-behavior commit "$@" 2>&1
}
balance() {
  "$CELLSIM" sql "$rack" --profile x3-2 --rack eighth -e "select sum(balance) from accounts" |
    awk '/^ *-?[0-9]+ *$/ {print $1; exit}'
}

step "A rack (X3-2 eighth, modeled), a database and two accounts"
"$CELLSIM" rack create "$rack" --profile x3-2 --rack eighth --disk-group DATA:NORMAL:1g \
  --disk-group RECO:NORMAL:512m --flash-size 128m >/dev/null
out=$(show sql "$rack" --profile x3-2 --rack eighth --standard-files \
  -e "create table accounts (id number primary key, balance number)" \
  -e "insert into accounts values (1, 0)" -e "insert into accounts values (2, 0)" -e "commit")
echo "$out"
check "the table is there" "$out" "Commit complete"

step "Lock the row, then change it: every session waits its turn on the FOR UPDATE"
sqldir lock-pay "lock.sql=select balance from accounts where id = 1 for update" \
  "pay.sql=update accounts set balance = balance + 1 where id = 1"
out=$(sqlrun lock-pay --trace --trace-dir "$work")
echo "$out"
check "no session stopped" "$out" "errors 0"
commits=$(sed -nE 's/.*commits ([0-9]+) .*/\1/p' <<<"$out" | head -1)
check "every committed payment is in the balance ($commits)" "$(balance)" "^$commits\$"
out=$(show tkprof "$work"/*_SQLRUN.trc)
echo "$out" | sed -n '/for update/,/^\*\*\*/p' | head -40
check "tkprof shows the row-lock waits under the FOR UPDATE" \
  "$(sed -n '/for update/,/^\*\*\*/p' <<<"$out")" "enq: TX - row lock contention +[0-9]+"
rm -f "$work"/*_SQLRUN.trc

step "NOWAIT does not wait: the session that finds the row taken gets ORA-00054"
sqldir nowait "lock.sql=select balance from accounts where id = 1 for update nowait" \
  "pay.sql=update accounts set balance = balance + 1 where id = 1"
out=$(sqlrun nowait || true)  # (a stopped session: sqlrun exits 1)
echo "$out"
check "ORA-00054 stops a session" "$out" "ORA-00054: resource busy and acquire with NOWAIT"

step "Opposite orders: sessions in random order, transactions of two rows, deadlock"
sqldir deadlock "one.sql=update accounts set balance = balance + 1 where id = 1" \
  "two.sql=update accounts set balance = balance + 1 where id = 2"
before=$(balance)
out=$(sqlrun deadlock --exe-mode semi-random --tx-per-transaction 1 || true)
echo "$out"
check "a cycle of waits is ORA-00060 for one of its sessions" "$out" \
  "ORA-00060: deadlock detected while waiting for resource \(session [0-9]+ waits for session [0-9]+, which waits for session [0-9]+\)"
commits=$(sed -nE 's/.*commits ([0-9]+) .*/\1/p' <<<"$out" | head -1)
check "two updates per commit, none lost ($before + 2 x $commits)" "$(balance)" \
  "^$((before + 2 * commits))\$"

step "What an open transaction holds: V\$LOCK"
out=$(show sql "$rack" --profile x3-2 --rack eighth \
  -e "select balance from accounts where id = 2 for update" \
  -e "select l.type, l.lmode, l.id1, l.id2 from v\$lock l order by 1" \
  -e "select xidusn * 65536 + xidslot id1, xidsqn id2 from v\$transaction" -e "rollback")
echo "$out"
check "a TX lock in exclusive mode (6)" "$out" "TX +6"
check "a TM lock on the table in row-exclusive mode (3)" "$out" "TM +3"

finish
