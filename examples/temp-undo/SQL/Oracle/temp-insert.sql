insert into sqlrun_gtt select * from all_objects
