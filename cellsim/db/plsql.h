// Private: anonymous PL/SQL blocks (DECLARE ... BEGIN ... EXCEPTION ...
// END;), the subset docs/sql.md "PL/SQL blocks" lists. A block is parsed
// whole first (a syntax error runs nothing: ORA-06550 with its line and
// column); its SQL statements are the data engine's, parsed once, and run
// each time with the block's variables in them as values (a name is a
// table's column first, as in Oracle, then a variable); its expressions
// and conditions are SQL's, evaluated without a table.
//
// Statistics: the block is one call (Session::Execute counts it); each SQL
// statement it runs adds an "execute count", as Oracle's recursive SQL
// does. An error the block does not handle undoes what the block changed
// since it began (or since its last COMMIT inside), as Oracle's call-level
// rollback, and names the line: "ORA-06512: at line N".
//
// Thread-safety: as Session::Execute (one thread per session); the engine's
// mutex is taken statement by statement, never across the block.
#ifndef CELLSIM_DB_PLSQL_H_
#define CELLSIM_DB_PLSQL_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cellsim/db/database_state.h"

namespace cellsim::db::internal {

struct PlsqlOutcome {
  std::vector<std::string> output;  // DBMS_OUTPUT's lines
  int64_t sql_executions = 0;      // SQL statements the block ran
};

// Parses the block `sql` without running it: what RunPlsqlBlock refuses
// before anything runs (ORA-06550 ...), or OK.
absl::Status ParsePlsqlBlock(std::string_view sql);

// Parses and runs the block `sql` in session `s`. `execute_other` runs what
// EXECUTE IMMEDIATE gives that is not a data statement (ALTER SESSION,
// CREATE TABLESPACE ...).
absl::Status RunPlsqlBlock(Session::State& s, std::string_view sql,
                           const std::function<absl::Status(std::string_view)>& execute_other,
                           PlsqlOutcome* out);

}  // namespace cellsim::db::internal

#endif  // CELLSIM_DB_PLSQL_H_
