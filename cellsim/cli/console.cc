#include "cellsim/cli/console.h"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "cellsim/db/database.h"

namespace cellsim::cli {

int ReportFailure(Console& console, std::string_view command, const absl::Status& status) {
  *console.err << "cellsim " << command << ": " << status.message() << "\n" << std::flush;
  return status.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
}

absl::StatusOr<std::string> ReadAll(int fd, Interrupts& interrupts) {
  std::string text;
  char chunk[65536];
  while (true) {
    if (interrupts.flag()->cancelled()) {
      return absl::CancelledError(std::string(db::kCancelMessage));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, /*timeout_ms=*/50);
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    const ssize_t n = ready < 0 ? -1 : read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(
          "cannot read standard input: " + std::string(strerror(errno)));
    }
    if (n == 0) return text;
    text.append(chunk, static_cast<size_t>(n));
  }
}

FdOStream::Buf::Buf(int fd, std::function<void(int)> on_broken)
    : fd_(fd), on_broken_(std::move(on_broken)) {
  setp(buf_.data(), buf_.data() + buf_.size());
}

bool FdOStream::Buf::Drain() {
  const char* p = pbase();
  while (p < pptr()) {
    const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the reader is gone: what is left has nowhere to go
      const int error = n < 0 ? errno : EPIPE;
      setp(buf_.data(), buf_.data() + buf_.size());
      if (on_broken_ != nullptr) std::exchange(on_broken_, nullptr)(error);
      return false;
    }
    p += n;
  }
  setp(buf_.data(), buf_.data() + buf_.size());
  return true;
}

int FdOStream::Buf::sync() { return Drain() ? 0 : -1; }

FdOStream::Buf::int_type FdOStream::Buf::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

FdOStream::FdOStream(int fd, std::function<void(int)> on_broken)
    : std::ostream(nullptr), buf_(fd, std::move(on_broken)) {
  rdbuf(&buf_);
}

FdOStream::~FdOStream() { buf_.pubsync(); }

}  // namespace cellsim::cli
