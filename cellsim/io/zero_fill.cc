#include "cellsim/io/zero_fill.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "fmt/format.h"

namespace cellsim::io {

int LatencyHistogram::BucketOf(uint64_t ns) {
  // Values below 2^kSubBits map linearly; above, the top kSubBits bits after
  // the leading one select a sub-bucket of the value's power of two.
  if (ns < (uint64_t{1} << kSubBits)) return static_cast<int>(ns);
  const int msb = 63 - std::countl_zero(ns);
  const int shift = msb - kSubBits;
  const int bucket = ((shift + 1) << kSubBits) + static_cast<int>((ns >> shift) & ((1 << kSubBits) - 1));
  return std::min(bucket, kBuckets - 1);
}

uint64_t LatencyHistogram::UpperBound(int bucket) {
  if (bucket < (1 << kSubBits)) return static_cast<uint64_t>(bucket);
  const int shift = (bucket >> kSubBits) - 1;
  const uint64_t sub = static_cast<uint64_t>(bucket & ((1 << kSubBits) - 1));
  return (((uint64_t{1} << kSubBits) | sub) << shift) + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::Record(uint64_t ns) {
  ++counts_[static_cast<size_t>(BucketOf(ns))];
  ++count_;
  sum_ += ns;
  max_ = std::max(max_, ns);
}

uint64_t LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * count_));
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[static_cast<size_t>(b)];
    if (seen >= std::max<uint64_t>(rank, 1)) return std::min(UpperBound(b), max_);
  }
  return max_;
}

ZeroFiller::ZeroFiller(IoBackend* io, const ZeroFillerOptions& options, AlignedBuffer buffer,
                       int index)
    : io_(io), options_(options), buffer_(std::move(buffer)), index_(index) {
  if (options_.clock == nullptr) options_.clock = SystemClock();
}

ZeroFiller::~ZeroFiller() { (void)io_->UnregisterBuffer(index_); }

absl::StatusOr<std::unique_ptr<ZeroFiller>> ZeroFiller::Create(IoBackend* io,
                                                                const ZeroFillerOptions& options) {
  if (options.block_size == 0) {
    return absl::InvalidArgumentError("zero fill: block size must be > 0");
  }
  AlignedBuffer buffer(options.block_size);
  auto index = io->RegisterBuffer(buffer.data(), buffer.size());
  if (!index.ok()) return index.status();
  return std::unique_ptr<ZeroFiller>(new ZeroFiller(io, options, std::move(buffer), *index));
}

absl::StatusOr<ZeroFillResult> ZeroFiller::Fill(FileHandle file, uint64_t offset,
                                                uint64_t length) {
  if (io_->IsDirect(file) &&
      (!IsAligned(offset, kDirectAlignment) || !IsAligned(length, kDirectAlignment) ||
       !IsAligned(options_.block_size, kDirectAlignment))) {
    auto path = io_->PathOf(file);
    return absl::InvalidArgumentError(fmt::format(
        "zero fill of {} with O_DIRECT: offset {}, length {} and block size {} must all be "
        "multiples of {} (or fill it buffered)",
        path.ok() ? *path : "?", offset, length, options_.block_size, kDirectAlignment));
  }
  LatencyHistogram histogram;
  ZeroFillResult result;
  if (options_.preallocate && length > 0) {
    auto size = io_->Size(file);
    if (!size.ok()) return size.status();
    if (*size < offset + length) {
      const uint64_t t0 = options_.clock->NowNanos();
      absl::Status s = io_->Allocate(file, AllocateMode::kAllocate, *size, offset + length - *size);
      result.prepared = "fallocate";
      if (s.code() == absl::StatusCode::kUnimplemented) {
        s = io_->Truncate(file, offset + length);
        result.prepared = "ftruncate";
      }
      if (!s.ok()) return s;
      result.prepare_s = static_cast<double>(options_.clock->NowNanos() - t0) / 1e9;
    }
  }
  uint64_t pos = offset;
  const uint64_t end = offset + length;
  const uint64_t start = options_.clock->NowNanos();
  absl::Status s = io_->SubmitStream(
      [&](IoRequest& r) {
        if (pos >= end) return false;
        const auto len = static_cast<size_t>(std::min<uint64_t>(options_.block_size, end - pos));
        r = MakeWrite(file, pos, buffer_.data(), len, index_);
        pos += len;
        return true;
      },
      [&](IoRequest& r) {
        histogram.Record(r.latency_ns);
        ++result.requests;
        if (r.status.ok()) result.bytes += r.transferred;
      });
  if (s.ok() && options_.sync_at_end) s = io_->Sync(file, SyncKind::kData);
  result.elapsed_s = static_cast<double>(options_.clock->NowNanos() - start) / 1e9;
  if (!s.ok()) return s;
  result.p50_ns = histogram.Percentile(0.50);
  result.p99_ns = histogram.Percentile(0.99);
  result.p999_ns = histogram.Percentile(0.999);
  result.max_ns = histogram.max();
  result.mean_ns = histogram.mean();
  return result;
}

absl::StatusOr<ZeroFillResult> ZeroFill(IoBackend* io, FileHandle file, uint64_t offset,
                                        uint64_t length, const ZeroFillerOptions& options) {
  auto filler = ZeroFiller::Create(io, options);
  if (!filler.ok()) return filler.status();
  return (*filler)->Fill(file, offset, length);
}

}  // namespace cellsim::io
