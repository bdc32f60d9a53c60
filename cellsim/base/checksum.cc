#include "cellsim/base/checksum.h"

#include <xxhash.h>

#include <fmt/format.h>

namespace cellsim {

uint64_t Checksum64(absl::Span<const uint8_t> data, uint64_t seed) {
  return XXH64(data.data(), data.size(), seed);
}

void Encoder::PutString(std::string_view s) {
  PutU32(static_cast<uint32_t>(s.size()));
  bytes_.insert(bytes_.end(), s.begin(), s.end());
}

void Encoder::PatchU32(size_t pos, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes_.at(pos + i) = static_cast<uint8_t>(v >> (8 * i));
}

void Encoder::PatchU64(size_t pos, uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes_.at(pos + i) = static_cast<uint8_t>(v >> (8 * i));
}

void Encoder::PutLe(uint64_t v, int n) { StoreLe(Extend(static_cast<size_t>(n)), v, n); }

bool Decoder::GetLe(uint64_t* v, int n) {
  if (remaining() < static_cast<size_t>(n)) return false;
  uint64_t r = 0;
  for (int i = 0; i < n; ++i) r |= uint64_t{data_[pos_ + i]} << (8 * i);
  pos_ += n;
  *v = r;
  return true;
}

bool Decoder::GetU8(uint8_t* v) {
  uint64_t r;
  if (!GetLe(&r, 1)) return false;
  *v = static_cast<uint8_t>(r);
  return true;
}
bool Decoder::GetU16(uint16_t* v) {
  uint64_t r;
  if (!GetLe(&r, 2)) return false;
  *v = static_cast<uint16_t>(r);
  return true;
}
bool Decoder::GetU32(uint32_t* v) {
  uint64_t r;
  if (!GetLe(&r, 4)) return false;
  *v = static_cast<uint32_t>(r);
  return true;
}
bool Decoder::GetU64(uint64_t* v) { return GetLe(v, 8); }

bool Decoder::GetString(std::string* s, uint32_t max_length) {
  size_t start = pos_;
  uint32_t n;
  if (!GetU32(&n)) return false;
  if (n > max_length || remaining() < n) {
    pos_ = start;
    return false;
  }
  s->assign(reinterpret_cast<const char*>(data_.data() + pos_), n);
  pos_ += n;
  return true;
}

bool Decoder::GetBytes(size_t n, absl::Span<const uint8_t>* out) {
  if (remaining() < n) return false;
  *out = data_.subspan(pos_, n);
  pos_ += n;
  return true;
}

bool Decoder::Skip(size_t n) {
  if (remaining() < n) return false;
  pos_ += n;
  return true;
}

absl::Status Decoder::Truncated(std::string_view what) const {
  return absl::DataLossError(
      fmt::format("{}: truncated or malformed at byte {} of {}", what, pos_, data_.size()));
}

}  // namespace cellsim
