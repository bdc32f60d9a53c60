// Parsers of the small command languages cellsim::Lab and the CLI accept, kept apart
// from the commands so that tests can check them without a rack:
//
//   CellCLI (`cellsim cellcli DIR -e "..."`), case-insensitive as CellCLI is:
//     LIST {CELL | CELLDISK | GRIDDISK | FLASHCACHE | METRICCURRENT}
//          [NAME | WHERE attr {= | != | LIKE | < | <= | > | >=} value [AND ...]]
//          [ATTRIBUTES attr[, attr...] | ATTRIBUTES ALL] [DETAIL]
//       (LIKE takes a regular expression; report/cellcli.h has the attributes)
//     DESCRIBE {CELL | CELLDISK | GRIDDISK | FLASHCACHE | METRICCURRENT}
//     ALTER FLASHCACHE ALL FLUSH
//     ALTER CELL flashCacheMode = writeback | writethrough
//     ALTER GRIDDISK {ALL [PREFIX=p] | name[,name...]}
//         {ACTIVE | INACTIVE | cachingPolicy = 'none' | 'default'}
//   asmcmd (`cellsim asmcmd DIR -e "..."`):
//     lsdg [GROUP] | lsdsk [-k] [-p] [-G GROUP] [PATTERN] | ls [-l] [-s] [PATH]
//     cd PATH | pwd | cp +DG/PATH LOCALFILE | du [PATH]
//     find [--type TYPE] DIR PATTERN | online -G DG (-D DISK | -a) | offline -G DG -D DISK
//   rack create's --disk-group NAME:REDUNDANCY:SIZE_PER_DISK[:AU]
//
// Usage:
//   absl::StatusOr<CellCliCommand> c = ParseCellCliCommand("list metriccurrent "
//       "where objectType = 'FLASHCACHE'");
//   absl::StatusOr<AsmcmdCommand> a = ParseAsmcmdCommand("ls -l +DATA/ORCL");
//   absl::StatusOr<asmgr::DiskGroupSpec> g = ParseDiskGroupOption("DATA:normal:2g:4m");
#ifndef CELLSIM_LAB_COMMAND_PARSERS_H_
#define CELLSIM_LAB_COMMAND_PARSERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/asm/rack.h"
#include "cellsim/cell/cell_service.h"
#include "cellsim/report/asmcmd.h"
#include "cellsim/report/cellcli.h"

namespace cellsim::lab {

// Splits a command line into words: blanks separate words, '...' and "..."
// quote (the quotes are removed), '=', "!=", '<', "<=", '>', ">=" and ','
// are words of their own when `operators` is set. InvalidArgument for an unterminated quote.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> SplitCommandWords(std::string_view text,
                                                                         bool operators);

// ------------------------------------------------------------------ CellCLI

struct CellCliCommand {
  enum class Kind {
    kList,      // LIST type ...
    kDescribe,  // DESCRIBE type
    kFlushFlashCache,
    kSetFlashCacheMode,
    kCreateGridDisk,  // CREATE GRIDDISK NAME: replaces a grid disk that is "not present"
    // ALTER GRIDDISK {ALL [PREFIX=p] | NAME[,NAME...]} cachingPolicy='none'|'default'
    kSetCachingPolicy,
    // ALTER GRIDDISK {ALL [PREFIX=p] | NAME[,NAME...]} ACTIVE | INACTIVE
    kSetGridDiskActive,
  };
  Kind kind = Kind::kList;
  report::CellCliObjectType object = report::CellCliObjectType::kCell;  // LIST, DESCRIBE
  // LIST's object name (also list.filters[0], name = NAME), or empty.
  std::string name;
  report::CellCliList list;
  cell::FlashCacheMode mode = cell::FlashCacheMode::kWriteBack;  // ALTER CELL
  std::string grid_disk;  // CREATE GRIDDISK
  // ALTER GRIDDISK: the named grid disks, or every one (whose name starts
  // with `prefix` + "_" when a prefix is given).
  std::vector<std::string> grid_disks;
  std::string prefix;
  cell::CachingPolicy caching_policy = cell::CachingPolicy::kDefault;
  bool active = true;  // ALTER GRIDDISK ... ACTIVE (false: INACTIVE)
};

// InvalidArgument "CELL-01504: Invalid command syntax. ..." saying what was
// expected, for anything else.
[[nodiscard]] absl::StatusOr<CellCliCommand> ParseCellCliCommand(std::string_view text);

// ------------------------------------------------------------------- asmcmd

struct AsmcmdCommand {
  enum class Kind { kLsdg, kLsdsk, kLstmpl, kLs, kCd, kPwd, kCp, kDu, kFind, kOnline, kOffline };
  Kind kind = Kind::kLs;
  // online -G DG (-D DISK | -a), offline -G DG -D DISK
  std::string group;
  std::string disk;
  bool all = false;
  bool long_format = false;        // ls -l
  bool sizes = false;              // ls -s
  // --suppressheader (lsdg, lsdsk, lstmpl, ls, du): the rows without their
  // heading line, for scripts.
  bool suppress_header = false;
  std::string type;                // find --type (upper case)
  report::LsdskOptions lsdsk;      // lsdsk
  report::LstmplOptions lstmpl;    // lstmpl
  std::vector<std::string> args;   // lsdg GROUP, ls PATH, cd PATH, cp SRC DEST, du PATH,
                                   // find DIR PATTERN
};

// InvalidArgument "ASMCMD-8022: unknown command 'x'" or naming the bad option
// or the missing operand.
[[nodiscard]] absl::StatusOr<AsmcmdCommand> ParseAsmcmdCommand(std::string_view text);

// ------------------------------------------------------------- rack create

// "DATA:NORMAL:2g", "DATA:high:512m:1m" (AU defaults to 4 MiB) or
// "RECO:NORMAL:1g:4m:none" (the grid disks' cachingPolicy, default `default`).
// The name is upper-cased. InvalidArgument naming the part that is wrong.
[[nodiscard]] absl::StatusOr<asmgr::DiskGroupSpec> ParseDiskGroupOption(std::string_view text);

}  // namespace cellsim::lab

#endif  // CELLSIM_LAB_COMMAND_PARSERS_H_
