// Sqlrun's statement choice, bind cursor and bind substitution.
#include <cctype>

#include "cellsim/sqlrun/driver.h"
#include "fmt/format.h"

namespace cellsim::sqlrun {
namespace {

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool IsNumber(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  bool digits = false, dot = false;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      digits = true;
    } else if (s[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digits;
}

}  // namespace

absl::StatusOr<ExeMode> ParseExeMode(std::string_view s) {
  if (s == "sequential") return ExeMode::kSequential;
  if (s == "semi-random") return ExeMode::kSemiRandom;
  if (s == "truly-random") return ExeMode::kTrulyRandom;
  return absl::InvalidArgumentError(fmt::format(
      "--exe-mode '{}': expected sequential, semi-random or truly-random", std::string(s)));
}

absl::StatusOr<ConnectMode> ParseConnectMode(std::string_view s) {
  if (s == "flood") return ConnectMode::kFlood;
  if (s == "trickle") return ConnectMode::kTrickle;
  if (s == "tsunami") return ConnectMode::kTsunami;
  return absl::InvalidArgumentError(fmt::format(
      "--connect-mode '{}': expected flood, trickle or tsunami", std::string(s)));
}

TxBehavior ParseTxBehavior(std::string_view s) {
  return s == "rollback" ? TxBehavior::kRollback : TxBehavior::kCommit;
}

StatementPicker::StatementPicker(ExeMode mode, size_t size, uint64_t seed)
    : mode_(mode), size_(size), state_(seed) {}

size_t StatementPicker::Next() {
  if (size_ <= 1) return 0;
  if (mode_ == ExeMode::kSequential) {
    // getNextSql: idx starts undefined (0); idx == last gives 0, else idx + 1.
    idx_ = idx_ == size_ - 1 ? 0 : idx_ + 1;
    return idx_;
  }
  // int(rand(last + 1)): a uniform draw over the array.
  const double u = static_cast<double>(SplitMix(state_) >> 11) * 0x1.0p-53;
  return std::min(size_ - 1, static_cast<size_t>(u * static_cast<double>(size_)));
}

size_t BindCursor::Next() {
  if (!started_) {
    started_ = true;
    n_ = 0;
    return n_;
  }
  // n + 1 while n + 1 < $#rows (the last index), else 0.
  n_ = rows_ >= 1 && n_ + 1 < rows_ - 1 ? n_ + 1 : 0;
  return n_;
}

std::vector<size_t> StatementArray(const SqlDir& dir, ExeMode mode) {
  std::vector<size_t> a;
  for (size_t i = 0; i < dir.entries.size(); ++i) {
    const int copies = mode == ExeMode::kSemiRandom ? dir.entries[i].frequency : 1;
    for (int c = 0; c < copies; ++c) a.push_back(i);
  }
  return a;
}

absl::StatusOr<std::string> BindSql(std::string_view sql, const std::vector<std::string>& row) {
  std::string out;
  size_t used = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      out += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      continue;
    }
    const bool named = c == ':' && i + 1 < sql.size() &&
                       (std::isalnum(static_cast<unsigned char>(sql[i + 1])) || sql[i + 1] == '_');
    if (c != '?' && !named) {
      out += c;
      continue;
    }
    if (named) {
      while (i + 1 < sql.size() &&
             (std::isalnum(static_cast<unsigned char>(sql[i + 1])) || sql[i + 1] == '_')) {
        ++i;
      }
    }
    if (used >= row.size()) {
      return absl::InvalidArgumentError(fmt::format(
          "the statement has more placeholders than the bind row's {} values: {}", row.size(),
          std::string(sql)));
    }
    const std::string& v = row[used++];
    if (IsNumber(v)) {
      out += v;
    } else {
      out += '\'';
      for (char ch : v) out += ch == '\'' ? std::string("''") : std::string(1, ch);
      out += '\'';
    }
  }
  return out;
}

}  // namespace cellsim::sqlrun
