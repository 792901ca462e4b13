// TraceSummary: per-call-site numbers of one trace (trace_summary.h).
// As the end-to-end tests' oracle it deliberately re-derives what an event
// means (free(NULL), the realloc cases, the two halves of a moved realloc)
// from the fields as format/FORMAT.md defines them, without format/'s
// predicates (Event::IsNullFree() and the others in records.h), so that it
// checks them independently.
#include "tests/trace_summary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>

#include "analyzers/human_bytes.h"
#include "format/api.h"
#include "format/stack_table.h"

namespace heaprec::tests {
namespace {

std::string Describe(const std::string& name, const SiteStats& s) {
  std::string out = "  " + (name.empty() ? std::string("(no stack)") : name) + ":";
  out += " allocations=" + std::to_string(s.allocations);
  out += " reallocs=" + std::to_string(s.reallocs) + " (moved " + std::to_string(s.moved_reallocs) +
         ")";
  out += " failed=" + std::to_string(s.failed);
  out += " bytes=" + std::to_string(s.bytes);
  out += " leaked=" + std::to_string(s.leaked_blocks) + "/" + std::to_string(s.leaked_bytes) + "B";
  out += " released=" + std::to_string(s.released_blocks) + " {" + FormatApiCounts(s.released_by) +
         "}";
  out += " cross_thread=" + std::to_string(s.cross_thread_releases);
  out += " calls={" + FormatApiCounts(s.calls) + "}";
  out += " threads=" + std::to_string(s.threads.size());
  out += " seq=" + std::to_string(s.first_seq) + ".." + std::to_string(s.last_seq);
  for (const std::string& f : s.inlined) out += " inlined:" + f;
  return out + "\n";
}

}  // namespace

std::string FormatApiCounts(const std::map<format::Api, uint64_t>& counts) {
  std::string out;
  for (const auto& [api, n] : counts) {
    if (!out.empty()) out += ", ";
    out += std::string(format::ApiName(api)) + "=" + std::to_string(n);
  }
  return out;
}

uint64_t SiteStats::Calls(format::Api api) const {
  const auto it = calls.find(api);
  return it == calls.end() ? 0 : it->second;
}

uint64_t SiteStats::ReleasedBy(format::Api api) const {
  const auto it = released_by.find(api);
  return it == released_by.end() ? 0 : it->second;
}

void SiteStats::Merge(const SiteStats& o) {
  for (const auto& [api, n] : o.calls) calls[api] += n;
  allocations += o.allocations;
  usage_allocs += o.usage_allocs;
  usage_frees += o.usage_frees;
  reallocs += o.reallocs;
  moved_reallocs += o.moved_reallocs;
  failed += o.failed;
  bytes += o.bytes;
  released_blocks += o.released_blocks;
  for (const auto& [api, n] : o.released_by) released_by[api] += n;
  cross_thread_releases += o.cross_thread_releases;
  leaked_blocks += o.leaked_blocks;
  leaked_bytes += o.leaked_bytes;
  if (o.first_seq != 0 && (first_seq == 0 || o.first_seq < first_seq)) {
    first_seq = o.first_seq;
    first_time_ns = o.first_time_ns;
  }
  if (o.last_seq > last_seq) {
    last_seq = o.last_seq;
    last_time_ns = o.last_time_ns;
  }
  alignments.insert(o.alignments.begin(), o.alignments.end());
  threads.insert(o.threads.begin(), o.threads.end());
  modules.insert(o.modules.begin(), o.modules.end());
  inlined.insert(o.inlined.begin(), o.inlined.end());
}

const SiteStats* TraceSummary::Site(const std::string& name) const {
  const auto it = sites.find(name);
  return it == sites.end() ? nullptr : &it->second;
}

const format::Module* TraceSummary::Module(uint32_t id) const {
  for (const format::Module& m : modules) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

int64_t TraceSummary::Counter(const std::string& name) const {
  if (!has_end) return -1;
  for (const auto& [n, v] : end.counters) {
    if (n == name) return static_cast<int64_t>(v);
  }
  return -1;
}

std::vector<std::string> TraceSummary::MarkerLabels() const {
  std::vector<std::string> labels;
  for (const format::Marker& m : markers) labels.push_back(m.label);
  return labels;
}

uint64_t TraceSummary::LeakedBlocks(const std::vector<std::string>& site_names) const {
  uint64_t n = 0;
  for (const std::string& name : site_names) {
    if (const SiteStats* s = Site(name)) n += s->leaked_blocks;
  }
  return n;
}

uint64_t TraceSummary::LeakedBytes(const std::vector<std::string>& site_names) const {
  uint64_t n = 0;
  for (const std::string& name : site_names) {
    if (const SiteStats* s = Site(name)) n += s->leaked_bytes;
  }
  return n;
}

std::string TraceSummary::ToString() const {
  std::string out = "trace of pid " + std::to_string(process.pid) + " (" + process.program +
                    "), read: " + read.message + "\n";
  for (const auto& [name, s] : sites) out += Describe(name, s);
  out += Describe("TOTAL", total);
  out += "  events=" + std::to_string(events) + " threads=" + std::to_string(threads.size()) +
         " markers=" + std::to_string(markers.size()) +
         " unmatched_frees=" + std::to_string(unmatched_frees) +
         " null_frees=" + std::to_string(null_frees) + "\n";
  return out;
}

// Stats are kept per frame-0 return address while reading (symbols come at the
// end of a trace) and merged into named sites by Finish.
struct SummaryVisitor::State {
  struct Block {
    uint64_t size;
    uint64_t site;  // frame-0 address of the owning site
    uint32_t thread;
  };
  struct PendingMove {  // a thread's last event, if it was realloc "old freed"
    bool valid = false;
    uint32_t stack = 0;
    format::Api api = format::Api::kRealloc;
  };

  // block: Event::block of the block released; 0 = one the trace never saw made.
  void Release(uint64_t block, format::Api api, uint32_t thread) {
    const auto it = block == 0 ? live.end() : live.find(block);
    if (it == live.end()) {
      ++out.unmatched_frees;
      return;
    }
    SiteStats& owner = by_address[it->second.site];
    ++owner.released_blocks;
    ++owner.released_by[api];
    if (it->second.thread != thread) ++owner.cross_thread_releases;
    live.erase(it);
  }

  void Live(const format::Event& e, uint64_t site) { live[e.block] = {e.size, site, e.thread}; }

  format::StackTable stacks;
  std::unordered_map<uint64_t, format::Symbol> symbols;
  std::map<uint64_t, SiteStats> by_address;
  std::unordered_map<uint64_t, Block> live;
  std::unordered_map<uint32_t, PendingMove> pending;
  TraceSummary out;
};

SummaryVisitor::SummaryVisitor() : state_(std::make_unique<State>()) {}
SummaryVisitor::~SummaryVisitor() = default;

void SummaryVisitor::OnProcess(const format::ProcessInfo& p) {
  state_->out.has_process = true;
  state_->out.process = p;
}

void SummaryVisitor::OnModule(const format::Module& m) { state_->out.modules.push_back(m); }

void SummaryVisitor::OnModuleUnload(const format::ModuleUnload& u) {
  state_->out.unloads.push_back(u);
}

void SummaryVisitor::OnThread(const format::ThreadInfo& t) {
  state_->out.threads[t.thread] = t.name;
}

void SummaryVisitor::OnStackNode(const format::StackNode& n) { state_->stacks.Add(n); }

void SummaryVisitor::OnSymbol(const format::Symbol& s) { state_->symbols[s.address] = s; }

void SummaryVisitor::OnMarker(const format::Marker& m) { state_->out.markers.push_back(m); }

void SummaryVisitor::OnRssSample(const format::RssSample& r) {
  state_->out.rss_samples.push_back(r);
}

void SummaryVisitor::OnEnd(const format::EndRecord& e) {
  state_->out.has_end = true;
  state_->out.end = e;
}

void SummaryVisitor::OnEvent(const format::Event& e) {
  State& st = *state_;
  ++st.out.events;
  const uint64_t site = e.stack != 0 ? st.stacks.Address(e.stack) : 0;
  SiteStats& s = st.by_address[site];
  if (s.first_seq == 0 || e.seq < s.first_seq) {
    s.first_seq = e.seq;
    s.first_time_ns = e.time_ns;
  }
  if (e.seq >= s.last_seq) {
    s.last_seq = e.seq;
    s.last_time_ns = e.time_ns;
  }
  s.threads.insert(e.thread);
  const State::PendingMove previous = st.pending[e.thread];
  st.pending[e.thread] = {};

  switch (e.kind()) {
    case format::EventKind::kAlloc:
      ++s.calls[e.api];
      if (e.block == 0) {
        ++s.failed;
        break;
      }
      ++s.allocations;
      ++s.usage_allocs;
      s.bytes += e.size;
      if (format::HasAlignment(e.api)) s.alignments.insert(e.alignment);
      st.Live(e, site);
      break;
    case format::EventKind::kRealloc: {
      const bool had_old = e.old_block != 0 || e.old_address != 0;
      if (had_old && e.block == 0 && e.size == 0) {
        // realloc(p, 0), or the first half of a moved block.
        ++s.calls[e.api];
        ++s.reallocs;
        ++s.usage_frees;
        st.Release(e.old_block, e.api, e.thread);
        st.pending[e.thread] = {true, e.stack, e.api};
        break;
      }
      if (!had_old && e.block != 0 && previous.valid && previous.stack == e.stack &&
          previous.api == e.api) {
        // The second half of a moved block: the call was counted already.
        ++s.moved_reallocs;
        ++s.usage_allocs;
        s.bytes += e.size;
        st.Live(e, site);
        break;
      }
      ++s.calls[e.api];
      ++s.reallocs;
      if (e.block == 0) {
        ++s.failed;  // the old block, if any, is unchanged
        break;
      }
      ++s.usage_allocs;
      if (had_old) {
        ++s.usage_frees;
        st.Release(e.old_block, e.api, e.thread);
      }
      s.bytes += e.size;
      st.Live(e, site);
      break;
    }
    case format::EventKind::kFree:
      ++s.calls[e.api];
      if (e.block == 0 && e.address == 0) {
        ++st.out.null_frees;
      } else {
        ++s.usage_frees;
        st.Release(e.block, e.api, e.thread);
      }
      break;
    case format::EventKind::kInvalid:
      break;
  }
}

TraceSummary SummaryVisitor::Finish(const format::ReadResult& read) {
  State& st = *state_;
  for (const auto& [address, block] : st.live) {
    SiteStats& s = st.by_address[block.site];
    ++s.leaked_blocks;
    s.leaked_bytes += block.size;
  }
  st.live.clear();
  for (auto& [address, stats] : st.by_address) {
    std::string name = kNoStack;
    if (address != 0) {
      const auto sym = st.symbols.find(address);
      if (sym != st.symbols.end() && !sym->second.frames.empty() &&
          !sym->second.frames.back().function.empty()) {
        name = sym->second.frames.back().function;
        if (sym->second.frames.size() > 1)
          stats.inlined.insert(sym->second.frames.front().function);
      } else {
        name = "?" + analyzers::Hex(address);
      }
      if (sym != st.symbols.end()) stats.modules.insert(sym->second.module);
    }
    st.out.sites[name].Merge(stats);
    st.out.total.Merge(stats);
  }
  st.by_address.clear();
  st.out.read = read;
  TraceSummary result = std::move(st.out);
  st.out = TraceSummary();
  return result;
}

TraceSummary SummarizeTrace(const std::string& path) {
  SummaryVisitor visitor;
  const format::ReadResult read = format::ReadTraceFile(path, visitor);
  return visitor.Finish(read);
}

}  // namespace heaprec::tests
