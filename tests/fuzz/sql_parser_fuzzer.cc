// Fuzz target: the SQL statement parser (cellsim/db/parser.cc) and the script
// splitter. Properties: no crash, hang or leak on any text; an error is
// InvalidArgument saying where ("at L:C: ..."); a parsed statement prints
// (ToSql) to text that parses back to the same statement, and printing that
// again gives the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cellsim/db/plsql.h"
#include "cellsim/db/statement.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

void CheckOne(std::string_view sql) {
  absl::StatusOr<db::Statement> st = db::ParseStatement(sql);
  if (!st.ok()) {
    FUZZ_CHECK(st.status().code() == absl::StatusCode::kInvalidArgument, "code %d",
               static_cast<int>(st.status().code()));
    FUZZ_CHECK(st.status().message().substr(0, 3) == "at ", "message without position: %s",
               std::string(st.status().message()).c_str());
    return;
  }
  FUZZ_CHECK(!db::StatementKind(*st).empty(), "empty kind");
  const std::string text = db::ToSql(*st);
  absl::StatusOr<db::Statement> again = db::ParseStatement(text);
  FUZZ_CHECK(again.ok(), "ToSql output does not parse: [%s] -> %s", text.c_str(),
             std::string(again.status().message()).c_str());
  FUZZ_CHECK(*again == *st, "round trip changed the statement: [%s]", text.c_str());
  FUZZ_CHECK(db::ToSql(*again) == text, "ToSql is not stable: [%s]", text.c_str());
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cellsim::fuzz::CheckOne(text);
  for (const std::string& piece : cellsim::db::SplitStatements(text)) {
    FUZZ_CHECK(!piece.empty(), "SplitStatements returned an empty piece");
    cellsim::fuzz::CheckOne(piece);
    if (cellsim::db::IsPlsqlBlock(piece)) (void)cellsim::db::internal::ParsePlsqlBlock(piece);
  }
  return 0;
}
