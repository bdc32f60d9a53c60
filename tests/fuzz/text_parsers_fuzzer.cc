// Fuzz target: the other parsers of outside input — sizes (base/units.h),
// CellCLI and asmcmd commands and the --disk-group option of the CLI
// (cellsim/lab/command_parsers.h), mystats options (report/mystats.h), the
// statement / demo JSON readers (report/json.h), redundancy and backend names.
// The first input byte picks the parser, the rest is the text.
// Properties: no crash, hang or leak; every error carries a message; JSON that
// was accepted prints and reads back to the same JSON text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cellsim/asm/types.h"
#include "cellsim/base/units.h"
#include "cellsim/lab/command_parsers.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/cellcli.h"
#include "cellsim/report/json.h"
#include "cellsim/report/mystats.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

template <typename T>
void Check(const absl::StatusOr<T>& r) {
  if (!r.ok()) FUZZ_CHECK(!r.status().message().empty(), "error without a message");
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cellsim;        // NOLINT
  using namespace cellsim::fuzz;  // NOLINT
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 9) {
    case 0:
      Check(ParseSize(text));
      break;
    case 1: {
      absl::StatusOr<lab::CellCliCommand> c = lab::ParseCellCliCommand(text);
      Check(c);
      // A LIST that parsed runs over a cell's objects of every kind.
      if (c.ok() && c->kind == lab::CellCliCommand::Kind::kList) {
        cell::CellDescription d;
        d.name = "cel01";
        d.grid_disks = {{"DATA_CD_00_cel01", "CD_00_cel01", 1 << 30, "active"},
                        {"RECO_CD_00_cel01", "CD_00_cel01", 1 << 29, "not present", "gone"}};
        const std::vector<cell::Metric> metrics = {
            {"FC_IO_RQ_W", "FLASHCACHE", "FLASHCACHE", 1325, "IO requests"},
            {"CD_IO_BY_W_LG", "CELLDISK", "CD_00_cel01", 0.5, "MB"}};
        const std::vector<report::GridDiskAsm> asm_disks = {
            {"DATA_CD_00_cel01", "DATA", "DATA_CD_00_CEL01", "CEL01", "ONLINE", false}};
        const report::CellCliInputs in{.cell = &d, .metrics = &metrics, .asm_disks = &asm_disks};
        Check(report::RenderCellCliList(c->object, report::CellCliObjects(c->object, in),
                                        c->list));
      }
      break;
    }
    case 2:
      Check(lab::ParseAsmcmdCommand(text));
      break;
    case 3:
      Check(lab::ParseDiskGroupOption(text));
      break;
    case 4:
      Check(report::ParseMystatsOptions(text));
      break;
    case 5: {
      absl::StatusOr<report::StatementSummary> r = report::ParseStatementJson(text);
      Check(r);
      if (r.ok()) {
        const std::string json = report::StatementJson(*r);
        absl::StatusOr<report::StatementSummary> again = report::ParseStatementJson(json);
        FUZZ_CHECK(again.ok(), "printed statement JSON does not parse: %s",
                   std::string(again.status().message()).c_str());
        FUZZ_CHECK(report::StatementJson(*again) == json, "statement JSON round trip differs");
      }
      break;
    }
    case 6: {
      absl::StatusOr<report::DemoResult> r = report::ParseDemoJson(text);
      Check(r);
      if (r.ok()) {
        const std::string json = report::DemoJson(*r);
        absl::StatusOr<report::DemoResult> again = report::ParseDemoJson(json);
        FUZZ_CHECK(again.ok(), "printed demo JSON does not parse: %s",
                   std::string(again.status().message()).c_str());
        FUZZ_CHECK(report::DemoJson(*again) == json, "demo JSON round trip differs");
      }
      break;
    }
    case 7:
      Check(asmgr::ParseRedundancy(text));
      break;
    default:
      Check(io::ParseBackendKind(text));
      break;
  }
  return 0;
}
