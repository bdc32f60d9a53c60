// The crash campaign's model: the bytes a freshly created file must hold, the
// files of a file table, and the change a DDL statement may make to it.
#include <fmt/format.h>

#include <algorithm>

#include "cellsim/db/file_headers.h"
#include "cellsim/format/block_template.h"
#include "crash_harness.h"

namespace cellsim::reliability {

std::string FileKey(const std::string& disk_group, uint32_t number) {
  return fmt::format("{}/{}", disk_group, number);
}

std::string TableSummary(const db::FileTable& t) {
  std::string s = fmt::format("ts[");
  for (const db::Tablespace& x : t.tablespaces) s += fmt::format(" {}#{}", x.name, x.number);
  s += " ] df[";
  for (const db::DataFile& f : t.data_files) {
    s += fmt::format(" {}:ts{}:{}:{}:{}", f.file_number, f.tablespace, f.file.name, f.size_bytes,
                     db::EntryStateName(f.state));
  }
  s += " ] thr[";
  for (const db::LogThread& x : t.threads) s += fmt::format(" {}", x.thread);
  s += " ] lg[";
  for (const db::LogGroup& g : t.log_groups) {
    s += fmt::format(" {}:t{}:{}:{}", g.group, g.thread, g.size_bytes, db::EntryStateName(g.state));
    for (const db::LogMember& m : g.members) s += "," + m.file.name;
  }
  return s + " ]";
}

// ---------------------------------------------------------------- model

std::vector<uint8_t> FormattedImage(const db::FileTable& t, const db::DataFile& f) {
  const uint32_t bs = f.block_size;
  const uint64_t blocks = db::OnDiskBlocks(f.size_bytes, bs);  // block 0, the OS header, first
  const format::BlockTemplate tmpl{format::BlockKind::kData, bs, f.file_number, blocks};
  std::vector<uint8_t> out(blocks * bs);
  format::GenerateRange(tmpl, 0, absl::MakeSpan(out));
  std::string ts_name;
  for (const db::Tablespace& ts : t.tablespaces) {
    if (ts.number == f.tablespace) ts_name = ts.name;
  }
  db::internal::DataFileHeaderInfo h{t.db_name, t.dbid, f.file_number,     f.tablespace,  ts_name,
                                     bs,        blocks, f.creation_change, f.created_unix};
  db::internal::BuildDataFileHeader(h, absl::MakeSpan(out).subspan(bs, bs));
  return out;
}

std::vector<uint8_t> FormattedImage(const db::FileTable& t, const db::LogGroup& g) {
  const uint32_t bs = g.block_size;
  // A member is SIZE + one block: block 0, the OS header, comes first and
  // the log header (block 1) counts SIZE / bs blocks (docs/statistics.md).
  const uint64_t blocks = g.size_bytes / bs;
  const format::BlockTemplate tmpl{format::BlockKind::kRedo, bs, g.group,
                                   db::OnDiskBlocks(g.size_bytes, bs)};
  std::vector<uint8_t> out(tmpl.file_blocks * bs);
  format::GenerateRange(tmpl, 0, absl::MakeSpan(out));
  db::internal::LogFileHeaderInfo h{t.db_name, t.dbid, g.thread,          g.group,
                                    bs,        blocks, g.creation_change, g.created_unix};
  db::internal::BuildLogFileHeader(h, absl::MakeSpan(out).subspan(bs, bs));
  return out;
}

std::map<std::string, FileImage> FormattedImages(const db::FileTable& t,
                                                 const std::set<std::string>* only) {
  std::map<std::string, FileImage> out;
  auto wanted = [&](const std::string& key) { return only == nullptr || only->count(key) != 0; };
  for (const db::DataFile& f : t.data_files) {
    const std::string key = FileKey(f.file.disk_group, f.file.number);
    if (!wanted(key)) continue;
    out[key] = FileImage{f.file.disk_group, f.file.number, f.file.name, FormattedImage(t, f)};
  }
  for (const db::LogGroup& g : t.log_groups) {
    std::vector<uint8_t> image;
    for (const db::LogMember& m : g.members) {
      const std::string key = FileKey(m.file.disk_group, m.file.number);
      if (!wanted(key)) continue;
      if (image.empty()) image = FormattedImage(t, g);
      out[key] = FileImage{m.file.disk_group, m.file.number, m.file.name, image};
    }
  }
  return out;
}

std::map<std::string, FileSlot> TableFiles(const db::FileTable& t) {
  std::map<std::string, FileSlot> out;
  for (const db::DataFile& f : t.data_files) {
    out[FileKey(f.file.disk_group, f.file.number)] =
        FileSlot{f.file.disk_group, f.file.number, f.file.name, f.size_bytes + f.block_size};
  }
  for (const db::LogGroup& g : t.log_groups) {
    for (const db::LogMember& m : g.members) {
      out[FileKey(m.file.disk_group, m.file.number)] =
          FileSlot{m.file.disk_group, m.file.number, m.file.name, g.size_bytes + g.block_size};
    }
  }
  return out;
}

absl::Status CheckEffect(const db::FileTable& before, const db::FileTable& after,
                         const DdlEffect& e) {
  auto fail = [&](const std::string& why) {
    return absl::InternalError(fmt::format("file table after '{}': {}\n  before: {}\n  after:  {}",
                                           e.sql, why, TableSummary(before), TableSummary(after)));
  };
  db::FileTable rest = after;     // `after` minus what the statement added
  db::FileTable expect = before;  // `before` minus what the statement dropped
  auto take_datafiles = [&](uint32_t ts_number) -> absl::Status {
    std::vector<db::DataFile> added;
    for (const db::DataFile& f : rest.data_files) {
      if (f.tablespace == ts_number && before.FindDataFile(f.file_number) == nullptr) {
        added.push_back(f);
      }
    }
    std::sort(added.begin(), added.end(), [](const db::DataFile& a, const db::DataFile& b) {
      return a.file_number < b.file_number;
    });
    if (added.size() != e.datafiles.size()) {
      return fail(fmt::format("{} new data files, {} expected", added.size(), e.datafiles.size()));
    }
    for (size_t i = 0; i < added.size(); ++i) {
      const db::DataFile& f = added[i];
      if (f.file.disk_group != e.datafiles[i].first || f.size_bytes != e.datafiles[i].second ||
          f.block_size != e.block_size || f.state != db::EntryState::kAvailable) {
        return fail(fmt::format("data file {} is {} {} bytes bs {} {}, expected {} {} bytes bs {}",
                                f.file_number, f.file.disk_group, f.size_bytes, f.block_size,
                                db::EntryStateName(f.state), e.datafiles[i].first,
                                e.datafiles[i].second, e.block_size));
      }
    }
    std::erase_if(rest.data_files, [&](const db::DataFile& f) {
      return f.tablespace == ts_number && before.FindDataFile(f.file_number) == nullptr;
    });
    return absl::OkStatus();
  };
  switch (e.kind) {
    case DdlEffect::kAddLog: {
      for (const DdlEffect::Group& g : e.groups) {
        auto it = std::find_if(rest.log_groups.begin(), rest.log_groups.end(),
                               [&](const db::LogGroup& x) { return x.group == g.group; });
        if (it == rest.log_groups.end()) return fail(fmt::format("group {} missing", g.group));
        bool ok = it->thread == e.thread && it->size_bytes == g.size &&
                  it->block_size == g.block_size && it->state == db::EntryState::kAvailable &&
                  it->members.size() == g.members.size();
        for (size_t m = 0; ok && m < g.members.size(); ++m) {
          ok = it->members[m].file.disk_group == g.members[m];
        }
        if (!ok) return fail(fmt::format("group {} is not as asked", g.group));
        rest.log_groups.erase(it);
      }
      const bool had_thread =
          std::any_of(before.threads.begin(), before.threads.end(),
                      [&](const db::LogThread& x) { return x.thread == e.thread; });
      if (!had_thread) {
        std::erase_if(rest.threads, [&](const db::LogThread& x) { return x.thread == e.thread; });
      }
      break;
    }
    case DdlEffect::kCreateTs: {
      const db::Tablespace* ts = rest.FindTablespace(e.tablespace);
      if (ts == nullptr || before.FindTablespace(e.tablespace) != nullptr) {
        return fail(fmt::format("tablespace {} not added", e.tablespace));
      }
      if (ts->block_size != e.block_size) return fail("tablespace block size");
      const uint32_t number = ts->number;
      std::erase_if(rest.tablespaces,
                    [&](const db::Tablespace& x) { return x.name == e.tablespace; });
      if (absl::Status st = take_datafiles(number); !st.ok()) return st;
      break;
    }
    case DdlEffect::kAddDatafile: {
      const db::Tablespace* ts = before.FindTablespace(e.tablespace);
      if (ts == nullptr) return fail(fmt::format("tablespace {} unknown", e.tablespace));
      if (absl::Status st = take_datafiles(ts->number); !st.ok()) return st;
      break;
    }
    case DdlEffect::kDropLog: {
      const db::LogGroup* g = before.FindLogGroup(e.drop_group);
      if (g == nullptr) return fail(fmt::format("group {} unknown", e.drop_group));
      const uint32_t thread = g->thread;
      std::erase_if(expect.log_groups,
                    [&](const db::LogGroup& x) { return x.group == e.drop_group; });
      // The thread goes with its last group.
      if (std::none_of(expect.log_groups.begin(), expect.log_groups.end(),
                       [&](const db::LogGroup& x) { return x.thread == thread; })) {
        std::erase_if(expect.threads, [&](const db::LogThread& x) { return x.thread == thread; });
      }
      break;
    }
    case DdlEffect::kDropTs: {
      const db::Tablespace* ts = before.FindTablespace(e.tablespace);
      if (ts == nullptr) return fail(fmt::format("tablespace {} unknown", e.tablespace));
      const uint32_t number = ts->number;
      std::erase_if(expect.data_files,
                    [&](const db::DataFile& f) { return f.tablespace == number; });
      std::erase_if(expect.tablespaces,
                    [&](const db::Tablespace& x) { return x.number == number; });
      break;
    }
  }
  if (!(rest == expect)) return fail("other entries differ");
  return absl::OkStatus();
}

}  // namespace cellsim::reliability
