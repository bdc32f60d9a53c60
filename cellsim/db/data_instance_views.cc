// The instance's views: where its sessions and background work waited
// (V$SESSION_EVENT, V$SYSTEM_EVENT, the wait classes, V$EVENT_HISTOGRAM_MICRO),
// what it is (V$VERSION, V$INSTANCE), its control files, and the ASM disk
// groups, disks, files and templates it uses (V$ASM_DISKGROUP, V$ASM_DISK,
// V$ASM_FILE, V$ASM_TEMPLATE, X$KFFXP), and its library cache's cursors (V$SQL,
// V$SQLAREA). Built when queried from the counters the
// Recorders keep (accounting.h) and the rack.
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "cellsim/asm/disk_group.h"
#include "cellsim/asm/rack.h"
#include "cellsim/db/control_file.h"
#include "cellsim/db/data_views.h"
#include "cellsim/db/date_format.h"
#include "cellsim/db/database_state.h"
#include "fmt/format.h"

namespace cellsim::db::internal {
namespace {

using namespace view_columns;  // NOLINT(build/namespaces): N, S, D, Centis, Micros
using stats::WaitValue;

Value Num(uint64_t v) { return Value::Num(static_cast<double>(v)); }
// AVERAGE_WAIT: hundredths of a second per wait, to two decimals.
Value AverageCentis(const WaitValue& w) {
  if (w.count == 0) return Value::Num(0);
  const double cs = static_cast<double>(w.total_ns) / 1e7 / static_cast<double>(w.count);
  return Value::Num(std::round(cs * 100) / 100);
}
const stats::WaitInfo& InfoOf(size_t event) { return stats::kWaitTable[event]; }
// WAIT_CLASS_ID, WAIT_CLASS#, WAIT_CLASS of class `c`.
std::vector<Value> ClassValues(stats::WaitClass c) {
  const stats::WaitClassIds ids = stats::WaitClassIdsOf(c);
  return {Num(ids.id), Num(ids.number), Value::Str(std::string(stats::WaitClassName(c)))};
}

// V$SESSION_EVENT: each session's waits by event, those it waited on.
ViewRows SessionEvents(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {N("SID"),        S("EVENT"),         N("TOTAL_WAITS"), N("TOTAL_TIMEOUTS"),
               N("TIME_WAITED"), N("AVERAGE_WAIT"), N("MAX_WAIT"),    N("TIME_WAITED_MICRO"),
               N("WAIT_CLASS_ID"), N("WAIT_CLASS#"), S("WAIT_CLASS"), N("CON_ID")};
  for (auto& [sid, other] : e.sessions) {
    const stats::WaitValues waits = other->session->waits.Snapshot();
    for (size_t i = 0; i < stats::kWaitCount; ++i) {
      const WaitValue& w = waits.v[i];
      if (w.count == 0) continue;
      Row row{Value::Num(sid),     Value::Str(std::string(InfoOf(i).name)),
              Num(w.count),        Value::Num(0),
              Centis(w.total_ns),  AverageCentis(w),
              Centis(w.max_ns),    Micros(w.total_ns)};
      for (Value& v : ClassValues(InfoOf(i).wait_class)) row.push_back(std::move(v));
      row.push_back(Value::Num(0));
      r.rows.push_back(std::move(row));
    }
  }
  return r;
}

// The instance's waits since it started: all of them, and those of the
// foreground sessions (all but the instance's own: LGWR, DBWR, ARCH, open
// and recovery). The background's are read first, so foreground >= 0.
struct InstanceWaits {
  stats::WaitValues all, foreground;
};
InstanceWaits InstanceWaitsOf(DataEngine& e) {
  const stats::WaitValues background = e.db->background_waits.Snapshot();
  InstanceWaits w;
  w.all = e.db->sys_waits.Snapshot();
  w.foreground = w.all - background;
  return w;
}

// V$SYSTEM_EVENT: every event waited on since the instance started.
ViewRows SystemEvents(DataEngine& e) {
  ViewRows r;
  r.columns = {S("EVENT"),          N("TOTAL_WAITS"),    N("TOTAL_TIMEOUTS"),
               N("TIME_WAITED"),    N("AVERAGE_WAIT"),   N("TIME_WAITED_MICRO"),
               N("TOTAL_WAITS_FG"), N("TOTAL_TIMEOUTS_FG"), N("TIME_WAITED_FG"),
               N("AVERAGE_WAIT_FG"), N("TIME_WAITED_MICRO_FG"), N("WAIT_CLASS_ID"),
               N("WAIT_CLASS#"),    S("WAIT_CLASS"),     N("CON_ID")};
  const InstanceWaits waits = InstanceWaitsOf(e);
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    const WaitValue& w = waits.all.v[i];
    const WaitValue& fg = waits.foreground.v[i];
    if (w.count == 0) continue;
    Row row{Value::Str(std::string(InfoOf(i).name)),
            Num(w.count), Value::Num(0), Centis(w.total_ns), AverageCentis(w),
            Micros(w.total_ns), Num(fg.count), Value::Num(0), Centis(fg.total_ns),
            AverageCentis(fg), Micros(fg.total_ns)};
    for (Value& v : ClassValues(InfoOf(i).wait_class)) row.push_back(std::move(v));
    row.push_back(Value::Num(0));
    r.rows.push_back(std::move(row));
  }
  return r;
}

// Sums of `waits` by wait class, in WAIT_CLASS# order; classes with no wait
// left out.
struct ClassSum {
  stats::WaitClass wait_class;
  uint64_t count = 0, total_ns = 0, fg_count = 0, fg_total_ns = 0;
};
std::vector<ClassSum> ByClass(const stats::WaitValues& waits, const stats::WaitValues* fg) {
  std::vector<ClassSum> sums;
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    if (waits.v[i].count == 0) continue;
    const stats::WaitClass c = InfoOf(i).wait_class;
    auto it = std::find_if(sums.begin(), sums.end(),
                           [c](const ClassSum& s) { return s.wait_class == c; });
    if (it == sums.end()) it = sums.insert(sums.end(), ClassSum{c});
    it->count += waits.v[i].count;
    it->total_ns += waits.v[i].total_ns;
    if (fg != nullptr) {
      it->fg_count += fg->v[i].count;
      it->fg_total_ns += fg->v[i].total_ns;
    }
  }
  std::sort(sums.begin(), sums.end(), [](const ClassSum& a, const ClassSum& b) {
    return stats::WaitClassIdsOf(a.wait_class).number < stats::WaitClassIdsOf(b.wait_class).number;
  });
  return sums;
}

// V$SYSTEM_WAIT_CLASS (no `session`) or V$SESSION_WAIT_CLASS.
ViewRows WaitClasses(DataEngine& e, bool session) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  if (session) {
    r.columns = {N("SID"), N("SERIAL#"), N("WAIT_CLASS_ID"), N("WAIT_CLASS#"), S("WAIT_CLASS"),
                 N("TOTAL_WAITS"), N("TIME_WAITED"), N("CON_ID")};
    for (auto& [sid, other] : e.sessions) {
      for (const ClassSum& c : ByClass(other->session->waits.Snapshot(), nullptr)) {
        Row row{Value::Num(sid), Value::Num(kSessionSerial)};
        for (Value& v : ClassValues(c.wait_class)) row.push_back(std::move(v));
        row.insert(row.end(), {Num(c.count), Centis(c.total_ns), Value::Num(0)});
        r.rows.push_back(std::move(row));
      }
    }
    return r;
  }
  r.columns = {N("WAIT_CLASS_ID"), N("WAIT_CLASS#"), S("WAIT_CLASS"), N("TOTAL_WAITS"),
               N("TIME_WAITED"), N("TOTAL_WAITS_FG"), N("TIME_WAITED_FG"), N("CON_ID")};
  const InstanceWaits waits = InstanceWaitsOf(e);
  for (const ClassSum& c : ByClass(waits.all, &waits.foreground)) {
    Row row = ClassValues(c.wait_class);
    row.insert(row.end(), {Num(c.count), Centis(c.total_ns), Num(c.fg_count),
                           Centis(c.fg_total_ns), Value::Num(0)});
    r.rows.push_back(std::move(row));
  }
  return r;
}

// How V$EVENT_HISTOGRAM_MICRO.WAIT_TIME_FORMAT spells a bucket's upper edge
// of `us` microseconds (a power of two): in the largest unit of 1,024 it
// fills ("512 microseconds", "1 millisecond", "4 seconds").
std::string WaitTimeFormat(uint64_t us) {
  const char* units[] = {"microsecond", "millisecond", "second"};
  size_t u = 0;
  while (u + 1 < std::size(units) && us >= 1024) {
    us /= 1024;
    ++u;
  }
  return fmt::format("{} {}{}", us, units[u], us == 1 ? "" : "s");
}

// V$EVENT_HISTOGRAM_MICRO: the instance's waits of each event by duration,
// power-of-two buckets of microseconds (stats::WaitValue::histogram; a
// bucket's WAIT_TIME_MICRO is its upper edge); only buckets that counted.
ViewRows EventHistogram(DataEngine& e) {
  ViewRows r;
  r.columns = {N("EVENT#"),      S("EVENT"),            N("WAIT_TIME_MICRO"), N("WAIT_COUNT"),
               S("WAIT_TIME_FORMAT"), D("LAST_UPDATE_TIME"), N("CON_ID")};
  const stats::WaitValues all = e.db->sys_waits.Snapshot();
  for (size_t i = 0; i < stats::kWaitCount; ++i) {
    for (size_t b = 0; b < stats::kWaitHistogramBuckets; ++b) {
      const int64_t n = all.v[i].histogram[b];
      if (n == 0) continue;
      const uint64_t edge = uint64_t{1} << b;  // WaitHistogramUpperUs, the last bucket's too
      r.rows.push_back({Num(i), Value::Str(std::string(InfoOf(i).name)), Num(edge), Num(n),
                        Value::Str(WaitTimeFormat(edge)), Value::Null(), Value::Num(0)});
    }
  }
  return r;
}

ViewRows Version() {
  ViewRows r;
  r.columns = {S("BANNER"), S("BANNER_FULL"), S("BANNER_LEGACY"), N("CON_ID")};
  const std::string banner(kOracleBanner);
  r.rows.push_back({Value::Str(banner),
                    Value::Str(fmt::format("{} Version {}", banner, kOracleVersion)),
                    Value::Str(banner), Value::Num(0)});
  return r;
}

std::string HostName() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host) != 0) return "localhost";
  return host;
}

// V$INSTANCE: the one instance, open since the Database was created or
// opened in this process (thread 1).
ViewRows Instance(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {N("INSTANCE_NUMBER"), S("INSTANCE_NAME"), S("HOST_NAME"), S("VERSION"),
               S("VERSION_FULL"), D("STARTUP_TIME"), S("STATUS"), S("PARALLEL"), N("THREAD#"),
               S("ARCHIVER"), S("LOGINS"), S("SHUTDOWN_PENDING"), S("DATABASE_STATUS"),
               S("INSTANCE_ROLE"), S("ACTIVE_STATE"), S("BLOCKED"), N("CON_ID"),
               S("INSTANCE_MODE"), S("EDITION"), S("DATABASE_TYPE")};
  const FileTable t = e.FileTableCopy();
  const std::string version(kOracleVersion);
  r.rows.push_back(
      {Value::Num(1), Value::Str(absl::AsciiStrToLower(t.db_name)), Value::Str(HostName()),
       Value::Str(version), Value::Str(version), Value::Date(e.db->startup_unix),
       Value::Str("OPEN"), Value::Str("NO"), Value::Num(1),
       Value::Str(t.archivelog ? "STARTED" : "STOPPED"), Value::Str("ALLOWED"), Value::Str("NO"),
       Value::Str("ACTIVE"), Value::Str("PRIMARY_INSTANCE"), Value::Str("NORMAL"),
       Value::Str("NO"), Value::Num(0), Value::Str("REGULAR"), Value::Str("EE"),
       Value::Str("SINGLE")});
  return r;
}

// V$CONTROLFILE: the control file's copies; the one in the recovery disk
// group (DB_RECOVERY_FILE_DEST) is IS_RECOVERY_DEST_FILE YES.
ViewRows ControlFiles(DataEngine& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  ViewRows r;
  r.columns = {S("STATUS"), S("NAME"), S("IS_RECOVERY_DEST_FILE"), N("BLOCK_SIZE"),
               N("FILE_SIZE_BLKS"), N("CON_ID")};
  const std::string reco =
      absl::AsciiStrToUpper(e.db->options.control_files.recovery_disk_group);
  MutexLock lock(&e.db->mu);  // DataEngine::mu, then Database::State::mu
  if (e.db->cf == nullptr) return r;
  for (const ControlFileCopy& c : e.db->cf->files()) {
    const bool in_reco = c.dg != nullptr && absl::AsciiStrToUpper(c.dg->name()) == reco;
    r.rows.push_back({Value::Null(), Value::Str(c.file.name), Value::Str(in_reco ? "YES" : "NO"),
                      Num(kControlFileBlockSize), Num(c.file.size_bytes / kControlFileBlockSize),
                      Value::Num(0)});
  }
  return r;
}

// V$ASM_TEMPLATE (one row per system template of every disk group) and
// V$ASM_FILE (one row per file: its own redundancy, REDUNDANCY_LOWERED when
// the group has too few failure groups for it). GROUP_NUMBER is the group's
// position in the rack, from 1. Oracle shows V$ASM_FILE only in the ASM
// instance; cellsim's database and ASM share one process, so both show here.
ViewRows AsmViews(DataEngine& e, bool files) {
  ViewRows r;
  if (files) {
    r.columns = {N("GROUP_NUMBER"), N("FILE_NUMBER"), N("INCARNATION"), N("BLOCK_SIZE"),
                 N("BLOCKS"),       N("BYTES"),       N("SPACE"),       S("TYPE"),
                 S("REDUNDANCY"),   S("STRIPED"),     S("REDUNDANCY_LOWERED")};
  } else {
    r.columns = {N("GROUP_NUMBER"), N("ENTRY_NUMBER"), S("REDUNDANCY"), S("STRIPE"),
                 S("SYSTEM"), S("NAME")};
  }
  if (e.db == nullptr || e.db->rack == nullptr) return r;
  const std::vector<asmgr::DiskGroup*> groups = e.db->rack->disk_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const Value group = Value::Num(static_cast<double>(g + 1));
    if (!files) {
      for (const asmgr::TemplateView& t : groups[g]->Templates()) {
        r.rows.push_back({group, Value::Num(t.entry),
                          Value::Str(std::string(asmgr::FileRedundancyName(t.redundancy))),
                          Value::Str(t.stripe), Value::Str(t.system ? "Y" : "N"),
                          Value::Str(t.name)});
      }
      continue;
    }
    const uint64_t au = groups[g]->au_size();
    for (const asmgr::FileInfo& f : groups[g]->ListFiles()) {
      const uint32_t block = std::max<uint32_t>(f.block_size, 512);
      r.rows.push_back(
          {group, Value::Num(f.number), Value::Num(f.incarnation), Value::Num(block),
           Value::Num(static_cast<double>(f.size_bytes / block)),
           Value::Num(static_cast<double>(f.size_bytes)),
           Value::Num(static_cast<double>(uint64_t{f.extents} * au * f.copies)),
           Value::Str(std::string(asmgr::FileTypeName(f.type))),
           Value::Str(std::string(asmgr::FileRedundancyName(f.redundancy))),
           Value::Str(std::string(asmgr::TemplateStripe(f.type))),
           Value::Str(f.redundancy_lowered() ? "Y" : "N")});
    }
  }
  return r;
}

// X$KFFXP, ASM's extent map: one row per copy of every extent of every file,
// the fixed table DBAs query to find where a block lives. GROUP_KFFXP (as
// V$ASM_FILE's GROUP_NUMBER), NUMBER_KFFXP and INCARN_KFFXP (the file),
// PXN_KFFXP (physical extent: XNUM_KFFXP x copies + LXN_KFFXP), XNUM_KFFXP
// (the file's extent: file bytes XNUM_KFFXP x ALLOCATION_UNIT_SIZE on),
// LXN_KFFXP (0 the primary, 1 and 2 its mirrors), DISK_KFFXP (V$ASM_DISK's
// DISK_NUMBER), AU_KFFXP (the AU of that disk: its grid disk's bytes from
// AU_KFFXP x ALLOCATION_UNIT_SIZE), SIZE_KFFXP (AUs: 1, cellsim has no
// variable extents), FLAGS_KFFXP (1: a stale copy, written while its disk
// was offline). Oracle shows it in the ASM instance only.
ViewRows AsmExtentMap(DataEngine& e) {
  ViewRows r;
  r.columns = {N("GROUP_KFFXP"), N("NUMBER_KFFXP"), N("INCARN_KFFXP"), N("PXN_KFFXP"),
               N("XNUM_KFFXP"),  N("LXN_KFFXP"),    N("DISK_KFFXP"),   N("AU_KFFXP"),
               N("SIZE_KFFXP"),  N("FLAGS_KFFXP")};
  if (e.db == nullptr || e.db->rack == nullptr) return r;
  const std::vector<asmgr::DiskGroup*> groups = e.db->rack->disk_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    const uint64_t au = groups[g]->au_size();
    for (const asmgr::FileInfo& f : groups[g]->ListFiles()) {
      absl::StatusOr<std::vector<asmgr::Extent>> map = groups[g]->ExtentMap(f.number);
      if (!map.ok()) continue;  // deleted meanwhile
      for (const asmgr::Extent& x : *map) {
        for (size_t c = 0; c < x.copies.size(); ++c) {
          const asmgr::ExtentCopy& copy = x.copies[c];
          r.rows.push_back({Num(g + 1), Num(f.number), Num(f.incarnation),
                            Num(uint64_t{x.index} * x.copies.size() + c), Num(x.index), Num(c),
                            Num(copy.disk), Num(copy.disk_offset / au), Value::Num(1),
                            Value::Num(copy.stale ? 1 : 0)});
        }
      }
    }
  }
  return r;
}

// V$ASM_DISKGROUP (`disks` false) or V$ASM_DISK, as a database instance sees
// them: a disk group holding a file of this database is CONNECTED, another
// MOUNTED; GROUP_NUMBER is the group's place in the rack, from 1 (as
// asmcmd's lsdsk -p numbers them).
ViewRows AsmDisks(DataEngine& e, bool disks) {
  ViewRows r;
  if (disks) {
    r.columns = {N("GROUP_NUMBER"), N("DISK_NUMBER"), N("INCARNATION"), S("MOUNT_STATUS"),
                 S("HEADER_STATUS"), S("MODE_STATUS"), S("STATE"), S("REDUNDANCY"),
                 S("LIBRARY"), N("OS_MB"), N("TOTAL_MB"), N("FREE_MB"), S("NAME"),
                 S("FAILGROUP"), S("FAILGROUP_TYPE"), S("PATH"), N("CON_ID")};
  } else {
    r.columns = {N("GROUP_NUMBER"), S("NAME"), N("SECTOR_SIZE"), N("LOGICAL_SECTOR_SIZE"),
                 N("BLOCK_SIZE"), N("ALLOCATION_UNIT_SIZE"), S("STATE"), S("TYPE"),
                 N("TOTAL_MB"), N("FREE_MB"), N("HOT_USED_MB"), N("COLD_USED_MB"),
                 N("REQUIRED_MIRROR_FREE_MB"), N("USABLE_FILE_MB"), N("OFFLINE_DISKS"),
                 S("VOTING_FILES"), N("CON_ID")};
  }
  if (e.db == nullptr || e.db->rack == nullptr) return r;
  const std::vector<asmgr::DiskGroup*> groups = e.db->rack->disk_groups();
  const std::string db_name = absl::AsciiStrToUpper(e.db->options.db_name);
  for (size_t g = 0; g < groups.size(); ++g) {
    if (disks) {
      for (const asmgr::DiskView& d : groups[g]->Disks()) {
        r.rows.push_back({Num(g + 1), Num(d.index), Num(asmgr::DiskIncarnation(d.path)),
                          Value::Str(std::string(asmgr::DiskMountStatus(d))),
                          Value::Str("MEMBER"), Value::Str(d.mode_status), Value::Str(d.state),
                          Value::Str("UNKNOWN"), Value::Str("System"), Num(d.total_mb),
                          Num(d.total_mb), Num(d.free_mb), Value::Str(d.name),
                          Value::Str(d.failgroup), Value::Str("REGULAR"), Value::Str(d.path),
                          Value::Num(0)});
      }
      continue;
    }
    const asmgr::DiskGroupView v = groups[g]->View();
    bool connected = false;
    for (const asmgr::FileInfo& f : groups[g]->ListFiles()) {
      connected |= absl::AsciiStrToUpper(f.db_name) == db_name;
    }
    r.rows.push_back(
        {Num(g + 1), Value::Str(v.name), Num(v.sector_size), Num(v.sector_size),
         Num(v.block_size), Num(v.au_size),
         Value::Str(v.state != "MOUNTED" ? v.state : connected ? "CONNECTED" : "MOUNTED"),
         Value::Str(std::string(asmgr::RedundancyName(v.redundancy))), Num(v.space.total_mb),
         Num(v.space.free_mb), Value::Num(0), Num(v.space.total_mb - v.space.free_mb),
         Num(v.space.required_mirror_free_mb),
         Value::Num(static_cast<double>(v.space.usable_file_mb)), Num(v.offline_disks),
         Value::Str("N"), Value::Num(0)});
  }
  return r;
}

// V$SQL (`area` false: one row per cursor, CHILD_NUMBER 0) or V$SQLAREA (one
// per SQL_ID, VERSION_COUNT 1): the library cache's cursors, the most
// recently used first. Times are microseconds, as Oracle's.
ViewRows SqlCursors(DataEngine& e, bool area) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e.mu) {
  using stats::Stat;
  ViewRows r;
  r.columns = {{"SQL_TEXT", ColType::kVarchar2, 1000},
               {"SQL_FULLTEXT", ColType::kVarchar2, 4000},
               S("SQL_ID"),
               N("LOADS"),
               N("INVALIDATIONS"),
               N("PARSE_CALLS"),
               N("EXECUTIONS"),
               N("USERS_EXECUTING"),
               N("SORTS"),
               N("DISK_READS"),
               N("BUFFER_GETS"),
               N("ROWS_PROCESSED"),
               N("COMMAND_TYPE"),
               S("PARSING_SCHEMA_NAME"),
               N("HASH_VALUE"),
               N(area ? "VERSION_COUNT" : "CHILD_NUMBER"),
               N("CPU_TIME"),
               N("ELAPSED_TIME"),
               N("APPLICATION_WAIT_TIME"),
               N("CONCURRENCY_WAIT_TIME"),
               N("CLUSTER_WAIT_TIME"),
               N("USER_IO_WAIT_TIME"),
               N("PHYSICAL_READ_REQUESTS"),
               N("PHYSICAL_READ_BYTES"),
               N("PHYSICAL_WRITE_REQUESTS"),
               N("PHYSICAL_WRITE_BYTES"),
               N("IO_CELL_OFFLOAD_ELIGIBLE_BYTES"),
               N("IO_INTERCONNECT_BYTES"),
               {"FIRST_LOAD_TIME", ColType::kVarchar2, 19},
               {"LAST_LOAD_TIME", ColType::kVarchar2, 19},
               D("LAST_ACTIVE_TIME"),
               N("CON_ID")};
  // FIRST_LOAD_TIME's text, Oracle's format model for it.
  auto stamp = [](int64_t unix) {
    return Value::Str(FormatDate(unix, "YYYY-MM-DD/HH24:MI:SS").value_or(""));
  };
  auto stat = [](const Cursor& c, Stat st) { return Value::Num(static_cast<double>(c.stats[st])); };
  for (const Cursor& c : e.db->library_cache.Cursors()) {
    r.rows.push_back(Row{Value::Str(c.text.substr(0, 1000)),
                         Value::Str(c.text),
                         Value::Str(c.id.sql_id),
                         Value::Num(1),
                         Value::Num(0),
                         Value::Num(static_cast<double>(c.parse_calls)),
                         Value::Num(static_cast<double>(c.executions)),
                         Value::Num(static_cast<double>(c.users_executing)),
                         stat(c, Stat::kSortsMemory),
                         stat(c, Stat::kPhysicalReads),
                         stat(c, Stat::kSessionLogicalReads),
                         Value::Num(static_cast<double>(c.rows_processed)),
                         Value::Num(c.command_type),
                         Value::Str("CELLSIM"),
                         Num(c.id.hash_value),
                         Value::Num(area ? 1 : 0),
                         Micros(c.cpu_ns),
                         Micros(c.elapsed_ns),
                         Micros(c.application_wait_ns),
                         Micros(c.concurrency_wait_ns),
                         Value::Num(0),
                         Micros(c.user_io_wait_ns),
                         stat(c, Stat::kPhysicalReadTotalIoRequests),
                         stat(c, Stat::kPhysicalReadTotalBytes),
                         stat(c, Stat::kPhysicalWriteTotalIoRequests),
                         stat(c, Stat::kPhysicalWriteTotalBytes),
                         stat(c, Stat::kCellPhysicalIoBytesEligibleForPredicateOffload),
                         stat(c, Stat::kCellPhysicalIoInterconnectBytes),
                         stamp(c.first_load_unix),
                         stamp(c.first_load_unix),
                         Value::Date(c.last_active_unix),
                         Value::Num(0)});
  }
  return r;
}

}  // namespace

std::optional<ViewRows> InstanceView(DataEngine& e, const std::string& name) {
  if (name == "V$SESSION_EVENT") return SessionEvents(e);
  if (name == "V$SYSTEM_EVENT") return SystemEvents(e);
  if (name == "V$SESSION_WAIT_CLASS") return WaitClasses(e, true);
  if (name == "V$SYSTEM_WAIT_CLASS") return WaitClasses(e, false);
  if (name == "V$EVENT_HISTOGRAM_MICRO") return EventHistogram(e);
  if (name == "V$VERSION") return Version();
  if (name == "V$INSTANCE") return Instance(e);
  if (name == "V$CONTROLFILE") return ControlFiles(e);
  if (name == "V$ASM_DISKGROUP") return AsmDisks(e, false);
  if (name == "V$ASM_DISK") return AsmDisks(e, true);
  if (name == "V$ASM_TEMPLATE") return AsmViews(e, false);
  if (name == "V$ASM_FILE") return AsmViews(e, true);
  if (name == "X$KFFXP") return AsmExtentMap(e);
  if (name == "V$SQL") return SqlCursors(e, false);
  if (name == "V$SQLAREA") return SqlCursors(e, true);
  return std::nullopt;
}

}  // namespace cellsim::db::internal
