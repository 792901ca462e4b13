// BlockIndex: spans, the bucket size and the bucket table (block_index.h).
#include "recorder/leakscan/block_index.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace heaprec::recorder::leakscan {

std::string CheckBlocks(std::span<const LiveBlock> blocks) {
  char message[160];
  if (blocks.size() >= kMaxBlocks) {
    std::snprintf(message, sizeof message, "%zu blocks: at most %zu are supported", blocks.size(),
                  kMaxBlocks - 1);
    return message;
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LiveBlock& b = blocks[i];
    if (b.address == 0 || LookupEnd(b) < b.address) {
      std::snprintf(message, sizeof message,
                    "block %zu (0x%" PRIx64 ", %" PRIu64 " bytes) is not a valid address range", i,
                    b.address, b.size);
      return message;
    }
    if (i > 0 && b.address < LookupEnd(blocks[i - 1])) {
      std::snprintf(message, sizeof message,
                    "block %zu at 0x%" PRIx64 " is not after the end of block %zu (0x%" PRIx64
                    "): blocks must be sorted and must not overlap",
                    i, b.address, i - 1, LookupEnd(blocks[i - 1]));
      return message;
    }
  }
  return {};
}

BlockIndex::BlockIndex(std::span<const LiveBlock> blocks) : blocks_(blocks) {
  const size_t n = blocks.size();
  if (n == 0) return;
  low_ = blocks[0].address;
  extent_ = LookupEnd(blocks[n - 1]) - low_;

  // Spans: [first block, last block] with gaps of at most kSpanGap inside.
  std::vector<uint32_t> span_first;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || blocks[i].address - LookupEnd(blocks[i - 1]) > kSpanGap) {
      span_first.push_back(static_cast<uint32_t>(i));
      span_starts_.push_back(blocks[i].address);
    }
  }
  const size_t span_count = span_first.size();
  spans_.resize(span_count);
  for (size_t s = 0; s < span_count; ++s) {
    const size_t last = s + 1 < span_count ? span_first[s + 1] - 1 : n - 1;
    spans_[s].end = LookupEnd(blocks[last]);
  }

  // The smallest bucket size (at least 16 bytes) that gives at most about one
  // bucket a block.
  const uint64_t budget = std::max<uint64_t>(n, 64);
  for (shift_ = 4; shift_ < 63; ++shift_) {
    uint64_t total = 0;
    for (size_t s = 0; s < span_count && total <= budget; ++s) {
      total += ((spans_[s].end - span_starts_[s] - 1) >> shift_) + 1;
    }
    if (total <= budget) break;
  }

  for (size_t s = 0; s < span_count; ++s) {
    const uint64_t start = span_starts_[s];
    const uint64_t count = ((spans_[s].end - start - 1) >> shift_) + 1;
    const uint32_t last = s + 1 < span_count ? span_first[s + 1] - 1 : static_cast<uint32_t>(n - 1);
    spans_[s].first_bucket = buckets_.size();
    uint32_t j = span_first[s];
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t bucket_start = start + (k << shift_);
      while (LookupEnd(blocks[j]) <= bucket_start) ++j;
      buckets_.push_back(j);
    }
    buckets_.push_back(last);
  }
}

}  // namespace heaprec::recorder::leakscan
