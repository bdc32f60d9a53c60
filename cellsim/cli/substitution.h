// SQL*Plus's substitution variables for `cellsim sql`: DEFINE name = value,
// UNDEFINE name, SET DEFINE OFF | ON | c, SET VERIFY, and `&name` /
// `&&name` in a statement's text, replaced before the statement runs (in
// string literals too, as SQL*Plus does: SET DEFINE OFF takes `&` as it is).
// `&name.` ends the name at the period (`&tab._copy`); `&&name` keeps the
// value it is given for the rest of the session. Names are case-insensitive.
//
// Thread-safety: one session's; one thread at a time.
#ifndef CELLSIM_CLI_SUBSTITUTION_H_
#define CELLSIM_CLI_SUBSTITUTION_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cellsim::cli {

class SubstitutionVariables {
 public:
  // A value for an undefined variable (SQL*Plus's "Enter value for x: ");
  // nullopt when none can be asked (no terminal).
  using Ask = std::function<std::optional<std::string>(std::string_view name)>;

  SubstitutionVariables();

  // DEFINE / DEF / UNDEFINE / UNDEF: nullopt when `text` is none of them;
  // else what it prints (DEFINE x: its value, DEFINE alone: every one) or
  // its error (SP2-0135 for DEFINE of an undefined name).
  std::optional<absl::StatusOr<std::string>> Command(std::string_view text);
  // DEFINE name = value, as `--define NAME=VALUE` gives it.
  void Define(std::string_view name, std::string value);

  // SET DEFINE's value: OFF, ON, or the character that starts a variable.
  absl::Status SetDefine(std::string_view value);
  void SetVerify(bool on) { verify_ = on; }

  // `text` with its variables replaced. `verify`, when SET VERIFY is on and
  // something changed: SQL*Plus's "old   1: ..." / "new   1: ..." lines.
  // An undefined variable nobody can be asked for is an error naming it.
  absl::StatusOr<std::string> Substitute(std::string_view text, const Ask& ask,
                                         std::string* verify);

 private:
  std::map<std::string, std::string> values_;  // by upper-case name
  char prefix_ = '&';
  bool enabled_ = true;
  bool verify_ = true;
};

}  // namespace cellsim::cli

#endif  // CELLSIM_CLI_SUBSTITUTION_H_
