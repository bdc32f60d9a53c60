#include "cellsim/cell/journal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "absl/strings/strip.h"

namespace cellsim::cell::internal {
namespace {

absl::Status WriteBytes(io::BlockFile* f, uint64_t offset, absl::Span<const uint8_t> bytes) {
  // Copy into an aligned, page-padded buffer: O_DIRECT needs both.
  io::AlignedBuffer buf(io::AlignUp(bytes.size(), kPage));
  std::memcpy(buf.data(), bytes.data(), bytes.size());
  return f->Write(offset, buf.span());
}

absl::StatusOr<io::AlignedBuffer> ReadBytes(io::BlockFile* f, uint64_t offset, uint64_t length) {
  io::AlignedBuffer buf(io::AlignUp(length, kPage));
  if (absl::Status s = f->Read(offset, buf.span()); !s.ok()) return s;
  return buf;
}

// Writes `sb` to copy A, syncs, then to copy B, syncs: copy A is never older
// than copy B, and B holds at least every acknowledged superblock, so whichever
// copy is valid is current and a damaged one is repaired from it.
absl::Status WriteSuperblocks(io::BlockFile* flash, const FlashLayout& layout,
                              const Superblock& sb) {
  io::AlignedBuffer page(kPage);
  EncodeSuperblock(sb, page.span());
  for (uint64_t offset : layout.superblock_offset) {
    if (absl::Status s = flash->Write(offset, page.span()); !s.ok()) return s;
    if (absl::Status s = flash->Sync(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetadataStore>> MetadataStore::Format(
    io::BlockFile* flash, const FlashLayout& layout, const CellConfig& config,
    int64_t creation_time_unix) {
  std::vector<uint8_t> ckpt;
  EncodeCheckpoint(CheckpointImage{}, &ckpt);
  if (absl::Status s = WriteBytes(flash, layout.checkpoint_offset[0], ckpt); !s.ok()) return s;
  if (absl::Status s = flash->Sync(); !s.ok()) return s;
  Superblock sb{.generation = 1, .epoch = 1, .journal_first_seq = 1, .checkpoint_area = 0,
                .checkpoint_length = ckpt.size(), .checkpoint_checksum = Checksum64(ckpt),
                .creation_time_unix = creation_time_unix, .config = config};
  if (absl::Status s = WriteSuperblocks(flash, layout, sb); !s.ok()) return s;
  auto store = std::unique_ptr<MetadataStore>(new MetadataStore(flash, sb));
  {
    MutexLock l(&store->mu_);  // not shared yet; keeps every guarded write under it
    store->layout_ = layout;
    store->next_seq_ = store->synced_seq_ = 1;
  }
  return store;
}

absl::StatusOr<std::unique_ptr<MetadataStore>> MetadataStore::Load(io::BlockFile* flash) {
  if (flash->size_bytes() < 2 * kPage) {
    return absl::DataLossError(fmt::format(
        "flash device {}: {} bytes cannot hold the two superblock copies", flash->path(),
        flash->size_bytes()));
  }
  auto pages = ReadBytes(flash, 0, 2 * kPage);
  if (!pages.ok()) return pages.status();
  absl::StatusOr<Superblock> a = DecodeSuperblock(pages->span().subspan(0, kPage), 'A');
  absl::StatusOr<Superblock> b = DecodeSuperblock(pages->span().subspan(kPage, kPage), 'B');
  // A copy of a newer format means a newer cellsim wrote the newest metadata:
  // the other copy is stale, so refuse rather than fall back to it.
  for (const absl::StatusOr<Superblock>* sb : {&a, &b}) {
    if (sb->status().code() == absl::StatusCode::kFailedPrecondition) {
      return absl::FailedPreconditionError(fmt::format(
          "flash device {}: {}; upgrade cellsim to open this cell", flash->path(),
          std::string(sb->status().message())));
    }
  }
  if (!a.ok() && !b.ok()) {
    return absl::DataLossError(fmt::format(
        "flash device {}: no valid metadata superblock ({}; {}); the cell cannot be opened",
        flash->path(), std::string(a.status().message()), std::string(b.status().message())));
  }
  Superblock sb = !a.ok() ? *b : !b.ok() ? *a : (a->generation > b->generation ? *a : *b);
  auto store = std::unique_ptr<MetadataStore>(new MetadataStore(flash, std::move(sb)));
  {
    MutexLock l(&store->mu_);  // not shared yet; keeps every guarded write under it
    for (const absl::StatusOr<Superblock>* copy : {&a, &b}) {
      if (copy->ok() && (*copy)->generation == store->sb_.generation) continue;
      const char which = copy == &a ? 'A' : 'B';
      // The decoder's reason without its "flash superblock copy X: " prefix.
      absl::string_view why = copy->status().message();
      absl::ConsumePrefix(&why, fmt::format("flash superblock copy {}: ", which));
      store->superblock_repair_ = {
          .which = which,
          .state = copy->ok() ? fmt::format("at generation {}", (*copy)->generation)
                              : fmt::format("damaged ({})", std::string(why))};
    }
  }
  return store;
}

absl::Status MetadataStore::Recover(CacheState* state, RecoveryInfo* info, bool repair) {
  MutexLock l(&mu_);
  if (sb_.checkpoint_length > layout_.checkpoint_bytes) {
    return absl::DataLossError(fmt::format(
        "flash device {}: checkpoint length {} exceeds its area of {} bytes", flash_->path(),
        sb_.checkpoint_length, layout_.checkpoint_bytes));
  }
  auto ck = ReadBytes(flash_, layout_.checkpoint_offset[sb_.checkpoint_area],
                      sb_.checkpoint_length);
  if (!ck.ok()) return ck.status();
  absl::Span<const uint8_t> ckbytes = ck->span().subspan(0, sb_.checkpoint_length);
  if (Checksum64(ckbytes) != sb_.checkpoint_checksum) {
    return absl::DataLossError(fmt::format(
        "flash device {}: checkpoint area {} (generation {}): checksum mismatch; the cache "
        "directory is damaged and the cell cannot be opened without losing dirty data",
        flash_->path(), sb_.checkpoint_area, sb_.generation));
  }
  absl::StatusOr<CheckpointImage> img = DecodeCheckpoint(ckbytes);
  if (!img.ok()) return img.status();
  if (absl::Status s = state->LoadCheckpoint(*img); !s.ok()) return s;
  recovered_counters_ = img->counters;

  auto jr = ReadBytes(flash_, layout_.journal_offset, layout_.journal_bytes);
  if (!jr.ok()) return jr.status();
  absl::Span<const uint8_t> j = jr->span().subspan(0, layout_.journal_bytes);
  if (IsNewerChunk(j, sb_.epoch)) {
    return absl::DataLossError(fmt::format(
        "flash device {}: the journal holds records of a newer epoch than superblock generation "
        "{} (epoch {}): the newest superblock copy is damaged; refusing to open with older "
        "metadata",
        flash_->path(), sb_.generation, sb_.epoch));
  }
  uint64_t pos = 0, seq = sb_.journal_first_seq;
  std::vector<Record> records;
  std::vector<absl::Span<const uint8_t>> data;
  std::vector<RedoPage> redo;
  while (pos < j.size()) {
    records.clear();
    data.clear();
    uint64_t bytes = 0;
    if (!DecodeChunk(j.subspan(pos), sb_.epoch, seq, &records, &bytes, &data)) break;
    CollectRedo(seq, records, data, &redo);
    for (const Record& r : records) {
      if (r.type == RecordType::kCounter) {
        if (r.disk >= kMaxCounters) {
          return absl::DataLossError(fmt::format(
              "flash device {}: journal chunk {} at offset {}: counter index {} out of range",
              flash_->path(), seq, pos, r.disk));
        }
        if (recovered_counters_.size() <= r.disk) recovered_counters_.resize(r.disk + 1);
        recovered_counters_[r.disk] = r.offset;
        continue;
      }
      if (absl::Status s = state->Apply(r, seq); !s.ok()) {
        return absl::DataLossError(fmt::format("flash device {}: journal chunk {} at offset {}: {}",
                                               flash_->path(), seq, pos, std::string(s.message())));
      }
    }
    info->chunks_replayed++;
    info->records_replayed += records.size();
    pos += bytes;
    ++seq;
  }
  if (pos < j.size()) {
    if (IsDamagedWholePageChunk(j.subspan(pos), sb_.epoch, seq)) {
      return absl::DataLossError(fmt::format(
          "flash device {}: journal chunk {} at offset {} fails its checksum although its "
          "one-page write was whole: the journal is damaged (not a torn tail)",
          flash_->path(), seq, pos));
    }
    for (uint64_t p = pos + kPage; p + kChunkHeaderBytes <= j.size(); p += kPage) {
      // A later chunk written after this one's sync: this one was whole once.
      // (A later chunk that does not say so was written before that sync
      // completed: the disk may keep it and lose this one; neither was
      // acknowledged.)
      if (LaterChunkShowsSynced(j.subspan(p), sb_.epoch, seq)) {
        return absl::DataLossError(fmt::format(
            "flash device {}: journal chunk {} at offset {} is corrupt but a later chunk "
            "follows at offset {}: the journal is damaged (not a torn tail)",
            flash_->path(), seq, pos, p));
      }
    }
    const absl::Span<const uint8_t> tail = j.subspan(pos, std::min<uint64_t>(kPage, j.size() - pos));
    info->torn_tail_dropped =
        std::any_of(tail.begin(), tail.end(), [](uint8_t v) { return v != 0; }) &&
        // Chunks of older epochs are expected leftovers, not a torn write.
        !IsStaleChunk(tail, sb_.epoch);
  }
  if (absl::Status s = Redo(redo, repair); !s.ok()) return s;
  // Writers keep the directory consistent only at chunk boundaries (a write
  // into a fast-created range logs kLineSet before its kTemplateTrim), so the
  // replayed records are checked as a whole: a journal whose checksums hold
  // but whose records contradict each other is damage, not a state to run on.
  if (absl::Status s = state->CheckInvariants(); !s.ok()) {
    return absl::DataLossError(fmt::format(
        "flash device {}: the replayed metadata is inconsistent ({}); the journal is damaged",
        flash_->path(), std::string(s.message())));
  }
  state->MarkSynced(UINT64_MAX);
  stored_counters_ = recovered_counters_;
  tail_ = pos;
  next_seq_ = synced_seq_ = seq;
  if (superblock_repair_.which != 0 && repair) {
    // The metadata it describes replayed: make both copies hold it again.
    if (absl::Status s = WriteSuperblocks(flash_, layout_, sb_); !s.ok()) return s;
    info->superblock_note =
        fmt::format("flash superblock copy {} of {} was {}; rewritten from generation {}",
                    superblock_repair_.which, flash_->path(), superblock_repair_.state,
                    sb_.generation);
    superblock_repair_ = {};
  } else if (superblock_repair_.which != 0) {
    info->superblock_note = fmt::format(
        "flash superblock copy {} of {} is {}; read copy {} (generation {}) instead",
        superblock_repair_.which, flash_->path(), superblock_repair_.state,
        superblock_repair_.which == 'A' ? 'B' : 'A', sb_.generation);
  }
  return absl::OkStatus();
}

void MetadataStore::CollectRedo(uint64_t seq, const std::vector<Record>& records,
                                const std::vector<absl::Span<const uint8_t>>& data,
                                std::vector<RedoPage>* redo) {
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.type == RecordType::kDurable) {
      // Chunks below r.offset were synced: their slot pages are on flash
      // (and may since have been overwritten there).
      std::erase_if(*redo, [&](const RedoPage& p) { return p.seq < r.offset; });
    } else if (r.type == RecordType::kLineData) {
      size_t k = 0;
      for (uint32_t p = 0; p < 64; ++p) {
        if ((r.data_mask >> p & 1) == 0) continue;
        redo->push_back({seq, layout_.SlotOffset(r.slot) + p * kPage,
                         data[i].data() + k++ * kPage});
      }
    }
  }
}

absl::Status MetadataStore::Redo(const std::vector<RedoPage>& redo, bool repair) {
  // The pages of chunks not known durable: their sync may not have completed,
  // so their slot writes may be missing. Written in journal order (the last
  // write of a slot page wins); the checkpoint that follows at Open makes them
  // durable before the journal restarts.
  std::map<uint64_t, const uint8_t*> last;
  for (const RedoPage& p : redo) last[p.slot_offset] = p.page;
  std::vector<io::IoRequest> io;
  io::AlignedBuffer check(kPage);
  for (const auto& [at, page] : last) {
    if (repair) {
      io.push_back(io::MakeWrite(flash_->handle(), at, page, kPage));
      continue;
    }
    if (absl::Status s = flash_->Read(at, check.span()); !s.ok()) return s;
    if (std::memcmp(check.data(), page, kPage) != 0) {
      return absl::FailedPreconditionError(fmt::format(
          "flash device {}: the journal holds cache data not yet in its slot at offset {} (a "
          "power loss before its sync completed); open the cell read-write once to replay it",
          flash_->path(), at));
    }
  }
  if (io.empty()) return absl::OkStatus();
  absl::Status s = flash_->io()->Submit(absl::MakeSpan(io));
  for (const io::IoRequest& q : io) s.Update(q.status);
  if (s.ok()) s = flash_->Sync();
  return s;
}

absl::Status MetadataStore::SyncAll(CacheState* state, Mutex* state_mu) {
  return SyncImpl(state, state_mu, /*always=*/true);
}

absl::Status MetadataStore::Failed(absl::Status s) {
  // Later callers get the cause's code: a flash that failed a write (EIO)
  // fails every later request the same way, so ASM treats them all as the
  // failed device they are (taking the disk offline), never as a refusal of a
  // working cell; a full filesystem stays "out of space".
  failed_ = absl::Status(s.code(), fmt::format(
      "flash metadata of {} failed earlier ({}); reopen the cell to recover", flash_->path(),
      std::string(s.message())));
  return s;
}

absl::Status MetadataStore::Append(const std::vector<Record>& records, bool sync,
                                   CacheState* state, Mutex* state_mu) {
  if (records.empty()) {
    MutexLock l(&mu_);
    return failed_;
  }
  PendingAppend me;
  me.records = &records;
  me.sync = sync;
  {
    MutexLock q(&queue_mu_);
    queue_.push_back(&me);
  }
  for (;;) {
    {
      MutexLock q(&queue_mu_);
      while (!me.done && leader_) queue_cv_.Wait(&queue_mu_);
      if (me.done) return me.status;
      leader_ = true;
    }
    LeadGroup(state, state_mu);
  }
}

void MetadataStore::LeadGroup(CacheState* state, Mutex* state_mu) {
  // Write early, sync late: the leader writes what is queued as one chunk at
  // once; writers that queue while it is written go in the next chunk, and so
  // on while new ones keep arriving during a write; then one sync makes every
  // chunk of the group durable and they are all acknowledged. (The writers
  // the last group released come back one by one within a write or two: a
  // leader that synced at once would lead a group of one while the others
  // queue behind its sync; one that waited for them would leave the device
  // idle. Chunks written one after another with one sync for all are what an
  // unsynced append followed by a synced one already is: replay takes chunks
  // in order up to the first torn one.)
  MutexLock l(&mu_);
  std::vector<PendingAppend*> group;
  size_t members = 0;
  bool sync = false;
  absl::Status s;
  for (int chunk = 0; chunk < kMaxGroupChunks; ++chunk) {
    const size_t first = group.size();
    {
      // The queued appends, in arrival order, while they fit half the journal
      // (one that needs more goes alone and fails or fits by itself).
      MutexLock q(&queue_mu_);
      uint64_t bytes = kPage, pages = 0;
      size_t n = 0;
      for (; n < queue_.size(); ++n) {
        const std::vector<Record>& r = *queue_[n]->records;
        const uint64_t p = ChunkDataPages(r);
        bytes += r.size() * 64 + p * kPage;
        pages += p;
        if (n > 0 && (bytes > layout_.journal_bytes / 2 || pages > kMaxChunkDataPages)) break;
      }
      group.insert(group.end(), queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
    }
    if (group.size() == first) break;
    // Reused: a fast creation's chunk holds thousands of records, and fresh
    // memory of that size would be faulted in page by page on every append.
    std::vector<Record>& records = group_records_;
    records.clear();
    size_t total = 1;
    for (size_t i = first; i < group.size(); ++i) total += group[i]->records->size();
    records.reserve(total);
    // Tell replay which chunks were synced (those below synced_seq_): they
    // need no redo, and one of them found torn is damage, not a torn write.
    records.push_back({.type = RecordType::kDurable, .offset = synced_seq_});
    for (size_t i = first; i < group.size(); ++i) {
      records.insert(records.end(), group[i]->records->begin(), group[i]->records->end());
      sync = sync || group[i]->sync;
    }
    s = AppendLocked(records, state, state_mu);
    if (!s.ok()) break;
    members += group.size() - first;
    // Appends that asked for no sync are done once written: the cleaner's
    // records need not wait for the writers' sync.
    const auto unsynced = std::stable_partition(
        group.begin() + static_cast<ptrdiff_t>(first), group.end(),
        [](const PendingAppend* p) { return p->sync; });
    if (unsynced != group.end()) {
      {
        MutexLock q(&queue_mu_);
        for (auto it = unsynced; it != group.end(); ++it) (*it)->done = true;
      }
      group.erase(unsynced, group.end());
      queue_cv_.SignalAll();
    }
  }
  if (s.ok() && sync) s = SyncLocked(state, state_mu);
  if (members > 0) appends_grouped_ += members - 1;
  MutexLock q(&queue_mu_);
  for (PendingAppend* p : group) {
    p->status = s;
    p->done = true;
  }
  leader_ = false;
  queue_cv_.SignalAll();
}

absl::Status MetadataStore::SyncLocked(CacheState* state, Mutex* state_mu) {
  if (absl::Status s = flash_->Sync(); !s.ok()) return Failed(s);
  ++syncs_;
  dirty_ = false;
  synced_seq_ = next_seq_;
  MutexLock sl(state_mu);
  state->MarkSynced(next_seq_ - 1);
  return absl::OkStatus();
}

absl::Status MetadataStore::AppendLocked(const std::vector<Record>& records, CacheState* state,
                                         Mutex* state_mu) {
  if (!failed_.ok()) return failed_;
  const uint64_t data_bytes = ChunkDataPages(records) * kPage;
  EncodeChunk(sb_.epoch, next_seq_, records, &head_);
  if (tail_ + head_.size() + data_bytes > layout_.journal_bytes) {
    if (absl::Status s = CheckpointLocked(state, state_mu, std::nullopt); !s.ok()) return s;
    EncodeChunk(sb_.epoch, next_seq_, records, &head_);
    if (head_.size() + data_bytes > layout_.journal_bytes ||
        ChunkDataPages(records) > kMaxChunkDataPages) {
      return absl::ResourceExhaustedError(fmt::format(
          "flash journal: a batch of {} records needs {} bytes, the journal holds {}; split "
          "the batch",
          records.size(), head_.size() + data_bytes, layout_.journal_bytes));
    }
  }
  if (absl::Status s = WriteChunkLocked(records); !s.ok()) return Failed(s);
  dirty_ = true;
  const uint64_t seq = next_seq_++;
  tail_ += head_.size() + data_bytes;
  ++chunks_appended_;
  MutexLock sl(state_mu);
  for (const Record& r : records) {
    if (absl::Status s = state->Apply(r, seq); !s.ok()) {
      return Failed(absl::InternalError(fmt::format("applying a journal record: {}",
                                                    std::string(s.message()))));
    }
  }
  return absl::OkStatus();
}

absl::Status MetadataStore::WriteChunkLocked(const std::vector<Record>& records) {
  // The head and its data pages go in one contiguous write (copied after the
  // head: one request instead of one per run of pages, which a device
  // completes sooner than many), and in the same submission the slot pages of
  // records that ask for it (the sync that follows makes both durable; if it
  // does not complete, replay rewrites the slot pages from the chunk).
  const uint64_t data_bytes = ChunkDataPages(records) * kPage;
  const uint64_t chunk_bytes = head_.size() + data_bytes;
  if (head_buf_.size() < chunk_bytes) head_buf_ = io::AlignedBuffer(chunk_bytes);
  std::memcpy(head_buf_.data(), head_.data(), head_.size());
  uint8_t* out = head_buf_.data() + head_.size();
  chunk_io_.clear();
  chunk_io_.push_back(io::MakeWrite(flash_->handle(), layout_.journal_offset + tail_,
                                    head_buf_.data(), chunk_bytes));
  for (const Record& r : records) {
    if (r.type != RecordType::kLineData) continue;
    for (uint32_t p = 0; p < 64;) {
      if ((r.data_mask >> p & 1) == 0) {
        ++p;
        continue;
      }
      uint32_t q = p;
      while (q < 64 && (r.data_mask >> q & 1)) ++q;
      const uint64_t len = (q - p) * kPage;
      std::memcpy(out, r.data + p * kPage, len);
      if (r.write_slot) {
        chunk_io_.push_back(io::MakeWrite(flash_->handle(), layout_.SlotOffset(r.slot) + p * kPage,
                                          r.data + p * kPage, len));
      }
      out += len;
      p = q;
    }
  }
  absl::Status s = flash_->io()->Submit(absl::MakeSpan(chunk_io_));
  for (const io::IoRequest& q : chunk_io_) {
    if (!s.ok()) break;
    s = q.status;
    if (s.ok() && q.transferred != q.length) {
      s = absl::DataLossError(fmt::format("flash journal of {}: short write at offset {}",
                                          flash_->path(), q.offset));
    }
  }
  return s;
}

absl::Status MetadataStore::Sync(CacheState* state, Mutex* state_mu) {
  return SyncImpl(state, state_mu, /*always=*/false);
}

absl::Status MetadataStore::SyncImpl(CacheState* state, Mutex* state_mu, bool always) {
  MutexLock l(&mu_);
  if (!failed_.ok()) return failed_;
  if (dirty_ || always) return SyncLocked(state, state_mu);
  synced_seq_ = next_seq_;
  MutexLock sl(state_mu);
  state->MarkSynced(next_seq_ - 1);
  return absl::OkStatus();
}

absl::Status MetadataStore::Checkpoint(CacheState* state, Mutex* state_mu,
                                       const std::optional<CellConfig>& new_config) {
  MutexLock l(&mu_);
  if (!failed_.ok()) return failed_;
  return CheckpointLocked(state, state_mu, new_config);
}

absl::Status MetadataStore::CheckpointLocked(CacheState* state, Mutex* state_mu,
                                             const std::optional<CellConfig>& new_config) {
  std::vector<uint8_t> ckpt;
  CheckpointImage image;
  {
    MutexLock sl(state_mu);
    image = state->Snapshot();
  }
  if (counters_source_) image.counters = counters_source_();
  EncodeCheckpoint(image, &ckpt);
  if (ckpt.size() > layout_.checkpoint_bytes && !image.counters.empty()) {
    // The area is sized for one entry per line of the whole device (the slots
    // are fewer), so this needs an exotic configuration: the directory wins,
    // the counters start again from zero at the next open.
    image.counters.clear();
    EncodeCheckpoint(image, &ckpt);
  }
  if (ckpt.size() > layout_.checkpoint_bytes) {
    return absl::ResourceExhaustedError(fmt::format(
        "flash checkpoint needs {} bytes, its area holds {}", ckpt.size(),
        layout_.checkpoint_bytes));
  }
  Superblock next = sb_;
  next.generation++;
  next.epoch++;
  next.journal_first_seq = next_seq_;
  next.checkpoint_area = 1 - sb_.checkpoint_area;
  next.checkpoint_length = ckpt.size();
  next.checkpoint_checksum = Checksum64(ckpt);
  if (new_config) next.config = *new_config;
  // The new checkpoint goes to the area the current superblock does not use;
  // until the new superblock is durable, the old one still describes a valid
  // checkpoint + journal.
  if (absl::Status s = WriteBytes(flash_, layout_.checkpoint_offset[next.checkpoint_area], ckpt);
      !s.ok()) {
    return Failed(s);
  }
  if (absl::Status s = flash_->Sync(); !s.ok()) return Failed(s);
  if (absl::Status s = WriteSuperblocks(flash_, layout_, next); !s.ok()) return Failed(s);
  syncs_ += 3;
  stored_counters_ = std::move(image.counters);
  sb_ = next;
  tail_ = 0;
  dirty_ = false;
  synced_seq_ = next_seq_;
  MutexLock sl(state_mu);
  state->MarkSynced(UINT64_MAX);
  return absl::OkStatus();
}

absl::Status MetadataStore::PersistCounters(CacheState* state, Mutex* state_mu) {
  std::vector<uint64_t> now;
  {
    MutexLock l(&mu_);
    if (!counters_source_) return absl::OkStatus();
    now = counters_source_();
    if (now == stored_counters_) return absl::OkStatus();
  }
  std::vector<Record> records;
  for (uint32_t i = 0; i < now.size() && i < kMaxCounters; ++i) {
    records.push_back({.type = RecordType::kCounter, .disk = i, .offset = now[i]});
  }
  if (absl::Status s = Append(records, /*sync=*/true, state, state_mu); !s.ok()) return s;
  MutexLock l(&mu_);
  stored_counters_ = now;
  return absl::OkStatus();
}

uint64_t MetadataStore::chunks_appended() const {
  MutexLock l(&mu_);
  return chunks_appended_;
}

uint64_t MetadataStore::syncs() const {
  MutexLock l(&mu_);
  return syncs_;
}

uint64_t MetadataStore::appends_grouped() const {
  MutexLock l(&mu_);
  return appends_grouped_;
}

}  // namespace cellsim::cell::internal
