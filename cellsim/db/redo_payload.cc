// Redo record payloads: the change entries and their parser (redo_payload.h).
#include "cellsim/db/redo_payload.h"

#include <fmt/format.h>

#include <cstring>

#include "cellsim/base/checksum.h"
#include "cellsim/db/row_format.h"

namespace cellsim::db::internal::redo {
namespace {

void EntryHeader(Encoder& e, ChangeOp op, uint16_t n_or_slot, uint32_t obj, uint32_t file,
                 uint32_t block) {
  e.PutU8(static_cast<uint8_t>(op));
  e.PutU8(0);
  e.PutU16(n_or_slot);
  e.PutU32(obj);
  e.PutU32(file);
  e.PutU32(block);
}

void PutImage(Encoder& e, absl::Span<const uint8_t> image) {
  e.PutU16(static_cast<uint16_t>(image.size()));
  e.PutBytes(image);
}

bool GetImage(Decoder& d, std::vector<uint8_t>* out) {
  uint16_t n = 0;
  absl::Span<const uint8_t> b;
  if (!d.GetU16(&n) || !d.GetBytes(n, &b)) return false;
  out->assign(b.begin(), b.end());
  return true;
}

void Append(std::vector<uint8_t>& out, Encoder& e) {
  out.insert(out.end(), e.bytes().begin(), e.bytes().end());
}

bool ParseChange(Decoder& d, Change* c) {
  uint8_t op = 0, pad = 0;
  uint16_t n = 0;
  if (!d.GetU8(&op) || !d.GetU8(&pad) || !d.GetU16(&n) || !d.GetU32(&c->obj) ||
      !d.GetU32(&c->file) || !d.GetU32(&c->block)) {
    return false;
  }
  c->op = static_cast<ChangeOp>(op);
  switch (c->op) {
    case ChangeOp::kInsert: {
      c->slots.resize(n);
      for (uint16_t& s : c->slots) {
        if (!d.GetU16(&s)) return false;
      }
      c->rows.resize(n);
      for (std::vector<uint8_t>& r : c->rows) {
        if (!GetImage(d, &r)) return false;
      }
      return true;
    }
    case ChangeOp::kDelete:
      c->slots = {n};
      return true;
    case ChangeOp::kIndexInsert:
    case ChangeOp::kIndexDelete:
      c->rows.resize(n);
      for (std::vector<uint8_t>& k : c->rows) {
        if (!GetImage(d, &k)) return false;
      }
      return true;
    case ChangeOp::kUpdate: {
      c->slots = {n};
      uint16_t k = 0;
      if (!d.GetU16(&k)) return false;
      c->columns.resize(k);
      for (Change::ColumnChange& col : c->columns) {
        if (!d.GetU16(&col.column) || !GetImage(d, &col.before) || !GetImage(d, &col.after)) {
          return false;
        }
      }
      return true;
    }
  }
  return false;
}

}  // namespace

void AppendInsert(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  const std::vector<uint16_t>& slots, const std::vector<uint8_t>& rows) {
  Encoder e;
  EntryHeader(e, ChangeOp::kInsert, static_cast<uint16_t>(slots.size()), obj, file, block);
  for (uint16_t s : slots) e.PutU16(s);
  e.PutBytes(rows);  // each already a u16 length + the row (RowInserter)
  Append(out, e);
}

void AppendDelete(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  uint16_t slot) {
  Encoder e;
  EntryHeader(e, ChangeOp::kDelete, slot, obj, file, block);
  Append(out, e);
}

void AppendUpdate(std::vector<uint8_t>& out, uint32_t obj, uint32_t file, uint32_t block,
                  uint16_t slot, absl::Span<const uint8_t> before, absl::Span<const uint8_t> after) {
  const std::vector<std::vector<uint8_t>> b = ColumnImages(before), a = ColumnImages(after);
  static const std::vector<uint8_t> kNull = {0xFF};
  Encoder e;
  EntryHeader(e, ChangeOp::kUpdate, slot, obj, file, block);
  std::vector<uint16_t> changed;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::vector<uint8_t>& x = i < b.size() ? b[i] : kNull;
    const std::vector<uint8_t>& y = i < a.size() ? a[i] : kNull;
    if (x != y) changed.push_back(static_cast<uint16_t>(i));
  }
  e.PutU16(static_cast<uint16_t>(changed.size()));
  for (uint16_t i : changed) {
    e.PutU16(i);
    PutImage(e, i < b.size() ? b[i] : kNull);
    PutImage(e, i < a.size() ? a[i] : kNull);
  }
  Append(out, e);
}

void AppendIndex(std::vector<uint8_t>& out, bool insert, uint32_t obj, uint32_t file,
                 uint32_t block, const std::vector<std::vector<uint8_t>>& keys) {
  Encoder e;
  EntryHeader(e, insert ? ChangeOp::kIndexInsert : ChangeOp::kIndexDelete,
              static_cast<uint16_t>(keys.size()), obj, file, block);
  for (const std::vector<uint8_t>& k : keys) PutImage(e, k);
  Append(out, e);
}

void WriteHeader(uint8_t* at, uint32_t length, uint8_t vectors, uint16_t entries, uint64_t scn,
                 const Xid& xid, RecordKind kind, uint32_t arg) {
  std::memset(at, 0, kPayloadHeader);
  std::memcpy(at, &length, 4);
  at[4] = kRecordValid;
  at[5] = vectors;
  std::memcpy(at + 6, &entries, 2);
  std::memcpy(at + 8, &scn, 8);
  std::memcpy(at + 16, &xid.usn, 4);
  std::memcpy(at + 20, &xid.slot, 4);
  std::memcpy(at + 24, &xid.wrap, 4);
  at[28] = static_cast<uint8_t>(kind);
  std::memcpy(at + 32, &arg, 4);
}

std::optional<Record> ParseRecord(absl::Span<const uint8_t> bytes, std::string* why) {
  if (bytes.size() < kPayloadHeader) {
    *why = fmt::format("{} bytes left, less than a record header", bytes.size());
    return std::nullopt;
  }
  Record r;
  uint16_t entries = 0;
  std::memcpy(&r.length, bytes.data(), 4);
  std::memcpy(&entries, bytes.data() + 6, 2);
  std::memcpy(&r.scn, bytes.data() + 8, 8);
  std::memcpy(&r.xid.usn, bytes.data() + 16, 4);
  std::memcpy(&r.xid.slot, bytes.data() + 20, 4);
  std::memcpy(&r.xid.wrap, bytes.data() + 24, 4);
  std::memcpy(&r.arg, bytes.data() + 32, 4);
  const uint8_t kind = bytes[28];
  if (bytes[4] != kRecordValid || r.length < kPayloadHeader || r.length > bytes.size() ||
      kind > static_cast<uint8_t>(RecordKind::kStatementRollback)) {
    *why = fmt::format("no whole record (length {}, {} bytes left, VLD {:#x}, kind {})", r.length,
                       bytes.size(), bytes[4], kind);
    return std::nullopt;
  }
  r.kind = static_cast<RecordKind>(kind);
  Decoder d(bytes.subspan(kPayloadHeader, r.length - kPayloadHeader));
  for (uint16_t i = 0; i < entries; ++i) {
    Change c;
    if (!ParseChange(d, &c)) {
      *why = fmt::format("record at SCN {}: change entry {} of {} is malformed", r.scn, i + 1,
                         entries);
      return std::nullopt;
    }
    r.changes.push_back(std::move(c));
  }
  return r;
}

}  // namespace cellsim::db::internal::redo
