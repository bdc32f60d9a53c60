alter system set temp_undo_enabled = TRUE scope=both;
