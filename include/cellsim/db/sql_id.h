// A statement's identity as Oracle's library cache gives it (V$SQL, 10046
// traces, AWR): SQL_ID and HASH_VALUE from the MD5 of the text, and the
// COMMAND_TYPE of its first words. Pure functions, safe from any thread.
#ifndef CELLSIM_DB_SQL_ID_H_
#define CELLSIM_DB_SQL_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace cellsim::db {

struct SqlIdentity {
  std::string sql_id;       // 13 characters of Oracle's base 32
  uint32_t hash_value = 0;  // V$SQL.HASH_VALUE, the trace's hv=
};

// Oracle's SQL_ID and HASH_VALUE of `text`, exactly as sent (case, spaces and
// line breaks count; SQL*Plus leaves out the terminating ';'): the MD5 of the
// text and a NUL byte; HASH_VALUE is its last 4 bytes read little-endian,
// SQL_ID the last 8 (two such words, the high one first) in the base-32
// alphabet 0123456789abcdfghjkmnpqrstuvwxyz. "select * from dual" is
// a5ks9fhw2v9s1, 942515969 (docs/sql.md "Cursors").
SqlIdentity SqlIdOf(std::string_view text);

// Oracle's command type (V$SQLCOMMAND, V$SQL.COMMAND_TYPE, the trace's oct=)
// of a statement by its first words: 3 SELECT, 2 INSERT, 6 UPDATE, 7 DELETE,
// 189 MERGE, 1 CREATE TABLE, ...; 0 for one this table does not know.
int CommandTypeOf(std::string_view text);

}  // namespace cellsim::db

#endif  // CELLSIM_DB_SQL_ID_H_
