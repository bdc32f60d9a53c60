// The persistent data dictionary (docs/redo.md "The dictionary"): what Oracle
// keeps in SYSTEM (tables, their columns and object ids, segments' extent
// maps, the space allocators) plus the SCN and the checkpoint position, in the
// SYSTEM data file's reserved low blocks as two checksummed copies written one
// after the other, so a torn write leaves the other copy whole.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cellsim/base/checksum.h"
#include "cellsim/db/data_engine.h"

namespace cellsim::db::internal {
namespace {

constexpr uint64_t kDictMagic = 0x5443494449534345ull;  // "ECSIDICT" little-endian
// Version 2 adds each table's indexes, version 3 each column's NUMBER scale
// and NOT NULL, version 4 each column's DEFAULT (written only when a column
// has one, so a database without defaults stays readable by builds that know
// version 3), version 5 the sequences, each column's identity kind and
// each table's CHECK constraints (written only while a sequence or a CHECK
// exists), version 6 the views (written only while a view exists), version
// 7 each online log's last use (V$LOG's SEQUENCE#, FIRST_CHANGE#,
// NEXT_CHANGE# across restarts), version 8 their FIRST_TIME and NEXT_TIME
// and the log switches (V$LOG_HISTORY; written once a log has been used),
// version 9 the optimizer statistics of tables and indexes (written only
// while one has them); versions 1 (no indexes) and 2 are still read (their
// NUMBER columns then take any number, as those versions stored them: the
// scale was not kept).
constexpr uint16_t kDictVersion = 11;
constexpr uint16_t kDictVersionNoTimestamps = 10;
constexpr uint16_t kDictVersionNoNotNullNames = 9;
constexpr uint16_t kDictVersionNoStats = 8;
constexpr uint16_t kDictVersionNoLogHistory = 7;
constexpr uint16_t kDictVersionNoLogUse = 6;
constexpr uint16_t kDictVersionNoViews = 5;
constexpr uint16_t kDictVersionNoSequences = 4;
constexpr uint16_t kDictVersionNoDefaults = 3;
constexpr uint16_t kDictVersionNoScale = 2;
constexpr uint16_t kDictVersionNoIndexes = 1;
constexpr uint32_t kDictFirstBlock = 2;     // blocks 0 (OS header) and 1 (file header) precede
constexpr uint32_t kDictCopyBlocks = 63;    // copy 0: blocks 2..64, copy 1: blocks 65..127
constexpr uint32_t kDictCopies = 2;  // WriteDictionary alternates between the two
constexpr size_t kDictHeaderBytes = 40;
constexpr uint32_t kMaxTables = 100000, kMaxColumns = 1000, kMaxExtents = 1u << 22;
constexpr size_t kMaxDefaultBytes = 32767;  // a DEFAULT's text
constexpr size_t kMaxViewTextBytes = 1u << 20;  // a view's query
constexpr uint32_t kMaxLogGroups = 1024;

// The SYSTEM data file, where the dictionary lives.
struct DictFile {
  asmgr::DiskGroup* dg = nullptr;
  uint32_t asm_file = 0;
  uint32_t file_number = 0;
  std::string name;
};

std::optional<DictFile> FindDictFile(const FileTable& t, asmgr::Rack* rack) {
  const Tablespace* ts = t.FindTablespace("SYSTEM");
  if (ts == nullptr) return std::nullopt;
  for (const DataFile& f : t.data_files) {
    if (f.tablespace != ts->number || f.state != EntryState::kAvailable) continue;
    absl::StatusOr<asmgr::DiskGroup*> dg = FindDiskGroup(rack, f.file.disk_group);
    if (!dg.ok()) return std::nullopt;
    return DictFile{*dg, f.file.number, f.file_number, f.file.name};
  }
  return std::nullopt;
}

// Data files of the TEMP tablespace: their space is never persisted (GTT
// contents and temporary undo do not survive the instance).
bool IsTempFile(const FileTable& t, uint32_t file_number) {
  const Tablespace* ts = t.FindTablespace("TEMP");
  const DataFile* f = t.FindDataFile(file_number);
  return ts != nullptr && f != nullptr && f->tablespace == ts->number;
}

// What one dictionary copy holds.
struct DictImage {
  uint64_t generation = 0;
  uint64_t scn = 0;
  uint32_t next_object_id = 0;
  bool clean = false;
  CheckpointPosition checkpoint;
  UndoSnapshot undo;
  std::map<std::string, TableDef> tables;
  std::map<uint32_t, uint32_t> file_next_block;
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> free_extents;
  std::map<std::string, SequenceDef> sequences;
  std::map<std::string, ViewDef> views;
  std::map<uint32_t, LogUse> log_use;  // by GROUP#, the CURRENT log's included
  std::vector<LogHistoryEntry> log_history;
};

// A segment: data file, blocks per extent, blocks in use, each extent's first block.
void EncodeSegment(Encoder& e, const Segment& s) {
  e.PutU32(s.file_number);
  e.PutU32(s.extent_blocks);
  e.PutU32(static_cast<uint32_t>(s.blocks.size()));
  const std::vector<uint32_t> starts = s.ExtentStarts();
  e.PutU32(static_cast<uint32_t>(starts.size()));
  for (uint32_t b : starts) e.PutU32(b);
}

bool DecodeSegment(Decoder& d, const std::string& what, Segment* seg, std::string* why) {
  uint32_t file = 0, extent_blocks = 0, used = 0, nstarts = 0;
  if (!d.GetU32(&file) || !d.GetU32(&extent_blocks) || !d.GetU32(&used) || !d.GetU32(&nstarts) ||
      nstarts > kMaxExtents || extent_blocks == 0 ||
      uint64_t{nstarts} * extent_blocks < used || (nstarts > 0 && used <= (nstarts - 1) * extent_blocks)) {
    *why = fmt::format("{}: segment header truncated or inconsistent", what);
    return false;
  }
  std::vector<uint32_t> starts(nstarts);
  for (uint32_t& s : starts) {
    if (!d.GetU32(&s)) {
      *why = fmt::format("{}: extent map truncated", what);
      return false;
    }
  }
  *seg = Segment::FromExtents(file, extent_blocks, starts, used);
  return true;
}

void EncodeTable(Encoder& e, uint16_t version, const TableDef& t) {
  e.PutString(t.name);
  e.PutU32(t.object_id);
  e.PutU8(t.temporary ? 1 : 0);
  e.PutU8(t.preserve_rows ? 1 : 0);
  e.PutString(t.tablespace);
  e.PutU32(static_cast<uint32_t>(t.columns.size()));
  for (const Column& c : t.columns) {
    e.PutString(c.name);
    e.PutU8(static_cast<uint8_t>(c.type));
    e.PutU32(c.length);
    e.PutU32(static_cast<uint32_t>(c.scale));
    e.PutU8(!c.not_null ? 0 : c.not_null_by_key ? 2 : 1);  // builds before 2 read 2 as 1
    if (version >= kDictVersionNoSequences) e.PutString(c.default_sql);
    if (version >= kDictVersionNoViews) e.PutU8(static_cast<uint8_t>(c.identity));
    if (version >= kDictVersionNoTimestamps) e.PutString(c.not_null_name);
  }
  EncodeSegment(e, t.segment);
  e.PutU32(static_cast<uint32_t>(t.indexes.size()));
  for (const IndexDef& ix : t.indexes) {
    e.PutString(ix.name);
    e.PutU32(ix.object_id);
    // 0 not unique, 1 unique, 2 a UNIQUE constraint's, 3 a PRIMARY KEY's.
    e.PutU8(!ix.unique ? 0 : 1 + static_cast<uint8_t>(ix.constraint));
    e.PutString(ix.tablespace);
    e.PutU32(static_cast<uint32_t>(ix.columns.size()));
    for (uint16_t c : ix.columns) e.PutU16(c);
    EncodeSegment(e, ix.segment);
  }
  if (version >= kDictVersionNoViews) {
    e.PutU32(static_cast<uint32_t>(t.checks.size()));
    for (const CheckDef& c : t.checks) {
      e.PutString(c.name);
      e.PutString(c.condition);
    }
  }
}

bool DecodeChecks(Decoder& d, TableDef* t, std::string* why) {
  uint32_t n = 0;
  if (!d.GetU32(&n) || n > kMaxColumns) {
    *why = fmt::format("table {}: check constraint list truncated", t->name);
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    CheckDef c;
    if (!d.GetString(&c.name, 128) || !d.GetString(&c.condition, kMaxDefaultBytes)) {
      *why = fmt::format("table {}: check constraint {} truncated", t->name, i + 1);
      return false;
    }
    absl::StatusOr<ExprPtr> parsed = ParseDataExpression(c.condition);
    if (!parsed.ok()) {
      *why = fmt::format("table {}: check constraint {} does not parse: {}", t->name, c.name,
                         std::string(parsed.status().message()));
      return false;
    }
    c.parsed = *std::move(parsed);
    t->checks.push_back(std::move(c));
  }
  return true;
}

bool DecodeIndexes(Decoder& d, TableDef* t, std::string* why) {
  uint32_t n = 0;
  if (!d.GetU32(&n) || n > kMaxColumns) {
    *why = fmt::format("table {}: index list truncated", t->name);
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    IndexDef ix;
    uint8_t unique = 0;
    uint32_t ncols = 0;
    if (!d.GetString(&ix.name, 128) || !d.GetU32(&ix.object_id) || !d.GetU8(&unique) ||
        !d.GetString(&ix.tablespace, 128) || !d.GetU32(&ncols) || ncols == 0 ||
        ncols > t->columns.size()) {
      *why = fmt::format("table {}: index {} truncated or inconsistent", t->name, i + 1);
      return false;
    }
    if (unique > 1 + static_cast<uint8_t>(KeyConstraint::kPrimaryKey)) {
      *why = fmt::format("table {}: index {} of unknown kind {}", t->name, ix.name, unique);
      return false;
    }
    ix.unique = unique != 0;
    ix.constraint = unique < 2 ? KeyConstraint::kNone : static_cast<KeyConstraint>(unique - 1);
    ix.columns.resize(ncols);
    for (uint16_t& c : ix.columns) {
      if (!d.GetU16(&c) || c >= t->columns.size()) {
        *why = fmt::format("table {}: index {} names a column it does not have", t->name, ix.name);
        return false;
      }
    }
    if (!DecodeSegment(d, fmt::format("index {}", ix.name), &ix.segment, why)) return false;
    t->indexes.push_back(std::move(ix));
  }
  return true;
}

bool DecodeTable(Decoder& d, uint16_t version, TableDef* t, std::string* why) {
  uint8_t temporary = 0, preserve = 0;
  uint32_t ncols = 0;
  if (!d.GetString(&t->name, 128) || !d.GetU32(&t->object_id) || !d.GetU8(&temporary) ||
      !d.GetU8(&preserve) || !d.GetString(&t->tablespace, 128) || !d.GetU32(&ncols)) {
    *why = "table entry truncated";
    return false;
  }
  t->temporary = temporary != 0;
  t->preserve_rows = preserve != 0;
  if (ncols > kMaxColumns) {
    *why = fmt::format("table {}: {} columns", t->name, ncols);
    return false;
  }
  for (uint32_t i = 0; i < ncols; ++i) {
    Column c;
    uint8_t type = 0;
    if (!d.GetString(&c.name, 128) || !d.GetU8(&type) || !d.GetU32(&c.length) ||
        type > static_cast<uint8_t>(version >= kDictVersion ? ColType::kTimestamp : ColType::kDate)) {
      *why = fmt::format("table {}: column {} truncated or of unknown type", t->name, i + 1);
      return false;
    }
    c.type = static_cast<ColType>(type);
    if (version >= kDictVersionNoDefaults) {
      uint32_t scale = 0;
      uint8_t not_null = 0, identity = 0;
      if (!d.GetU32(&scale) || !d.GetU8(&not_null) ||
          (version >= kDictVersionNoSequences && !d.GetString(&c.default_sql, kMaxDefaultBytes)) ||
          (version >= kDictVersionNoViews && !d.GetU8(&identity)) ||
          (version >= kDictVersionNoTimestamps && !d.GetString(&c.not_null_name, 128))) {
        *why = fmt::format("table {}: column {} truncated", t->name, i + 1);
        return false;
      }
      if (identity > static_cast<uint8_t>(IdentityKind::kByDefaultOnNull)) {
        *why = fmt::format("table {}: column {} of unknown identity kind {}", t->name, i + 1, identity);
        return false;
      }
      c.identity = static_cast<IdentityKind>(identity);
      c.scale = static_cast<int32_t>(scale);
      c.not_null = not_null != 0;
      c.not_null_by_key = not_null == 2;
    } else if (c.type == ColType::kNumber) {
      c.length = 0;
    }
    t->columns.push_back(std::move(c));
  }
  if (!DecodeSegment(d, fmt::format("table {}", t->name), &t->segment, why)) return false;
  if (version == kDictVersionNoIndexes) return true;
  return DecodeIndexes(d, t, why) && (version < kDictVersionNoViews || DecodeChecks(d, t, why));
}

// One log's use as DecodeOneLogUse reads it.
void EncodeLogUse(Encoder& e, const LogUse& u, uint16_t version) {
  e.PutU64(u.sequence);
  e.PutU64(u.first_change);
  e.PutU64(u.next_change);
  e.PutU64(u.blocks);
  e.PutU8(u.needs_archive ? 1 : 0);
  if (version >= kDictVersionNoStats) {
    e.PutU64(static_cast<uint64_t>(u.first_time));
    e.PutU64(static_cast<uint64_t>(u.next_time));
  }
}

// The oldest version that holds `m`: 11 when a column is a TIMESTAMP, 10
// when a column has a named NOT NULL constraint, 9 when a table or index has statistics, 8 once a log has
// been used, 6 with a view, 5 with a sequence or a CHECK, 4 when a column
// has a DEFAULT, else 3.
uint16_t VersionFor(const DictImage& m) {
  for (const auto& [name, t] : m.tables) {
    for (const Column& c : t.columns) {
      if (c.type == ColType::kTimestamp) return kDictVersion;
    }
  }
  for (const auto& [name, t] : m.tables) {
    for (const Column& c : t.columns) {
      if (!c.not_null_name.empty()) return kDictVersionNoTimestamps;
    }
  }
  for (const auto& [name, t] : m.tables) {
    if (t.stats.has_value()) return kDictVersionNoNotNullNames;
    for (const IndexDef& ix : t.indexes) {
      if (ix.stats.has_value()) return kDictVersionNoNotNullNames;
    }
  }
  if (!m.log_use.empty() || !m.log_history.empty()) return kDictVersionNoStats;
  if (!m.views.empty()) return kDictVersionNoLogUse;
  if (!m.sequences.empty()) return kDictVersionNoViews;
  for (const auto& [name, t] : m.tables) {
    if (!t.checks.empty()) return kDictVersionNoViews;
    for (const Column& c : t.columns) {
      if (!c.default_sql.empty()) return kDictVersionNoSequences;
    }
  }
  return kDictVersionNoDefaults;
}

// A sequence: its settings and highwater (version 5).
void EncodeSequence(Encoder& e, const SequenceDef& q) {
  e.PutString(q.name);
  e.PutU32(q.object_id);
  for (int64_t v : {q.increment, q.min_value, q.max_value, q.cache, q.start, q.highwater}) {
    e.PutU64(static_cast<uint64_t>(v));
  }
  e.PutU8(static_cast<uint8_t>((q.cycle ? 1 : 0) | (q.order ? 2 : 0)));
}

// A view: name, object id, flags, its column names, its query (version 6).
void EncodeView(Encoder& e, const ViewDef& v) {
  e.PutString(v.name);
  e.PutU32(v.object_id);
  e.PutU8(v.read_only ? 1 : 0);
  e.PutU32(static_cast<uint32_t>(v.columns.size()));
  for (const std::string& c : v.columns) e.PutString(c);
  e.PutString(v.text);
}

bool DecodeView(Decoder& d, ViewDef* v, std::string* why) {
  uint8_t flags = 0;
  uint32_t ncols = 0;
  if (!d.GetString(&v->name, 128) || !d.GetU32(&v->object_id) || !d.GetU8(&flags) ||
      !d.GetU32(&ncols) || ncols > kMaxColumns) {
    *why = "view entry truncated";
    return false;
  }
  v->read_only = (flags & 1) != 0;
  v->columns.resize(ncols);
  for (std::string& c : v->columns) {
    if (!d.GetString(&c, 128)) {
      *why = fmt::format("view {}: column list truncated", v->name);
      return false;
    }
  }
  if (!d.GetString(&v->text, kMaxViewTextBytes)) {
    *why = fmt::format("view {}: query text truncated", v->name);
    return false;
  }
  return true;
}

bool DecodeSequence(Decoder& d, SequenceDef* q, std::string* why) {
  uint64_t v[6] = {};
  uint8_t flags = 0;
  bool ok = d.GetString(&q->name, 128) && d.GetU32(&q->object_id);
  for (uint64_t& x : v) ok = ok && d.GetU64(&x);
  if (!ok || !d.GetU8(&flags)) {
    *why = "sequence entry truncated";
    return false;
  }
  q->increment = static_cast<int64_t>(v[0]);
  q->min_value = static_cast<int64_t>(v[1]);
  q->max_value = static_cast<int64_t>(v[2]);
  q->cache = static_cast<int64_t>(v[3]);
  q->start = static_cast<int64_t>(v[4]);
  q->highwater = q->next = static_cast<int64_t>(v[5]);
  q->cycle = (flags & 1) != 0;
  q->order = (flags & 2) != 0;
  auto beyond = [](int64_t x) { return x < -2 * kSequenceLimit || x > 2 * kSequenceLimit; };
  if (q->increment == 0 || q->min_value >= q->max_value || q->cache < 0 || beyond(q->increment) ||
      beyond(q->min_value) || beyond(q->max_value) || beyond(q->highwater)) {
    *why = fmt::format("sequence {}: settings out of range (increment {}, min {}, max {}, "
                       "highwater {})", q->name, q->increment, q->min_value, q->max_value,
                       q->highwater);
    return false;
  }
  return true;
}

// The statistics (version 9): the tables that have them (name, NUM_ROWS,
// BLOCKS, AVG_ROW_LEN, LAST_ANALYZED), then the indexes (table, name,
// NUM_ROWS, LEAF_BLOCKS, BLEVEL, DISTINCT_KEYS, CLUSTERING_FACTOR,
// LAST_ANALYZED).
void EncodeStats(Encoder& e, const DictImage& m) {
  uint32_t tables = 0, indexes = 0;
  for (const auto& [name, t] : m.tables) {
    tables += t.stats.has_value() ? 1 : 0;
    for (const IndexDef& ix : t.indexes) indexes += ix.stats.has_value() ? 1 : 0;
  }
  e.PutU32(tables);
  for (const auto& [name, t] : m.tables) {
    if (!t.stats.has_value()) continue;
    e.PutString(name);
    for (uint64_t v : {t.stats->num_rows, t.stats->blocks, t.stats->avg_row_len,
                       static_cast<uint64_t>(t.stats->last_analyzed)}) {
      e.PutU64(v);
    }
  }
  e.PutU32(indexes);
  for (const auto& [name, t] : m.tables) {
    for (const IndexDef& ix : t.indexes) {
      if (!ix.stats.has_value()) continue;
      e.PutString(name);
      e.PutString(ix.name);
      const IndexStats& x = *ix.stats;
      for (uint64_t v : {x.num_rows, x.leaf_blocks, x.blevel, x.distinct_keys, x.clustering_factor,
                         static_cast<uint64_t>(x.last_analyzed)}) {
        e.PutU64(v);
      }
    }
  }
}

bool DecodeStats(Decoder& d, DictImage* m, std::string* why) {
  uint32_t n = 0;
  if (!d.GetU32(&n) || n > kMaxTables) {
    *why = "table statistics truncated";
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::string name;
    TableStats s;
    uint64_t analyzed = 0;
    if (!d.GetString(&name, 128) || !d.GetU64(&s.num_rows) || !d.GetU64(&s.blocks) ||
        !d.GetU64(&s.avg_row_len) || !d.GetU64(&analyzed)) {
      *why = "table statistics truncated";
      return false;
    }
    auto t = m->tables.find(name);
    if (t == m->tables.end()) {
      *why = fmt::format("statistics of table {}, which the dictionary does not hold", name);
      return false;
    }
    s.last_analyzed = static_cast<int64_t>(analyzed);
    t->second.stats = s;
  }
  if (!d.GetU32(&n) || n > kMaxTables) {
    *why = "index statistics truncated";
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::string table, name;
    IndexStats s;
    uint64_t analyzed = 0;
    if (!d.GetString(&table, 128) || !d.GetString(&name, 128) || !d.GetU64(&s.num_rows) ||
        !d.GetU64(&s.leaf_blocks) || !d.GetU64(&s.blevel) || !d.GetU64(&s.distinct_keys) ||
        !d.GetU64(&s.clustering_factor) || !d.GetU64(&analyzed)) {
      *why = "index statistics truncated";
      return false;
    }
    auto t = m->tables.find(table);
    IndexDef* ix = nullptr;
    if (t != m->tables.end()) {
      for (IndexDef& x : t->second.indexes) ix = x.name == name ? &x : ix;
    }
    if (ix == nullptr) {
      *why = fmt::format("statistics of index {} of table {}, which the dictionary does not hold",
                         name, table);
      return false;
    }
    s.last_analyzed = static_cast<int64_t>(analyzed);
    ix->stats = s;
  }
  return true;
}

std::vector<uint8_t> EncodeImage(const DictImage& m, uint16_t version) {
  Encoder e;
  e.PutU64(m.scn);
  e.PutU32(m.next_object_id);
  e.PutU8(m.clean ? 1 : 0);
  e.PutU64(m.checkpoint.sequence);
  e.PutU32(m.checkpoint.group_index);
  e.PutU64(m.checkpoint.block);
  e.PutU64(m.checkpoint.scn);
  e.PutU32(m.undo.file);
  e.PutU32(m.undo.area);
  e.PutU64(m.undo.length);
  e.PutU64(m.undo.checksum);
  e.PutU32(static_cast<uint32_t>(m.tables.size()));
  for (const auto& [name, t] : m.tables) EncodeTable(e, version, t);
  e.PutU32(static_cast<uint32_t>(m.file_next_block.size()));
  for (const auto& [file, next] : m.file_next_block) {
    e.PutU32(file);
    e.PutU32(next);
  }
  e.PutU32(static_cast<uint32_t>(m.free_extents.size()));
  for (const auto& [file, list] : m.free_extents) {
    e.PutU32(file);
    e.PutU32(static_cast<uint32_t>(list.size()));
    for (const auto& [start, n] : list) {
      e.PutU32(start);
      e.PutU32(n);
    }
  }
  if (version >= kDictVersionNoViews) {
    e.PutU32(static_cast<uint32_t>(m.sequences.size()));
    for (const auto& [name, q] : m.sequences) EncodeSequence(e, q);
  }
  if (version >= kDictVersionNoLogUse) {
    e.PutU32(static_cast<uint32_t>(m.views.size()));
    for (const auto& [name, v] : m.views) EncodeView(e, v);
  }
  if (version >= kDictVersionNoLogHistory) {
    e.PutU32(static_cast<uint32_t>(m.log_use.size()));
    for (const auto& [group, u] : m.log_use) {
      e.PutU32(group);
      EncodeLogUse(e, u, version);
    }
  }
  if (version >= kDictVersionNoStats) {
    e.PutU32(static_cast<uint32_t>(m.log_history.size()));
    for (const LogHistoryEntry& h : m.log_history) {
      e.PutU64(h.recid);
      EncodeLogUse(e, h.log, version);
    }
  }
  if (version >= kDictVersionNoNotNullNames) EncodeStats(e, m);
  return std::move(e.bytes());
}

// One log's use (version 7): SEQUENCE#, FIRST_CHANGE#, NEXT_CHANGE# (0: the
// CURRENT log), blocks, whether it is to be archived; version 8 adds
// FIRST_TIME and NEXT_TIME (unix seconds, 0: not known).
bool DecodeOneLogUse(Decoder& d, uint16_t version, LogUse* u) {
  uint8_t needs_archive = 0;
  uint64_t first_time = 0, next_time = 0;
  if (!d.GetU64(&u->sequence) || !d.GetU64(&u->first_change) || !d.GetU64(&u->next_change) ||
      !d.GetU64(&u->blocks) || !d.GetU8(&needs_archive) || needs_archive > 1 ||
      (version >= kDictVersionNoStats && (!d.GetU64(&first_time) || !d.GetU64(&next_time)))) {
    return false;
  }
  u->needs_archive = needs_archive != 0;
  u->first_time = static_cast<int64_t>(first_time);
  u->next_time = static_cast<int64_t>(next_time);
  return true;
}

// Each online log's last use by GROUP# (version 7 on), then the log switches
// (version 8 on), oldest first, each a RECID and the log left behind.
bool DecodeLogUse(Decoder& d, uint16_t version, DictImage* m, std::string* why) {
  uint32_t n = 0;
  if (!d.GetU32(&n) || n > kMaxLogGroups) {
    *why = "online log list truncated";
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t group = 0;
    LogUse u;
    if (!d.GetU32(&group) || !DecodeOneLogUse(d, version, &u)) {
      *why = "online log list truncated";
      return false;
    }
    m->log_use[group] = u;
  }
  if (version < kDictVersionNoStats) return true;
  if (!d.GetU32(&n) || n > kMaxLogHistory) {
    *why = "log history truncated";
    return false;
  }
  for (uint32_t i = 0; i < n; ++i) {
    LogHistoryEntry h;
    if (!d.GetU64(&h.recid) || !DecodeOneLogUse(d, version, &h.log)) {
      *why = "log history truncated";
      return false;
    }
    m->log_history.push_back(h);
  }
  return true;
}

bool DecodeImage(absl::Span<const uint8_t> body, uint16_t version, DictImage* m, std::string* why) {
  Decoder d(body);
  uint8_t clean = 0;
  uint32_t ntables = 0;
  if (!d.GetU64(&m->scn) || !d.GetU32(&m->next_object_id) || !d.GetU8(&clean) ||
      !d.GetU64(&m->checkpoint.sequence) || !d.GetU32(&m->checkpoint.group_index) ||
      !d.GetU64(&m->checkpoint.block) || !d.GetU64(&m->checkpoint.scn) ||
      !d.GetU32(&m->undo.file) || !d.GetU32(&m->undo.area) || !d.GetU64(&m->undo.length) ||
      !d.GetU64(&m->undo.checksum) || !d.GetU32(&ntables) ||
      ntables > kMaxTables) {
    *why = "header fields truncated";
    return false;
  }
  m->clean = clean != 0;
  for (uint32_t i = 0; i < ntables; ++i) {
    TableDef t;
    if (!DecodeTable(d, version, &t, why)) return false;
    m->tables.emplace(t.name, std::move(t));
  }
  uint32_t nfiles = 0;
  if (!d.GetU32(&nfiles) || nfiles > 1024) {
    *why = "allocator list truncated";
    return false;
  }
  for (uint32_t i = 0; i < nfiles; ++i) {
    uint32_t file = 0, next = 0;
    if (!d.GetU32(&file) || !d.GetU32(&next)) {
      *why = "allocator list truncated";
      return false;
    }
    m->file_next_block[file] = next;
  }
  if (!d.GetU32(&nfiles) || nfiles > 1024) {
    *why = "free extent list truncated";
    return false;
  }
  for (uint32_t i = 0; i < nfiles; ++i) {
    uint32_t file = 0, n = 0;
    if (!d.GetU32(&file) || !d.GetU32(&n) || n > kMaxExtents) {
      *why = "free extent list truncated";
      return false;
    }
    auto& list = m->free_extents[file];
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t start = 0, len = 0;
      if (!d.GetU32(&start) || !d.GetU32(&len)) {
        *why = "free extent list truncated";
        return false;
      }
      list.push_back({start, len});
    }
  }
  uint32_t nsequences = 0;
  if (version >= kDictVersionNoViews && (!d.GetU32(&nsequences) || nsequences > kMaxTables)) {
    *why = "sequence list truncated";
    return false;
  }
  for (uint32_t i = 0; i < nsequences; ++i) {
    SequenceDef q;
    if (!DecodeSequence(d, &q, why)) return false;
    m->sequences.emplace(q.name, std::move(q));
  }
  uint32_t nviews = 0;
  if (version >= kDictVersionNoLogUse && (!d.GetU32(&nviews) || nviews > kMaxTables)) {
    *why = "view list truncated";
    return false;
  }
  for (uint32_t i = 0; i < nviews; ++i) {
    ViewDef v;
    if (!DecodeView(d, &v, why)) return false;
    m->views.emplace(v.name, std::move(v));
  }
  if (version >= kDictVersionNoLogHistory && !DecodeLogUse(d, version, m, why)) return false;
  if (version >= kDictVersionNoNotNullNames && !DecodeStats(d, m, why)) return false;
  if (d.remaining() != 0) {
    *why = fmt::format("{} unexpected bytes after the free extent list", d.remaining());
    return false;
  }
  // Before version 10 NOT NULL constraints had no names: each gets one now,
  // in the same order at every open until the next write keeps them.
  for (auto& [name, t] : m->tables) {
    for (Column& c : t.columns) {
      if (version < kDictVersionNoTimestamps && c.not_null && !c.not_null_by_key) {
        c.not_null_name = fmt::format("SYS_C{:07d}", m->next_object_id++);
      }
    }
  }
  return true;
}

// One copy: header (magic, version, copy#, body length, generation, dbid,
// checksum of header and body), then the body; padded to whole blocks.
std::vector<uint8_t> BuildCopy(uint32_t copy, uint16_t version, uint64_t generation, uint32_t dbid,
                               const std::vector<uint8_t>& body) {
  Encoder e;
  e.PutU64(kDictMagic);
  e.PutU16(version);
  e.PutU16(static_cast<uint16_t>(copy));
  e.PutU32(static_cast<uint32_t>(body.size()));
  e.PutU64(generation);
  e.PutU32(dbid);
  e.PutU32(0);
  e.PutU64(0);  // checksum, patched below
  e.PutBytes(body);
  std::vector<uint8_t>& out = e.bytes();
  std::vector<uint8_t> summed(out.begin(), out.begin() + 32);
  summed.insert(summed.end(), body.begin(), body.end());
  const uint64_t sum = Checksum64(summed);
  std::memcpy(&out[32], &sum, 8);
  out.resize((out.size() + kBlockSize - 1) / kBlockSize * kBlockSize, 0);
  return std::move(out);
}

// Parses one copy (kDictCopyBlocks blocks). nullopt with `why` when damaged;
// `*present` false when the copy has no dictionary magic at all.
std::optional<DictImage> ParseCopy(absl::Span<const uint8_t> bytes, uint32_t dbid, bool* present,
                                   std::string* why) {
  Decoder d(bytes);
  uint64_t magic = 0, generation = 0, sum = 0;
  uint16_t version = 0, copy = 0;
  uint32_t length = 0, stored_dbid = 0, reserved = 0;
  (void)d.GetU64(&magic);
  *present = magic == kDictMagic;
  if (!*present) {
    *why = "no dictionary header (magic missing)";
    return std::nullopt;
  }
  (void)(d.GetU16(&version) && d.GetU16(&copy) && d.GetU32(&length) && d.GetU64(&generation) &&
         d.GetU32(&stored_dbid) && d.GetU32(&reserved) && d.GetU64(&sum));
  if (version < kDictVersionNoIndexes || version > kDictVersion) {
    *why = fmt::format("format version {} (this cellsim reads versions {} to {})", version,
                       kDictVersionNoIndexes, kDictVersion);
    return std::nullopt;
  }
  if (length > bytes.size() - kDictHeaderBytes) {
    *why = fmt::format("body length {} exceeds the copy's {} bytes", length,
                       bytes.size() - kDictHeaderBytes);
    return std::nullopt;
  }
  std::vector<uint8_t> summed(bytes.begin(), bytes.begin() + 32);
  summed.insert(summed.end(), bytes.begin() + kDictHeaderBytes,
                bytes.begin() + kDictHeaderBytes + length);
  const uint64_t computed = Checksum64(summed);
  if (computed != sum) {
    *why = fmt::format("checksum mismatch (stored {:016x}, computed {:016x}): torn or damaged",
                       sum, computed);
    return std::nullopt;
  }
  if (stored_dbid != dbid) {
    *why = fmt::format("belongs to DBID {}, not this database's {}", stored_dbid, dbid);
    return std::nullopt;
  }
  DictImage m;
  m.generation = generation;
  if (!DecodeImage(bytes.subspan(kDictHeaderBytes, length), version, &m, why)) return std::nullopt;
  return m;
}

// `*readable`: a current copy of every piece took the bytes (what a reader
// now gets), even when the write failed on another mirror.
absl::Status WriteCopy(const DictFile& f, uint32_t copy, const std::vector<uint8_t>& bytes,
                       Recorder& rec, bool* readable = nullptr) {
  std::vector<asmgr::AsmWriteRequest> w(1);
  w[0].file_offset = uint64_t{kDictFirstBlock + copy * kDictCopyBlocks} * kBlockSize;
  w[0].data = absl::MakeConstSpan(bytes);
  asmgr::AsmIoResult res;
  absl::Status st = rec.Timed(stats::Wait::kDbFileSingleWrite,
                              [&] { return f.dg->Write(f.asm_file, absl::MakeSpan(w), &res); });
  AccountWrite(rec, res, 1, bytes.size());
  if (readable != nullptr) *readable = w[0].copies_written > 0;
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("writing dictionary copy {} into {}: {}", copy,
                                               f.name, std::string(st.message())));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<uint32_t> Segment::ExtentStarts() const {
  std::vector<uint32_t> starts;
  for (size_t i = 0; i < blocks.size(); i += extent_blocks) starts.push_back(blocks[i]);
  return starts;
}

Segment Segment::FromExtents(uint32_t file, uint32_t extent_blocks,
                             const std::vector<uint32_t>& starts, uint32_t used) {
  Segment s;
  s.file_number = file;
  s.extent_blocks = extent_blocks;
  s.extents = static_cast<uint32_t>(starts.size());
  for (uint32_t start : starts) {
    for (uint32_t i = 0; i < extent_blocks && s.blocks.size() < used; ++i) {
      s.blocks.push_back(start + i);
    }
  }
  if (!starts.empty()) {
    const uint32_t in_last = used - (s.extents - 1) * extent_blocks;
    s.next_block = starts.back() + in_last;
    s.free_in_extent = extent_blocks - in_last;
  }
  return s;
}

namespace {

// A dictionary image written while a DDL statement builds (a new extent's
// write): the objects numbered from `first` on are the statement's and not
// yet in the dictionary; their extents are free in this image.
void LeaveOutObjectsInProgress(uint32_t first, const FileTable& table, DictImage* m) {
  auto free_extents_of = [&](const Segment& seg) {
    if (IsTempFile(table, seg.file_number)) return;
    for (uint32_t s : seg.ExtentStarts()) m->free_extents[seg.file_number].push_back({s, seg.extent_blocks});
  };
  for (auto it = m->tables.begin(); it != m->tables.end();) {
    TableDef& t = it->second;
    for (auto ix = t.indexes.begin(); ix != t.indexes.end();) {
      if (ix->object_id < first && t.object_id < first) {
        ++ix;
        continue;
      }
      if (!t.temporary) free_extents_of(ix->segment);
      ix = t.indexes.erase(ix);
    }
    if (t.object_id < first) {
      ++it;
      continue;
    }
    if (!t.temporary) free_extents_of(t.segment);
    it = m->tables.erase(it);
  }
  std::erase_if(m->sequences, [&](const auto& q) { return q.second.object_id >= first; });
  std::erase_if(m->views, [&](const auto& v) { return v.second.object_id >= first; });
}

}  // namespace

bool DataEngine::KeepsDictionary() const {
  return FindDictFile(FileTableCopy(), db->rack).has_value();
}

absl::Status DataEngine::WriteDictionary(bool clean, bool* landed) {
  if (landed != nullptr) *landed = false;
  const FileTable table = FileTableCopy();
  std::optional<DictFile> f = FindDictFile(table, db->rack);
  if (!f.has_value()) return absl::OkStatus();  // no SYSTEM: the dictionary stays in memory
  if (clean) SettleSequences(*this);  // a clean close hands its cached values back
  DictImage m;
  m.scn = scn;
  m.next_object_id = next_object_id;
  m.clean = clean;
  m.checkpoint = checkpoint;
  m.undo = undo_snapshot;
  m.tables = tables;
  m.sequences = sequences;
  m.views = views;
  m.log_use = LogUseWithCurrent(table);
  m.log_history = log_history;
  for (const auto& [file, next] : file_next_block) {
    if (!IsTempFile(table, file)) m.file_next_block[file] = next;
  }
  for (const auto& [file, list] : free_extents) {
    if (!IsTempFile(table, file) && !list.empty()) m.free_extents[file] = list;
  }
  if (ddl_objects_from.has_value()) LeaveOutObjectsInProgress(*ddl_objects_from, table, &m);
  const uint16_t version = VersionFor(m);
  const std::vector<uint8_t> body = EncodeImage(m, version);
  if (body.size() + kDictHeaderBytes > size_t{kDictCopyBlocks} * kBlockSize) {
    return absl::ResourceExhaustedError(fmt::format(
        "the data dictionary ({} bytes) no longer fits its {} bytes in {}: drop tables", body.size(),
        kDictCopyBlocks * kBlockSize, f->name));
  }
  Recorder rec = db->SystemRecorder();
  ++dictionary_writes;
  const uint64_t generation = dictionary_generation + 1;
  // The copy that may be behind goes first, and it decides. Until it holds
  // the new generation the other copy holds the newest durable one (a torn
  // write fails its checksum and the load takes the other): the error goes
  // back and the caller restores its state. Once it does, the change is
  // durable (the load takes the newest valid copy), so a failure writing the
  // second copy cannot undo it and is not an error of this write; that copy,
  // a generation behind, goes first next time.
  const uint32_t first = dictionary_first_copy, second = 1 - first;
  bool readable = false;
  const std::vector<uint8_t> first_bytes = BuildCopy(first, version, generation, table.dbid, body);
  const int64_t blocks = static_cast<int64_t>(first_bytes.size() / kBlockSize);
  uint64_t t0 = db->clock->NowNanos();
  absl::Status st = WriteCopy(*f, first, first_bytes, rec, &readable);
  CountFileWrite(f->file_number, 1, blocks, db->clock->NowNanos() - t0);
  if (landed != nullptr) *landed = readable;
  if (!st.ok()) return st;
  dictionary_generation = generation;
  recoverable_scn = std::max(recoverable_scn, m.scn);
  t0 = db->clock->NowNanos();
  const bool both =
      WriteCopy(*f, second, BuildCopy(second, version, generation, table.dbid, body), rec).ok();
  CountFileWrite(f->file_number, 1, blocks, db->clock->NowNanos() - t0);
  dictionary_first_copy = both ? 0 : second;
  return absl::OkStatus();
}

absl::Status DataEngine::LoadDictionary(std::vector<std::string>* actions, bool* clean) {
  *clean = true;
  const FileTable table = FileTableCopy();
  std::optional<DictFile> f = FindDictFile(table, db->rack);
  if (!f.has_value()) return absl::OkStatus();
  std::vector<uint8_t> bytes(size_t{kDictCopies} * kDictCopyBlocks * kBlockSize);
  std::vector<asmgr::AsmReadRequest> r(1);
  r[0].file_offset = uint64_t{kDictFirstBlock} * kBlockSize;
  r[0].buffer = absl::MakeSpan(bytes);
  asmgr::AsmIoResult res;
  Recorder rec = db->SystemRecorder();
  const uint64_t t0 = db->clock->NowNanos();
  absl::Status st = rec.Timed(stats::Wait::kCellMultiblockPhysicalRead,
                              [&] { return f->dg->Read(f->asm_file, absl::MakeSpan(r), &res); });
  AccountRead(rec, res, bytes.size());
  CountFileRead(f->file_number, 1, static_cast<int64_t>(bytes.size() / kBlockSize),
                db->clock->NowNanos() - t0, res);
  if (!st.ok()) {
    return absl::Status(st.code(), fmt::format("reading the data dictionary from {}: {}", f->name,
                                               std::string(st.message())));
  }
  std::optional<DictImage> copies[kDictCopies];
  std::string why[kDictCopies];
  bool present[kDictCopies] = {false, false};
  auto where = [&](uint32_t c) {
    return fmt::format("data dictionary copy {} (blocks {}-{} of SYSTEM data file {}, {})", c,
                       kDictFirstBlock + c * kDictCopyBlocks,
                       kDictFirstBlock + (c + 1) * kDictCopyBlocks - 1, f->file_number, f->name);
  };
  for (uint32_t c = 0; c < kDictCopies; ++c) {
    const absl::Span<uint8_t> copy =
        absl::MakeSpan(bytes).subspan(size_t{c} * kDictCopyBlocks * kBlockSize,
                                      size_t{kDictCopyBlocks} * kBlockSize);
    copies[c] = ParseCopy(copy, table.dbid, &present[c], &why[c]);
    if (copies[c] || !present[c]) continue;
    // Damaged as ASM first read it: its mirrors may hold it whole.
    const std::optional<uint32_t> mirror = ReadFromMirrors(
        rec, f->dg, f->asm_file, r[0].file_offset + (copy.data() - bytes.data()), copy, [&] {
          bool here = false;
          std::string mirror_why;
          copies[c] = ParseCopy(copy, table.dbid, &here, &mirror_why);
          return copies[c].has_value();
        });
    if (mirror.has_value()) {
      actions->push_back(fmt::format("{} was damaged as ASM first read it ({}): read from mirror copy {}",
                                     where(c), why[c], *mirror));
    }
  }
  if (!copies[0] && !copies[1]) {
    if (!present[0] && !present[1]) return absl::OkStatus();  // never written: no tables yet
    return absl::DataLossError(fmt::format(
        "ORA-00604: the data dictionary cannot be read: {}: {}; {}: {}. The tables, their "
        "segments and space maps are unknown; the database is not opened (restore the SYSTEM data "
        "file)",
        where(0), why[0], where(1), why[1]));
  }
  const uint32_t use = !copies[1] ? 0 : !copies[0] ? 1
                       : copies[1]->generation > copies[0]->generation ? 1 : 0;
  const uint32_t other = 1 - use;
  DictImage& m = *copies[use];
  if (!copies[other]) {
    actions->push_back(fmt::format("{} is damaged ({}): using {} (generation {})", where(other),
                                   why[other], where(use), m.generation));
  }
  // A damaged copy, or one a generation behind (its write failed after the
  // other's), is the one the next write overwrites first.
  dictionary_first_copy = !copies[other] || copies[other]->generation != m.generation ? other : 0;
  scn = m.scn;
  next_object_id = m.next_object_id;
  checkpoint = m.checkpoint;
  undo_snapshot = m.undo;
  tables = std::move(m.tables);
  sequences = std::move(m.sequences);
  views = std::move(m.views);
  recoverable_scn = scn;
  log_use = std::move(m.log_use);
  log_history = std::move(m.log_history);
  file_next_block = std::move(m.file_next_block);
  free_extents = std::move(m.free_extents);
  dictionary_generation = m.generation;
  *clean = m.clean;
  return absl::OkStatus();
}

absl::Status DataEngine::OpenInstance(std::vector<std::string>* actions) {
  bool clean = true;
  if (absl::Status st = LoadDictionary(actions, &clean); !st.ok()) return st;
  log_first_change = scn;
  log_first_time = db->clock->UnixSeconds();
  if (dictionary_generation == 0 || db->rack->read_only()) return absl::OkStatus();
  if (!clean) {
    absl::Status st = RecoverInstance(actions);
    if (st.ok()) ArchiveAfterOpen();
    return st;
  }
  // The next log sequence starts in the next group: everything before it is
  // in the data files. The close left the last log at the checkpoint.
  const CheckpointPosition closed = checkpoint;
  ++scn;  // as at a log switch: the closed log's SCN range is not empty
  log_first_change = scn;
  SettleLogUse(closed.sequence, closed.sequence, closed.group_index);
  sequence = checkpoint.sequence + 1;
  const size_t groups = Thread1Groups(FileTableCopy()).size();
  current_group_index = static_cast<uint32_t>((checkpoint.group_index + 1) % std::max<size_t>(groups, 1));
  log_block = 2;
  checkpoint = CheckpointPosition{sequence, current_group_index, log_block, scn};
  absl::Status st = WriteDictionary(/*clean=*/false);
  if (st.ok()) ArchiveClosedLog(closed);
  if (st.ok()) ArchiveAfterOpen();
  return st;
}

}  // namespace cellsim::db::internal
