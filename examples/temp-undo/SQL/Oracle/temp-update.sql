update sqlrun_gtt set object_id = object_id + 1
