// TraceCompiler: turns a trace's event stream into what the replayer runs
// (compiled_ops.h): one op array per recorded thread, on dense reused slots,
// with cross-thread waits, and the trace's peak live bytes.
//
// Every kind of call is kept as recorded (format::Api). A realloc that moved
// its block, which a trace records as two events on its thread (FORMAT.md),
// becomes one realloc call again: its first event (old block, none returned,
// size 0) followed by the thread's next event being a realloc of no old block
// with the same api and stack (the recorder writes both with the call's
// stack). Otherwise that first event is realloc(p, 0). (The format cannot
// tell a move from realloc(p, 0) then realloc(NULL, n) at the same call
// site; replaying that as one move changes no live byte count.) Frees of blocks that are not live
// (made before recording began, double frees) are dropped and counted; calls that returned no block
// are skipped and counted; a realloc of an unknown block is replayed as an allocation of its new
// size.
//
// Waits: each free or realloc of a block made on another thread needs that
// thread's op to have run. A need already met by an earlier wait of the same
// thread on the same thread gets no wait of its own, and a wait is raised to
// cover the needs on that thread among its next kMergeOps ops (at most
// kMergeWaits of them), so a thread freeing a batch of another's blocks waits
// once instead of chasing the other block by block. A wait is never raised
// past what the other thread had done at that point of the recording, so the
// recorded order still satisfies every wait and the replay cannot deadlock.
//
// The main thread: the replay thread of the recorded thread whose OS tid is
// the process's pid (format ThreadInfo, ProcessInfo), which the replayer runs
// on its caller's thread (replayer.h) so that an allocator serves it as it
// served the program's main thread (glibc: the main arena, grown by brk).
// A trace that names no such thread (no thread records, or the main thread
// shared a ring with others) gets the thread of its first event: the
// recorder starts on the main thread, so that is the main thread in
// practice. No main thread (kNoMainThread) when the trace has no events, or
// names its main thread but that thread made none: then every replay thread
// is a thread of its own, as in the program.
//
// Peak live bytes are counted event by event in seq order exactly as
// analyzers::LiveHeap and PeakAnalyzer count them, so `--bench` and
// `--peak` report the same number.
//
// A TraceVisitor; not thread-safe; allocates (memory: the op arrays plus a
// few bytes per block of the trace). Used by heapreplay --bench and tests.
#ifndef HEAPREC_REPLAY_TRACE_COMPILER_H_
#define HEAPREC_REPLAY_TRACE_COMPILER_H_

#include <climits>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/trace_visitor.h"
#include "replay/compiled_ops.h"

namespace heaprec::replay {

// Live bytes requested after `ops` ops (all threads, in seq order).
struct CurvePoint {
  uint64_t ops = 0;
  uint64_t bytes = 0;
};

inline constexpr uint32_t kNoMainThread = UINT32_MAX;

struct CompiledTrace {
  std::vector<std::vector<Op>> ops;      // per replay thread
  std::vector<std::vector<Wait>> waits;  // per replay thread, in op order
  std::vector<uint32_t> thread_ids;      // replay thread -> format ThreadInfo::thread
  uint32_t main_thread = kNoMainThread;  // replay thread run on the main thread (see above)
  CompileStats stats;
  // Live bytes over the ops, at most kCurvePoints points, each the highest
  // value of its stretch of ops (for --plot).
  std::vector<CurvePoint> live_curve;
};

inline constexpr size_t kCurvePoints = 1000;
inline constexpr uint32_t kMergeOps = 1024;
inline constexpr uint32_t kMergeWaits = 64;

class TraceCompiler : public format::TraceVisitor {
 public:
  void OnProcess(const format::ProcessInfo& p) override {
    pid_ = p.pid;
    sample_rate_ = p.sample_rate;
  }
  void OnThread(const format::ThreadInfo& t) override;
  void OnEvent(const format::Event& e) override;
  void OnEnd(const format::EndRecord&) override { FlushPending(); }

  // A sampled trace (heaprec --sample-rate) holds only some of the calls:
  // it cannot be replayed. Callers check this and refuse (SampledRefusal).
  bool sampled() const { return sample_rate_ != 0; }
  static std::string SampledRefusal(const std::string& path) {
    return path +
           ": a sampled trace (heaprec --sample-rate) cannot be replayed: it holds only some "
           "of the allocations; record it without --sample-rate";
  }

  // Ends compilation (also for a trace cut short) and hands out the result.
  CompiledTrace Finish();

 private:
  struct SlotState {
    uint64_t size = 0;
    uint32_t writer_thread = 0;  // the op that last stored this slot's block
    uint32_t writer_op = 0;
  };
  struct WaitPoint {     // where a wait was needed, beside out_.waits
    uint32_t op = 0;     // index of the waiting op in its thread
    uint32_t avail = 0;  // ops the other thread had made by then
  };
  struct Pending {  // first half of a possibly moved realloc
    bool active = false;
    uint8_t api = 0;
    uint32_t slot = 0;
    uint32_t stack = 0;
  };

  uint32_t ThreadIndex(uint32_t thread);
  uint32_t NewSlot(uint32_t t);
  // The slot of a live block, or -1.
  int64_t LiveSlot(uint64_t block) const;
  void Emit(uint32_t t, Op op, bool reads_slot);
  void MakeBlock(uint32_t t, uint64_t block, uint32_t slot, uint64_t size);
  void ReleaseBlock(uint64_t block, uint32_t slot);
  void OnAlloc(uint32_t t, const format::Event& e);
  void OnFree(uint32_t t, const format::Event& e);
  void OnRealloc(uint32_t t, const format::Event& e);
  void FlushPending(uint32_t t);
  void FlushPending();
  void MergeWaits();

  CompiledTrace out_;
  int32_t pid_ = 0;
  uint64_t sample_rate_ = 0;
  bool main_named_ = false;
  uint32_t main_format_thread_ = 0;  // ThreadInfo::thread whose tid is the pid
  std::unordered_map<uint32_t, uint32_t> thread_index_;
  std::vector<uint32_t> block_slot_;  // block number -> slot + 1 while live, else 0
  std::vector<SlotState> slots_;
  std::vector<std::vector<uint32_t>> free_slots_;    // per replay thread
  std::vector<Pending> pending_;                     // per replay thread
  std::vector<std::vector<WaitPoint>> wait_points_;  // per replay thread, as out_.waits
  uint64_t live_bytes_ = 0;
  CurvePoint bucket_;  // the highest point since the last sample
  uint64_t next_sample_ = 1, stride_ = 1;
  void SampleCurve();
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_TRACE_COMPILER_H_
