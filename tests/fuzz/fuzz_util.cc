#include "fuzz/fuzz_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace cellsim::fuzz {

const std::string& ScratchDir() {
  static const std::string* dir = [] {
    std::error_code ec;
    const char* base = std::filesystem::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0
                           ? "/dev/shm"
                           : (std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp");
    std::string tmpl = std::string(base) + "/cellsim-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    auto* d = new std::string(tmpl);
    std::atexit([] {
      std::error_code e;
      std::filesystem::remove_all(ScratchDir(), e);
    });
    return d;
  }();
  return *dir;
}

void WriteFile(const std::string& path, absl::Span<const uint8_t> bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    std::perror(path.c_str());
    std::abort();
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      std::perror(path.c_str());
      std::abort();
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
}

}  // namespace cellsim::fuzz
