// Test helpers for replay/: traces built event by event (written with
// TraceWriter and read back, so block numbers come from the real reader),
// compiled and analysed in one pass. Test-only; allocates freely.
#ifndef HEAPREC_REPLAY_REPLAY_TEST_UTIL_H_
#define HEAPREC_REPLAY_REPLAY_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "format/records.h"
#include "replay/trace_compiler.h"

namespace heaprec::replay::testing {

// Events with addresses (the writer numbers the blocks), from stack 1 (the
// trace also has a stack 2). seq is filled in
// by TraceBytes in vector order.
format::Event Alloc(uint32_t thread, uint64_t address, uint64_t size,
                    format::Api api = format::Api::kMalloc, uint64_t alignment = 0);
format::Event Free(uint32_t thread, uint64_t address, format::Api api = format::Api::kFree,
                   uint64_t size = 0, uint64_t alignment = 0);
format::Event Realloc(uint32_t thread, uint64_t old_address, uint64_t address, uint64_t size);
// A realloc that moved old -> address, as the recorder writes it: two events.
void MovedRealloc(std::vector<format::Event>* events, uint32_t thread, uint64_t old_address,
                  uint64_t address, uint64_t size);

// The process is format::testing::SampleProcess() (pid 4242); threads, if
// any, are declared before the events.
std::string TraceBytes(std::vector<format::Event> events,
                       const std::vector<format::ThreadInfo>& threads = {});

struct Compiled {
  CompiledTrace trace;
  uint64_t analyzer_peak = 0;  // analyzers::PeakAnalyzer on the same read
  uint64_t analyzer_unknown_frees = 0;
};
Compiled CompileBytes(const std::string& bytes);

}  // namespace heaprec::replay::testing

#endif  // HEAPREC_REPLAY_REPLAY_TEST_UTIL_H_
