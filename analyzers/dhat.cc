// DHAT's numbers per program point (dhat.h).
#include "analyzers/dhat.h"

namespace heaprec::analyzers {

DhatAnalyzer::PerStack& DhatAnalyzer::At(uint32_t stack) {
  if (stack >= stacks_.size()) stacks_.resize(stack + 1 + stack / 2);
  return stacks_[stack];
}

void DhatAnalyzer::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap&) {
  last_time_ns_ = e.time_ns;
  const __int128 t = e.time_ns;
  if (c.released != 0) {
    At(c.released_block.stack).lifetime_ns += t * c.released_est.count;
  }
  if (c.made != 0) {
    PerStack& s = At(c.made_block.stack);
    s.total_bytes += c.made_est.bytes;
    s.total_blocks += c.made_est.count;
    s.lifetime_ns -= t * c.made_est.count;
    // PeakAnalyzer has applied this event already.
    const Site& live = peak_->live().all()[c.made_block.stack];
    if (live.bytes > s.max_bytes) {
      s.max_bytes = live.bytes;
      s.max_blocks = live.count;
    }
  }
}

std::vector<DhatSite> DhatAnalyzer::Sites() const {
  std::vector<DhatSite> out;
  std::vector<uint64_t> peak_bytes(stacks_.size()), peak_blocks(stacks_.size());
  for (const Site& s : peak_->Sites()) {
    if (s.stack < stacks_.size()) {
      peak_bytes[s.stack] = s.bytes;
      peak_blocks[s.stack] = s.count;
    }
  }
  const StackTotals::Sites& live = peak_->live().all();
  for (uint32_t i = 0; i < stacks_.size(); ++i) {
    const PerStack& p = stacks_[i];
    if (p.total_blocks == 0) continue;
    DhatSite d;
    d.stack = i;
    d.total_bytes = p.total_bytes;
    d.total_blocks = p.total_blocks;
    d.max_bytes = p.max_bytes;
    d.max_blocks = p.max_blocks;
    d.peak_bytes = peak_bytes[i];
    d.peak_blocks = peak_blocks[i];
    if (i < live.size()) {
      d.end_bytes = live[i].bytes;
      d.end_blocks = live[i].count;
    }
    // Blocks still live are counted as living until the end.
    const __int128 lifetime =
        p.lifetime_ns + static_cast<__int128>(last_time_ns_) * static_cast<__int128>(d.end_blocks);
    d.total_lifetime_ns = lifetime < 0 ? 0 : static_cast<uint64_t>(lifetime);
    out.push_back(d);
  }
  return out;
}

}  // namespace heaprec::analyzers
