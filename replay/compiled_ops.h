// The compiled form of a trace for replay: per recorded thread, an array of
// compact operations on dense slot ids, plus the cross-thread waits.
//
// A slot holds one live block's pointer during replay. Slots are reused: a
// slot freed on thread T is handed only to a later allocation of T, so a
// slot's writes and reads are always ordered by T's own order or by a Wait.
// An op that frees or reallocs a block made on another thread carries
// kWaits and consumes its thread's next Wait: the op may run only after that
// thread completed `ops_done` ops (its op that made the block). Such
// producer ops carry kPublish, so only they pay for telling others.
//
// Plain data (trivially copyable, fixed layout: it is also the layout of the
// image a bench worker maps, compiled_image.h). Never allocates.
#ifndef HEAPREC_REPLAY_COMPILED_OPS_H_
#define HEAPREC_REPLAY_COMPILED_OPS_H_

#include <cstdint>

namespace heaprec::replay {

// Op::flags
enum OpFlag : uint8_t {
  kWaits = 1,        // wait for this thread's next Wait before running
  kPublish = 2,      // another thread waits for this op: publish progress
  kFromNull = 4,     // realloc(NULL, n): no old block, result into slot
  kToZero = 8,       // realloc(p, 0): the old block is freed
  kMoved = 16,       // realloc that moved the block (recorded as two events)
  kUnknownOld = 32,  // realloc of a block made before recording: replayed as malloc
};

// One call. api is format::Api's value (every kind of call kept as recorded)
// and kind its format::EventKind (KindOf(api), kept so the loop dispatches on
// one byte compare).
// alloc: slot receives the block. free: slot's block is released; size is
// the size the caller named (sized delete), else 0. realloc: slot holds the
// old block and receives the new one. align_log2: log2 of the alignment
// for aligned kinds, else 0.
struct Op {
  uint8_t api = 0;
  uint8_t flags = 0;
  uint8_t align_log2 = 0;
  uint8_t kind = 0;
  uint32_t slot = 0;
  uint64_t size = 0;
};
static_assert(sizeof(Op) == 16);

struct Wait {
  uint32_t thread = 0;    // index of the replay thread that makes the block
  uint32_t ops_done = 0;  // run once that thread has completed this many ops
};
static_assert(sizeof(Wait) == 8);

// What compiling a trace found, for the report.
struct CompileStats {
  uint64_t events = 0;
  uint64_t ops = 0;
  uint64_t threads = 0;
  uint64_t slots = 0;
  uint64_t peak_live_bytes = 0;     // in seq order, as analyzers::PeakAnalyzer counts
  uint64_t unknown_frees = 0;       // frees of blocks not live (before recording, double): dropped
  uint64_t failed_calls = 0;        // allocations or reallocs that returned no block: skipped
  uint64_t unknown_reallocs = 0;    // reallocs of unknown blocks: replayed as malloc
  uint64_t moved_reallocs = 0;      // two-event reallocs merged into one call
  uint64_t cross_thread_waits = 0;  // frees and reallocs of blocks made on another thread
  uint64_t wait_points = 0;         // waits the replay makes for them (merged)
  uint64_t main_thread_ops = 0;     // ops of the main thread (on the replayer's own thread)
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_COMPILED_OPS_H_
