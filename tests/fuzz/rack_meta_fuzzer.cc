// Fuzz target: the rack configuration file (DIR/rack.meta0, rack.meta1;
// cellsim/asm/rack_meta.h) and the slot choice of Rack::Open.
//
// The first input byte picks the operation:
//   0 one slot, raw        1 one slot, re-sealed (checksum recomputed)
//   2 both slots (u16 length + slot 0, then slot 1), re-sealed, written to a
//     scratch rack directory without cells and opened with Rack::Open
// Properties: no crash, hang or leak; errors are DataLoss / FailedPrecondition
// (newer version) / NotFound with a message; an accepted slot holds a
// configuration ValidateRackConfig accepts and re-encodes to a slot that
// decodes to the same configuration; Rack::Open of a directory without cells
// fails cleanly.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cellsim/asm/rack.h"
#include "cellsim/asm/rack_meta.h"
#include "cellsim/base/checksum.h"
#include "cellsim/base/clock.h"
#include "cellsim/io/io_backend.h"
#include "fuzz/fuzz_util.h"

namespace cellsim::fuzz {
namespace {

using asmgr::internal::DecodeRackMeta;
using asmgr::internal::EncodeRackMeta;
using asmgr::internal::RackMeta;

enum Op : uint8_t { kRaw, kSealed, kOpen, kOps };

std::vector<uint8_t> Sealed(absl::Span<const uint8_t> in) {
  std::vector<uint8_t> b(in.begin(), in.end());
  if (b.size() >= 24) {
    const size_t n = b.size() - 8;
    PutLe(b.data() + n,
          Checksum64(absl::MakeConstSpan(b).subspan(0, n), asmgr::internal::kRackMetaSeed), 8);
  }
  return b;
}

void DecodeOp(absl::Span<const uint8_t> bytes) {
  absl::StatusOr<RackMeta> m = DecodeRackMeta(bytes, "rack.meta0");
  if (!m.ok()) {
    CheckError(m.status(), {absl::StatusCode::kDataLoss, absl::StatusCode::kFailedPrecondition});
    return;
  }
  FUZZ_CHECK(asmgr::ValidateRackConfig(m->config).ok(), "accepted an invalid configuration");
  const std::vector<uint8_t> again = EncodeRackMeta(*m);
  absl::StatusOr<RackMeta> m2 = DecodeRackMeta(again, "re-encoded");
  FUZZ_CHECK(m2.ok(), "re-encoded slot does not decode: %s",
             std::string(m2.status().message()).c_str());
  FUZZ_CHECK(EncodeRackMeta(*m2) == again && m2->seq == m->seq &&
                 m2->group_names == m->group_names,
             "rack meta round trip changed it");
}

void OpenOp(Input& in) {
  const std::vector<uint8_t> m0 = Sealed(in.Bytes(in.U16()));
  const std::vector<uint8_t> m1 = Sealed(in.Rest());
  const std::string& dir = ScratchDir();
  WriteFile(dir + "/rack.meta0", m0);
  WriteFile(dir + "/rack.meta1", m1);
  static const std::unique_ptr<io::IoBackend> io = io::MakePosixBackend();
  absl::StatusOr<std::unique_ptr<asmgr::Rack>> rack = asmgr::Rack::Open(io.get(), SystemClock(), dir);
  FUZZ_CHECK(!rack.ok(), "opened a rack that has no cells");
  CheckError(rack.status(), {absl::StatusCode::kDataLoss, absl::StatusCode::kFailedPrecondition,
                             absl::StatusCode::kNotFound});
}

}  // namespace
}  // namespace cellsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cellsim::fuzz;  // NOLINT
  Input in(data, size);
  const uint8_t op = in.U8() % kOps;
  if (op == kRaw) {
    DecodeOp(in.Rest());
  } else if (op == kSealed) {
    DecodeOp(Sealed(in.Rest()));
  } else {
    OpenOp(in);
  }
  return 0;
}
