alter system set temp_undo_enabled = FALSE scope=both;
