#include "cellsim/report/demo_table.h"

#include <fmt/format.h>

#include "cellsim/base/units.h"
#include "cellsim/report/text_format.h"

namespace cellsim::report {
namespace {

// The longest statistic name ("cell physical IO bytes saved during optimized
// file creation") is 59 characters; three 18-wide columns make 116.
constexpr size_t kNameWidth = 59;
constexpr size_t kColumnWidth = 18;

std::string Row(std::string_view name, const std::vector<std::string>& cells) {
  std::string line = internal::Rpad(std::string(name), kNameWidth);
  // Appended piecewise: g++ 12 -O3 gives a false -Wrestrict on
  // `" " + std::string` (GCC bug 105329).
  for (const std::string& c : cells) {
    line += ' ';
    line += internal::Lpad(c, kColumnWidth);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

std::string Seconds(double s) { return fmt::format("{:.2f}", s); }

}  // namespace

std::string RenderDemoTable(const DemoResult& demo) {
  std::string out;
  const std::string statement = demo.paths.empty() ? "" : demo.paths.front().statement;
  out += fmt::format("{}\n", statement);
  out += fmt::format("member size {} ({} bytes)\n\n", FormatBytes(demo.size_bytes),
                     internal::GroupThousands(static_cast<int64_t>(demo.size_bytes)));

  std::vector<std::string> header, rule;
  for (const StatementSummary& r : demo.paths) {
    header.push_back(r.path.empty() ? "(none)" : r.path);
    rule.push_back(std::string(kColumnWidth, '-'));
  }
  out += Row("Statistic", header);
  out += std::string(kNameWidth, '-');
  for (const std::string& r : rule) {
    out += ' ';
    out += r;
  }
  out += "\n";

  std::vector<std::string> elapsed, cpu, speedup;
  for (const StatementSummary& r : demo.paths) {
    elapsed.push_back(Seconds(r.elapsed_s));
    cpu.push_back(Seconds(r.cpu_s));
    const double base = demo.paths.front().elapsed_s;
    speedup.push_back(r.elapsed_s > 0 ? fmt::format("{:.1f}x", base / r.elapsed_s) : "-");
  }
  out += Row("elapsed (s)", elapsed);
  out += Row("CPU (s)", cpu);
  if (!demo.paths.empty()) out += Row(fmt::format("speed-up vs {}", header.front()), speedup);

  for (size_t i = 0; i < stats::kStatCount; ++i) {
    bool any = false;
    std::vector<std::string> cells;
    for (const StatementSummary& r : demo.paths) {
      any = any || r.statistics.v[i] != 0;
      cells.push_back(internal::GroupThousands(r.statistics.v[i]));
    }
    if (any) out += Row(stats::kStatTable[i].name, cells);
  }

  bool any_wait = false;
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    std::vector<std::string> cells;
    bool any = false;
    for (const StatementSummary& r : demo.paths) {
      const stats::WaitValue& w = r.waits.v[i];
      any = any || w.count > 0;
      cells.push_back(w.count > 0 ? fmt::format("{} / {}", internal::GroupThousands(w.count),
                                                Seconds(static_cast<double>(w.total_ns) / 1e9))
                                  : "-");
    }
    if (!any) continue;
    if (!any_wait) {
      out += "\n";
      out += Row("Wait event (times waited / total s)", header);
      out += std::string(kNameWidth, '-');
      for (const std::string& r : rule) {
    out += ' ';
    out += r;
  }
      out += "\n";
      any_wait = true;
    }
    out += Row(stats::kWaitTable[i].name, cells);
  }
  return out;
}

}  // namespace cellsim::report
