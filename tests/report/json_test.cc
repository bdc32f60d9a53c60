#include "cellsim/report/json.h"

#include <string>

#include <nlohmann/json.hpp>

#include "testing/test_util.h"

namespace cellsim::report {
namespace {

using stats::Stat;
using stats::Wait;
using ::testing::HasSubstr;

StatementSummary Sample(std::string path) {
  StatementSummary r;
  r.statement = "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m";
  r.path = std::move(path);
  r.elapsed_s = 5.09;
  r.cpu_s = 0.37;
  r.statistics[Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation] = 17179869184;
  r.statistics[Stat::kPhysicalWriteTotalMultiBlockRequests] = 4096;
  r.statistics[Stat::kRedoSize] = -12;  // deltas may be negative
  r.waits[Wait::kCellSmartFileCreation] = {3258, 4'640'123'457, 130'000'001};
  r.waits[Wait::kLogFileSingleWrite] = {2, 1'000, 600};
  return r;
}

void ExpectSame(const StatementSummary& a, const StatementSummary& b) {
  EXPECT_EQ(a.statement, b.statement);
  EXPECT_EQ(a.path, b.path);
  EXPECT_DOUBLE_EQ(a.elapsed_s, b.elapsed_s);
  EXPECT_DOUBLE_EQ(a.cpu_s, b.cpu_s);
  EXPECT_EQ(a.statistics.v, b.statistics.v);
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    EXPECT_EQ(a.waits.v[i].count, b.waits.v[i].count) << i;
    EXPECT_EQ(a.waits.v[i].total_ns, b.waits.v[i].total_ns) << i;
    EXPECT_EQ(a.waits.v[i].max_ns, b.waits.v[i].max_ns) << i;
  }
}

TEST(JsonTest, StatementSchema) {
  const nlohmann::json j = nlohmann::json::parse(StatementJson(Sample("fast")));
  EXPECT_EQ(j["statement"], Sample("fast").statement);
  EXPECT_EQ(j["path"], "fast");
  EXPECT_DOUBLE_EQ(j["elapsed_s"].get<double>(), 5.09);
  // Exact Oracle names, integer values, non-zero only.
  EXPECT_EQ(j["statistics"].size(), 3u);
  EXPECT_EQ(j["statistics"]["cell physical IO bytes saved during optimized file creation"]
                .get<int64_t>(),
            17179869184);
  EXPECT_TRUE(j["statistics"]["physical write total multi block requests"].is_number_integer());
  EXPECT_FALSE(j["statistics"].contains("physical write total bytes"));
  const nlohmann::json& w = j["waits"]["cell smart file creation"];
  EXPECT_EQ(w["count"].get<int64_t>(), 3258);
  EXPECT_DOUBLE_EQ(w["total_s"].get<double>(), 4.640123457);
  EXPECT_DOUBLE_EQ(w["max_s"].get<double>(), 0.130000001);
  EXPECT_EQ(j["waits"].size(), 2u);
}

TEST(JsonTest, NullPathWhenNoFileCreated) {
  StatementSummary r;
  r.statement = "alter session set \"_cell_fast_file_create\" = false";
  const nlohmann::json j = nlohmann::json::parse(StatementJson(r));
  EXPECT_TRUE(j["path"].is_null());
  EXPECT_TRUE(j["statistics"].empty());
  EXPECT_TRUE(j["waits"].is_object());
  ASSERT_OK_AND_ASSIGN(StatementSummary back, ParseStatementJson(StatementJson(r)));
  EXPECT_EQ(back.path, "");
}

TEST(JsonTest, StatementRoundTrip) {
  for (int indent : {-1, 2}) {
    const StatementSummary r = Sample("smart");
    ASSERT_OK_AND_ASSIGN(StatementSummary back, ParseStatementJson(StatementJson(r, indent)));
    ExpectSame(r, back);
  }
}

TEST(JsonTest, DemoRoundTrip) {
  DemoResult d;
  d.size_bytes = 4294967296;
  d.paths = {Sample("zero-fill"), Sample("smart"), Sample("fast")};
  d.paths[0].elapsed_s = 37.5;
  d.paths[2].elapsed_s = 0.031;
  const std::string text = DemoJson(d);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["size_bytes"].get<uint64_t>(), 4294967296u);
  ASSERT_EQ(j["paths"].size(), 3u);
  EXPECT_EQ(j["paths"][0]["path"], "zero-fill");
  EXPECT_EQ(j["paths"][2]["path"], "fast");
  for (const auto& p : j["paths"]) {
    for (const char* key : {"path", "elapsed_s", "statistics", "waits"}) {
      EXPECT_TRUE(p.contains(key)) << key;
    }
  }
  ASSERT_OK_AND_ASSIGN(DemoResult back, ParseDemoJson(text));
  EXPECT_EQ(back.size_bytes, d.size_bytes);
  ASSERT_EQ(back.paths.size(), 3u);
  for (size_t i = 0; i < 3; ++i) ExpectSame(d.paths[i], back.paths[i]);
}

TEST(JsonTest, InvalidUtf8DoesNotThrow) {
  StatementSummary r;
  r.statement = std::string("drop tablespace \"\xff\"");
  const std::string text = StatementJson(r);
  EXPECT_TRUE(nlohmann::json::accept(text));
}

TEST(JsonTest, ParseErrors) {
  auto error = [](std::string_view text) {
    absl::StatusOr<StatementSummary> r = ParseStatementJson(text);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_THAT(error("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(error("[]"), HasSubstr("expected an object"));
  // A negative wait time (found by the fuzzer: it did not survive a round trip).
  EXPECT_THAT(error(R"({"statement":"x","path":null,"elapsed_s":1,"statistics":{},)"
                    R"("waits":{"KSV master wait":{"count":1,"max_s":0.1,"total_s":-6e-06}}})"),
              HasSubstr("\"total_s\" is -6e-06, not seconds from 0 to 1.8e10"));
  EXPECT_THAT(error(R"({"path":null,"elapsed_s":1,"statistics":{},"waits":{}})"),
              HasSubstr("missing \"statement\""));
  EXPECT_THAT(error(R"({"statement":"x","path":"slow","elapsed_s":1,"statistics":{},"waits":{}})"),
              HasSubstr("unknown path \"slow\""));
  EXPECT_THAT(error(R"({"statement":"x","path":null,"statistics":{},"waits":{}})"),
              HasSubstr("missing \"elapsed_s\""));
  EXPECT_THAT(
      error(R"({"statement":"x","path":null,"elapsed_s":1,"statistics":{"bogus":1},"waits":{}})"),
      HasSubstr("unknown statistic \"bogus\""));
  EXPECT_THAT(error(R"({"statement":"x","path":null,"elapsed_s":1,
                        "statistics":{"redo size":1.5},"waits":{}})"),
              HasSubstr("not an integer"));
  EXPECT_THAT(error(R"({"statement":"x","path":null,"elapsed_s":1,"statistics":{},
                        "waits":{"log file sync":{"count":1}}})"),
              HasSubstr("needs integer \"count\""));
  EXPECT_THAT(error(R"({"statement":"x","path":null,"elapsed_s":1,"statistics":{},
                        "waits":{"nap":{"count":1,"max_s":0,"total_s":0}}})"),
              HasSubstr("unknown wait event \"nap\""));
  EXPECT_FALSE(ParseDemoJson(R"({"paths":[]})").ok());
  EXPECT_FALSE(ParseDemoJson(R"({"size_bytes":1,"paths":[{"path":"fast"}]})").ok());
}

}  // namespace
}  // namespace cellsim::report
