// TraceVisitor: what a reader of a trace is told, in trace order.
//
// For each chunk the reader calls, in this order: OnProcess (first chunk
// only), OnModule, OnModuleUnload, OnThread, OnStackNode, OnSymbol, then the
// chunk's events, markers, leak scans and RSS samples merged by seq (each
// comes before the event whose seq it names; at one seq, samples first, then
// a marker, then a scan), then OnEnd (last chunk only). Every stack id an event
// names was announced by OnStackNode before it.
//
// Events come one at a time (OnEvent) or several at once (OnEvents: a run of
// consecutive events, with no other record between them); a reader may use
// either, and mix them. heaprec's trace reader calls OnEvents and
// OnEventBatch (a run in columns the visitor may keep). The default
// OnEvents hands each event to OnEvent, so a visitor that wants events one
// at a time overrides OnEvent alone; one that overrides OnEvents must still
// take OnEvent (the heaptrack reader and tests call it).
//
// With ReaderOptions::resume or skip_events_after (trace_reader.h), some
// chunks are skimmed: every record but their events and RSS samples.
//
// Implementations are the analyzers (one visitor each) and tests. Called on
// the reading thread only.
#ifndef HEAPREC_FORMAT_TRACE_VISITOR_H_
#define HEAPREC_FORMAT_TRACE_VISITOR_H_

#include "format/event_batch.h"
#include "format/records.h"

namespace heaprec::format {

struct DecoderState;  // decoder_state.h

class TraceVisitor {
 public:
  virtual ~TraceVisitor() = default;
  virtual void OnProcess(const ProcessInfo&) {}
  virtual void OnModule(const Module&) {}
  virtual void OnModuleUnload(const ModuleUnload&) {}
  virtual void OnThread(const ThreadInfo&) {}
  virtual void OnStackNode(const StackNode&) {}
  virtual void OnSymbol(const Symbol&) {}
  virtual void OnMarker(const Marker&) {}
  virtual void OnLeakScan(const LeakScan&) {}
  virtual void OnRssSample(const RssSample&) {}  // 3.4
  virtual void OnEvent(const Event&) {}
  virtual void OnEvents(const EventSpan& events) {
    for (size_t i = 0; i < events.count; ++i) OnEvent(events.At(i));
  }
  // Every event of *events, as OnEvents: the reader's own columns, which
  // the visitor may take (swap *events with an EventBatch of its own,
  // empty or not: the reader clears it before it writes the next events).
  virtual void OnEventBatch(EventBatch* events) { OnEvents(events->Span()); }
  virtual void OnEnd(const EndRecord&) {}

  // Seeking (only when ReaderOptions ask for it; trace_reader.h):
  // OnCheckpoint after a chunk whose decoder state the read offers to save
  // (ReaderOptions::checkpoint_every_bytes); OnResume after the chunks
  // before ReaderOptions::resume were skimmed, just before the first
  // decoded chunk's records.
  virtual void OnCheckpoint(const DecoderState&) {}
  virtual void OnResume() {}
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_TRACE_VISITOR_H_
