#include "cellsim/db/accounting.h"

#include <algorithm>
#include <map>
#include <vector>

#include "cellsim/base/checksum.h"

namespace cellsim::db::internal {
namespace {

using stats::Stat;

constexpr uint8_t kOpFormatRange = 3;  // cellsim's iDB-like opcode of a format request

int64_t I(uint64_t v) { return static_cast<int64_t>(v); }

// Statistics the cells report back with every reply.
void AccountCell(Recorder& rec, const cell::CellIoStats& c) {
  rec.Add(Stat::kCellWritesToFlashCache, I(c.flash_cache_writes));
  rec.Add(Stat::kCellOverwritesInFlashCache, I(c.flash_cache_overwrites));
  rec.Add(Stat::kCellPartialWritesInFlashCache, I(c.flash_cache_partial_writes));
  rec.Add(Stat::kCellFlashCacheReadHits, I(c.flash_cache_read_hits));
}

}  // namespace

void AccountWrite(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t logical_requests,
                  uint64_t request_bytes) {
  const asmgr::AsmIoStats& io = r.io;
  rec.Add(Stat::kPhysicalWriteTotalIoRequests, I(io.cell_requests));
  rec.Add(Stat::kPhysicalWriteTotalBytes, I(io.cell_bytes));
  rec.Add(Stat::kPhysicalWriteTotalMultiBlockRequests, I(io.multi_block_requests));
  // A request the cell wrote entirely to flash was absorbed by the flash cache.
  const uint64_t optimized = std::min(io.cell.flash_cache_writes, io.cell_requests);
  rec.Add(Stat::kPhysicalWriteRequestsOptimized, I(optimized));
  rec.Add(Stat::kPhysicalWriteTotalBytesOptimized,
          I(std::min(optimized * request_bytes, io.cell_bytes)));
  rec.Add(Stat::kCellPhysicalIoInterconnectBytes, I(io.cell_bytes));
  rec.Add(Stat::kCellLogicalWriteIoRequests, I(logical_requests));
  AccountCell(rec, io.cell);
}

void AccountRead(Recorder& rec, const asmgr::AsmIoResult& r, uint64_t request_bytes) {
  const asmgr::AsmIoStats& io = r.io;
  rec.Add(Stat::kPhysicalReadTotalIoRequests, I(io.cell_requests));
  rec.Add(Stat::kPhysicalReadTotalBytes, I(io.cell_bytes));
  rec.Add(Stat::kPhysicalReadTotalMultiBlockRequests, I(io.multi_block_requests));
  const uint64_t hits = std::min(io.cell.flash_cache_read_hits, io.cell_requests);
  rec.Add(Stat::kPhysicalReadRequestsOptimized, I(hits));
  rec.Add(Stat::kPhysicalReadTotalBytesOptimized, I(std::min(hits * request_bytes, io.cell_bytes)));
  rec.Add(Stat::kCellPhysicalIoInterconnectBytes, I(io.cell_bytes));
  AccountCell(rec, io.cell);
  // ASM's repair of a copy that failed a read is carried in the same
  // AsmIoStats, so it counts here as read requests: rare (a media error) and
  // documented in docs/statistics.md.
}

uint64_t FormatExchangeBytes(const cell::FormatRangeRequest& request) {
  Encoder req;
  req.PutU8(kOpFormatRange);
  req.PutU32(request.grid_disk);
  req.PutU64(request.offset);
  req.PutU64(request.length);
  req.PutU64(request.file_offset);
  req.PutU8(static_cast<uint8_t>(request.method));
  request.block_template.EncodeTo(&req);
  Encoder reply;
  reply.PutU8(kOpFormatRange);
  reply.PutU32(static_cast<uint32_t>(request.status.code()));
  reply.PutU8(request.metadata_only ? 1 : 0);
  reply.PutString(std::string(request.status.message()));
  return req.size() + reply.size();
}

void AccountFormat(Recorder& rec, const asmgr::FormatResult& r,
                   const asmgr::FormatOptions& options, uint64_t au_size) {
  uint64_t bytes = 0, exchange = 0;
  for (const asmgr::FormatCopyResult& c : r.copies) {
    bytes += c.length;
    cell::FormatRangeRequest req;
    req.grid_disk = c.grid_disk;
    req.offset = c.disk_offset;
    req.length = c.length;
    req.block_template = options.block_template;
    req.file_offset = std::max(options.file_offset, uint64_t{c.extent} * au_size);
    req.method = options.method;
    req.status = c.status;
    req.metadata_only = c.metadata_only;
    exchange += FormatExchangeBytes(req);
  }
  const asmgr::AsmIoStats& io = r.result.io;
  rec.Add(Stat::kPhysicalWriteTotalIoRequests, I(r.copies.size()));
  rec.Add(Stat::kPhysicalWriteTotalBytes, I(bytes));
  rec.Add(Stat::kPhysicalWriteTotalMultiBlockRequests, I(io.multi_block_requests));
  rec.Add(Stat::kCellPhysicalIoBytesEligibleForPredicateOffload, I(bytes));
  rec.Add(Stat::kCellPhysicalIoBytesSavedDuringOptimizedFileCreation,
          I(io.cell.bytes_saved_by_creation));
  rec.Add(Stat::kCellPhysicalIoInterconnectBytes, I(exchange));
  AccountCell(rec, io.cell);
}

namespace {

// Reply times of one FormatFile call, relative to its start. FormatFile lists
// the copies of each cell in the order it sent them, so a cell's calls are
// consecutive runs of `requests_per_call` of its copies, run back to back.
void ReplyTimes(const asmgr::FormatResult& r, uint32_t requests_per_call,
                std::vector<uint64_t>* replies) {
  std::map<uint32_t, std::vector<uint64_t>> latencies;  // per cell, per copy
  for (const asmgr::FormatCopyResult& c : r.copies) latencies[c.cell].push_back(c.latency_ns);
  for (const auto& [cell, lat] : latencies) {
    const size_t per_call = requests_per_call == 0 ? lat.size() : requests_per_call;
    uint64_t t = 0;
    for (size_t i = 0; i < lat.size(); i += per_call) {
      t += lat[i];
      replies->push_back(t);
    }
  }
}

}  // namespace

void RecordFormatWaits(Recorder& rec, const std::vector<const asmgr::FormatResult*>& results,
                       uint32_t requests_per_call) {
  std::vector<uint64_t> replies;
  for (const asmgr::FormatResult* r : results) ReplyTimes(*r, requests_per_call, &replies);
  std::sort(replies.begin(), replies.end());
  uint64_t prev = 0;
  for (uint64_t t : replies) {
    rec.Wait(stats::Wait::kCellSmartFileCreation, t - prev);
    prev = t;
  }
}

void RecordFormatWaits(Recorder& rec, const asmgr::FormatResult& r, uint32_t requests_per_call) {
  RecordFormatWaits(rec, std::vector<const asmgr::FormatResult*>{&r}, requests_per_call);
}

}  // namespace cellsim::db::internal
