// A minimal program built against an installed cellsim: it writes and reads a
// block file through the io_uring backend and prints an Oracle statistic name.
// Exits 0 on success, 1 with a message otherwise.
#include <cstdio>
#include <cstring>
#include <string>

#include "cellsim/base/units.h"
#include "cellsim/io/block_file.h"
#include "cellsim/io/io_backend.h"
#include "cellsim/stats/statistics.h"

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "/tmp";
  auto size = cellsim::ParseSize("4m");
  if (!size.ok()) return 1;
  auto io = cellsim::io::MakeBackend(cellsim::io::BackendKind::kUring);
  if (!io.ok()) io = cellsim::io::MakePosixBackend();
  auto file = cellsim::io::BlockFile::Create(
      io->get(), dir + "/consumer.img", {.block_size = 4096, .block_count = *size / 4096});
  if (!file.ok()) {
    std::fprintf(stderr, "%s\n", file.status().ToString().c_str());
    return 1;
  }
  cellsim::io::AlignedBuffer out(4096), in(4096);
  std::memset(out.data(), 0xA5, out.size());
  if (!(*file)->Write(8192, out.span()).ok() || !(*file)->Read(8192, in.span()).ok() ||
      std::memcmp(out.data(), in.data(), 4096) != 0) {
    std::fprintf(stderr, "read-back mismatch\n");
    return 1;
  }
  (void)(*file)->Close();
  std::remove((dir + "/consumer.img").c_str());
  std::printf("consumer ok: backend %s, %s\n", (*io)->Name().c_str(),
              std::string(cellsim::stats::StatName(
                              cellsim::stats::Stat::kPhysicalWriteTotalMultiBlockRequests))
                  .c_str());
  return 0;
}
