// The error reporting every subcommand group shares (commands.h). It lives in
// the front-end library, beside the groups that call it, not in main.cc: a
// program linking the library (the tests) must find it there.
#include "cellsim/cli/commands.h"

#include <iostream>

namespace cellsim::cli {

void Fail(CommandContext& ctx, const std::string& command, const std::string& message,
          int code) {
  std::cerr << "cellsim " << command << ": " << message << "\n";
  ctx.exit_code = code;
}

void Fail(CommandContext& ctx, const std::string& command, const absl::Status& status) {
  Fail(ctx, command, std::string(status.message()),
       status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure);
}

bool FailFirst(CommandContext& ctx, const std::string& command, const absl::Status& work,
               const absl::Status& closed) {
  if (!work.ok()) {
    Fail(ctx, command, work);
  } else if (!closed.ok()) {
    Fail(ctx, command, closed);
  }
  return !work.ok() || !closed.ok();
}

void AddTrailingCommand(CLI::App* cmd, std::vector<std::string>* commands) {
  cmd->prefix_command();
  cmd->parse_complete_callback([cmd, commands] {
    std::string words;
    for (const std::string& word : cmd->remaining()) {
      if (!words.empty()) words += ' ';
      words += word;
    }
    if (!words.empty()) commands->push_back(words);
  });
}

}  // namespace cellsim::cli
