#include "cellsim/report/json.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "cellsim/db/database.h"

namespace cellsim::report {
namespace {

using nlohmann::json;

json StatisticsObject(const stats::StatValues& v) {
  json out = json::object();
  for (size_t i = 0; i < stats::kStatCount; ++i) {
    if (v.v[i] != 0) out[std::string(stats::kStatTable[i].name)] = v.v[i];
  }
  return out;
}

json WaitsObject(const stats::WaitValues& v) {
  json out = json::object();
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const stats::WaitValue& w = v.v[i];
    if (w.count <= 0) continue;
    out[std::string(stats::kWaitTable[i].name)] = {
        {"count", w.count},
        {"max_s", static_cast<double>(w.max_ns) / 1e9},
        {"total_s", static_cast<double>(w.total_ns) / 1e9},
    };
  }
  return out;
}

json PathObject(const StatementSummary& r, bool with_statement) {
  json out = json::object();
  if (with_statement) out["statement"] = r.statement;
  out["path"] = r.path.empty() ? json(nullptr) : json(r.path);
  out["elapsed_s"] = r.elapsed_s;
  out["cpu_s"] = r.cpu_s;
  out["statistics"] = StatisticsObject(r.statistics);
  out["waits"] = WaitsObject(r.waits);
  return out;
}

absl::Status Bad(std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("report JSON: {}", what));
}

uint64_t SecondsToNs(double s) { return static_cast<uint64_t>(std::llround(s * 1e9)); }

absl::StatusOr<StatementSummary> FromPathObject(const json& j, bool need_statement) {
  if (!j.is_object()) return Bad("expected an object per statement");
  StatementSummary r;
  if (j.contains("statement")) {
    if (!j["statement"].is_string()) return Bad("\"statement\" is not a string");
    r.statement = j["statement"].get<std::string>();
  } else if (need_statement) {
    return Bad("missing \"statement\"");
  }
  if (!j.contains("path")) return Bad("missing \"path\"");
  if (j["path"].is_string()) {
    r.path = j["path"].get<std::string>();
    if (r.path != db::kPathZeroFill && r.path != db::kPathSmart && r.path != db::kPathFast) {
      return Bad(fmt::format("unknown path \"{}\": expected zero-fill, smart, fast or null", r.path));
    }
  } else if (!j["path"].is_null()) {
    return Bad("\"path\" is neither a string nor null");
  }
  for (const char* key : {"elapsed_s", "cpu_s"}) {
    if (!j.contains(key)) {
      if (std::string_view(key) == "cpu_s") continue;  // optional
      return Bad(fmt::format("missing \"{}\"", key));
    }
    if (!j[key].is_number()) return Bad(fmt::format("\"{}\" is not a number", key));
  }
  r.elapsed_s = j["elapsed_s"].get<double>();
  if (j.contains("cpu_s")) r.cpu_s = j["cpu_s"].get<double>();
  if (!j.contains("statistics") || !j["statistics"].is_object()) {
    return Bad("missing object \"statistics\"");
  }
  for (const auto& [name, value] : j["statistics"].items()) {
    std::optional<stats::Stat> s = stats::StatByName(name);
    if (!s) return Bad(fmt::format("unknown statistic \"{}\"", name));
    if (!value.is_number_integer()) return Bad(fmt::format("statistic \"{}\" is not an integer", name));
    r.statistics[*s] = value.get<int64_t>();
  }
  if (!j.contains("waits") || !j["waits"].is_object()) return Bad("missing object \"waits\"");
  for (const auto& [name, value] : j["waits"].items()) {
    std::optional<stats::Wait> w = stats::WaitByName(name);
    if (!w) return Bad(fmt::format("unknown wait event \"{}\"", name));
    if (!value.is_object() || !value.contains("count") || !value["count"].is_number_integer() ||
        !value.contains("max_s") || !value["max_s"].is_number() || !value.contains("total_s") ||
        !value["total_s"].is_number()) {
      return Bad(fmt::format("wait \"{}\" needs integer \"count\" and numbers \"max_s\", \"total_s\"",
                             name));
    }
    for (const char* key : {"max_s", "total_s"}) {
      const double seconds = value[key].get<double>();
      if (!(seconds >= 0 && seconds <= 1.8e10)) {  // (not NaN; in nanoseconds, fits 64 bits)
        return Bad(fmt::format("wait \"{}\": \"{}\" is {}, not seconds from 0 to 1.8e10", name,
                               key, seconds));
      }
    }
    stats::WaitValue& v = r.waits[*w];
    v.count = value["count"].get<int64_t>();
    v.max_ns = SecondsToNs(value["max_s"].get<double>());
    v.total_ns = SecondsToNs(value["total_s"].get<double>());
  }
  return r;
}

absl::StatusOr<json> Parse(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("not valid JSON");
  return j;
}

}  // namespace

std::string StatementJson(const StatementSummary& result, int indent) {
  // replace: a statement with invalid UTF-8 must not throw.
  return PathObject(result, /*with_statement=*/true)
      .dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string DemoJson(const DemoResult& demo, int indent) {
  json out = json::object();
  out["size_bytes"] = demo.size_bytes;
  if (!demo.paths.empty()) out["statement"] = demo.paths.front().statement;
  json paths = json::array();
  for (const StatementSummary& r : demo.paths) paths.push_back(PathObject(r, false));
  out["paths"] = std::move(paths);
  return out.dump(indent, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<StatementSummary> ParseStatementJson(std::string_view text) {
  absl::StatusOr<json> j = Parse(text);
  if (!j.ok()) return j.status();
  return FromPathObject(*j, /*need_statement=*/true);
}

absl::StatusOr<DemoResult> ParseDemoJson(std::string_view text) {
  absl::StatusOr<json> j = Parse(text);
  if (!j.ok()) return j.status();
  if (!j->is_object()) return Bad("expected an object");
  if (!j->contains("size_bytes") || !(*j)["size_bytes"].is_number_unsigned()) {
    return Bad("missing unsigned integer \"size_bytes\"");
  }
  if (!j->contains("paths") || !(*j)["paths"].is_array()) return Bad("missing array \"paths\"");
  DemoResult d;
  d.size_bytes = (*j)["size_bytes"].get<uint64_t>();
  const std::string statement =
      j->contains("statement") && (*j)["statement"].is_string() ? (*j)["statement"].get<std::string>()
                                                                : "";
  for (const json& p : (*j)["paths"]) {
    absl::StatusOr<StatementSummary> r = FromPathObject(p, /*need_statement=*/false);
    if (!r.ok()) return r.status();
    if (r->statement.empty()) r->statement = statement;
    d.paths.push_back(*std::move(r));
  }
  return d;
}

}  // namespace cellsim::report
