// TeeVisitor: hands every record of one read to two visitors, in order, so
// that one pass over a trace both analyses it and compiles it for replay.
// Not thread-safe; never allocates; the visitors are not owned.
#ifndef HEAPREC_REPLAY_TEE_VISITOR_H_
#define HEAPREC_REPLAY_TEE_VISITOR_H_

#include "format/trace_visitor.h"

namespace heaprec::replay {

class TeeVisitor : public format::TraceVisitor {
 public:
  TeeVisitor(format::TraceVisitor* a, format::TraceVisitor* b) : a_(a), b_(b) {}
  void OnProcess(const format::ProcessInfo& x) override { a_->OnProcess(x), b_->OnProcess(x); }
  void OnModule(const format::Module& x) override { a_->OnModule(x), b_->OnModule(x); }
  void OnModuleUnload(const format::ModuleUnload& x) override {
    a_->OnModuleUnload(x), b_->OnModuleUnload(x);
  }
  void OnThread(const format::ThreadInfo& x) override { a_->OnThread(x), b_->OnThread(x); }
  void OnStackNode(const format::StackNode& x) override { a_->OnStackNode(x), b_->OnStackNode(x); }
  void OnSymbol(const format::Symbol& x) override { a_->OnSymbol(x), b_->OnSymbol(x); }
  void OnMarker(const format::Marker& x) override { a_->OnMarker(x), b_->OnMarker(x); }
  void OnLeakScan(const format::LeakScan& x) override { a_->OnLeakScan(x), b_->OnLeakScan(x); }
  void OnRssSample(const format::RssSample& x) override { a_->OnRssSample(x), b_->OnRssSample(x); }
  void OnEvent(const format::Event& x) override { a_->OnEvent(x), b_->OnEvent(x); }
  void OnEnd(const format::EndRecord& x) override { a_->OnEnd(x), b_->OnEnd(x); }

 private:
  format::TraceVisitor* a_;
  format::TraceVisitor* b_;
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_TEE_VISITOR_H_
