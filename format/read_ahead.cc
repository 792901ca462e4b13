// A reader thread in front of the visitor (read_ahead.h).
#include "format/read_ahead.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

namespace heaprec::format {
namespace {

// What the reader said, in order: events, in pieces (a reader's own
// columns, taken whole, or events copied), and each other record with the
// number of events of the batch that came before it.
struct Resumed {};  // OnResume

struct Batch {
  // Stack nodes are most of the other records (tens of thousands); the big,
  // rare ones are held by pointer to keep entries small.
  using Other =
      std::variant<StackNode, Marker, Symbol, ThreadInfo, ModuleUnload, std::unique_ptr<Module>,
                   std::unique_ptr<ProcessInfo>, std::unique_ptr<EndRecord>,
                   std::unique_ptr<LeakScan>, RssSample, std::unique_ptr<DecoderState>, Resumed>;
  std::vector<EventBatch> pieces;
  size_t events = 0;  // in all pieces
  std::vector<std::pair<size_t, Other>> others;
};

// A bounded queue of batches from the reader thread, and the way back for
// emptied batches and pieces (their vectors keep their capacity).
class Pipe {
 public:
  // Reader side: an empty batch to fill (recycled when possible).
  Batch Empty() {
    std::unique_lock<std::mutex> lock(mu_);
    if (free_.empty()) return Batch{};
    Batch b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  // Reader side: an empty piece (recycled when possible).
  EventBatch Piece() {
    std::unique_lock<std::mutex> lock(mu_);
    if (pieces_.empty()) return EventBatch{};
    EventBatch p = std::move(pieces_.back());
    pieces_.pop_back();
    return p;
  }
  void Push(Batch b) {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return full_.size() < kBatchesInFlight; });
    full_.push_back(std::move(b));
    ready_.notify_one();
  }
  void Close() {
    std::unique_lock<std::mutex> lock(mu_);
    closed_ = true;
    ready_.notify_one();
  }
  // Visitor side: false once closed and drained.
  bool Pop(Batch* b) {
    std::unique_lock<std::mutex> lock(mu_);
    ready_.wait(lock, [&] { return !full_.empty() || closed_; });
    if (full_.empty()) return false;
    *b = std::move(full_.front());
    full_.pop_front();
    room_.notify_one();
    return true;
  }
  void Recycle(Batch b) {
    for (EventBatch& p : b.pieces) p.Clear();
    std::unique_lock<std::mutex> lock(mu_);
    for (EventBatch& p : b.pieces) pieces_.push_back(std::move(p));
    b.pieces.clear();
    b.events = 0;
    b.others.clear();
    free_.push_back(std::move(b));
  }

 private:
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Batch> full_;
  std::vector<Batch> free_;
  std::vector<EventBatch> pieces_;
  bool closed_ = false;
};

// Runs on the reader thread: records every call into batches. The trace
// reader's own event columns are taken whole (OnEventBatch: swapped with an
// empty piece), so events are not copied.
class Recorder : public TraceVisitor {
 public:
  explicit Recorder(Pipe* pipe) : pipe_(pipe), batch_(pipe->Empty()) {}
  void OnProcess(const ProcessInfo& p) override { Other(std::make_unique<ProcessInfo>(p)); }
  void OnModule(const Module& m) override { Other(std::make_unique<Module>(m)); }
  void OnModuleUnload(const ModuleUnload& m) override { Other(m); }
  void OnThread(const ThreadInfo& t) override { Other(t); }
  void OnStackNode(const StackNode& n) override { Other(n); }
  void OnSymbol(const Symbol& s) override { Other(s); }
  void OnMarker(const Marker& m) override { Other(m); }
  void OnLeakScan(const LeakScan& s) override { Other(std::make_unique<LeakScan>(s)); }
  void OnRssSample(const RssSample& s) override { Other(s); }
  void OnEvent(const Event& e) override {
    Own().Append(e);
    Added(1);
  }
  void OnEvents(const EventSpan& events) override {
    Own().Append(events);
    Added(events.count);
  }
  void OnEventBatch(EventBatch* events) override {
    const size_t n = events->count();
    if (n == 0) return;
    batch_.pieces.push_back(pipe_->Piece());
    std::swap(batch_.pieces.back(), *events);
    own_ = false;  // the next events go into a piece of their own
    Added(n);
  }
  void OnEnd(const EndRecord& e) override { Other(std::make_unique<EndRecord>(e)); }
  void OnCheckpoint(const DecoderState& s) override { Other(std::make_unique<DecoderState>(s)); }
  void OnResume() override { Other(Resumed{}); }
  void Flush() {
    if (batch_.events == 0 && batch_.others.empty()) return;
    pipe_->Push(std::move(batch_));
    batch_ = pipe_->Empty();
    own_ = false;
  }

 private:
  // The last piece, if it is one to append to; else a new one.
  EventBatch& Own() {
    if (!own_) {
      batch_.pieces.push_back(pipe_->Piece());
      own_ = true;
    }
    return batch_.pieces.back();
  }
  void Added(size_t n) {
    batch_.events += n;
    if (batch_.events >= kBatchEvents) Flush();
  }
  template <typename T>
  void Other(T&& r) {
    batch_.others.emplace_back(batch_.events, std::forward<T>(r));
  }
  Pipe* pipe_;
  Batch batch_;
  bool own_ = false;  // batch_.pieces.back() is ours to append to
};

// Runs on the calling thread: one batch's calls, in the order they were made.
void Replay(const Batch& b, TraceVisitor& v) {
  size_t next = 0;
  auto others_before = [&](size_t events) {
    for (; next < b.others.size() && b.others[next].first <= events; ++next) {
      std::visit(
          [&v](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, StackNode>) v.OnStackNode(r);
            if constexpr (std::is_same_v<T, Marker>) v.OnMarker(r);
            if constexpr (std::is_same_v<T, Symbol>) v.OnSymbol(r);
            if constexpr (std::is_same_v<T, ThreadInfo>) v.OnThread(r);
            if constexpr (std::is_same_v<T, ModuleUnload>) v.OnModuleUnload(r);
            if constexpr (std::is_same_v<T, std::unique_ptr<Module>>) v.OnModule(*r);
            if constexpr (std::is_same_v<T, std::unique_ptr<ProcessInfo>>) v.OnProcess(*r);
            if constexpr (std::is_same_v<T, std::unique_ptr<EndRecord>>) v.OnEnd(*r);
            if constexpr (std::is_same_v<T, std::unique_ptr<LeakScan>>) v.OnLeakScan(*r);
            if constexpr (std::is_same_v<T, RssSample>) v.OnRssSample(r);
            if constexpr (std::is_same_v<T, std::unique_ptr<DecoderState>>) v.OnCheckpoint(*r);
            if constexpr (std::is_same_v<T, Resumed>) v.OnResume();
          },
          b.others[next].second);
    }
  };
  // The events between two other records, a piece at a time.
  size_t done = 0;  // events delivered, in pieces before this one
  for (const EventBatch& piece : b.pieces) {
    const size_t n = piece.count();
    size_t at = 0;  // in this piece
    while (at < n) {
      others_before(done + at);
      const size_t end = next < b.others.size() ? std::min(b.others[next].first - done, n) : n;
      v.OnEvents(piece.Span(at, end));
      at = end;
    }
    done += n;
  }
  others_before(b.events);
}

}  // namespace

ReadResult ReadTraceFileAhead(const std::string& path, TraceVisitor& visitor,
                              const ReaderOptions& options) {
  Pipe pipe;
  ReadResult result;
  // The reading thread decodes; a third inflates the chunks ahead of it
  // (FrameReadAhead), where the analysis thread leaves a core idle part of
  // the time.
  ReaderOptions ahead = options;
  ahead.inflate_ahead = std::thread::hardware_concurrency() >= 2;
  std::thread reader([&] {
    Recorder recorder(&pipe);
    result = ReadTraceFile(path, recorder, ahead);
    recorder.Flush();
    pipe.Close();
  });
  Batch b;
  while (pipe.Pop(&b)) {
    Replay(b, visitor);
    pipe.Recycle(std::move(b));
  }
  reader.join();
  return result;
}

}  // namespace heaprec::format
