// asmcmd's views of ASM, laid out as Oracle's `asmcmd` (12.1) prints them:
//
//   lsdg     one row per disk group (V$ASM_DISKGROUP):
//     State    Type    Rebal  Sector  Logical_Sector  Block       AU  Total_MB  Free_MB  ...  Name
//     MOUNTED  NORMAL  N         512             512   4096  4194304     73728    65520  ...  DATA/
//   lsdsk    the disks' paths; -k adds the space and identity columns
//            (Total_MB Free_MB OS_MB Name Failgroup Failgroup_Type Library Label
//            UDID Product Redund Path), -p the status columns (Group_Num Disk_Num
//            Incarn Mount_Stat Header_Stat Mode_Stat State Path);
//   ls [-l]  a directory level of the ASM name space: "+" lists the disk groups,
//            "+DATA" the databases, "+DATA/ORCL" the file types, and
//            "+DATA/ORCL/ONLINELOG" the files (Type Redund Striped Time Sys Name),
//            directories shown with a trailing '/' and blank file columns.
//
// Column widths are those of asmcmd: each column as wide as its header or its
// widest value, two spaces apart, text left-aligned and numbers right-aligned.
// Inputs are the plain views of include/cellsim/asm/types.h, gathered once per
// command into AsmSnapshot, so the renderers never touch a live disk group.
//
// Usage:
//   AsmSnapshot snap;
//   for (asmgr::DiskGroup* dg : rack->disk_groups())
//     snap.groups.push_back({dg->View(), dg->Disks(), dg->Files()});
//   std::string text = RenderLsdg(snap);
//   absl::StatusOr<std::string> ls = RenderLs(snap, "+DATA/ORCL/ONLINELOG", {.long_format = true});
//
// Thread-safety: pure functions.
#ifndef CELLSIM_REPORT_ASMCMD_H_
#define CELLSIM_REPORT_ASMCMD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cellsim/asm/types.h"

namespace cellsim::report {

// One disk group as asmcmd sees it. Group numbers (lsdsk -p) are positions in
// AsmSnapshot::groups, from 1, as V$ASM_DISKGROUP numbers the mounted groups.
struct AsmDiskGroupSnapshot {
  asmgr::DiskGroupView view;
  std::vector<asmgr::DiskView> disks;
  std::vector<asmgr::FileView> files;
  std::vector<asmgr::TemplateView> templates{};  // lstmpl
};

struct AsmSnapshot {
  std::vector<AsmDiskGroupSnapshot> groups;
};

// lsdg [GROUP]: every disk group, or only `group` (case-insensitive, with or
// without '+'). NotFound "ASMCMD-8001: diskgroup 'FOO' does not exist or is
// not mounted" when it is not there.
[[nodiscard]] absl::StatusOr<std::string> RenderLsdg(const AsmSnapshot& asm_state,
                                                     std::string_view group = "");

struct LsdskOptions {
  bool k = false;  // -k: space and identity columns
  bool p = false;  // -p: status columns (with -k: -k's columns, then -p's)
  std::string group{};  // -G: only this disk group ("" all)
  std::string pattern{};  // only paths matching this shell pattern ("" all),
                        // case-insensitive, as asmcmd's optional pattern
};

// lsdsk: the disks of every (or one) disk group, ordered by group then disk.
// NotFound (ASMCMD-8001) for an unknown -G group.
[[nodiscard]] absl::StatusOr<std::string> RenderLsdsk(const AsmSnapshot& asm_state,
                                                      const LsdskOptions& options = {});

struct LsOptions {
  bool long_format = false;  // -l
  bool sizes = false;        // -s: Block_Size, Blocks, Bytes, Space
  // "now" for the Time column: files modified within the last 183 days show
  // "MON DD HH:00:00" (V$ASM_FILE keeps the hour), older ones "MON DD YYYY".
  int64_t now_unix = 0;
  bool utc = false;  // times in UTC instead of local time
};

// ls [-l] PATH. PATH is absolute ("+", "+DATA", "+DATA/ORCL/ONLINELOG", or a
// file's full name), case-insensitive, with an optional trailing '/'; the last
// component may hold shell wildcards ('*', '?'). A directory lists its entries
// (sorted by name); a file lists itself. NotFound "ASMCMD-8002: entry 'X' does
// not exist in directory '+DATA/ORCL/'" otherwise.
[[nodiscard]] absl::StatusOr<std::string> RenderLs(const AsmSnapshot& asm_state,
                                                   std::string_view path,
                                                   const LsOptions& options = {});

struct LstmplOptions {
  bool l = false;        // -l: the regions too (PriReg, MirrReg)
  std::string group{};   // -G: one disk group (with or without '+')
  std::string pattern{}; // template names matching this shell pattern
};
// lstmpl [-l] [-G GROUP] [PATTERN]: the disk groups' templates (V$ASM_TEMPLATE),
// by group then name: Group_Name Group_Num Name Stripe Sys Redund (and with
// -l PriReg MirrReg: COLD, cellsim has no hot region). NotFound
// (ASMCMD-8001) for a group that does not exist.
[[nodiscard]] absl::StatusOr<std::string> RenderLstmpl(const AsmSnapshot& asm_state,
                                                       const LstmplOptions& options = {});

// du [PATH]: the space of the files at or under PATH (a directory, a file, a
// wildcard): Used_MB without mirroring and Mirror_used_MB with every copy, in
// MiB rounded up, as asmcmd prints them. NotFound (ASMCMD-8002) as ls.
[[nodiscard]] absl::StatusOr<std::string> RenderDu(const AsmSnapshot& asm_state,
                                                   std::string_view path);

// find [--type TYPE] DIR PATTERN: the full path of every directory and file
// under DIR whose name matches the shell PATTERN (case-insensitive), one per
// line, directories with a trailing '/', sorted. With a type ("DATAFILE",
// "ONLINELOG", ...; case-insensitive) only files of that type. Nothing found
// prints nothing; NotFound (ASMCMD-8002) when DIR does not exist.
[[nodiscard]] absl::StatusOr<std::string> RenderFind(const AsmSnapshot& asm_state,
                                                     std::string_view dir,
                                                     std::string_view pattern,
                                                     std::string_view type = "");

// The files (FileView::name) below an absolute ASM path: the file itself for a
// file's name, every file under a directory, the files matching a wildcard in
// the last component. NotFound (ASMCMD-8002) when nothing matches. `asmcmd cp`
// uses it to resolve its source.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> ResolveAsmFiles(
    const AsmSnapshot& asm_state, std::string_view path);

// Joins `path` to the current directory `cwd` ("+DATA/ORCL") as asmcmd does:
// absolute paths ('+...') are kept, ".." goes one level up, "." stays.
// The result has no trailing '/' (except "+").
std::string ResolveAsmPath(std::string_view cwd, std::string_view path);

// "JUL 13 08:00:00" (within 183 days of now) or "JUL 13 2014".
std::string AsmcmdTime(int64_t unix_seconds, int64_t now_unix, bool utc);

}  // namespace cellsim::report

#endif  // CELLSIM_REPORT_ASMCMD_H_
