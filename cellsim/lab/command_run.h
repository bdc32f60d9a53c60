// Running CellCLI and asmcmd commands (parsed by command_parsers.h) against a
// rack: what `cellsim cellcli` / `cellsim asmcmd` and cellsim::Lab print.
//
// Usage:
//   absl::StatusOr<CellCliCommand> c = ParseCellCliCommand("list griddisk");
//   absl::StatusOr<std::string> out = RunCellCliCommand(*c, rack.cell(0), {});
//   std::string cwd = "+";
//   absl::StatusOr<AsmcmdCommand> a = ParseAsmcmdCommand("ls -l +DATA/ORCL");
//   out = RunAsmcmdCommand(*a, rack, &cwd, {});
#ifndef CELLSIM_LAB_COMMAND_RUN_H_
#define CELLSIM_LAB_COMMAND_RUN_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/lab/command_parsers.h"

namespace cellsim::lab {

struct CommandRunOptions {
  bool utc = false;  // print times in UTC
  // ALTER FLASHCACHE ALL FLUSH reports its progress here (may be empty).
  std::function<void(const cell::FlushProgress&)> flush_progress;
  // The rack's cells ("cel01", ...): ALTER GRIDDISK skips a named grid disk of
  // another cell, and refuses one of no cell (CELL-02525).
  std::vector<std::string> cell_names;
};

// Runs one CellCLI command on one cell and returns what CellCLI prints.
[[nodiscard]] absl::StatusOr<std::string> RunCellCliCommand(const CellCliCommand& c,
                                                            cell::CellService* cell,
                                                            const CommandRunOptions& options);

// Prefixes every line of `text` with "<cell>: ", as dcli prints.
std::string PrefixLines(const std::string& text, const std::string& cell);

// Runs one asmcmd command; `cwd` is the current ASM directory (starts at "+").
[[nodiscard]] absl::StatusOr<std::string> RunAsmcmdCommand(const AsmcmdCommand& c,
                                                           const asmgr::Rack& rack,
                                                           std::string* cwd,
                                                           const CommandRunOptions& options);

}  // namespace cellsim::lab

#endif  // CELLSIM_LAB_COMMAND_RUN_H_
