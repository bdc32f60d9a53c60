// Values, Oracle's NUMBER / DATE / row encodings and the heap data block.
#include "cellsim/db/row_format.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <ctime>

#include "cellsim/db/date_format.h"
#include "cellsim/format/block_template.h"

namespace cellsim::db::internal {
namespace {


void PutDate(std::vector<uint8_t>& out, int64_t unix) {
  const time_t t = static_cast<time_t>(unix);
  std::tm tm{};
  gmtime_r(&t, &tm);
  const int year = tm.tm_year + 1900;
  out.push_back(static_cast<uint8_t>(year / 100 + 100));
  out.push_back(static_cast<uint8_t>(year % 100 + 100));
  out.push_back(static_cast<uint8_t>(tm.tm_mon + 1));
  out.push_back(static_cast<uint8_t>(tm.tm_mday));
  out.push_back(static_cast<uint8_t>(tm.tm_hour + 1));
  out.push_back(static_cast<uint8_t>(tm.tm_min + 1));
  out.push_back(static_cast<uint8_t>(tm.tm_sec + 1));
}

int64_t GetDate(absl::Span<const uint8_t> b) {
  if (b.size() < 7) return 0;
  std::tm tm{};
  tm.tm_year = (b[0] - 100) * 100 + (b[1] - 100) - 1900;
  tm.tm_mon = b[2] - 1;
  tm.tm_mday = b[3];
  tm.tm_hour = b[4] - 1;
  tm.tm_min = b[5] - 1;
  tm.tm_sec = b[6] - 1;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

std::string_view TypeName(const Value& v) {
  switch (v.temporal) {
    case Temporal::kDate: return "DATE";
    case Temporal::kTimestamp: return "TIMESTAMP";
    case Temporal::kTimestampTz: return "TIMESTAMP WITH TIME ZONE";
    case Temporal::kInterval: return "INTERVAL DAY TO SECOND";
    case Temporal::kNone: break;
  }
  return v.kind == Value::Kind::kNumber ? "NUMBER" : "CHAR";
}

Datetime DatetimeOf(const Value& v) {
  const double whole = std::floor(v.number);
  Datetime t{static_cast<int64_t>(whole)};
  if (!v.is_timestamp()) return t;
  auto micros = static_cast<uint32_t>(std::llround((v.number - whole) * 1e6));
  if (micros >= 1'000'000) {  // rounded up into the next second
    micros -= 1'000'000;
    ++t.unix;
  }
  t.nanos = micros * 1000;
  t.precision = v.precision;
  t.time_zone = v.temporal == Temporal::kTimestampTz;
  return t;
}

Value TimestampFrom(const Datetime& t, uint32_t precision) {
  const double unit = std::pow(10.0, 9 - static_cast<double>(precision));  // in nanoseconds
  const double fraction = std::round(t.nanos / unit) * unit / 1e9;
  return Value::Timestamp(static_cast<double>(t.unix) + fraction, precision, false);
}

std::string ColumnTypeName(const Column& c) {
  if (c.type == ColType::kTimestamp) return fmt::format("TIMESTAMP({})", c.length);
  return ColTypeName(c.type);
}

std::string ValueText(const Value& v) {
  if (v.kind == Value::Kind::kNull) return "";
  if (v.kind == Value::Kind::kString) return v.text;
  if (v.is_interval()) return FormatInterval(v.number, v.precision);
  if (v.is_datetime()) {
    const NlsFormats& nls = CurrentNlsFormats();
    const std::string& format = v.temporal == Temporal::kDate        ? nls.date
                                : v.temporal == Temporal::kTimestamp ? nls.timestamp
                                                                     : nls.timestamp_tz;
    absl::StatusOr<std::string> text = FormatDatetime(DatetimeOf(v), format);
    return text.ok() ? *text : std::string("?");
  }
  if (std::floor(v.number) == v.number && std::fabs(v.number) < 1e15) {
    return fmt::format("{}", static_cast<int64_t>(v.number));
  }
  // A whole number: its digits while a double holds them (Oracle's TO_CHAR
  // gives every digit), past that scientific as SQL*Plus shows it, ten
  // significant digits at most, at least four decimals (a NOMAXVALUE
  // sequence's MAX_VALUE: 1.0000E+28).
  if (std::floor(v.number) == v.number && std::fabs(v.number) < 1e17) {
    return fmt::format("{:.0f}", v.number);
  }
  if (std::floor(v.number) == v.number) {
    std::string s = fmt::format("{:.9E}", v.number);  // d.dddddddddE+XX
    const size_t e = s.find('E');
    size_t end = e;
    while (end > s.find('.') + 5 && s[end - 1] == '0') --end;
    return s.substr(0, end) + s.substr(e);
  }
  // Oracle writes a fraction without the zero before its point (SQL*Plus's
  // .25, TO_CHAR's '.25', -.5).
  std::string s = fmt::format("{:.10g}", v.number);
  if (s.starts_with("0.")) {
    s.erase(0, 1);
  } else if (s.starts_with("-0.")) {
    s.erase(1, 1);
  }
  return s;
}

std::vector<uint8_t> EncodeNumber(double d) {
  if (d == 0) return {0x80};
  const bool neg = d < 0;
  // 15 significant decimal digits, split into base-100 digits around the point.
  std::string s = fmt::format("{:.14e}", std::fabs(d));  // d.dddddddddddddde+XX
  const int exp10 = std::atoi(s.c_str() + s.find('e') + 1);
  std::string digits = s.substr(0, 1) + s.substr(2, 14);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  // Align so that the first base-100 digit holds the integer part's leading pair.
  int e100 = exp10 >= 0 ? exp10 / 2 : -((-exp10 + 1) / 2);
  const int lead = exp10 - 2 * e100;  // 0 or 1: digits before the first pair boundary
  if (lead == 0) digits = "0" + digits;
  if (digits.size() % 2) digits += "0";
  std::vector<uint8_t> out;
  const int exp_byte = e100 + 65;
  out.push_back(static_cast<uint8_t>(neg ? (~(exp_byte + 128)) & 0xFF : exp_byte + 128));
  for (size_t i = 0; i < digits.size() && out.size() < 21; i += 2) {
    const int pair = (digits[i] - '0') * 10 + (digits[i + 1] - '0');
    out.push_back(static_cast<uint8_t>(neg ? 101 - pair : pair + 1));
  }
  while (out.size() > 1 && out.back() == (neg ? 101 : 1)) out.pop_back();
  if (neg && out.size() < 21) out.push_back(102);
  return out;
}

namespace {

// 100^k for k in [0, kMaxPower100], each the double nearest it.
constexpr int kMaxPower100 = 150;
const std::array<double, kMaxPower100 + 1>& Powers100() {
  static const std::array<double, kMaxPower100 + 1> powers = [] {
    std::array<double, kMaxPower100 + 1> p{};
    for (int k = 0; k <= kMaxPower100; ++k) p[k] = std::pow(100.0, k);
    return p;
  }();
  return powers;
}

}  // namespace

double DecodeNumber(absl::Span<const uint8_t> b) {
  if (b.empty() || (b.size() == 1 && b[0] == 0x80)) return 0;
  const bool neg = (b[0] & 0x80) == 0;
  const int exp = neg ? ((~b[0]) & 0x7F) - 65 : (b[0] & 0x7F) - 65;
  // The base-100 digits as one whole number (exact up to 2^53), then one
  // scaling by a power of 100: one rounding, no pow() per value.
  double digits = 0;
  int count = 0;
  for (size_t i = 1; i < b.size(); ++i) {
    if (neg && b[i] == 102) break;
    digits = digits * 100 + (neg ? 101 - b[i] : b[i] - 1);
    ++count;
  }
  const int k = exp - (count - 1);  // the last digit's power of 100
  double r;
  if (k >= 0) {
    r = k <= kMaxPower100 ? digits * Powers100()[k] : digits * std::pow(100.0, k);
  } else {
    r = -k <= kMaxPower100 ? digits / Powers100()[-k] : digits / std::pow(100.0, -k);
  }
  return neg ? -r : r;
}

std::optional<double> NumberFromText(const std::string& text, std::string* error) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  const std::string t = text.substr(b, e - b);
  // strtod also reads nan, inf and hex: Oracle does not.
  const bool plain = !t.empty() && t.find_first_not_of("0123456789+-.eE") == std::string::npos;
  char* end = nullptr;
  const double d = plain ? std::strtod(t.c_str(), &end) : 0;
  if (!plain || end != t.c_str() + t.size()) {
    *error = fmt::format("ORA-01722: invalid number ('{}')", text);
    return std::nullopt;
  }
  if (!std::isfinite(d)) {
    *error = fmt::format("ORA-01426: numeric overflow ('{}')", text);
    return std::nullopt;
  }
  return d;
}

double RoundDecimal(double x, int64_t digits, bool truncate) {
  if (digits > 300) return x;                 // past a double's precision: unchanged
  if (digits < -300) return std::copysign(0.0, x);
  const double p = std::pow(10.0, static_cast<double>(digits));
  if (!std::isfinite(x * p)) return x;
  // The double nearest a decimal like 1.005 is a hair below it; a few ulps
  // toward x's magnitude take the decimal's side.
  const double scaled = x * p;
  const double nudged = scaled + std::copysign(std::fabs(scaled) * 8 * DBL_EPSILON, scaled);
  return (truncate ? std::trunc(nudged) : std::round(nudged)) / p;
}

std::optional<std::string> CoerceForColumn(const Column& c, Value& v) {
  if (v.is_null()) {
    v = Value::Null();
    return std::nullopt;
  }
  switch (c.type) {
    case ColType::kNumber:
      if (v.temporal != Temporal::kNone) {
        // (A CTAS types an interval's column NUMBER: cellsim's tables have no
        // INTERVAL columns.)
        return fmt::format("ORA-00932: inconsistent datatypes: expected NUMBER got {}{}",
                           TypeName(v),
                           v.is_interval() ? " (cellsim's tables have no INTERVAL columns: store "
                                             "EXTRACT(SECOND FROM ...) or TO_CHAR(...) of it)"
                                           : "");
      }
      if (v.kind == Value::Kind::kString) {
        std::string error;
        const std::optional<double> d = NumberFromText(v.text, &error);
        if (!d) return error;
        v = Value::Num(*d);
      }
      if (!std::isfinite(v.number)) return "ORA-01426: numeric overflow";
      if (c.length > 0) {  // NUMBER(p, s): rounded to s places, at most p - s before the point
        v.number = RoundDecimal(v.number, c.scale, false);
        if (std::fabs(v.number) >= std::pow(10.0, static_cast<double>(static_cast<int64_t>(c.length) - c.scale))) {
          return fmt::format(
              "ORA-01438: value larger than specified precision allowed for this column ({} in "
              "\"{}\" NUMBER({}, {}))", ValueText(v), c.name, c.length, c.scale);
        }
      }
      return std::nullopt;
    case ColType::kDate:
      if (v.kind == Value::Kind::kString) {  // in the session's date format, as Oracle converts it
        absl::StatusOr<int64_t> d = ParseDate(v.text, CurrentNlsFormats().date, 0);
        if (!d.ok()) return std::string(d.status().message());
        v = Value::Date(*d);
        return std::nullopt;
      }
      if (!v.is_datetime()) {
        return fmt::format("ORA-00932: inconsistent datatypes: expected DATE got {}", TypeName(v));
      }
      v = Value::Date(DatetimeOf(v).unix);  // a TIMESTAMP's fraction is not kept
      return std::nullopt;
    case ColType::kTimestamp: {
      // Text in the session's timestamp format; a DATE or a TIMESTAMP WITH
      // TIME ZONE (UTC) as the TIMESTAMP it is; rounded to the precision.
      Datetime t;
      if (v.kind == Value::Kind::kString) {
        absl::StatusOr<Datetime> parsed =
            ParseDatetime(v.text, CurrentNlsFormats().timestamp, 0, static_cast<int>(c.length));
        if (!parsed.ok()) return std::string(parsed.status().message());
        t = *parsed;
      } else if (v.is_datetime()) {
        t = DatetimeOf(v);
      } else {
        return fmt::format("ORA-00932: inconsistent datatypes: expected TIMESTAMP got {}",
                           TypeName(v));
      }
      v = TimestampFrom(t, c.length);
      return std::nullopt;
    }
    case ColType::kVarchar2:
    case ColType::kChar:
      if (v.kind == Value::Kind::kNumber) v = Value::Str(ValueText(v));
      if (v.text.size() > c.length) {
        return fmt::format("ORA-12899: value too large for column \"{}\" (actual: {}, maximum: {})",
                           c.name, v.text.size(), c.length);
      }
      if (c.type == ColType::kChar) v.text.resize(c.length, ' ');
      return std::nullopt;
  }
  return std::nullopt;
}

namespace {
std::vector<uint8_t> ColumnData(const Column& c, const Value& v) {
  if (c.type == ColType::kNumber) return EncodeNumber(v.number);
  if (c.type == ColType::kDate || c.type == ColType::kTimestamp) {
    // A TIMESTAMP: the DATE's 7 bytes, then the nanoseconds big-endian
    // when there are any (Oracle's 11 bytes, or 7).
    const Datetime t = DatetimeOf(v);
    std::vector<uint8_t> d;
    PutDate(d, t.unix);
    if (c.type == ColType::kTimestamp && t.nanos != 0) {
      for (int shift = 24; shift >= 0; shift -= 8) d.push_back(static_cast<uint8_t>(t.nanos >> shift));
    }
    return d;
  }
  return std::vector<uint8_t>(v.text.begin(), v.text.end());
}
}  // namespace

uint32_t ColumnImageBytes(const Column& c, const Value& v) {
  if (v.is_null()) return 1;
  const size_t n = ColumnData(c, v).size();
  return static_cast<uint32_t>(n + (n > 250 ? 3 : 1));
}

std::vector<uint8_t> EncodeRow(const std::vector<Column>& cols, const Row& row) {
  size_t stored = row.size();
  while (stored > 0 && row[stored - 1].is_null()) --stored;  // trailing NULLs are not stored
  std::vector<uint8_t> out = {kRowFlagLive, 0, static_cast<uint8_t>(stored)};
  for (size_t i = 0; i < stored; ++i) {
    if (row[i].is_null()) {
      out.push_back(0xFF);
      continue;
    }
    const std::vector<uint8_t> d = ColumnData(cols[i], row[i]);
    if (d.size() > 250) {
      out.push_back(0xFE);
      out.push_back(static_cast<uint8_t>(d.size() >> 8));
      out.push_back(static_cast<uint8_t>(d.size()));
    } else {
      out.push_back(static_cast<uint8_t>(d.size()));
    }
    out.insert(out.end(), d.begin(), d.end());
  }
  return out;
}

std::vector<std::vector<uint8_t>> ColumnImages(absl::Span<const uint8_t> b) {
  std::vector<std::vector<uint8_t>> images;
  if (b.size() < 3) return images;
  size_t p = 3;
  for (size_t i = 0; i < b[2] && p < b.size(); ++i) {
    const size_t start = p;
    size_t len = b[p++];
    if (len == 0xFF) {
      len = 0;
    } else if (len == 0xFE && p + 2 <= b.size()) {
      len = (size_t{b[p]} << 8) | b[p + 1];
      p += 2;
    }
    p = std::min(p + len, b.size());
    images.emplace_back(b.begin() + start, b.begin() + p);
  }
  return images;
}

std::vector<uint8_t> RowFromImages(const std::vector<std::vector<uint8_t>>& images) {
  size_t stored = images.size();
  while (stored > 0 && (images[stored - 1].empty() ||
                        (images[stored - 1].size() == 1 && images[stored - 1][0] == 0xFF))) {
    --stored;
  }
  std::vector<uint8_t> out = {kRowFlagLive, 0, static_cast<uint8_t>(stored)};
  for (size_t i = 0; i < stored; ++i) {
    if (images[i].empty()) {
      out.push_back(0xFF);
    } else {
      out.insert(out.end(), images[i].begin(), images[i].end());
    }
  }
  return out;
}

Row DecodeRow(const std::vector<Column>& cols, absl::Span<const uint8_t> b,
              const std::vector<bool>* wanted) {
  Row row(cols.size());
  if (b.size() < 3) return row;
  const size_t cc = std::min<size_t>(b[2], cols.size());
  size_t p = 3;
  for (size_t i = 0; i < cc && p < b.size(); ++i) {
    size_t len = b[p++];
    if (len == 0xFF) continue;
    if (len == 0xFE && p + 2 <= b.size()) {
      len = (size_t{b[p]} << 8) | b[p + 1];
      p += 2;
    }
    len = std::min(len, b.size() - p);
    absl::Span<const uint8_t> d = b.subspan(p, len);
    p += len;
    if (wanted != nullptr && !(*wanted)[i]) continue;
    switch (cols[i].type) {
      case ColType::kNumber:
        row[i] = Value::Num(DecodeNumber(d));
        break;
      case ColType::kDate:
        row[i] = Value::Date(GetDate(d));
        break;
      case ColType::kTimestamp: {
        // (Stored at the column's precision already: no rounding on a scan.)
        uint32_t nanos = 0;
        for (size_t k = 7; k < d.size() && k < 11; ++k) nanos = nanos << 8 | d[k];
        row[i] = Value::Timestamp(static_cast<double>(GetDate(d)) + nanos / 1e9, cols[i].length,
                                  false);
        break;
      }
      default:
        row[i] = Value::Str(std::string(d.begin(), d.end()));
    }
  }
  return row;
}

// ---- HeapBlock ----

void FormatSegmentBlock(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj, uint8_t ktbbh_type) {
  std::memset(b.data(), 0, b.size());
  b[0] = 0x06;  // trans data
  b[1] = format::kDataBlockFormat;
  std::memcpy(&b[4], &rdba, 4);
  b[14] = 1;  // sequence
  b[15] = 0x04;
  b[20] = ktbbh_type;
  std::memcpy(&b[24], &obj, 4);  // object id (seg/obj)
  b[20 + 16] = kItlEntries;      // ITL count
}

uint32_t SegmentBlockObject(absl::Span<const uint8_t> b) {
  uint32_t obj = 0;
  if (b.size() >= 28) std::memcpy(&obj, &b[24], 4);
  return obj;
}

void HeapBlock::Format(absl::Span<uint8_t> b, uint32_t rdba, uint32_t obj) {
  FormatSegmentBlock(b, rdba, obj, /*ktbbh_type=*/0x01);
  HeapBlock h(b);
  h.Put16(kFsbo, static_cast<uint16_t>(kRowDirOffset));
  h.Put16(kFseo, static_cast<uint16_t>(kBlockTailOffset));
  h.Put16(kAvsp, static_cast<uint16_t>(kBlockTailOffset - kRowDirOffset));
  b[kDataHeaderOffset + 1] = 1;  // ntab
}


std::optional<uint16_t> HeapBlock::Insert(absl::Span<const uint8_t> row, bool ignore_pctfree,
                                          uint32_t keep) {
  const uint32_t need = static_cast<uint32_t>(row.size()) + 2;
  const uint32_t reserve = ignore_pctfree ? 0 : kBlockSize * kPctFree / 100;
  if (free_bytes() < need + reserve) return std::nullopt;
  if (keep > 0 && reclaimable_bytes() < need + keep) return std::nullopt;
  const uint16_t slot = rows();
  const uint16_t fseo = static_cast<uint16_t>(Get16(kFseo) - row.size());
  std::memcpy(&b_[fseo], row.data(), row.size());
  Put16(kRowDirOffset + 2u * slot, fseo);
  Put16(kNrow, static_cast<uint16_t>(slot + 1));
  Put16(kFsbo, static_cast<uint16_t>(Get16(kFsbo) + 2));
  Put16(kFseo, fseo);
  Put16(kAvsp, static_cast<uint16_t>(free_bytes()));
  return slot;
}

absl::Span<const uint8_t> HeapBlock::RowBytes(uint16_t slot) const {
  const uint16_t off = Get16(kRowDirOffset + 2u * slot);
  // A row's length: walk its columns.
  const uint8_t cc = b_[off + 2];
  uint32_t p = off + 3;
  for (uint32_t i = 0; i < cc; ++i) {
    uint32_t len = b_[p++];
    if (len == 0xFF) continue;
    if (len == 0xFE) {
      len = (uint32_t{b_[p]} << 8) | b_[p + 1];
      p += 2;
    }
    p += len;
  }
  return absl::Span<const uint8_t>(&b_[off], p - off);
}

bool HeapBlock::live(uint16_t slot) const {
  if (slot >= rows()) return false;
  const uint16_t off = Get16(kRowDirOffset + 2u * slot);
  return (b_[off] & kRowFlagDeleted) == 0;
}

void HeapBlock::SetDeleted(uint16_t slot, bool deleted) {
  const uint16_t off = Get16(kRowDirOffset + 2u * slot);
  b_[off] = deleted ? (b_[off] | kRowFlagDeleted) : (b_[off] & ~kRowFlagDeleted);
}

uint32_t HeapBlock::reclaimable_bytes() const {
  uint32_t used = 0;
  for (uint16_t slot = 0; slot < rows(); ++slot) used += static_cast<uint32_t>(RowBytes(slot).size());
  return kBlockTailOffset - Get16(kFsbo) - used;
}

void HeapBlock::CompactWith(uint16_t slot, absl::Span<const uint8_t> row) {
  // The rows are packed into a copy of the heap, then copied back at once:
  // a row's old bytes may lie where another row is packed.
  std::array<uint8_t, kBlockSize> heap;
  uint32_t fseo = kBlockTailOffset;
  for (uint16_t s = 0; s < rows(); ++s) {
    const absl::Span<const uint8_t> r = s == slot ? row : RowBytes(s);
    fseo -= static_cast<uint32_t>(r.size());
    std::memcpy(&heap[fseo], r.data(), r.size());
    Put16(kRowDirOffset + 2u * s, static_cast<uint16_t>(fseo));
  }
  std::memcpy(&b_[fseo], &heap[fseo], kBlockTailOffset - fseo);
  Put16(kFseo, static_cast<uint16_t>(fseo));
  Put16(kAvsp, static_cast<uint16_t>(free_bytes()));
}

bool HeapBlock::Replace(uint16_t slot, absl::Span<const uint8_t> row, uint32_t keep) {
  const uint16_t off = Get16(kRowDirOffset + 2u * slot);
  const size_t current = RowBytes(slot).size();
  if (row.size() <= current) {
    std::memcpy(&b_[off], row.data(), row.size());
    return true;
  }
  // The space of rows shrunk in place or moved out of counts too (an update
  // that grows a row, or the rollback of one that shrank it); `keep` of it
  // stays free for the rollbacks of other transactions.
  if (free_bytes() < row.size() || keep > 0) {
    const uint32_t grow = static_cast<uint32_t>(row.size() - current);
    if (reclaimable_bytes() < grow + keep) return false;
  }
  if (free_bytes() < row.size()) {
    CompactWith(slot, row);
    return true;
  }
  const uint16_t fseo = static_cast<uint16_t>(Get16(kFseo) - row.size());
  std::memcpy(&b_[fseo], row.data(), row.size());
  Put16(kRowDirOffset + 2u * slot, fseo);
  Put16(kFseo, fseo);
  Put16(kAvsp, static_cast<uint16_t>(free_bytes()));
  return true;
}

bool HeapBlock::Undo(RowChange change, uint16_t slot, absl::Span<const uint8_t> before) {
  if (slot >= rows()) return true;
  switch (change) {
    case RowChange::kInsert:
      SetDeleted(slot, true);
      break;
    case RowChange::kDelete:
      SetDeleted(slot, false);
      break;
    case RowChange::kUpdate:
      return Replace(slot, before);
    case RowChange::kLock:
      break;
  }
  return true;
}

void SealBlock(absl::Span<uint8_t> b, uint64_t scn) {
  const uint32_t base = static_cast<uint32_t>(scn);
  const uint16_t wrap = static_cast<uint16_t>(scn >> 32);
  std::memcpy(&b[8], &base, 4);
  std::memcpy(&b[12], &wrap, 2);
  b[15] = 0x04;  // checksum present, no longer new
  b[kBlockTailOffset] = static_cast<uint8_t>(base);
  b[kBlockTailOffset + 1] = static_cast<uint8_t>(base >> 8);
  b[kBlockTailOffset + 2] = b[0];
  b[kBlockTailOffset + 3] = b[14];
  b[16] = b[17] = 0;
  const uint16_t sum = format::DataBlockChecksum(b);
  std::memcpy(&b[16], &sum, 2);
}

}  // namespace cellsim::db::internal
