// BlockIndex: which live block a candidate pointer value falls in, the
// question asked of every aligned word the scan reads (tens of millions).
//
// memcheck asks it by binary search over the sorted blocks (find_chunk_for,
// spec section 2); this answers the same question from a bucket table:
// the blocks are cut into spans wherever more than kSpanGap bytes separate two
// blocks (the brk heap and the mmap area are terabytes apart), each span is
// cut into buckets of 2^shift bytes, shift chosen so that there are about as
// many buckets as blocks, and a bucket holds the index of the first block
// that ends after its start. A lookup is a range test, a short search among
// the spans, one bucket read and a short walk. Equal to find_chunk_for for
// sorted, non-overlapping blocks: a block of size 0 covers one byte, the byte
// one past a block's end is not in it.
//
// Immutable after construction: lookups are thread-safe. Allocates about
// 4 bytes a block. Keeps a view of the blocks (the caller's array must outlive
// it).
#ifndef HEAPREC_RECORDER_LEAKSCAN_BLOCK_INDEX_H_
#define HEAPREC_RECORDER_LEAKSCAN_BLOCK_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "recorder/leakscan/big_vector.h"
#include "recorder/leakscan/scan_types.h"

namespace heaprec::recorder::leakscan {

inline constexpr uint32_t kNoBlock = 0xffffffffu;
// Block indices fit in 29 bits (pointer_graph.h packs an edge in 32).
inline constexpr size_t kMaxBlocks = size_t{1} << 29;

// The end memcheck's lookup uses: size 0 counts as 1 byte.
inline uint64_t LookupEnd(const LiveBlock& b) { return b.address + (b.size == 0 ? 1 : b.size); }

// Empty if blocks are sorted by address and do not overlap (LookupEnd), and
// fit the engine's limits; otherwise what is wrong, naming the first bad one.
std::string CheckBlocks(std::span<const LiveBlock> blocks);

class BlockIndex {
 public:
  static constexpr uint64_t kSpanGap = uint64_t{1} << 20;

  // blocks must pass CheckBlocks.
  explicit BlockIndex(std::span<const LiveBlock> blocks);

  uint32_t Find(uint64_t value) const {
    const uint64_t b = BucketOf(value);
    return b == kNoBucket ? kNoBlock : Resolve(value, buckets_[b], buckets_[b + 1]);
  }

  // Find for many values at once (at most kBatch), each stage's cache
  // misses overlapped by prefetching for the whole batch: the scan's lookups
  // are independent, and most of them miss (the bucket table and the blocks
  // are far larger than the caches).
  static constexpr size_t kBatch = 64;
  void FindMany(const uint64_t* values, size_t count, uint32_t* out) const {
    uint64_t bucket[kBatch];
    for (size_t k = 0; k < count; ++k) {
      bucket[k] = BucketOf(values[k]);
      if (bucket[k] != kNoBucket) __builtin_prefetch(&buckets_[bucket[k]]);
    }
    uint32_t first[kBatch], last[kBatch];
    for (size_t k = 0; k < count; ++k) {
      if (bucket[k] == kNoBucket) continue;
      first[k] = buckets_[bucket[k]];
      last[k] = buckets_[bucket[k] + 1];
      __builtin_prefetch(&blocks_[first[k]]);
      __builtin_prefetch(&blocks_[last[k]]);
    }
    for (size_t k = 0; k < count; ++k) {
      if (bucket[k] == kNoBucket) {
        out[k] = kNoBlock;
      } else if (last[k] - first[k] <= 1) {
        // The common case without a branch on the loaded addresses: the
        // bucket's first candidate, or the next one if it starts at or
        // before the value.
        const uint64_t v = values[k];
        const uint32_t i = first[k] + (blocks_[last[k]].address <= v ? last[k] - first[k] : 0);
        const LiveBlock& b = blocks_[i];
        out[k] = (v - b.address < (b.size == 0 ? 1 : b.size)) ? i : kNoBlock;
      } else {
        out[k] = Resolve(values[k], first[k], last[k]);
      }
    }
  }

  // Whether value may fall in a block at all (the first, cheapest test).
  bool InRange(uint64_t value) const { return value - low_ < extent_; }

  size_t bucket_count() const { return buckets_.size(); }
  unsigned shift() const { return shift_; }

 private:
  static constexpr uint64_t kNoBucket = ~uint64_t{0};

  // The bucket value falls in, or kNoBucket when it is outside every span.
  uint64_t BucketOf(uint64_t value) const {
    if (value - low_ >= extent_) return kNoBucket;
    size_t s = 0;
    if (span_starts_.size() > 1) {
      // The last span starting at or before value.
      size_t lo = 0, hi = span_starts_.size();
      while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        if (span_starts_[mid] <= value) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      s = lo;
    }
    if (value >= spans_[s].end) return kNoBucket;
    return spans_[s].first_bucket + ((value - span_starts_[s]) >> shift_);
  }

  // The block holding value among blocks i .. last (a bucket's candidates:
  // no block after `last` can hold a value of the bucket).
  uint32_t Resolve(uint64_t value, uint32_t i, uint32_t last) const {
    if (last - i > 8) {
      // Many small blocks in one bucket: the last one starting at or before value.
      uint32_t lo = i, hi = last + 1;
      while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (blocks_[mid].address <= value) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      i = lo;
    } else {
      while (i < last && blocks_[i + 1].address <= value) ++i;
    }
    const LiveBlock& block = blocks_[i];
    return block.address <= value && value < LookupEnd(block) ? i : kNoBlock;
  }

  struct Span {
    uint64_t end;           // LookupEnd of its last block
    uint64_t first_bucket;  // in buckets_
  };

  std::span<const LiveBlock> blocks_;
  uint64_t low_ = 1;
  uint64_t extent_ = 0;  // value - low_ < extent_: inside [first block, last block's end)
  unsigned shift_ = 4;
  std::vector<uint64_t> span_starts_;
  std::vector<Span> spans_;
  // Per span: one entry per bucket, then one more (the span's last block), so
  // that buckets_[b + 1] is always valid.
  BigVector<uint32_t> buckets_;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_BLOCK_INDEX_H_
