// Regenerates the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
// from REAL encoded images: it builds a small rack (fuzz_util.h
// CorpusRackConfig) in a temporary directory, creates a database and runs
// creations by all three paths, a drop, writes and a flash loss, then copies
// out the bytes the encoders wrote: cell superblocks, journal chunks and
// checkpoints, ASM checkpoints and journals, rack.meta slots, control-file
// blocks and file tables, statement JSON. SQL seeds are the statements of
// docs/sql.md and tests/db/parser_test.cc.
//
//   build-fuzz/tests/fuzz/fuzz_corpus_gen tests/fuzz/corpus
//
// Each file starts with the operation byte its target expects (see the
// comment at the top of each *_fuzzer.cc). Existing files of the same name are
// overwritten; other files (entries added by fuzzing) are kept.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/clock.h"
#include "cellsim/cell/cell.h"
#include "cellsim/cell/metadata.h"
#include "cellsim/db/control_file.h"
#include "cellsim/db/database.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/report/json.h"
#include "fmt/format.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

const char* const kSqlSeeds[] = {
    // docs/sql.md
    "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m;",
    "create tablespace users datafile '+DATA' size 100M blocksize 8k",
    "alter tablespace users add datafile '+DATA' size 1g, '+RECO' size 2G",
    "drop tablespace users including contents and datafiles cascade constraints",
    "alter database drop logfile group 5",
    "alter session set \"_cell_fast_file_create\" = FALSE",
    "alter session set cellsim_fast_file_create_metadata = TRUE",
    "alter database add logfile group 3 '+RECO' size 1g blocksize 4096 reuse",
    "create tablespace t datafile '+DATA' size 1m;\ndrop tablespace t;",
    // tests/db/parser_test.cc
    "alter database add logfile thread 2 group 5 ('+DATA','+RECO') size 4096m",
    "ALTER DATABASE ADD LOGFILE '+reco' SIZE 1G;",
    "alter database add logfile group 5 ('+DATA','+RECO') size 4g blocksize 4096, " "group 6 ('+DATA') size 512M blocksize 512 reuse, '+RECO' size 100m",
    "alter database add logfile ('+DATA') size 1g blocksize 4k",
    "alter database drop logfile group 5",
    "create tablespace users datafile '+DATA' size 100M, '+data' size 2g",
    "create tablespace t datafile '+D' size 1t blocksize 8k",
    "create tablespace t datafile '+D' size 65536 blocksize 16384",
    "create tablespace t datafile '+D' size 64K",
    "create tablespace t datafile '+D' size 2T",
    "create tablespace \"MixedCase\" datafile '+D' size 1m",
    "alter tablespace Users add datafile '+DATA' size 10m, '+RECO' size 20m",
    "drop tablespace t",
    "drop tablespace t including contents and datafiles",
    "drop tablespace t including contents keep datafiles cascade constraints",
    "alter session set \"_cell_fast_file_create\" = false",
    "ALTER SESSION SET \"_CELL_FAST_FILE_CREATE\"=TRUE",
    "alter session set cellsim_fast_file_create_metadata = False",
    "alter session set NLS_DATE_FORMAT = 'DD-MON-YYYY'",
    "alter session set optimizer_mode = all_rows",
    "alter session set \"_x\" = 10",
    "-- the seed\n alter /* offload */ database\n\tadd logfile -- more\n group 7\n" "('+DATA') /* size next */ size 8m ;  -- done\n",
    "alter database add logfile '+D' size 1m",
    "alter tablespace T add datafile '+DATA' sise 10m",
    "alter database\n  add logfile\n  group 5 ('+DATA' size 1g",
    "",
    "   -- nothing\n /* here */ ",
    ";",
    "create tablespace t datafile '+DATA' size 0",
    "alter database add logfile ('+DATA') size 0m",
    "create tablespace t datafile '+DATA' size 16777216T",
    "alter database add logfile '+D' size 99999999999999999999999",
    "create tablespace t datafile '+DATA' size 10mb",
    "create tablespace t datafile '+DATA' size 1P",
    "create tablespace t datafile '+DATA' size big",
    "create tablespace t datafile '+DATA' size 1.5g",
    "create tablespace t datafile 'DATA' size 1m",
    "create tablespace t datafile '/u01/t.dbf' size 1m",
    "alter database add logfile ('+DATA', 'RECO') size 1m",
    "alter database add logfile ('+') size 1m",
    "alter database add logfile ('+DATA/orcl/x.log') size 1m",
    "alter database add logfile ('+DA TA') size 1m",
    "create tablespace t datafile +DATA size 1m",
    "alter database add logfile thread 0 ('+D') size 1m",
    "alter database add logfile thread 1001 ('+D') size 1m",
    "alter database add logfile group 0 ('+D') size 1m",
    "alter database add logfile group 99999999999999999999 ('+D') size 1m",
    "alter database drop logfile group 1001",
    "alter database add logfile group 5k ('+D') size 1m",
    "alter database add logfile group 5 ('+D') size 1m, group 5 ('+D') size 1m",
    "alter database add logfile ('+D') size 1m blocksize 1024",
    "alter database add logfile ('+D') size 1m blocksize 8k",
    "create tablespace t datafile '+D' size 1m blocksize 12k",
    "create tablespace t datafile '+D' size 1m blocksize 64k",
    "alter database add logfile ('+DATA' size 1m",
    "alter database add logfile () size 1m",
    "alter database add logfile size 1m",
    "alter database add logfile ('+DATA') 1m",
    "alter database add logfile ('+DATA') size",
    "select * from dual",
    "create table t (x int)",
    "alter system set x = 1",
    "alter database open",
    "alter database drop logfile member '+DATA'",
    "drop tablespace t including datafiles",
    "create tablespace t '+D' size 1m",
    "create tablespace datafile '+D' size 1m",
    "alter session set \"_cell_fast_file_create\" false",
    "alter session set x =",
    "alter database add logfile ('+D') size 1m autoextend on",
    "create tablespace t datafile '+D' size 1m extent management local",
    "alter database drop logfile group 1 2",
    "drop tablespace t; drop tablespace u",
    "drop tablespace t;;",
    "alter database add logfile ('+DATA) size 1m",
    "create tablespace \"t datafile '+D' size 1m",
    "drop tablespace t /* never closed",
    "create tablespace \"\" datafile '+D' size 1m",
    "alter session set \"_cell_fast_file_create\" = 1",
    "alter session set cellsim_fast_file_create_metadata = yes",
    "alter session set _cell_fast_file_create = false",
    "create tablespace ",
    // Oracle-managed files (docs/sql.md; last, so that the seeds before keep their names)
    "create tablespace x",
    "create tablespace y datafile size 10m, '+RECO'",
    "create temporary tablespace t2 blocksize 8k",
    "alter database add logfile thread 2 group 7, group 8 size 20m blocksize 4096, size 8m",
    "alter database add logfile",
    // Anonymous PL/SQL blocks (docs/sql.md "PL/SQL blocks").
    "declare\n  v number := 0;\nbegin\n  for i in 1..10 loop\n    insert into t values (i, 'r' || i);\n"
    "    v := v + sql%rowcount;\n  end loop;\n  commit;\n  select count(*) into v from t;\n"
    "  dbms_output.put_line('n=' || v);\nexception\n  when no_data_found or too_many_rows then null;\n"
    "end;\n/",
    "begin <<o>> loop exit o when 1 = 1; end loop; for r in (select id from t) loop "
    "if r.id > 1 then continue; elsif r.id = 1 then raise_application_error(-20001, 'x'); "
    "else execute immediate 'drop table t'; end if; end loop; end;",
    "declare cursor c is select id from t; v number; begin open c; loop fetch c into v; exit when "
    "c%notfound; case v when 1 then null; else dbms_output.put_line(c%rowcount); end case; end loop; "
    "close c; for r in c loop null; end loop; end;",
    // Optimizer statistics (docs/sql.md "Optimizer statistics").
    "begin dbms_stats.gather_table_stats(ownname => user, tabname => 'T', cascade => "
    "dbms_stats.auto_cascade, estimate_percent => 10); dbms_stats.delete_index_stats(user, 'I'); end;",
    "analyze table t estimate statistics sample 10 percent for table",
    // Sleeping (docs/sql.md "Sleeping").
    "begin dbms_session.sleep(seconds => 0.5); sys.dbms_lock.sleep(1); end;",
    // Named NOT NULL constraints (docs/sql.md "ALTER TABLE").
    "create table n (a number constraint n_a_nn not null, b date constraint n_b null)",
    "alter table n modify (b constraint n_b_nn not null, a null)",
    "rename n to \"N2\"",
    // TIMESTAMP and intervals (docs/sql.md "TIMESTAMP and INTERVAL DAY TO SECOND").
    "create table ev (at timestamp(3) default systimestamp, d date default sysdate)",
    "select to_char(systimestamp - timestamp '2026-12-07 23:09:00.5', 'x') , extract(second from "
    "localtimestamp - interval '5' minute), cast(current_timestamp as timestamp(2)) from dual",
    "declare t0 timestamp(9) := systimestamp; e interval day(2) to second(6); begin e := "
    "systimestamp - t0; dbms_output.put_line(to_char(t0, 'HH24:MI:SS.FF3') || e); end;",
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "fuzz_corpus_gen: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Must(absl::StatusOr<T> v, const char* what) {
  if (!v.ok()) Die(fmt::format("{}: {}", what, std::string(v.status().message())));
  return *std::move(v);
}
void Must(const absl::Status& s, const char* what) {
  if (!s.ok()) Die(fmt::format("{}: {}", what, std::string(s.message())));
}

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot read " + path);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// Drops trailing zero bytes (the targets pad with zeros again).
Bytes Trim(Bytes b) {
  while (!b.empty() && b.back() == 0) b.pop_back();
  return b;
}

class Corpus {
 public:
  explicit Corpus(std::string root) : root_(std::move(root)) {}
  void Add(const std::string& target, const std::string& name, uint8_t op, const Bytes& body) {
    Bytes b{op};
    b.insert(b.end(), body.begin(), body.end());
    Write(target, name, b);
  }
  void Write(const std::string& target, const std::string& name, const Bytes& b) {
    const std::string dir = root_ + "/" + target;
    fs::create_directories(dir);
    std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!out) Die("cannot write " + dir + "/" + name);
    ++count_;
  }
  int count() const { return count_; }

 private:
  std::string root_;
  int count_ = 0;
};

void PutU16(Bytes& b, uint64_t v) { for (int i = 0; i < 2; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); }
void PutU32(Bytes& b, uint64_t v) { for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); }
void Append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }

// ---- cell flash metadata ----------------------------------------------------
void CellSeeds(Corpus& c, const std::string& flash_path, const std::string& tag) {
  using namespace cell::internal;  // NOLINT
  const Bytes flash = ReadFile(flash_path);
  const auto span = absl::MakeConstSpan(flash);
  absl::StatusOr<Superblock> a = DecodeSuperblock(span.subspan(0, kPage), 'A');
  absl::StatusOr<Superblock> b = DecodeSuperblock(span.subspan(kPage, kPage), 'B');
  if (!a.ok() && !b.ok()) Die("no valid superblock in " + flash_path);
  const bool use_a = a.ok() && (!b.ok() || a->generation > b->generation);
  const Superblock sb = use_a ? *a : *b;
  const Bytes page(flash.begin() + (use_a ? 0 : kPage), flash.begin() + (use_a ? kPage : 2 * kPage));
  const FlashLayout layout = Must(ComputeLayout(sb.config), "layout");
  const Bytes ck(flash.begin() + layout.checkpoint_offset[sb.checkpoint_area],
                 flash.begin() + layout.checkpoint_offset[sb.checkpoint_area] + sb.checkpoint_length);
  const Bytes sb_trim = Trim(page);
  c.Add("cell_metadata", tag + "-superblock-raw", 0, sb_trim);
  c.Add("cell_metadata", tag + "-superblock-sealed", 1, sb_trim);
  c.Add("cell_metadata", tag + "-checkpoint-raw", 4, ck);
  c.Add("cell_metadata", tag + "-checkpoint-sealed", 5, ck);
  // Journal chunks of the current epoch, each cut after its payload.
  const auto j = span.subspan(layout.journal_offset, layout.journal_bytes);
  uint64_t pos = 0, seq = sb.journal_first_seq;
  std::vector<Bytes> chunks;
  while (pos < j.size()) {
    std::vector<Record> records;
    uint64_t bytes = 0;
    if (!DecodeChunk(j.subspan(pos), sb.epoch, seq, &records, &bytes)) break;
    const uint32_t payload = static_cast<uint32_t>(GetLe(j.data() + pos + 24, 4));
    chunks.emplace_back(j.begin() + pos, j.begin() + pos + kChunkHeaderBytes + payload);
    pos += bytes;
    ++seq;
  }
  std::fprintf(stderr, "%s: generation %llu, %zu journal chunks, checkpoint %llu bytes\n",
               flash_path.c_str(), static_cast<unsigned long long>(sb.generation), chunks.size(),
               static_cast<unsigned long long>(sb.checkpoint_length));
  // A few distinct chunks (the first ones and the largest).
  size_t largest = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (chunks[i].size() > chunks[largest].size()) largest = i;
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i >= 4 && i != largest) continue;
    c.Add("cell_metadata", fmt::format("{}-chunk{}-raw", tag, i), 2, chunks[i]);
    c.Add("cell_metadata", fmt::format("{}-chunk{}-sealed", tag, i), 3, chunks[i]);
  }
  // Recovery: superblock, checkpoint, up to 24 chunks.
  Bytes r;
  PutU16(r, sb_trim.size());
  Append(r, sb_trim);
  PutU32(r, ck.size());
  Append(r, ck);
  for (size_t i = 0; i < chunks.size() && i < 24; ++i) {
    PutU16(r, chunks[i].size());
    Append(r, chunks[i]);
  }
  c.Add("cell_metadata", tag + "-recovery", 6, r);
}

// ---- ASM disk group metadata ---------------------------------------------------
void AsmSeeds(Corpus& c, const std::string& asm_dir, const std::string& group,
              const std::string& tag, bool with_journal) {
  for (int slot = 0; slot < 2; ++slot) {
    const std::string p = fmt::format("{}/{}.ckpt{}", asm_dir, group, slot);
    if (!fs::exists(p)) continue;
    const Bytes ck = ReadFile(p);
    c.Add("asm_metadata", fmt::format("{}-{}-ckpt{}-raw", tag, group, slot), 0, ck);
    c.Add("asm_metadata", fmt::format("{}-{}-ckpt{}-sealed", tag, group, slot), 1, ck);
  }
  if (!with_journal) return;
  // The journal follows the newest checkpoint: while the group is open that is
  // the only slot written since the journal was last emptied.
  const std::string slot0 = fmt::format("{}/{}.ckpt0", asm_dir, group);
  const std::string slot1 = fmt::format("{}/{}.ckpt1", asm_dir, group);
  const std::string newest = fs::exists(slot1) && fs::last_write_time(slot1) > fs::last_write_time(slot0) ? slot1 : slot0;
  const Bytes ck = ReadFile(newest);
  const Bytes journal = ReadFile(fmt::format("{}/{}.journal", asm_dir, group));
  std::fprintf(stderr, "%s: journal %zu bytes after %s\n", group.c_str(), journal.size(), newest.c_str());
  Bytes b;
  PutU32(b, ck.size());
  Append(b, ck);
  Append(b, journal);
  c.Add("asm_metadata", fmt::format("{}-{}-journal-raw", tag, group), 2, b);
  c.Add("asm_metadata", fmt::format("{}-{}-journal-sealed", tag, group), 3, b);
}

// ---- control file ----------------------------------------------------------------
void ControlFileSeeds(Corpus& c, asmgr::DiskGroup* dg) {
  using db::internal::kControlFileBlockSize;
  using db::internal::kControlFileBlocks;
  using db::internal::kControlFileSlotBlocks;
  int copy = 0;
  for (const asmgr::FileInfo& f : dg->ListFiles()) {
    if (f.type != asmgr::FileType::kControlFile) continue;
    Bytes image(size_t{kControlFileBlocks} * kControlFileBlockSize);
    std::vector<asmgr::AsmReadRequest> r(1);
    r[0].file_offset = 0;
    r[0].buffer = absl::MakeSpan(image);
    asmgr::AsmIoResult res;
    Must(dg->Read(f.number, absl::MakeSpan(r), &res), "read control file");
    const Bytes header(image.begin(), image.begin() + kControlFileBlockSize);
    const db::internal::Header h = Must(db::internal::ParseHeader(header.data(), f.name), "header");
    c.Add("control_file", fmt::format("copy{}-header-raw", copy), 1, header);
    c.Add("control_file", fmt::format("copy{}-header-sealed", copy), 2,
          Trim(Bytes(header.begin(), header.end() - 8)));
    for (uint32_t slot = 0; slot < 2; ++slot) {
      const uint8_t* blocks = image.data() + size_t{1 + slot * kControlFileSlotBlocks} * kControlFileBlockSize;
      std::string why;
      std::optional<db::internal::SlotContent> s =
          db::internal::ParseSlot(blocks, kControlFileSlotBlocks, h.dbid, &why);
      if (!s.has_value()) continue;
      Bytes sealed, raw;
      PutU32(sealed, h.dbid);
      sealed.push_back(static_cast<uint8_t>(s->blocks - 1));
      raw = sealed;
      for (uint32_t i = 0; i < s->blocks; ++i) {
        const uint8_t* b = blocks + size_t{i} * kControlFileBlockSize;
        const Bytes body = Trim(Bytes(b, b + kControlFileBlockSize - 8));
        PutU16(sealed, body.size());
        Append(sealed, body);
        PutU16(raw, kControlFileBlockSize);
        Append(raw, Bytes(b, b + kControlFileBlockSize));
      }
      c.Add("control_file", fmt::format("copy{}-slot{}-sealed", copy, slot), 4, sealed);
      if (copy == 0) c.Add("control_file", fmt::format("copy0-slot{}-raw", slot), 3, raw);
      if (copy == 0) {
        c.Add("control_file", fmt::format("filetable-seq{}", s->sequence), 0, s->table.Encode());
      }
    }
    ++copy;
  }
}

int Run(const std::string& out_root) {
  Corpus corpus(out_root);
  // SQL.
  int i = 0;
  for (const char* sql : kSqlSeeds) {
    corpus.Write("sql_parser", fmt::format("sql-{:03}", i++), Bytes(sql, sql + std::strlen(sql)));
  }
  // Text parsers: op byte + text.
  const std::pair<uint8_t, const char*> texts[] = {
      {0, "4096m"}, {0, "1G"}, {0, "0"}, {0, "99999999999999999999g"}, {0, "16777216T"}, {0, "-5m"},
      {0, "1e30"}, {1, "list flashcache detail"}, {1, "LIST CELL DETAIL"},
      {1, "list metriccurrent where objectType = 'FLASHCACHE' and name like 'FC_IO_.*'"},
      {1, "alter flashcache all flush"}, {1, "alter cell flashCacheMode=WriteThrough"},
      {2, "lsdg"}, {2, "lsdg DATA"}, {2, "lsdsk -k -G DATA"}, {2, "ls -l +DATA/ORCL/ONLINELOG"},
      {2, "cd +DATA/ORCL"}, {2, "pwd"}, {2, "cp +DATA/ORCL/ONLINELOG/group_5.256.1 /tmp/x"},
      {3, "DATA:NORMAL:2g"}, {3, "RECO:high:512m:1m"}, {3, "X:external:1m:64m"},
      {4, "t=100"}, {4, "l=cell n=physical r=^cell t=1"}, {7, "NORMAL"}, {7, "high"},
      {7, "external"}, {8, "posix"}, {8, "io_uring"}, {8, "uring"}};
  i = 0;
  for (const auto& [op, text] : texts) {
    corpus.Add("text_parsers", fmt::format("text-{:02}", i++), op,
               Bytes(text, text + std::strlen(text)));
  }

  // A rack with every kind of metadata record.
  char tmpl[] = "/tmp/cellsim-corpus-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) Die("mkdtemp");
  const std::string dir = std::string(tmpl) + "/rack";
  std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  {
    auto rack = Must(asmgr::Rack::Create(io.get(), SystemClock(), dir, CorpusRackConfig()),
                     "create rack");
    db::DatabaseOptions options;
    options.min_log_file_bytes = 1 << 20;  // the small logs below (Oracle's minimum is 4 MiB)
    auto db = Must(db::Database::Create(rack.get(), options), "create database");
    std::vector<report::StatementSummary> results;
    {
      std::unique_ptr<db::Session> s = db->NewSession();
      const char* const statements[] = {
          "create tablespace users datafile '+DATA' size 8m",
          "alter database add logfile thread 1 group 5 ('+DATA','+RECO') size 2m",
          "alter session set cellsim_fast_file_create_metadata = false",
          "create tablespace smart datafile '+DATA' size 4m, '+RECO' size 2m blocksize 16k",
          "alter session set \"_cell_fast_file_create\" = false",
          "alter database add logfile group 6 ('+RECO') size 1m blocksize 4096",
          "alter tablespace users add datafile '+RECO' size 3m",
          "drop tablespace smart including contents and datafiles",
      };
      for (const char* sql : statements) {
        db::StatementResult r = Must(s->Execute(sql), sql);
        results.push_back(report::StatementSummary{
            .statement = r.statement, .path = r.path, .elapsed_s = r.elapsed_ns / 1e9,
            .cpu_s = r.cpu_ns / 1e9, .statistics = r.statistics, .waits = r.waits});
      }
    }
    for (size_t k = 0; k < results.size(); ++k) {
      const std::string json = report::StatementJson(results[k]);
      corpus.Add("text_parsers", fmt::format("statement-json-{}", k), 5,
                 Bytes(json.begin(), json.end()));
    }
    report::DemoResult demo;
    demo.size_bytes = 2 * kMiB;
    demo.paths = {results[0], results[1]};
    const std::string demo_json = report::DemoJson(demo);
    corpus.Add("text_parsers", "demo-json", 6, Bytes(demo_json.begin(), demo_json.end()));

    // Dirty data in the write-back flash of cel01 (line records), then a flash
    // loss on cel03 (lost ranges in its metadata).
    cell::Cell* c1 = rack->concrete_cell(0);
    std::vector<uint8_t> data(64 * 1024, 0xA5);
    std::vector<cell::WriteRequest> w = {{.grid_disk = 1, .offset = 1 << 20, .data = data},
                                         {.grid_disk = 2, .offset = 8192, .data = absl::MakeConstSpan(data).subspan(0, 8192)}};
    cell::CellIoStats st;
    Must(c1->Write(absl::MakeSpan(w), &st), "cell write");
    Must(rack->concrete_cell(2)->LoseFlash(), "lose flash");

    // Captured while open: journals hold the records since the last checkpoint.
    for (uint32_t k = 0; k < 3; ++k) {
      CellSeeds(corpus, fmt::format("{}/cel{:02}/flash.img", dir, k + 1), fmt::format("open-cel{:02}", k + 1));
    }
    AsmSeeds(corpus, dir + "/asm", "DATA", "open", true);
    AsmSeeds(corpus, dir + "/asm", "RECO", "open", true);
    ControlFileSeeds(corpus, Must(rack->disk_group("DATA"), "DATA"));
    const Bytes m0 = fs::exists(dir + "/rack.meta0") ? ReadFile(dir + "/rack.meta0") : Bytes{};
    const Bytes m1 = fs::exists(dir + "/rack.meta1") ? ReadFile(dir + "/rack.meta1") : Bytes{};
    corpus.Add("rack_meta", "meta0-raw", 0, m0);
    corpus.Add("rack_meta", "meta0-sealed", 1, m0);
    corpus.Add("rack_meta", "meta1-raw", 0, m1);
    corpus.Add("rack_meta", "meta1-sealed", 1, m1);
    Bytes both;
    PutU16(both, m0.size());
    Append(both, m0);
    Append(both, m1);
    corpus.Add("rack_meta", "open-both", 2, both);
    Must(db->Close(), "close database");
    Must(rack->Close(), "close rack");
  }
  // After a clean close and reopen: fresh checkpoints everywhere.
  {
    auto rack = Must(asmgr::Rack::Open(io.get(), SystemClock(), dir), "reopen rack");
    CellSeeds(corpus, dir + "/cel01/flash.img", "reopened-cel01");
    AsmSeeds(corpus, dir + "/asm", "DATA", "closed", false);
    Must(rack->Close(), "close rack");
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  std::fprintf(stderr, "wrote %d corpus files under %s\n", corpus.count(), out_root.c_str());
  return 0;
}

}  // namespace
}  // namespace cellsim::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT (e.g. tests/fuzz/corpus)\n", argv[0]);
    return 2;
  }
  return cellsim::fuzz::Run(argv[1]);
}
