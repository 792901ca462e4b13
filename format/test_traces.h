// Test helpers: a deterministic sample trace that uses every record kind and
// every Api, and a visitor that records what a reader delivers.
// Test-only; allocates freely.
#ifndef HEAPREC_FORMAT_TEST_TRACES_H_
#define HEAPREC_FORMAT_TEST_TRACES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"
#include "format/trace_visitor.h"
#include "format/trace_writer.h"

namespace heaprec::format::testing {

// Everything a trace holds, in the order a reader delivers each kind.
struct Records {
  std::vector<ProcessInfo> processes;
  std::vector<Module> modules;
  std::vector<ModuleUnload> unloads;
  std::vector<ThreadInfo> threads;
  std::vector<StackNode> stack_nodes;
  std::vector<Symbol> symbols;
  std::vector<Marker> markers;
  std::vector<LeakScan> leak_scans;
  std::vector<RssSample> rss_samples;
  std::vector<Event> events;
  std::vector<EndRecord> ends;
  // "E<seq>", "M<seq>" and "L<seq>" in delivery order, to check markers
  // and leak scans interleave.
  std::vector<std::string> order;
};

class RecordingVisitor : public TraceVisitor {
 public:
  void OnProcess(const ProcessInfo& p) override { r.processes.push_back(p); }
  void OnModule(const Module& m) override { r.modules.push_back(m); }
  void OnModuleUnload(const ModuleUnload& u) override { r.unloads.push_back(u); }
  void OnThread(const ThreadInfo& t) override { r.threads.push_back(t); }
  void OnStackNode(const StackNode& n) override { r.stack_nodes.push_back(n); }
  void OnSymbol(const Symbol& s) override { r.symbols.push_back(s); }
  void OnMarker(const Marker& m) override {
    r.markers.push_back(m);
    r.order.push_back("M" + std::to_string(m.seq));
  }
  void OnLeakScan(const LeakScan& s) override {
    r.leak_scans.push_back(s);
    r.order.push_back("L" + std::to_string(s.seq));
  }
  void OnRssSample(const RssSample& s) override {
    r.rss_samples.push_back(s);
    r.order.push_back("R" + std::to_string(s.seq));
  }
  void OnEvent(const Event& e) override {
    r.events.push_back(e);
    r.order.push_back("E" + std::to_string(e.seq));
  }
  void OnEnd(const EndRecord& e) override { r.ends.push_back(e); }
  Records r;
};

ProcessInfo SampleProcess();

// Every Api value this build knows.
std::vector<Api> AllApis();

// What a reader delivers for events written in this order: block and
// old_block numbered (a reference implementation of FORMAT.md's "Blocks",
// independent of format/BlockNumbers), and, when the trace keeps no
// addresses, addresses cleared except those of unknown blocks.
std::vector<Event> AsRead(const std::vector<Event>& written, bool keep_addresses);

// Writes a sample trace of about `events` events to w (not finished) and
// returns what a reader must deliver (without the end record). Flushes after
// every `flush_every` events when non-zero. Deterministic for a seed. With
// reuse_blocks, most frees and reallocs name a live block (else addresses
// are random, as the format 1.0 test trace was written).
Records WriteSample(TraceWriter& w, int events, int flush_every, uint32_t seed,
                    bool reuse_blocks = true);

// A whole sample trace in memory: header, chunks, end. expected gets the
// records (with the end record) when non-null; chunk_ends gets the byte
// offset just past each chunk when non-null.
std::string SampleTraceBytes(int events, int flush_every, uint32_t seed, Records* expected,
                             std::vector<uint64_t>* chunk_ends = nullptr,
                             const TraceWriter::Options& options = TraceWriter::Options(),
                             bool reuse_blocks = true);

}  // namespace heaprec::format::testing

#endif  // HEAPREC_FORMAT_TEST_TRACES_H_
