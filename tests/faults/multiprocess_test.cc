// Many `cellsim` processes on one rack (issue 11): the rack lock (DIR/LOCK,
// asmgr::RackLock) keeps writers apart and lets readers share the rack
// read-only.
//
// Campaign: kWriters writer processes loop over `cellsim sql` (creations by
// the zero-fill, smart and fast paths, drops of their own earlier tablespaces,
// log groups added and dropped) and `cellcli ... alter flashcache all flush`,
// while kReaders reader processes loop over `asmcmd lsdg`, `asmcmd ls`,
// `asmcmd cp` (a control file out of ASM) and `cellcli list`. Afterwards, in
// process: every acknowledged creation that its writer did not drop later is
// in the file table and reads back formatted, every acknowledged drop is gone,
// no ASM file or AU leaked, every mirror copy agrees; every refused command
// said why. The figures go to stdout (see docs/reliability.md).
//
// Lock: a waiting command names the holder's pid and command line, gives up
// after --lock-timeout with a clear error; readers share, writers exclude.
#include <sys/wait.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/asm/rack_lock.h"
#include "cellsim/db/database.h"
#include "cellsim/io/fault_injection.h"
#include "cellsim/io/io_backend.h"
#include "faults/child_process.h"
#include "faults/stack_check.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "testing/sanitizer.h"
#include "testing/test_util.h"

#ifndef CELLSIM_BIN
#error "CELLSIM_BIN must name the cellsim binary (target_compile_definitions)"
#endif

namespace cellsim::faults {
namespace {

using ::cellsim::faults::testing::CmdRun;
using ::cellsim::faults::testing::Cellsim;
using ::cellsim::testing::TempDir;
using ::testing::HasSubstr;

constexpr int kWriters = 3;
constexpr int kReaders = 2;
// Each writer round: 2-4 statements or a flush; each reader round: 2
// commands. Under TSan (every child is a TSan binary; it looks for races,
// which a few rounds of each command meet) a fifth of them.
constexpr int kRoundsPerWriter = cellsim::testing::BySanitizer(20, 20, 4);
constexpr int kReaderRounds = cellsim::testing::BySanitizer(25, 25, 5);
constexpr int kMinCommands = cellsim::testing::BySanitizer(200, 200, 36);


std::string MakeRack(const TempDir& tmp) {
  const std::string rack = tmp.File("rack");
  const CmdRun r = Cellsim(tmp.File("create.err"),
                           {"rack", "create", rack, "--cells", "3", "--disks-per-cell", "2",
                            "--disk-group", "DATA:NORMAL:256m:1m", "--disk-group",
                            "RECO:NORMAL:128m:1m", "--flash-size", "64m"});
  EXPECT_TRUE(r.ok()) << r.err;
  return rack;
}

// What one writer was told: statement text -> acknowledged (exit 0 and the
// feedback line printed), in order.
struct WriterLog {
  std::vector<std::string> created;  // tablespaces acknowledged as created
  std::vector<std::string> dropped;  // tablespaces acknowledged as dropped
  std::vector<uint32_t> groups;      // log groups acknowledged as added (not dropped)
  int statements = 0, acknowledged = 0, flushes = 0;
  std::vector<std::string> refused;  // stderr of refused commands
};

constexpr const char* kPathSetting[] = {
    "alter session set \"_cell_fast_file_create\" = false",           // zero-fill
    "alter session set cellsim_fast_file_create_metadata = false",    // smart
    "alter session set cellsim_fast_file_create_metadata = true",     // fast
};

void RunWriter(int w, const std::string& rack, const TempDir& tmp, WriterLog* log) {
  std::mt19937_64 rng(static_cast<uint64_t>(w) * 7919 + 1);
  const std::string err = tmp.File(fmt::format("writer{}.err", w));
  for (int round = 0; round < kRoundsPerWriter; ++round) {
    if (round % 5 == 4) {  // a writer of the cells, not of the database
      CmdRun r = Cellsim(err, {"cellcli", rack, "-e", "alter flashcache all flush"});
      ++log->flushes;
      if (!r.ok()) log->refused.push_back(r.err);
      continue;
    }
    const std::string ts = fmt::format("W{}T{}", w, round);
    const uint32_t group = static_cast<uint32_t>(100 * (w + 1) + round);
    std::vector<std::string> args = {"sql", rack, "-e", kPathSetting[round % 3], "-e",
                                     fmt::format("create tablespace {} datafile '+DATA' size {}m",
                                                 ts, 2 + rng() % 4)};
    std::vector<std::string> feedback = {"Session altered.", "Tablespace created."};
    if (round % 3 == 1) {
      args.insert(args.end(), {"-e", fmt::format("alter database add logfile group {} "
                                                 "('+DATA','+RECO') size 4m", group)});
      feedback.push_back("Database altered.");
    }
    if (!log->created.empty() && rng() % 2 == 0) {
      const std::string victim = log->created[rng() % log->created.size()];
      if (std::find(log->dropped.begin(), log->dropped.end(), victim) == log->dropped.end()) {
        args.insert(args.end(), {"-e", fmt::format("drop tablespace {} including contents and "
                                                   "datafiles", victim)});
        feedback.push_back("Tablespace dropped.");
      }
    }
    CmdRun r = Cellsim(err, args);
    log->statements += static_cast<int>(feedback.size());
    // Statements run in order and the first failure stops the run: the
    // acknowledged ones are those whose feedback line was printed.
    size_t pos = 0;
    size_t acked = 0;
    for (const std::string& f : feedback) {
      const size_t at = r.out.find(f, pos);
      if (at == std::string::npos) break;
      pos = at + f.size();
      ++acked;
    }
    log->acknowledged += static_cast<int>(acked);
    if (acked >= 2) log->created.push_back(ts);
    if (feedback.size() >= 3 && feedback[2] == "Database altered." && acked >= 3) {
      log->groups.push_back(group);
    }
    if (feedback.back() == "Tablespace dropped." && acked == feedback.size()) {
      log->dropped.push_back(args.back().substr(16, args.back().find(' ', 16) - 16));
    }
    if (!r.ok()) log->refused.push_back(r.err);
  }
}

struct ReaderLog {
  int commands = 0;
  std::vector<std::string> failures;
};

void RunReader(int id, const std::string& rack, const TempDir& tmp, ReaderLog* log) {
  const std::string err = tmp.File(fmt::format("reader{}.err", id));
  const std::string copy = tmp.File(fmt::format("reader{}.ctl", id));
  for (int round = 0; round < kReaderRounds; ++round) {
    std::vector<std::vector<std::string>> cmds = {
        {"asmcmd", rack, "-e", "lsdg", "-e", "ls -l +DATA/ORCL"},
        {"cellcli", rack, "-e", "list griddisk", "-e", "list cell detail"},
        {"asmcmd", rack, "-e", "cp +DATA/ORCL/CONTROLFILE/Current.256.* " + copy},
        {"rack", "info", rack},
    };
    for (int k = 0; k < 2; ++k) {
      const std::vector<std::string>& c = cmds[(round * 2 + k) % cmds.size()];
      CmdRun r = Cellsim(err, c);
      log->commands += c[0] == "rack" ? 1 : static_cast<int>((c.size() - 2) / 2);
      const bool formatted = r.out.find("MOUNTED") != std::string::npos ||
                             r.out.find("copying") != std::string::npos ||
                             r.out.find("cel01") != std::string::npos;
      if (!r.ok() || !formatted) {
        log->failures.push_back(fmt::format("{} {}: {} {}", c[0], c[2],
                                            testing::DescribeWaitStatus(r.status), r.err));
      }
    }
  }
}

TEST(MultiProcess, CampaignKeepsEveryAcknowledgedStatement) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  {
    const CmdRun r = Cellsim(tmp.File("init.err"),
                             {"sql", rack, "-e", "alter session set nls_date_format = 'YYYY'"});
    ASSERT_TRUE(r.ok()) << r.err;  // the database exists before the readers start
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<WriterLog> writers(kWriters);
  std::vector<ReaderLog> readers(kReaders);
  {
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) threads.emplace_back(RunWriter, w, rack, std::cref(tmp), &writers[w]);
    for (int r = 0; r < kReaders; ++r) threads.emplace_back(RunReader, r, rack, std::cref(tmp), &readers[r]);
    for (std::thread& t : threads) t.join();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int statements = 0, acknowledged = 0, flushes = 0, refused = 0, reads = 0;
  for (const WriterLog& w : writers) {
    statements += w.statements;
    acknowledged += w.acknowledged;
    flushes += w.flushes;
    refused += static_cast<int>(w.refused.size());
    for (const std::string& e : w.refused) {
      // A refusal must say why: an ORA- error (space, ...) naming the cause.
      EXPECT_THAT(e, HasSubstr("ORA-")) << "refused without an Oracle error: " << e;
    }
  }
  for (const ReaderLog& r : readers) {
    reads += r.commands;
    for (const std::string& f : r.failures) ADD_FAILURE() << "reader failed: " << f;
  }

  // In process: the state every acknowledgement promised.
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto opened, asmgr::Rack::Open(io.get(), SystemClock(), rack));
  ASSERT_OK_AND_ASSIGN(auto database, db::Database::Open(opened.get()));
  EXPECT_TRUE(database->recovery_actions().empty()) << "a process left a half-made statement";
  const db::FileTable table = database->file_table();
  int present = 0;
  for (const WriterLog& w : writers) {
    for (const std::string& ts : w.created) {
      const bool dropped = std::find(w.dropped.begin(), w.dropped.end(), ts) != w.dropped.end();
      EXPECT_EQ(table.FindTablespace(ts) != nullptr, !dropped) << ts;
      present += dropped ? 0 : 1;
    }
    for (uint32_t g : w.groups) EXPECT_NE(table.FindLogGroup(g), nullptr) << "group " << g;
  }
  uint64_t extents = 0;
  EXPECT_OK(testing::VerifyTableFormatted(opened.get(), table));
  EXPECT_OK(testing::CheckNoLeaks(opened.get(), table));
  EXPECT_OK(testing::ScrubClean(opened.get(), &extents));
  database.reset();
  EXPECT_OK(opened->Close());
  std::printf(
      "multi-process campaign: %d writers, %d readers, %.1f s: %d SQL statements (%d "
      "acknowledged, %d commands refused), %d flushes, %d reader commands; %d tablespaces "
      "present and formatted, %zu data files, %zu log groups, %llu extents scrubbed\n",
      kWriters, kReaders, seconds, statements, acknowledged, refused, flushes, reads, present,
      table.data_files.size(), table.log_groups.size(),
      static_cast<unsigned long long>(extents));
  EXPECT_GE(statements + reads + flushes, kMinCommands);
}

TEST(MultiProcess, WaitingNamesTheHolderAndGivesUpAfterTheTimeout) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  ASSERT_OK_AND_ASSIGN(
      auto lock, asmgr::RackLock::Acquire(rack, {.access = asmgr::RackAccess::kReadWrite,
                                                 .command = "multiprocess_test holder"}));
  const std::string me = fmt::format("pid {} (multiprocess_test holder) for write", getpid());
  // A reader waits for a writer, then fails clearly.
  CmdRun r = Cellsim(tmp.File("e1"), {"asmcmd", rack, "-e", "lsdg", "--lock-timeout", "300ms"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("waiting up to 300ms for the read lock"));
  EXPECT_THAT(r.err, HasSubstr("start `cellsim instance " + rack + "`"));  // the way out
  EXPECT_THAT(r.err, HasSubstr(me));
  EXPECT_THAT(r.err, HasSubstr("gave up waiting for the read lock after 0.3 s"));
  // A writer with --lock-timeout 0 fails at once.
  r = Cellsim(tmp.File("e2"), {"sql", rack, "-e", "alter session set x = 1", "--lock-timeout", "0"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr(me));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("waiting up to")));
  // A malformed duration is a usage error.
  r = Cellsim(tmp.File("e3"), {"rack", "info", rack, "--lock-timeout", "5 parsecs"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_THAT(r.err, HasSubstr("--lock-timeout: duration '5 parsecs'"));
  lock.reset();

  // Readers share: a reader holding the shared lock does not block another.
  ASSERT_OK_AND_ASSIGN(lock, asmgr::RackLock::Acquire(rack, {.access = asmgr::RackAccess::kReadOnly,
                                                             .command = "reader"}));
  r = Cellsim(tmp.File("e4"), {"cellcli", rack, "-e", "list cell", "--lock-timeout", "0"});
  EXPECT_TRUE(r.ok()) << r.err;
  // ... but a writer waits for it.
  r = Cellsim(tmp.File("e5"),
              {"cellcli", rack, "-e", "alter flashcache all flush", "--lock-timeout", "0"});
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_THAT(r.err, HasSubstr("(reader) for read"));
  lock.reset();
  r = Cellsim(tmp.File("e6"), {"cellcli", rack, "-e", "alter flashcache all flush"});
  EXPECT_TRUE(r.ok()) << r.err;
}

// The library offers the same: a second Rack::Open fails at once by default
// (Unavailable naming the holder), waits with a timeout when asked, and a
// read-only rack refuses every change without writing.
TEST(MultiProcess, LibraryOpenHonoursTheLock) {
  TempDir tmp;
  const std::string rack = MakeRack(tmp);
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  ASSERT_OK_AND_ASSIGN(auto writer, asmgr::Rack::Open(io.get(), SystemClock(), rack));
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> second =
      asmgr::Rack::Open(io.get(), SystemClock(), rack);
  ASSERT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr(fmt::format("pid {}", getpid())));
  asmgr::RackOpenOptions ro;
  ro.lock.access = asmgr::RackAccess::kReadOnly;
  ro.lock.timeout = std::chrono::milliseconds(100);
  int waited = 0;
  ro.lock.on_wait = [&](const std::string&) { ++waited; };
  EXPECT_EQ(asmgr::Rack::Open(io.get(), SystemClock(), rack, ro).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(waited, 1);
  ASSERT_OK(writer->Close());
  ASSERT_OK_AND_ASSIGN(auto r1, asmgr::Rack::Open(io.get(), SystemClock(), rack, ro));
  ASSERT_OK_AND_ASSIGN(auto r2, asmgr::Rack::Open(io.get(), SystemClock(), rack, ro));
  EXPECT_TRUE(r1->read_only());
  ASSERT_OK_AND_ASSIGN(asmgr::DiskGroup * data, r1->disk_group("DATA"));
  const absl::StatusOr<asmgr::FileInfo> made =
      data->CreateFile({.db_name = "ORCL", .type = asmgr::FileType::kDataFile, .tag = "X",
                        .size_bytes = 1 << 20});
  EXPECT_EQ(made.status().code(), absl::StatusCode::kFailedPrecondition) << made.status();
  EXPECT_EQ(db::Database::Create(r1.get()).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(r1->Close());
  ASSERT_OK(r2->Close());
}

}  // namespace
}  // namespace cellsim::faults

namespace cellsim::faults {
namespace {

// Rack::Create that fails half-way (cel02's flash cannot be written) removes
// what it built: the directory it made, or everything but the lock file in a
// directory that existed.
TEST(RackCreate, FailureRemovesWhatItBuilt) {
  TempDir tmp;
  for (const bool existed : {false, true}) {
    const std::string dir = tmp.File(existed ? "existing" : "made");
    if (existed) std::filesystem::create_directories(dir);
    io::FaultInjectionBackend fault(io::MakePosixBackend());
    fault.FailNth({.ops = io::kOpWrite | io::kOpSync, .path_substring = "cel02/flash.img"}, 1);
    asmgr::RackConfig config;
    config.cells = 3;
    config.cell_disks_per_cell = 1;
    config.disk_groups = {{.name = "DATA", .au_size = 1 << 20, .grid_disk_size = 64 << 20}};
    config.flash_size = 16 << 20;
    const absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack =
        asmgr::Rack::Create(&fault, SystemClock(), dir, config);
    ASSERT_FALSE(rack.ok());
    EXPECT_GE(fault.InjectedFailures(), 1u);
    if (existed) {
      std::vector<std::string> left;
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        left.push_back(e.path().filename().string());
      }
      EXPECT_EQ(left, std::vector<std::string>{"LOCK"});
    } else {
      EXPECT_FALSE(std::filesystem::exists(dir)) << rack.status();
    }
  }
}

// A rack on a filesystem mounted read-only (a 64 MiB tmpfs remounted ro):
// readers work with every file opened read-only, writers fail saying why,
// and nothing changed. Needs root (mount); skips with the reason otherwise.
TEST(ReadOnlyRack, ReadersWorkOnAReadOnlyMount) {
  TempDir tmp;
  const std::string mnt = tmp.File("mnt");
  std::filesystem::create_directories(mnt);
  const std::string mount_cmd = fmt::format("mount -t tmpfs -o size=64m cellsim-ro {} 2>&1", mnt);
  if (geteuid() != 0 || std::system(mount_cmd.c_str()) != 0) {
    GTEST_SKIP() << "mounting a tmpfs needs root and mount(2) here (euid " << geteuid() << ")";
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { (void)std::system(fmt::format("umount {}", dir).c_str()); }
  } unmount{mnt};
  const std::string rack = mnt + "/rack";
  CmdRun r = Cellsim(tmp.File("e0"), {"rack", "create", rack, "--cells", "3", "--disks-per-cell",
                                      "1", "--disk-group", "DATA:NORMAL:64m:1m", "--flash-size",
                                      "16m"});
  ASSERT_TRUE(r.ok()) << r.err;
  r = Cellsim(tmp.File("e1"), {"sql", rack, "-e", "create tablespace t datafile '+DATA' size 4m"});
  ASSERT_TRUE(r.ok()) << r.err;
  const CmdRun info_rw = Cellsim(tmp.File("e2"), {"rack", "info", rack});
  ASSERT_TRUE(info_rw.ok()) << info_rw.err;
  ASSERT_EQ(std::system(fmt::format("mount -o remount,ro {}", mnt).c_str()), 0);

  const CmdRun info = Cellsim(tmp.File("e3"), {"rack", "info", rack});
  EXPECT_TRUE(info.ok()) << info.err;
  EXPECT_EQ(info.out, info_rw.out);
  r = Cellsim(tmp.File("e4"), {"asmcmd", rack, "-e", "lsdg", "-e", "ls -l +DATA/ORCL/DATAFILE",
                               "-e", "cp +DATA/ORCL/DATAFILE/T.* " + tmp.File("t.dbf")});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MOUNTED"));
  EXPECT_GE(std::filesystem::file_size(tmp.File("t.dbf")), 4 * kMiB);
  r = Cellsim(tmp.File("e5"), {"cellcli", rack, "-e", "list griddisk", "-e", "list cell"});
  EXPECT_TRUE(r.ok()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("DATA_CD_00_cel01"));
  for (const std::vector<std::string>& w :
       {std::vector<std::string>{"sql", rack, "-e", "drop tablespace t including contents"},
        std::vector<std::string>{"cellcli", rack, "-e", "alter flashcache all flush"}}) {
    r = Cellsim(tmp.File("e6"), w);
    EXPECT_EQ(r.exit_code(), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("is read-only"));
    EXPECT_THAT(r.err, HasSubstr("only read commands (rack info, asmcmd, cellcli list) work"));
  }
  ASSERT_EQ(std::system(fmt::format("mount -o remount,rw {}", mnt).c_str()), 0);
  r = Cellsim(tmp.File("e7"), {"sql", rack, "-e", "drop tablespace t including contents"});
  EXPECT_TRUE(r.ok()) << r.err;  // T was still there: nothing was lost
}

}  // namespace
}  // namespace cellsim::faults
