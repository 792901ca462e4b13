// FastBacktrace: a drop-in for libunwind's unw_backtrace() on x86-64 Linux
// that returns exactly the same frames, faster, for the recorder's hot path.
//
// Contract: FastBacktrace(ips, max) fills ips[0..n) with the return addresses
// unw_backtrace(ips, max) would return if called at the same place (ips[0]
// is where FastBacktrace's caller resumes), and returns n. It never returns
// frames libunwind would not; when it cannot prove its answer it asks
// libunwind (the fallback and first source).
//
// How (details in fast_unwind.cc and unwind_learn.cc):
//   1. A walk with cached per-return-address rules (unwind_rules.h; the
//      thread's last 256 in its own cache), learned from libunwind on a
//      miss (unwind_learn.cc: the missing frame alone once the thread's
//      stack is known, else a whole walk). Every IP followed must have a
//      rule, reads stay in [this frame, the thread's learned stack top],
//      each CFA is 16-byte aligned and above the previous one; else the
//      whole capture is redone by libunwind.
//   2. Prefix reuse: the thread's previous capture is kept as (SP, IP, RBP)
//      per frame; once the walk reaches a frame equal to one of those, the
//      rest is copied after checking that every memory cell the rule walk
//      would read still holds what it held (so the copy is what the rule
//      walk would return, exactly).
//   3. Recent captures: the same from the very first frame, against the
//      thread's last few walked captures (programs allocate from a handful
//      of stacks in turn: an interpreter's loop, a service's request path),
//      so that a stack seen lately is checked, not walked; a caller that
//      tagged that capture gets its tag back instead of the frames.
//
// Thread-safe (per-thread state in the thread's ThreadBlock, thread_block.h,
// taken on its first capture; shared rules lock-free); a thread without a
// block gets libunwind's answer, learning nothing. Async-signal-safe to the
// extent libunwind's local unwinding is (a capture nested in a signal
// handler on the same thread goes straight to libunwind); fork-safe (call
// the fork handlers below). Never allocates from the heap. FastBacktraceFrom
// is called by CaptureStack() in recorder.cc; both by tests and benchmarks.
#ifndef HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_H_
#define HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_H_

#include <cstdint>

#include "recorder/preload/thread_block.h"

namespace heaprec::recorder::preload {

// Captures at most this many frames itself; larger requests go to libunwind.
inline constexpr int kFastUnwindMaxFrames = 272;

// See the file comment. Must be called directly (it reads its own frame).
__attribute__((noinline)) int FastBacktrace(void** ips, int max);

// The same from further out: start_fp is the frame pointer of a function on
// this thread's stack, between the caller and here, that keeps one (compiled
// with frame pointers, as the recorder's own code is); the frames begin at
// that function's caller: unw_backtrace's answer without the frames before
// it. The recorder passes its hook's frame, so that its own frames
// (CaptureStack, RecordAlloc, the hook) are neither walked nor returned.
// block: ThisThreadBlock(), which the caller has at hand (CaptureStack uses
// it too), or nullptr (libunwind answers).
__attribute__((noinline)) int FastBacktraceFrom(void** ips, int max, uintptr_t start_fp,
                                                ThreadBlock* block);

// What a capture of FastBacktraceFrom was, for a caller that keeps what it
// made of the previous one (CaptureStack's stack cache, recorder.cc).
// Out: serial numbers the captures made with the block's state, 1, 2, ...
// (0: a capture that did not use it: no block, or nested in a handler that
// interrupted a capture); repeat: the frames are exactly those of capture
// serial - 1, the same count and the same return addresses (the prefix
// reuse matched the first frame and checked every cell the rule walk would
// read), so what the caller made of those frames holds for these.
// In: kept_serial, the serial of the capture whose result the caller keeps
// (0: none). When it is serial - 1 and repeat is set, only ips[0] is written
// (the rest would be a copy of what the caller already made its result of).
// Out, besides: outer, the frames at the end of ips copied from capture
// serial - 1, from its frame outer_from to its last (0: none so copied; the
// prefix reuse proved them equal, as for a repeat); they start at ips[outer_at].
// A caller that keeps what it made of that capture's outermost frames need not
// compare those again (CaptureStack passes them on to InternStackCached).
//
// Recent captures: the block also keeps the frames of its thread's last few
// walked captures (kRecentCaptures, fast_unwind.cc), each under the state of
// its first frame. A capture whose first frame's state is one of theirs,
// and whose cells the rule walk would read all still hold what they held,
// has exactly that capture's frames (the same proof as the prefix reuse,
// from the first frame): they are copied, nothing walked. A caller may tag
// the capture it just made (TagCapture: its serial, the caller's epoch, a
// value). In: tag_epoch, the caller's epoch now (0: it takes no tags).
// Out: tagged, the capture's frames are exactly those of a recent capture
// that was tagged in epoch tag_epoch; then tag is that tag, ips is not
// written at all, and the return value is the frame count. In: use_recent,
// whether recent captures answer at all (FastBacktrace and the
// FastBacktraceFrom without info: always).
struct CaptureInfo {
  uint64_t kept_serial = 0;
  uint64_t serial = 0;
  bool repeat = false;
  uint32_t outer = 0;
  uint32_t outer_at = 0;
  uint32_t outer_from = 0;
  bool use_recent = false;
  uint32_t tag_epoch = 0;
  bool tagged = false;
  uint64_t tag = 0;
};
__attribute__((noinline)) int FastBacktraceFrom(void** ips, int max, uintptr_t start_fp,
                                                ThreadBlock* block, CaptureInfo* info);

// The common case of FastBacktraceFrom with a CaptureInfo whose use_recent
// is set and tag_epoch is epoch (not 0), as one call: a recent capture
// answers and was tagged in epoch. Then its tag goes to *tag, the capture
// is counted (a serial taken: CaptureInfo::serial) and true is returned,
// as FastBacktraceFrom would have answered (info.tagged); else nothing
// changes and FastBacktraceFrom is to be asked. block: not nullptr.
bool RecentTag(ThreadBlock* block, uintptr_t start_fp, int max, uint32_t epoch, uint64_t* tag);

// Tags the recent capture that capture serial (CaptureInfo::serial) of
// block's thread kept or took its untagged frames from, if any and no
// later capture has: a later capture with the same frames reports (epoch,
// tag). Per thread.
void TagCapture(ThreadBlock* block, uint64_t serial, uint32_t epoch, uint64_t tag);

// Fork handlers: BlockFastUnwindForFork() in the prepare handler (waits
// until no other thread is inside libunwind, whose locks would stay held in
// the child, and keeps them out; the calling thread must not capture until
// the fork is done), UnblockFastUnwindAfterFork() in the parent,
// ResetFastUnwindAfterFork() in the child (unwind_learn.cc's learning lock
// and gate).
void BlockFastUnwindForFork();
void UnblockFastUnwindAfterFork();
void ResetFastUnwindAfterFork();

// What the calling thread's captures did so far (tests, benchmarks); zeros
// before its first capture and after it released its block.
struct FastUnwindStats {
  uint64_t captures;        // FastBacktrace calls
  uint64_t fast;            // answered by the rule walk (with or without reuse)
  uint64_t reused;          // of those, with a prefix copied from the previous capture
  uint64_t learned;         // answered by libunwind, learning rules on the way
  uint64_t fallback;        // answered by libunwind, nothing to learn
  uint64_t frames_learned;  // rules learned one frame at a time (LearnAt), in fast captures
  uint64_t recent;          // answered by a recent capture's frames (no walk)
};
FastUnwindStats FastUnwindThreadStats();

// Testing and benchmarking only (process-wide, not for concurrent toggling):
// prefix_reuse = false walks every frame with rules (no recent captures
// either); verify_prefix = false copies a matched prefix or recent capture
// without checking it (wrong on purpose: the differential test shows that it
// then fails); recent = false leaves the recent captures out.
void SetFastUnwindOptions(bool prefix_reuse, bool verify_prefix, bool recent = true);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_FAST_UNWIND_H_
