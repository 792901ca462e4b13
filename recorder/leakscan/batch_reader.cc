// BatchReader: batching, merging and page-by-page retries (batch_reader.h).
#include "recorder/leakscan/batch_reader.h"

#include <algorithm>
#include <span>

namespace heaprec::recorder::leakscan {

namespace {

// Padding a request may take in the buffer: its start is placed at the same
// address modulo 8 as the memory it copies, so aligned words stay aligned.
constexpr uint64_t kPadPerRequest = 16;

}  // namespace

BatchReader::BatchReader(MemorySource* source, uint64_t batch_bytes, uint64_t merge_gap)
    : source_(source),
      batch_bytes_(std::max(batch_bytes, kPageBytes)),
      merge_gap_(merge_gap),
      ok_(new bool[kMaxReadRequests]) {
  buffer_capacity_ = batch_bytes_ + kPadPerRequest * (kMaxReadRequests + 1);
  buffer_.reset(new std::byte[buffer_capacity_]);
  requests_.reserve(kMaxReadRequests);
}

void BatchReader::Clear() {
  requests_.clear();
  items_.clear();
  holes_.clear();
  buffer_used_ = 0;
  data_bytes_ = 0;
}

uint64_t BatchReader::Fit(uint64_t address, uint64_t length, uint64_t room) {
  if (length <= room) return length;
  if (room < kPageBytes) return 0;  // not worth a piece: the next batch takes it
  return ((address + room) & ~uint64_t{7}) - address;
}

uint64_t BatchReader::Add(size_t unit, uint64_t address, uint64_t length) {
  if (!requests_.empty()) {
    ReadRequest& last = requests_.back();
    const uint64_t last_end = last.address + last.length;
    if (address >= last_end && address - last_end <= merge_gap_) {
      const uint64_t gap = address - last_end;
      const uint64_t take = data_bytes_ + gap < batch_bytes_
                                ? Fit(address, length, batch_bytes_ - data_bytes_ - gap)
                                : 0;
      if (take > 0) {
        const uint64_t offset =
            static_cast<uint64_t>(last.destination - buffer_.get()) + (address - last.address);
        last.length += gap + take;
        data_bytes_ += gap + take;
        buffer_used_ += gap + take;
        items_.push_back(
            {unit, address, take, offset, static_cast<uint32_t>(requests_.size() - 1)});
        return take;
      }
    }
  }
  if (requests_.size() == kMaxReadRequests || data_bytes_ >= batch_bytes_) return 0;
  const uint64_t take = Fit(address, length, batch_bytes_ - data_bytes_);
  if (take == 0) return 0;
  const uint64_t offset = ((buffer_used_ + 7) & ~uint64_t{7}) + (address & 7);
  requests_.push_back({address, take, buffer_.get() + offset});
  items_.push_back({unit, address, take, offset, static_cast<uint32_t>(requests_.size() - 1)});
  buffer_used_ = offset + take;
  data_bytes_ += take;
  return take;
}

void BatchReader::AddHole(uint32_t request, uint64_t low, uint64_t high) {
  if (!holes_.empty() && holes_.back().request == request && holes_.back().high == low) {
    holes_.back().high = high;
  } else {
    holes_.push_back({request, low, high});
  }
  totals_.bytes_unreadable += high - low;
}

void BatchReader::ReadBatch() {
  const size_t n = requests_.size();
  std::fill(ok_.get(), ok_.get() + n, false);
  source_->Read(std::span<const ReadRequest>(requests_.data(), n), std::span<bool>(ok_.get(), n));
  ++totals_.calls;
  totals_.requests += n;
  retry_.clear();
  retry_owner_.clear();
  for (size_t r = 0; r < n; ++r) {
    const ReadRequest& q = requests_[r];
    if (ok_[r]) {
      totals_.bytes_read += q.length;
      continue;
    }
    // Again page by page, into the same place.
    uint64_t a = q.address;
    const uint64_t end = q.address + q.length;
    while (a < end) {
      const uint64_t page_end = (a & ~(kPageBytes - 1)) + kPageBytes;
      const uint64_t b = std::min(end, page_end);
      retry_.push_back({a, b - a, q.destination + (a - q.address)});
      retry_owner_.push_back(static_cast<uint32_t>(r));
      a = b;
    }
  }
  for (size_t first = 0; first < retry_.size(); first += kMaxReadRequests) {
    const size_t m = std::min(kMaxReadRequests, retry_.size() - first);
    std::fill(ok_.get(), ok_.get() + m, false);
    source_->Read(std::span<const ReadRequest>(retry_.data() + first, m),
                  std::span<bool>(ok_.get(), m));
    ++totals_.calls;
    totals_.requests += m;
    for (size_t k = 0; k < m; ++k) {
      const ReadRequest& q = retry_[first + k];
      if (ok_[k]) {
        totals_.bytes_read += q.length;
      } else {
        AddHole(retry_owner_[first + k], q.address, q.address + q.length);
      }
    }
  }
}

}  // namespace heaprec::recorder::leakscan
