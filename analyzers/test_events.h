// EventFeeder: hands events to a TraceVisitor the way a reader of a heaprec
// trace would: seq from 1, time = seq ms unless given, blocks numbered from
// the addresses (format::BlockNumbers), addresses kept only for frees of
// blocks never made. Raw() passes an event whose blocks are given (a double
// free names an already released block); Marker() precedes the next event
// (and a switch of recording makes the numbering forget released addresses,
// as heaprec's writer does).
// Test-only; not thread-safe.
#ifndef HEAPREC_ANALYZERS_TEST_EVENTS_H_
#define HEAPREC_ANALYZERS_TEST_EVENTS_H_

#include <cstdint>
#include <string>

#include "format/block_numbers.h"
#include "format/records.h"
#include "format/switch_markers.h"
#include "format/trace_visitor.h"

namespace heaprec::analyzers {

class EventFeeder {
 public:
  explicit EventFeeder(format::TraceVisitor* v) : v_(v) {}

  void Event(format::Event e) {
    e.seq = ++seq_;
    if (e.time_ns == 0) e.time_ns = e.seq * 1000000;
    blocks_.Assign(&e);
    if (e.kind() != format::EventKind::kFree || e.block != 0) e.address = 0;
    if (e.old_block != 0) e.old_address = 0;
    v_->OnEvent(e);
  }
  void Raw(format::Event e) {
    e.seq = ++seq_;
    e.time_ns = e.seq * 1000000;
    v_->OnEvent(e);
  }
  void Marker(const std::string& label) {
    // As heaprec's trace writer does at a switch of recording.
    if (format::IsRecordingSwitch(label)) {
      blocks_.RecordingSwitched(label == format::kRecordingStopLabel);
    }
    v_->OnMarker({seq_ + 1, (seq_ + 1) * 1000000, 1, label});
  }
  // An RSS sample (format 3.4) at this point, before the next event.
  void Rss(uint64_t anon_bytes, uint64_t file_bytes = 0) {
    v_->OnRssSample({seq_ + 1, seq_ * 1000000 + 500000, anon_bytes, file_bytes, 0});
  }
  // A leak scan at this point: blocks (by number) with their kinds and
  // retaining roots (0 unless still reachable).
  void LeakScan(format::LeakScan s) {
    s.seq = seq_ + 1;
    s.time_ns = s.seq * 1000000;
    v_->OnLeakScan(s);
  }

 private:
  format::TraceVisitor* v_;
  format::BlockNumbers blocks_;
  uint64_t seq_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_TEST_EVENTS_H_
