#include "bench/counting_backend.h"

#include <algorithm>

namespace cellsim::bench {

FileClass ClassifyPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
  if (dir.size() >= 4 && dir.compare(dir.size() - 4, 4, "/asm") == 0) return FileClass::kAsmMeta;
  if (base == "flash.img") return FileClass::kFlash;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".img") == 0) {
    return FileClass::kGridDisk;
  }
  return FileClass::kOther;
}

IoTally IoTally::operator-(const IoTally& o) const {
  IoTally r;
  for (size_t i = 0; i < kFileClassCount; ++i) {
    const ClassCounts& a = by_class[i];
    const ClassCounts& b = o.by_class[i];
    r.by_class[i] = {a.writes - b.writes, a.write_bytes - b.write_bytes, a.reads - b.reads,
                     a.read_bytes - b.read_bytes, a.syncs - b.syncs,
                     a.write_busy_ns - b.write_busy_ns};
  }
  r.flash_meta_write_bytes = flash_meta_write_bytes - o.flash_meta_write_bytes;
  r.flash_data_write_bytes = flash_data_write_bytes - o.flash_data_write_bytes;
  return r;
}

IoTally& IoTally::operator+=(const IoTally& o) {
  for (size_t i = 0; i < kFileClassCount; ++i) {
    ClassCounts& a = by_class[i];
    const ClassCounts& b = o.by_class[i];
    a.writes += b.writes;
    a.write_bytes += b.write_bytes;
    a.reads += b.reads;
    a.read_bytes += b.read_bytes;
    a.syncs += b.syncs;
    a.write_busy_ns += b.write_busy_ns;
  }
  flash_meta_write_bytes += o.flash_meta_write_bytes;
  flash_data_write_bytes += o.flash_data_write_bytes;
  return *this;
}

CountingBackend::CountingBackend(std::unique_ptr<io::IoBackend> inner)
    : io::IoBackendWrapper(std::move(inner)) {}

void CountingBackend::SetFlashDataStart(const std::string& path, uint64_t data_start) {
  WriterMutexLock l(&mu_);
  flash_starts_[path] = data_start;
  for (auto& [handle, f] : files_) {
    if (f->path == path) f->data_start.store(data_start, std::memory_order_relaxed);
  }
}

IoTally CountingBackend::Tally() const {
  IoTally t;
  for (size_t i = 0; i < kFileClassCount; ++i) {
    const AtomicCounts& c = counts_[i];
    t.by_class[i] = {c.writes.load(), c.write_bytes.load(), c.reads.load(), c.read_bytes.load(),
                     c.syncs.load(), c.write_busy_ns.load()};
  }
  t.flash_meta_write_bytes = flash_meta_.load();
  t.flash_data_write_bytes = flash_data_.load();
  return t;
}

absl::StatusOr<io::FileHandle> CountingBackend::Open(const std::string& path,
                                                     const io::OpenOptions& options) {
  absl::StatusOr<io::FileHandle> h = target()->Open(path, options);
  if (!h.ok()) return h;
  auto f = std::make_shared<File>();
  f->cls = ClassifyPath(path);
  f->path = path;
  WriterMutexLock l(&mu_);
  if (auto it = flash_starts_.find(path); it != flash_starts_.end()) {
    f->data_start.store(it->second, std::memory_order_relaxed);
  }
  files_[*h] = std::move(f);
  return h;
}

absl::Status CountingBackend::Close(io::FileHandle file) {
  {
    WriterMutexLock l(&mu_);
    files_.erase(file);
  }
  return target()->Close(file);
}

std::shared_ptr<CountingBackend::File> CountingBackend::Find(io::FileHandle file) const {
  ReaderMutexLock l(&mu_);
  auto it = files_.find(file);
  return it == files_.end() ? nullptr : it->second;
}

void CountingBackend::Count(const io::IoRequest& r, const File* f) {
  if (!r.status.ok() || r.transferred == 0) return;
  const FileClass cls = f != nullptr ? f->cls : FileClass::kOther;
  AtomicCounts& c = counts_[static_cast<size_t>(cls)];
  if (r.op == io::IoOp::kWrite) {
    c.writes.fetch_add(1, std::memory_order_relaxed);
    c.write_bytes.fetch_add(r.transferred, std::memory_order_relaxed);
    c.write_busy_ns.fetch_add(r.latency_ns, std::memory_order_relaxed);
    if (cls == FileClass::kFlash) {
      const uint64_t start = f->data_start.load(std::memory_order_relaxed);
      const uint64_t end = r.offset + r.transferred;
      const uint64_t meta = r.offset >= start ? 0 : std::min(end, start) - r.offset;
      flash_meta_.fetch_add(meta, std::memory_order_relaxed);
      flash_data_.fetch_add(r.transferred - meta, std::memory_order_relaxed);
    }
  } else {
    c.reads.fetch_add(1, std::memory_order_relaxed);
    c.read_bytes.fetch_add(r.transferred, std::memory_order_relaxed);
  }
}

absl::Status CountingBackend::Submit(absl::Span<io::IoRequest> requests) {
  absl::Status s = target()->Submit(requests);
  io::FileHandle last = io::kInvalidFile;
  std::shared_ptr<File> f;
  for (const io::IoRequest& r : requests) {
    if (r.file != last) {
      f = Find(r.file);
      last = r.file;
    }
    Count(r, f.get());
  }
  return s;
}

absl::Status CountingBackend::SubmitStream(absl::FunctionRef<bool(io::IoRequest&)> next,
                                           absl::FunctionRef<void(io::IoRequest&)> on_complete) {
  io::FileHandle last = io::kInvalidFile;
  std::shared_ptr<File> f;
  auto done = [&](io::IoRequest& r) {
    if (r.file != last) {
      f = Find(r.file);
      last = r.file;
    }
    Count(r, f.get());
    on_complete(r);
  };
  return target()->SubmitStream(next, done);
}

absl::Status CountingBackend::Sync(io::FileHandle file, io::SyncKind kind) {
  absl::Status s = target()->Sync(file, kind);
  if (s.ok()) {
    std::shared_ptr<File> f = Find(file);
    const FileClass cls = f != nullptr ? f->cls : FileClass::kOther;
    counts_[static_cast<size_t>(cls)].syncs.fetch_add(1, std::memory_order_relaxed);
  }
  return s;
}

}  // namespace cellsim::bench
