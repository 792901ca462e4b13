// FuzzVisitor: a TraceVisitor for the fuzz targets that reads every field it
// is handed, so that a bad read in the reader is seen by the sanitizers.
// Test-only; not thread-safe.
#ifndef HEAPREC_FORMAT_FUZZ_VISITOR_H_
#define HEAPREC_FORMAT_FUZZ_VISITOR_H_

#include <cstdint>

#include "format/trace_visitor.h"

namespace heaprec::format {

class FuzzVisitor : public TraceVisitor {
 public:
  void OnProcess(const ProcessInfo& p) override {
    for (const auto& a : p.args) sum_ += a.size();
  }
  void OnModule(const Module& m) override {
    sum_ += m.path.size() + m.build_id.size() + m.ranges.size();
  }
  void OnSymbol(const Symbol& s) override {
    for (const auto& f : s.frames) sum_ += f.function.size() + f.file.size();
  }
  void OnMarker(const Marker& m) override { sum_ += m.label.size(); }
  void OnEvent(const Event& e) override {
    sum_ += e.seq ^ e.address ^ e.size ^ e.alignment ^ e.old_address ^ e.stack;
  }
  uint64_t sum() const { return sum_; }

 private:
  uint64_t sum_ = 0;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_FUZZ_VISITOR_H_
