// Checksums for every on-disk metadata record (xxHash64, seeded per format) and
// little-endian encode/decode helpers with bounds checks, shared by every
// persistent format in cellsim (flash-cache journal, ASM directory, file table).
//
// Usage:
//   Encoder e; e.PutU32(kMagic); e.PutU64(value); e.PutString(name);
//   uint64_t sum = Checksum64(e.data());
//   Decoder d(bytes); uint32_t magic; if (!d.GetU32(&magic)) return d.Error("header");
//
// Decoders treat input as hostile: every Get* checks the remaining length.
#ifndef CELLSIM_BASE_CHECKSUM_H_
#define CELLSIM_BASE_CHECKSUM_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace cellsim {

// xxHash64 of `data` with `seed`.
uint64_t Checksum64(absl::Span<const uint8_t> data, uint64_t seed = 0);

// Appends little-endian fields to a growing byte vector.
class Encoder {
 public:
  void PutU8(uint8_t v) { bytes_.push_back(v); }
  void PutU16(uint16_t v) { PutLe(v, 2); }
  void PutU32(uint32_t v) { PutLe(v, 4); }
  void PutU64(uint64_t v) { PutLe(v, 8); }
  // u32 length followed by the bytes.
  void PutString(std::string_view s);
  void PutBytes(absl::Span<const uint8_t> b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }
  // Overwrites 4/8 bytes at `pos` (for lengths and checksums known late).
  void PatchU32(size_t pos, uint32_t v);
  void PatchU64(size_t pos, uint64_t v);

  // Appends n bytes and returns where they start, for a caller that writes a
  // fixed-size layout itself (StoreLe); valid until the next append.
  uint8_t* Extend(size_t n) {
    bytes_.resize(bytes_.size() + n);
    return bytes_.data() + bytes_.size() - n;
  }

  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t>& bytes() { return bytes_; }
  absl::Span<const uint8_t> data() const { return bytes_; }

 private:
  // One append of n bytes (one capacity check), not n push_backs: journal
  // chunks encode thousands of records at a time. (Out of line: inlined into
  // callers, g++ 12 reports a bogus -Wstringop-overflow on it.)
  void PutLe(uint64_t v, int n);
  std::vector<uint8_t> bytes_;
};

// Stores the n low bytes of v at p, little-endian; returns p + n.
inline uint8_t* StoreLe(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  return p + n;
}

// Reads little-endian fields; each Get* returns false (and consumes nothing)
// when fewer bytes remain than needed.
class Decoder {
 public:
  explicit Decoder(absl::Span<const uint8_t> data) : data_(data) {}
  bool GetU8(uint8_t* v);
  bool GetU16(uint16_t* v);
  bool GetU32(uint32_t* v);
  bool GetU64(uint64_t* v);
  // Reads a u32 length then that many bytes; fails if length > max_length.
  bool GetString(std::string* s, uint32_t max_length = 4096);
  bool GetBytes(size_t n, absl::Span<const uint8_t>* out);
  bool Skip(size_t n);
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  // DataLoss("<what>: truncated at byte <pos> of <size>") for the caller to return.
  absl::Status Truncated(std::string_view what) const;

 private:
  bool GetLe(uint64_t* v, int n);
  absl::Span<const uint8_t> data_;
  size_t pos_ = 0;
};

}  // namespace cellsim

#endif  // CELLSIM_BASE_CHECKSUM_H_
