-- Connor McDonald, "Temporary undo in 12c" (2015): the session binds its GTT
-- undo mode at its first temporary-object change; setting TRUE afterwards is
-- accepted and ignored. 50,000 char(1000) rows; the delete after the late
-- ALTER SESSION still makes ~60.5 MB of redo (Connor: 60,566,000 B, against
-- 60,562,540 B with the parameter never set).
create global temporary table t (c char(1000)) on commit preserve rows;
insert into t select 'x' from dual connect by level <= 50000;
commit;
alter session set temp_undo_enabled = true;
select n.name, s.value from v$mystat s, v$statname n where s.statistic# = n.statistic# and n.name = 'redo size';
delete from t;
select n.name, s.value from v$mystat s, v$statname n where s.statistic# = n.statistic# and n.name = 'redo size';
commit;
