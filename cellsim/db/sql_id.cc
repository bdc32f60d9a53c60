#include "cellsim/db/sql_id.h"

#include <array>
#include <vector>

#include "absl/strings/str_split.h"
#include "cellsim/base/hash.h"
#include "cellsim/db/sql_text.h"

namespace cellsim::db {

SqlIdentity SqlIdOf(std::string_view text) {
  std::string bytes(text);
  bytes.push_back('\0');
  const Md5Digest d = Md5(bytes);
  auto word = [&](int at) {
    return uint32_t{d[at]} | uint32_t{d[at + 1]} << 8 | uint32_t{d[at + 2]} << 16 |
           uint32_t{d[at + 3]} << 24;
  };
  SqlIdentity id;
  id.hash_value = word(12);
  uint64_t v = uint64_t{word(8)} << 32 | id.hash_value;
  static constexpr std::string_view kAlphabet = "0123456789abcdfghjkmnpqrstuvwxyz";
  id.sql_id.assign(13, '0');
  for (int i = 12; i >= 0; --i, v >>= 5) id.sql_id[i] = kAlphabet[v & 31];
  return id;
}

namespace {

struct ObjectCommand {
  std::string_view object;
  int create, drop, alter;
};
// V$SQLCOMMAND's numbers for the objects cellsim's SQL creates, drops, alters.
constexpr std::array<ObjectCommand, 6> kObjectCommands = {{
    {"TABLE", 1, 12, 15},
    {"INDEX", 9, 10, 11},
    {"SEQUENCE", 13, 16, 14},
    {"VIEW", 21, 22, 0},
    {"TABLESPACE", 39, 41, 40},
    {"SYNONYM", 19, 20, 0},
}};

int ObjectCommandOf(const std::vector<std::string>& w) {
  for (size_t i = 1; i < w.size(); ++i) {
    for (const ObjectCommand& o : kObjectCommands) {
      if (w[i] != o.object) continue;
      if (w[0] == "CREATE") return o.create;
      if (w[0] == "DROP") return o.drop;
      return o.alter;
    }
    // Words that may stand between the verb and the object's kind.
    static constexpr std::array<std::string_view, 9> kBetween = {
        "OR", "REPLACE", "GLOBAL", "TEMPORARY", "UNIQUE", "UNDO", "BIGFILE", "SMALLFILE", "PUBLIC"};
    bool between = false;
    for (std::string_view b : kBetween) between = between || w[i] == b;
    if (!between) break;
  }
  return 0;
}

}  // namespace

int CommandTypeOf(std::string_view text) {
  const std::vector<std::string> w = absl::StrSplit(internal::FirstWords(text, 5), ' ',
                                                   absl::SkipEmpty());
  if (w.empty()) return 0;
  const std::string& verb = w[0];
  if (verb == "SELECT" || verb == "WITH") return 3;
  if (verb == "INSERT") return 2;
  if (verb == "UPDATE") return 6;
  if (verb == "DELETE") return 7;
  if (verb == "MERGE") return 189;
  if (verb == "COMMIT") return 44;
  if (verb == "ROLLBACK") return 45;
  if (verb == "SAVEPOINT") return 46;
  if (verb == "LOCK") return 26;
  if (verb == "BEGIN" || verb == "DECLARE") return 47;  // PL/SQL EXECUTE
  if (verb == "TRUNCATE") return 85;
  if (verb == "RENAME") return 28;
  if (verb == "COMMENT") return 29;
  if (verb == "ANALYZE") return 62;
  if (verb == "SET" && w.size() > 1 && w[1] == "TRANSACTION") return 48;
  if (verb == "ALTER" && w.size() > 1) {
    if (w[1] == "DATABASE") return 35;
    if (w[1] == "SESSION") return 42;
    if (w[1] == "SYSTEM") return 49;
  }
  if (verb == "CREATE" || verb == "DROP" || verb == "ALTER") return ObjectCommandOf(w);
  return 0;
}

}  // namespace cellsim::db
