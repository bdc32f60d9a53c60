// ALL_OBJECTS: the 19c column list and deterministic, realistic rows.
#include "cellsim/db/all_objects.h"

#include <fmt/format.h>

#include <ctime>
#include <deque>

#include "cellsim/base/mutex.h"

namespace cellsim::db::internal {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64: a fixed pseudo-random value per row
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct TypeShare {
  const char* type;
  int percent;
  int namespace_id;
  bool has_segment;
};
// Object types of a 19c dictionary, by share of rows (inferred from typical
// `select object_type, count(*) from all_objects group by object_type`).
constexpr TypeShare kTypes[] = {
    {"SYNONYM", 36, 1, false}, {"JAVA CLASS", 24, 29, false}, {"VIEW", 9, 1, false},
    {"INDEX", 8, 4, true},     {"TABLE", 7, 1, true},         {"TYPE", 5, 2, false},
    {"PACKAGE", 4, 1, false},  {"PACKAGE BODY", 3, 2, false}, {"FUNCTION", 2, 1, false},
    {"PROCEDURE", 1, 1, false}, {"SEQUENCE", 1, 1, false},
};
constexpr const char* kOwners[] = {"SYS", "SYS", "SYS", "SYS", "PUBLIC", "PUBLIC", "PUBLIC",
                                   "XDB", "MDSYS", "ORDSYS", "SYSTEM", "CTXSYS", "DVSYS",
                                   "APEX_190200", "WMSYS", "OLAPSYS"};
constexpr const char* kWords[] = {"oracle", "xml", "parser", "v2", "sun", "security", "DBMS",
                                  "STATS", "ALL", "USER", "TAB", "COLUMNS", "INTERNAL", "SQL",
                                  "util", "jdbc", "driver", "OBJECTS", "ROLE", "PRIVS", "V_$",
                                  "SESSION", "LOB", "SCHEDULER", "AQ$", "QUEUE", "TYPE", "impl"};

std::string ObjectName(uint64_t h, bool java) {
  // Java classes are long paths; dictionary names are words joined by '_'.
  const int words = java ? 4 + static_cast<int>(h % 4) : 2 + static_cast<int>(h % 4);
  std::string name;
  for (int w = 0; w < words; ++w) {
    h = Mix(h);
    if (!name.empty()) name += java ? "/" : "_";
    name += kWords[h % (sizeof(kWords) / sizeof(kWords[0]))];
  }
  if (name.size() > 128) name.resize(128);
  return java ? name : fmt::format("{}", name);
}

}  // namespace

const std::vector<Column>& AllObjectsColumns() {
  static const std::vector<Column> k = {
      {"OWNER", ColType::kVarchar2, 128},          {"OBJECT_NAME", ColType::kVarchar2, 128},
      {"SUBOBJECT_NAME", ColType::kVarchar2, 128}, {"OBJECT_ID", ColType::kNumber, 0},
      {"DATA_OBJECT_ID", ColType::kNumber, 0},     {"OBJECT_TYPE", ColType::kVarchar2, 23},
      {"CREATED", ColType::kDate, 0},              {"LAST_DDL_TIME", ColType::kDate, 0},
      {"TIMESTAMP", ColType::kVarchar2, 19},       {"STATUS", ColType::kVarchar2, 7},
      {"TEMPORARY", ColType::kVarchar2, 1},        {"GENERATED", ColType::kVarchar2, 1},
      {"SECONDARY", ColType::kVarchar2, 1},        {"NAMESPACE", ColType::kNumber, 0},
      {"EDITION_NAME", ColType::kVarchar2, 128},   {"SHARING", ColType::kVarchar2, 18},
      {"EDITIONABLE", ColType::kVarchar2, 1},      {"ORACLE_MAINTAINED", ColType::kVarchar2, 1},
      {"APPLICATION", ColType::kVarchar2, 1},      {"DEFAULT_COLLATION", ColType::kVarchar2, 100},
      {"DUPLICATED", ColType::kVarchar2, 1},       {"SHARDED", ColType::kVarchar2, 1},
      {"CREATED_APPID", ColType::kNumber, 0},      {"CREATED_VSNID", ColType::kNumber, 0},
      {"MODIFIED_APPID", ColType::kNumber, 0},     {"MODIFIED_VSNID", ColType::kNumber, 0},
  };
  return k;
}

Row AllObjectsRow(uint64_t i, int64_t created_unix) {
  const uint64_t h = Mix(i);
  int pick = static_cast<int>(h % 100);
  const TypeShare* t = &kTypes[0];
  for (const TypeShare& ts : kTypes) {
    if (pick < ts.percent) {
      t = &ts;
      break;
    }
    pick -= ts.percent;
  }
  const std::string type = t->type;
  const bool java = type == "JAVA CLASS";
  const std::string owner =
      type == "SYNONYM" ? "PUBLIC" : kOwners[(h >> 8) % (sizeof(kOwners) / sizeof(kOwners[0]))];
  const int64_t created = created_unix - 86400 * 400 + static_cast<int64_t>((h >> 16) % 86400);
  const int64_t ddl = created + static_cast<int64_t>((h >> 24) % (86400 * 30));
  const time_t ts = static_cast<time_t>(ddl);
  std::tm tm{};
  gmtime_r(&ts, &tm);
  const std::string stamp =
      fmt::format("{:04d}-{:02d}-{:02d}:{:02d}:{:02d}:{:02d}", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  const double object_id = static_cast<double>(i + 2);
  const bool collation = type == "TABLE" || type == "VIEW";
  const bool editionable = type == "SYNONYM" || type == "VIEW" || type == "PACKAGE" ||
                           type == "PACKAGE BODY" || type == "FUNCTION" || type == "PROCEDURE" ||
                           type == "TYPE";
  const int sharing = static_cast<int>((h >> 40) % 10);
  return Row{Value::Str(owner),
             Value::Str(ObjectName(h, java)),
             Value::Null(),
             Value::Num(object_id),
             t->has_segment ? Value::Num(object_id) : Value::Null(),
             Value::Str(type),
             Value::Date(created),
             Value::Date(ddl),
             Value::Str(stamp),
             Value::Str("VALID"),
             Value::Str("N"),
             Value::Str((h >> 48) % 20 == 0 ? "Y" : "N"),
             Value::Str("N"),
             Value::Num(t->namespace_id),
             Value::Null(),
             Value::Str(sharing < 7 ? "METADATA LINK" : sharing < 9 ? "NONE" : "DATA LINK"),
             editionable ? Value::Str("Y") : Value::Null(),
             Value::Str("Y"),
             Value::Str("N"),
             collation ? Value::Str("USING_NLS_COMP") : Value::Null(),
             Value::Str("N"),
             Value::Str("N"),
             Value::Null(),
             Value::Null(),
             Value::Null(),
             Value::Null()};
}

namespace {

struct EncodedKey {
  uint64_t n = 0;
  int64_t created_unix = 0;
  std::vector<std::pair<ColType, uint32_t>> shape;  // (type, length) per column
  bool operator==(const EncodedKey&) const = default;
};

struct EncodedCache {
  static constexpr size_t kKeep = 4;
  Mutex mu;
  std::deque<std::pair<EncodedKey, std::shared_ptr<const EncodedRows>>> entries ABSL_GUARDED_BY(mu);
};

std::shared_ptr<const EncodedRows> Encode(uint64_t n, int64_t created_unix,
                                          const std::vector<Column>& cols) {
  auto rows = std::make_shared<EncodedRows>();
  for (uint64_t i = 0; i < n; ++i) {
    Row row = AllObjectsRow(i, created_unix);
    if (row.size() != cols.size()) return nullptr;
    for (size_t k = 0; k < cols.size(); ++k) {
      if (CoerceForColumn(cols[k], row[k]).has_value()) return nullptr;
    }
    rows->Append(EncodeRow(cols, row));
  }
  return rows;
}

}  // namespace

std::shared_ptr<const EncodedRows> EncodedAllObjectsRows(uint64_t n, int64_t created_unix,
                                                         const std::vector<Column>& cols) {
  static EncodedCache* const cache = new EncodedCache;
  EncodedKey key{n, created_unix, {}};
  for (const Column& c : cols) key.shape.emplace_back(c.type, c.length);
  // Made under the lock: sessions asking for the same rows wait for one copy.
  MutexLock lock(&cache->mu);
  for (const auto& [k, rows] : cache->entries) {
    if (k == key) return rows;
  }
  std::shared_ptr<const EncodedRows> rows = Encode(n, created_unix, cols);
  cache->entries.emplace_back(std::move(key), rows);
  if (cache->entries.size() > EncodedCache::kKeep) cache->entries.pop_front();
  return rows;
}

}  // namespace cellsim::db::internal
