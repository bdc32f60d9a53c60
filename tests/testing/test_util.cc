#include "testing/test_util.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cellsim::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/cellsim-test.XXXXXX";
  char* made = mkdtemp(tmpl.data());
  if (made == nullptr) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

namespace {
template <typename Bytes>
Bytes ReadWhole(const std::string& path) {
  Bytes out;
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) return out;
  out.resize(size);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(size));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}
}  // namespace

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  return ReadWhole<std::vector<uint8_t>>(path);
}
std::string ReadFileText(const std::string& path) { return ReadWhole<std::string>(path); }

}  // namespace cellsim::testing
