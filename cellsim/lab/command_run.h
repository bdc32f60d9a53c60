// Running CellCLI and asmcmd commands (parsed by command_parsers.h) against a
// rack: what `cellsim cellcli` / `cellsim asmcmd` and cellsim::Lab print.
//
// Usage:
//   absl::StatusOr<CellCliCommand> c = ParseCellCliCommand("list griddisk");
//   absl::Status s = RunCellCli(*c, rack, {0, 1, 2}, {},
//       [](uint32_t cell, const std::string& text) { std::cout << text; });
//   std::string cwd = "+";
//   absl::StatusOr<AsmcmdCommand> a = ParseAsmcmdCommand("ls -l +DATA/ORCL");
//   absl::StatusOr<std::string> out = RunAsmcmdCommand(*a, rack, &cwd, {});
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
  // ALTER FLASHCACHE ALL FLUSH reports each cell's progress here (may be empty).
  std::function<void(uint32_t cell, const cell::FlushProgress&)> flush_progress;
};

// Runs one CellCLI command on the cells `cells` (indices into `rack`, in that
// order) and hands each cell's output to `emit` as soon as the cell is done,
// as dcli runs cellcli on a group of cells. CREATE GRIDDISK is the rack's
// (the name says which cell) and runs once. LIST NAME that finds the object on
// none of the cells is NotFound "CELL-02525 ...". A failure stops the run; its
// message starts with the cell's name.
[[nodiscard]] absl::Status RunCellCli(
    const CellCliCommand& c, asmgr::Rack& rack, const std::vector<uint32_t>& cells,
    const CommandRunOptions& options,
    const std::function<void(uint32_t cell, const std::string& text)>& emit);

// Prefixes every line of `text` with "<cell>: ", as dcli prints.
std::string PrefixLines(const std::string& text, const std::string& cell);

// Runs one asmcmd command; `cwd` is the current ASM directory (starts at "+").
[[nodiscard]] absl::StatusOr<std::string> RunAsmcmdCommand(const AsmcmdCommand& c,
                                                           const asmgr::Rack& rack,
                                                           std::string* cwd,
                                                           const CommandRunOptions& options);

}  // namespace cellsim::lab

#endif  // CELLSIM_LAB_COMMAND_RUN_H_
