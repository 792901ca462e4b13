// Building, compiling and analysing test traces (replay_test_util.h).
#include "replay/replay_test_util.h"

#include <stdexcept>

#include "analyzers/analysis.h"
#include "analyzers/peak.h"
#include "format/byte_io.h"
#include "format/test_traces.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "replay/tee_visitor.h"

namespace heaprec::replay::testing {

format::Event Alloc(uint32_t thread, uint64_t address, uint64_t size, format::Api api,
                    uint64_t alignment) {
  format::Event e;
  e.thread = thread;
  e.api = api;
  e.address = address;
  e.size = size;
  e.alignment = alignment;
  e.stack = 1;
  return e;
}

format::Event Free(uint32_t thread, uint64_t address, format::Api api, uint64_t size,
                   uint64_t alignment) {
  format::Event e = Alloc(thread, address, size, api, alignment);
  e.stack = 0;
  return e;
}

format::Event Realloc(uint32_t thread, uint64_t old_address, uint64_t address, uint64_t size) {
  format::Event e = Alloc(thread, address, size, format::Api::kRealloc);
  e.old_address = old_address;
  return e;
}

void MovedRealloc(std::vector<format::Event>* events, uint32_t thread, uint64_t old_address,
                  uint64_t address, uint64_t size) {
  events->push_back(Realloc(thread, old_address, 0, 0));
  events->push_back(Realloc(thread, 0, address, size));
}

std::string TraceBytes(std::vector<format::Event> events,
                       const std::vector<format::ThreadInfo>& threads) {
  format::StringSink sink;
  format::TraceWriter w(&sink, format::testing::SampleProcess());
  for (const format::ThreadInfo& t : threads) w.AddThread(t);
  w.AddStackNode({1, 0, 0x401000});
  w.AddStackNode({2, 0, 0x402000});
  uint64_t seq = 0;
  for (format::Event& e : events) {
    e.seq = ++seq;
    e.time_ns = seq;
    w.AddEvent(e);
  }
  if (!w.Finish({})) throw std::runtime_error("writing a test trace failed");
  return sink.bytes();
}

Compiled CompileBytes(const std::string& bytes) {
  analyzers::Analysis analysis;
  analyzers::PeakAnalyzer peak;
  analysis.Add(&peak);
  TraceCompiler compiler;
  TeeVisitor tee(&analysis, &compiler);
  const format::ReadResult r = format::ReadTraceMemory("test", bytes.data(), bytes.size(), tee);
  if (r.status != format::ReadResult::kComplete) throw std::runtime_error(r.message);
  Compiled c;
  c.trace = compiler.Finish();
  c.analyzer_peak = peak.peak_bytes();
  c.analyzer_unknown_frees = analysis.heap().unknown_frees();
  return c;
}

}  // namespace heaprec::replay::testing
