// Formats 2 and 3: the events' seq order from sorted seqs or seq runs
// (seq_order.h).
#include "format/internal/seq_order.h"

#include <algorithm>

#include "format/internal/varint_columns.h"

namespace heaprec::format::detail {
namespace {

// Puts order (0..n-1) in increasing seqs order. A writer groups a chunk's
// events by thread, each thread's in seq order: the order is a few sorted
// runs, merged pairwise in O(n log runs). Many runs (only a damaged or odd
// trace has them) fall back to sorting.
void SortBySeq(const std::vector<uint64_t>& seqs, std::vector<uint32_t>* order,
               std::vector<uint32_t>* buffer) {
  const auto by_seq = [&seqs](uint32_t a, uint32_t b) { return seqs[a] < seqs[b]; };
  std::vector<size_t> runs = {0};  // run starts, then n
  for (size_t i = 1; i < order->size(); ++i) {
    if (seqs[(*order)[i]] < seqs[(*order)[i - 1]]) runs.push_back(i);
  }
  runs.push_back(order->size());
  if (runs.size() > 65) {
    std::sort(order->begin(), order->end(), by_seq);
    return;
  }
  buffer->resize(order->size());
  while (runs.size() > 2) {
    std::vector<size_t> merged = {0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      const size_t end = r + 2 < runs.size() ? runs[r + 2] : runs[r + 1];
      std::merge(order->begin() + runs[r], order->begin() + runs[r + 1],
                 order->begin() + runs[r + 1], order->begin() + end, buffer->begin() + runs[r],
                 by_seq);
      merged.push_back(end);
    }
    order->swap(*buffer);
    runs = std::move(merged);
  }
}

// Takes the runs of seq_run_v into k->order; false if they do not match the
// column groups.
bool TakeRuns(const fb::Chunk& c, Columns* k, std::string* error) {
  const size_t n = k->n;
  // merge_buffer: each group's next event (its start, then a cursor), n,
  // then each group's end.
  std::vector<uint32_t>& next = k->merge_buffer;
  next.assign(k->groups.begin(), k->groups.end());
  const size_t groups = next.size();
  next.push_back(static_cast<uint32_t>(n));
  for (size_t g = 0; g < groups; ++g) next.push_back(next[g + 1]);
  const uint32_t* end = next.data() + groups + 1;
  std::vector<uint64_t>& runs = k->seq_run;
  if (!ReadVarintColumn(c.seq_run_v(), SIZE_MAX, &runs) || runs.size() % 2 != 0) {
    *error = "seq runs do not decode";
    return false;
  }
  size_t j = 0;
  for (size_t r = 0; r < runs.size(); r += 2) {
    const uint64_t group = runs[r], count = runs[r + 1];
    if (group >= groups || count > end[group] - next[group] || count == 0) {
      *error = "seq runs do not match the columns";
      return false;
    }
    for (uint64_t m = 0; m < count; ++m) k->order[j++] = next[group]++;
  }
  if (j != n) {  // then every group was taken whole
    *error = "seq runs do not match the columns";
    return false;
  }
  return true;
}

}  // namespace

bool OrderBySeq(Columns* k, std::string* error) {
  const size_t n = k->n;
  k->order.resize(n);
  for (size_t i = 0; i < n; ++i) k->order[i] = static_cast<uint32_t>(i);
  const std::vector<uint64_t>& seqs = k->seq;
  SortBySeq(seqs, &k->order, &k->merge_buffer);
  for (size_t j = 1; j < n; ++j) {
    if (seqs[k->order[j]] == seqs[k->order[j - 1]]) {
      *error = "event " + std::to_string(k->order[j]) + " repeats a sequence number";
      return false;
    }
  }
  return true;
}

bool OrderByRuns(const fb::Chunk& c, Columns* k, std::string* error) {
  const size_t n = k->n;
  k->order.resize(n);
  if (Len(c.seq_run_v()) == 0) {
    for (size_t i = 0; i < n; ++i) k->order[i] = static_cast<uint32_t>(i);
  } else if (!TakeRuns(c, k, error)) {
    return false;
  }
  uint64_t seq = c.base_seq();
  for (size_t j = 0; j < n; ++j) {
    const uint32_t i = k->order[j];
    const uint64_t next_seq = seq + 1 + k->seq[i];  // the seqs skipped, until here
    if (next_seq <= seq) {
      *error = "sequence numbers overflow";
      return false;
    }
    k->seq[i] = seq = next_seq;
  }
  return true;
}

}  // namespace heaprec::format::detail
