// FormatRange: the cell-side halves of smart file creation (the cell writes the
// generated blocks to its grid disk, bypassing the cache) and fast data file
// creation (write-back only: one kTemplateAdd record per range, no data).
// A call syncs the flash once, whatever the number of its groups.
//
// The fast path keeps templates page-aligned: a range that starts or ends
// inside a 4 KiB page has those sub-page edges generated and written through
// the cache's write path (a few hundred bytes), the aligned middle becomes the
// template range.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "cellsim/cell/cell_impl.h"

namespace cellsim::cell::internal {

absl::Status CellImpl::FormatRange(absl::Span<FormatRangeRequest> requests,
                                   CellIoStats* stats) {
  if (absl::Status s = CheckOpen(); !s.ok()) return s;
  ReaderMutexLock mode_lock(&mode_mu_);
  const FlashCacheMode mode = mode_.load();
  CellIoStats local;
  std::vector<RangeLocks::Range> ranges;
  ranges.reserve(requests.size());
  std::vector<bool> fast(requests.size(), false);
  size_t reserved = 0;
  {
    MutexLock l(&state_mu_);
    reserved = ChooseFormatPathsLocked(requests, mode, &fast, &ranges);
  }
  struct Unreserve {
    CellImpl* cell;
    size_t n;
    ~Unreserve() {
      MutexLock l(&cell->state_mu_);
      cell->template_reserved_ -= n;
    }
  } unreserve{this, reserved};
  RangeLocks::Guard guard;
  if (!ranges.empty()) guard = locks_.Acquire(std::move(ranges));

  // Groups of consecutive same-path requests keep batch order for overlapping
  // re-formats while batching everything else: smart requests on disjoint
  // lines; fast requests on disjoint bytes (their edges are split further
  // by line in WriteSubPageEdges, and edges of one page merged, so a new
  // file's block 0 and its next range are one group).
  std::vector<size_t> group;
  bool group_fast = false;
  SpanSet group_lines;
  std::vector<size_t> appended;  // fast requests whose records wait for the sync
  auto run_group = [&] {
    if (group.empty()) return;
    if (group_fast) {
      FormatFastGroup(requests, group, &local, &appended);
    } else {
      FormatSmartGroup(requests, group, &local);
    }
    group.clear();
    group_lines.Clear();
  };
  for (size_t i = 0; i < requests.size(); ++i) {
    const FormatRangeRequest& r = requests[i];
    if (!r.status.ok()) continue;
    const RangeLocks::Range lr = fast[i]
                                     ? RangeLocks::Range{r.grid_disk, r.offset, r.offset + r.length}
                                     : LineRange(r.grid_disk, r.offset, r.length);
    if (!group.empty() && (group_lines.Overlaps(lr) || group_fast != fast[i])) run_group();
    group_fast = fast[i];
    group.push_back(i);
    group_lines.Add(lr);
  }
  run_group();
  // One sync makes every group's edges and templates durable (a re-format
  // overlapping an earlier request of the call makes a second group: still
  // one sync). Nothing is reported formatted before it.
  if (!appended.empty()) {
    const absl::Status s = meta_->Sync(state_.get(), &state_mu_);
    for (size_t i : appended) {
      FormatRangeRequest& r = requests[i];
      r.status = s;
      if (s.ok()) {
        r.metadata_only = true;
        local.bytes_saved_by_creation += r.length;
      }
    }
  }
  if (stats != nullptr) *stats += local;
  KickCleanerIfNeeded();
  for (const FormatRangeRequest& r : requests) {
    if (!r.status.ok()) return r.status;
  }
  return absl::OkStatus();
}

// Template slots are reserved before any work, under state_mu_, so that
// concurrent calls can never together exceed max_template_ranges (the
// checkpoint is sized for it). A new range takes one slot, or two when it may
// split an existing template (or one added earlier in this call) in two.
size_t CellImpl::ChooseFormatPathsLocked(absl::Span<FormatRangeRequest> requests,
                                         FlashCacheMode mode, std::vector<bool>* fast,
                                         std::vector<RangeLocks::Range>* ranges) {
  size_t reserved = 0;
  SpanSet call_templates;
  for (size_t i = 0; i < requests.size(); ++i) {
    FormatRangeRequest& r = requests[i];
    r.metadata_only = false;
    r.status = ValidateIo(r.grid_disk, r.offset, r.length, "format range");
    if (r.status.ok()) r.status = r.block_template.Validate();
    if (!r.status.ok()) continue;
    const RangeLocks::Range lr = LineRange(r.grid_disk, r.offset, r.length);
    const size_t need =
        state_->AnyTemplate(r.grid_disk, r.offset, r.length) || call_templates.Overlaps(lr) ? 2
                                                                                             : 1;
    const size_t used = state_->template_count() + template_reserved_;
    const bool room = used + need <= config_.max_template_ranges;
    switch (r.method) {
      case FormatMethod::kWriteBlocks:
        break;
      case FormatMethod::kAuto:
        // No room for more templates: the smart path (reported through
        // metadata_only = false, never silently).
        (*fast)[i] = mode == FlashCacheMode::kWriteBack && Cached(r.grid_disk) && room;
        break;
      case FormatMethod::kMetadataOnly:
        if (mode != FlashCacheMode::kWriteBack) {
          r.status = absl::FailedPreconditionError(fmt::format(
              "cell {}: fast data file creation (metadata-only format) needs flashCacheMode="
              "WriteBack; the cell is in {}",
              config_.name, FlashCacheModeName(mode)));
        } else if (!Cached(r.grid_disk)) {
          r.status = absl::FailedPreconditionError(fmt::format(
              "cell {}: fast data file creation (metadata-only format) needs the flash cache; "
              "grid disk {} has cachingPolicy=none",
              config_.name, GridDiskName(r.grid_disk)));
        } else if (!room) {
          r.status = absl::FailedPreconditionError(fmt::format(
              "cell {}: flash metadata has room for {} fast-creation ranges and {} are in use "
              "or being added; this range needs {} more: flush the flash cache or use smart "
              "creation",
              config_.name, config_.max_template_ranges, used, need));
        } else {
          (*fast)[i] = true;
        }
        break;
    }
    if ((*fast)[i]) {
      template_reserved_ += need;
      reserved += need;
      call_templates.Add(lr);
    }
    if (r.status.ok()) ranges->push_back(lr);
  }
  return reserved;
}

void CellImpl::FormatFastGroup(absl::Span<FormatRangeRequest> requests,
                               const std::vector<size_t>& group, CellIoStats* stats,
                               std::vector<size_t>* appended) {
  // Sub-page edges through the cache's write path, before the template (the
  // template never covers them, so the order is free; doing them first keeps
  // the edge write from generating the new template's pages).
  WriteSubPageEdges(requests, group, stats);
  std::vector<Record> records;
  records.reserve(group.size());
  for (size_t i : group) {
    const FormatRangeRequest& r = requests[i];
    if (!r.status.ok()) continue;
    const uint64_t a = io::AlignUp(r.offset, kPage);
    const uint64_t b = io::AlignDown(r.offset + r.length, kPage);
    if (a < b) {
      records.push_back({.type = RecordType::kTemplateAdd, .disk = r.grid_disk, .offset = a,
                         .length = b - a, .tmpl = r.block_template,
                         .file_offset = r.file_offset + (a - r.offset)});
    }
  }
  // One chunk for the whole group (unsynced: FormatRange's sync covers it
  // and the edges' chunks written before it, as replay keeps chunks in order).
  const absl::Status s = Append(records, /*sync=*/false, stats);
  for (size_t i : group) {
    FormatRangeRequest& r = requests[i];
    if (!r.status.ok()) continue;
    if (s.ok()) {
      appended->push_back(i);
    } else {
      r.status = s;
    }
  }
}

void CellImpl::WriteSubPageEdges(absl::Span<FormatRangeRequest> requests,
                                 const std::vector<size_t>& group, CellIoStats* stats) {
  std::vector<SubPageEdge> edges;
  for (size_t i : group) {
    const FormatRangeRequest& r = requests[i];
    const uint64_t end = r.offset + r.length;
    const uint64_t a = io::AlignUp(r.offset, kPage), b = io::AlignDown(end, kPage);
    if (a == r.offset && b == end && a < b) continue;  // page-aligned: no edges (the usual AU)
    std::vector<std::pair<uint64_t, uint64_t>> pieces;
    if (a >= b) {
      pieces.push_back({r.offset, end});
    } else {
      if (r.offset < a) pieces.push_back({r.offset, a});
      if (b < end) pieces.push_back({b, end});
    }
    for (auto [x, y] : pieces) {
      SubPageEdge& e = edges.emplace_back();
      e.disk = r.grid_disk;
      e.offset = x;
      e.data.resize(y - x);
      format::GenerateRange(r.block_template, r.file_offset + (x - r.offset),
                            absl::MakeSpan(e.data));
      e.owners.push_back(i);
    }
  }
  MergeEdgesOfOnePage(&edges);
  std::vector<WriteRequest> edge_writes;
  edge_writes.reserve(edges.size());
  for (const SubPageEdge& e : edges) {
    edge_writes.push_back({.grid_disk = e.disk, .offset = e.offset, .data = e.data});
  }
  // Edges in groups of disjoint lines (one journal chunk each, unsynced):
  // an edge goes into the group after the last one holding an edge of its
  // lines (two edges of one range may share a line, and keep their order),
  // so the edges of many ranges cost two groups, not one each.
  std::vector<std::vector<WriteRequest*>> groups;
  std::vector<SpanSet> group_lines;
  for (WriteRequest& w : edge_writes) {
    const RangeLocks::Range lr = LineRange(w.grid_disk, w.offset, w.data.size());
    size_t g = groups.size();  // becomes: one past the last group it overlaps
    while (g > 0 && !group_lines[g - 1].Overlaps(lr)) --g;
    if (g == groups.size()) {
      groups.emplace_back();
      group_lines.emplace_back();
    }
    groups[g].push_back(&w);
    group_lines[g].Add(lr);
  }
  for (std::vector<WriteRequest*>& g : groups) {
    CellIoStats edge_stats;  // internal writes: not the database's flash writes
    CacheWriteGroupLocked(absl::MakeSpan(g), &edge_stats, /*sync=*/false);
    stats->flash_bytes_written += edge_stats.flash_bytes_written;
    stats->metadata_bytes_written += edge_stats.metadata_bytes_written;
  }
  for (size_t k = 0; k < edge_writes.size(); ++k) {
    if (edge_writes[k].status.ok()) continue;
    for (size_t owner : edges[k].owners) {
      if (requests[owner].status.ok()) requests[owner].status = edge_writes[k].status;
    }
  }
}

void CellImpl::MergeEdgesOfOnePage(std::vector<SubPageEdge>* edges) {
  // Pieces inside one page, by page, in batch order.
  std::map<std::pair<uint32_t, uint64_t>, std::vector<size_t>> by_page;
  for (size_t k = 0; k < edges->size(); ++k) {
    const SubPageEdge& e = (*edges)[k];
    const uint64_t page = io::AlignDown(e.offset, kPage);
    if (e.offset + e.data.size() <= page + kPage) by_page[{e.disk, page}].push_back(k);
  }
  std::vector<bool> merged_away(edges->size(), false);
  for (const auto& [key, pieces] : by_page) {
    if (pieces.size() < 2) continue;
    const auto [disk, page] = key;
    // The page's current bytes (the range locks of the call cover it), then
    // the pieces over them in batch order.
    io::AlignedBuffer buf(kPage);
    FillPlan plan;
    absl::Status s;
    {
      MutexLock l(&state_mu_);
      s = PlanFillLocked(disk, page, kPage, buf.data(), &plan);
    }
    if (!s.ok()) continue;  // e.g. a lost page: the pieces go on their own and fail there
    RunGens(plan.gens);
    if (!SubmitBatch(&plan.io).ok()) continue;
    SubPageEdge& first = (*edges)[pieces[0]];
    for (size_t k : pieces) {
      SubPageEdge& e = (*edges)[k];
      std::memcpy(buf.data() + (e.offset - page), e.data.data(), e.data.size());
      if (k == pieces[0]) continue;
      first.owners.insert(first.owners.end(), e.owners.begin(), e.owners.end());
      merged_away[k] = true;
    }
    first.offset = page;
    first.data.assign(buf.data(), buf.data() + kPage);
  }
  if (std::find(merged_away.begin(), merged_away.end(), true) == merged_away.end()) return;
  size_t out = 0;
  for (size_t k = 0; k < edges->size(); ++k) {
    if (merged_away[k]) continue;
    if (out != k) (*edges)[out] = std::move((*edges)[k]);
    ++out;
  }
  edges->resize(out);
}

void CellImpl::FormatSmartGroup(absl::Span<FormatRangeRequest> requests,
                                const std::vector<size_t>& group, CellIoStats* stats) {
  std::vector<DiskSpan> spans;
  for (size_t i : group) {
    FormatRangeRequest& r = requests[i];
    spans.push_back(TemplateSpan(r.grid_disk, r.offset, r.length, r.block_template,
                                 r.file_offset, &r.status));
  }
  (void)DiskWriteLocked(spans, stats);
  for (size_t i : group) {
    if (requests[i].status.ok()) stats->bytes_saved_by_creation += requests[i].length;
  }
}

}  // namespace cellsim::cell::internal
