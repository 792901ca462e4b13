// FastBacktrace: the rule walk and prefix reuse (fast_unwind.h).
//
// Why the rule walk returns what unw_backtrace returns: each rule reproduces
// one unw_step transition for its IP (unwind_learn.cc proves the rule's form
// for that IP before inserting it), and a walk that meets an IP without a
// current rule first learns that one frame's rule from the state it reached
// there (LearnAt: the same proof, from one libunwind step; a few frames at
// most) and walks again; a walk that still fails (an uncacheable IP, a CFA
// that does not rise, is misaligned or above the learned stack top, a
// return address below 0x4000, where libunwind's own fast trace stops)
// hands the whole capture to libunwind.
// A garbage CFA would read a garbage return address, which then misses the
// cache: the walk checks itself as it goes.
//
// Why prefix reuse is exact: the rule walk is a function of the frame state
// (IP, RSP, RBP), the rules (fixed within a generation: unwind_rules.h) and
// the memory cells it reads: for each step, the return-address cell
// [CFA-8] and, when the rule saves RBP, the RBP cell [CFA+off]. The previous
// capture kept, per frame, that state and the offset of the RBP cell it was
// read from. When the current walk reaches a state equal to the previous
// capture's frame k (RBP included unless frame k's rule ignores it: an
// RSP-based CFA that reloads the caller's RBP from a cell), the rule for the
// IP is the same, so the next CFA is, and Verify() re-reads, frame by frame
// outward, every cell
// the rule walk would read and compares it with what the previous walk read
// there. If all match, the rule walk from frame k would go through exactly
// the same states and stop the same way, so copying frames k+1.. gives its
// exact result; the checks run in walk order, so every cell read belongs to
// a real frame of the current stack (the first mismatch stops it). The
// previous walk's end must also repeat: a kLast rule (same generation) or
// the depth limit; walks that ended any other way are not kept.
//
// Why a recent capture is exact: it is the prefix reuse above matched at
// the walk's very first frame, against a capture other than the previous
// one. Its first frame's state (RBP too where that frame's rule reads it or
// passes it on) equals the current one, the rules are the same generation,
// and every cell its walk read and used is checked, in walk order; its end
// (a last rule, or the same frame limit) repeats with them. The first
// cell checked is the second frame's return address, where the same first
// frame state puts the walk's first step.
//
// Dead cells: the walk's frames depend on RBP only through RBP-based CFA
// rules. An RBP read from a cell and replaced from the next rule's cell
// before any RBP-based rule (or the last rule) read it changes nothing the
// walk returns, so that cell is kept as unchanged (cell 0) and not checked:
// code built without frame pointers saves RBP as any callee-saved register,
// with whatever it held, so such cells differ from call to call under the
// very same frames (Python 3.11's debug build: half of the checks of recent
// captures failed on them, at frames 3-9). The state's RBP kept for such a
// frame may then be stale; it is compared (the match above) only where that
// frame's own rule reads it or passes it on, and a stale value can only
// refuse a match.
//
// What remains is the rule cache's own premise: that libunwind's step for a
// return address depends only on the IP's CFI row (true for DWARF CFI, which
// is keyed by address) and that the probes in unwind_learn.cc classify the
// row's CFA rule correctly (see there).
#include "recorder/preload/fast_unwind.h"

#include <emmintrin.h>

#include <cstring>

#include "recorder/preload/signal_hold.h"
#include "recorder/preload/spare_stack.h"
#include "recorder/preload/thread_block.h"
#include "recorder/preload/unwind_learn.h"
#include "recorder/preload/unwind_rules.h"

namespace heaprec::recorder::preload {
namespace {

// Frames of the previous capture kept for reuse; deeper captures are not kept.
constexpr int kPrevFrames = 128;
// Rules this thread looked up lately, direct-mapped by IP: the walk's
// lookups hit 8 KiB of its own instead of the process's 1 MiB table (a cache
// and TLB miss each, most of them).
constexpr uint32_t kRuleCacheSlots = 256;

struct CachedRule {  // plain fields: all zeros is the empty state
  uintptr_t ip;      // 0 = empty
  uint32_t gen;      // the rule's generation
  RuleKind kind;     // never kNone
  bool rbp_saved;
  uint32_t cfa_offset;
  int32_t rbp_offset;
};
// How far below the lowest learned frame a capture may start and still take
// the rule walk (deeper recursion on the same stack); beyond, libunwind.
constexpr uintptr_t kStackSlack = 1u << 20;

// Recent captures (fast_unwind.h, 3.): walked captures of at most
// kRecentFrames frames, any of kRecentCaptures, replaced as a clock does
// (one not used lately). Programs allocate from a few stacks in turn: the stack of an
// allocation was among the same thread's last 32 distinct stacks for
// 98-100% of the allocations of Python's json and dict benchmarks, churn and
// alloc_heavy (61% for cppcheck), but was the previous one for 3-65%. Many
// share their first frames (an allocator's own, at one depth): a set for
// each, tried first, kept Python's json at 73% of captures from recent ones.
// A 32-bit key of the first frame's SP and return address, 32 of them in
// two lines, picks the entries worth checking. The second frame's return
// address is the first cell checked; keying on it too meant finding the
// first frame's rule on every capture (Python's json benchmark: 6,852 ->
// 6,725 M instructions without it, session 44).
constexpr int kRecentCaptures = 32;
static_assert(kRecentCaptures == 32, "a bit per entry in a uint32_t");
constexpr int kRecentFrames = 56;
// Cells checked at most: a return address cell per frame after the first,
// and an RBP cell where a rule reads what it holds.
constexpr int kRecentChecks = 94;

struct RecentCapture {  // plain fields: all zeros is the empty state
  uintptr_t sp0;        // the first frame's state
  uintptr_t ip0;
  uintptr_t rbp0;
  uintptr_t rbp_used;  // 1: the first frame's rule reads RBP (rbp0 is checked)
  uint64_t serial;     // of the capture that kept it
  uint64_t tag;        // the caller's (TagCapture)
  uint32_t gen;        // the rules' generation; 0 = empty
  uint32_t tag_epoch;  // 0 = not tagged
  uint16_t n;          // frames, at least 2
  uint16_t max;        // the walk's frame limit
  uint16_t checks;     // cells to check (RecentFrames::check)
};

// A recent capture's frames, in the block's scratch (ThreadBlock::
// recent_frames): valid only while its RecentCapture says so.
struct RecentCheck {
  uintptr_t at;     // a cell
  uintptr_t value;  // what it held
};
struct RecentFrames {
  // In walk order: frame 1's return address cell, its RBP cell if a rule
  // reads that RBP, frame 2's, ... (what Verify() reads of those frames).
  RecentCheck check[kRecentChecks];
  uintptr_t ip[kRecentFrames];
};
static_assert(sizeof(RecentFrames) * kRecentCaptures <= sizeof(ThreadBlock::recent_frames));

// The key of a capture whose first frame is (sp0, ip0); never 0 (an empty
// entry's).
inline uint32_t RecentKey(uintptr_t sp0, uintptr_t ip0) {
  const uint64_t h = (sp0 ^ (ip0 << 1)) * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(h >> 32) | 1;
}

// Which entries have key: a bit each.
inline uint32_t RecentMatches(const uint32_t* keys, uint32_t key) {
  const __m128i k = _mm_set1_epi32(static_cast<int>(key));
  uint32_t bits = 0;
#pragma GCC unroll 8
  for (int i = 0; i < kRecentCaptures; i += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys + i));
    bits |= static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, k)))) << i;
  }
  return bits;
}

inline RecentFrames* RecentFramesOf(ThreadBlock& block) {
  return reinterpret_cast<RecentFrames*>(block.recent_frames);
}

// Per-thread state, in the thread's ThreadBlock (thread_block.h): all zeros
// when the thread gets it, no constructor runs.
struct UnwindState {
  uint32_t busy;                    // a capture runs on this thread (a signal nested in it)
  uint32_t prev_gen;                // rule generation of the previous capture
  int32_t prev_n;                   // frames kept; 0 = nothing to reuse
  uint32_t prev_complete;           // the previous walk ended at a kLast rule
  uintptr_t stack_lo;               // lowest first frame of a covering learned walk
  uintptr_t stack_hi;               // highest RSP a covering learned walk reached
  uintptr_t prev_sp[kPrevFrames];   // frame's RSP (= its callee's CFA)
  uintptr_t prev_ip[kPrevFrames];   // its return address, read at [sp - 8]
  uintptr_t prev_rbp[kPrevFrames];  // its RBP
  int32_t prev_cell[kPrevFrames];   // RBP was read at [sp + cell]; 0 = unchanged
  CachedRule rules[kRuleCacheSlots];
  alignas(64) uint32_t recent_key[kRecentCaptures];  // RecentKey of each; 0 = empty
  RecentCapture recent[kRecentCaptures];
  int32_t recent_kept;   // the entry the last walked capture went to, + 1 (0: none)
  uint32_t recent_used;  // a bit per entry: used since the hand last passed it
  uint32_t recent_hand;  // the next entry to replace, unless used (a clock)
  uint32_t recent_last;  // the entry that answered last
  FastUnwindStats stats;
  // The capture under way's frames, kept for the next one (RuleWalk's
  // scratch: here rather than on the program's stack, which may be small).
  uintptr_t walk_sp[kPrevFrames];
  uintptr_t walk_rbp[kPrevFrames];
  int32_t walk_cell[kPrevFrames];
};

static_assert(sizeof(UnwindState) <= sizeof(ThreadBlock::unwind) &&
              alignof(UnwindState) <= alignof(ThreadBlock));

inline UnwindState& UnwindOf(ThreadBlock& block) {
  return *reinterpret_cast<UnwindState*>(block.unwind);
}

bool g_prefix_reuse = true;
bool g_verify_prefix = true;
bool g_recent = true;
bool g_recent_on = true;  // g_prefix_reuse && g_recent: one test on the hot path

// Reads a stack cell of some frame, on purpose outside the caller's own: an
// unwinder's job. ASan would flag those reads (redzones of other frames), so
// this one function is not instrumented.
__attribute__((no_sanitize("address"))) inline uintptr_t Load(uintptr_t address) {
  return *reinterpret_cast<const uintptr_t*>(address);
}

// LookupUnwindRule through the thread's cache. A rule, once published for a
// generation, never changes (unwind_rules.h), so a cached one stays right
// until the generation moves on.
__attribute__((always_inline)) inline UnwindRule Rule(UnwindState& t, uintptr_t ip, uint32_t gen) {
  CachedRule& c = t.rules[((ip >> 4) ^ (ip >> 12)) & (kRuleCacheSlots - 1)];
  UnwindRule r;
  if (c.ip == ip && c.gen == gen) {
    r.kind = c.kind;
    r.rbp_saved = c.rbp_saved;
    r.cfa_offset = c.cfa_offset;
    r.rbp_offset = c.rbp_offset;
    return r;
  }
  r = LookupUnwindRule(ip, gen);
  if (r.kind != RuleKind::kNone) c = {ip, gen, r.kind, r.rbp_saved, r.cfa_offset, r.rbp_offset};
  return r;
}

// Whether the walk from a frame whose rule is r depends on that frame's RBP:
// an RBP-based CFA, or an RBP passed on unchanged to the caller. Where the
// rule restores the caller's RBP from a cell, that value is the cell's.
inline bool ReadsRbp(const UnwindRule& r) { return r.kind == RuleKind::kCfaRbp || !r.rbp_saved; }

// The CFA of a frame in state (sp, rbp) whose rule is r (kCfaRsp or
// kCfaRbp), or 0 where the walk stops: not above sp, not 16-byte aligned,
// or above the thread's learned stack top.
inline uintptr_t NextCfa(const UnwindState& t, const UnwindRule& r, uintptr_t sp, uintptr_t rbp) {
  const uintptr_t cfa = CfaOf(r, sp, rbp);
  return cfa <= sp || (cfa & 15) != 0 || cfa > t.stack_hi ? 0 : cfa;
}

// to[0..count) = from[0..count), two at a time (a reused prefix is tens of
// frames: Python's interpreter stacks, churn's recursion).
inline void CopyFrames(void** __restrict to, const uintptr_t* __restrict from, int count) {
  int i = 0;
  for (; i + 2 <= count; i += 2) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), v);
  }
  if (i < count) to[i] = reinterpret_cast<void*>(from[i]);
}

// Checks the previous capture's frames [from, n): the cells the rule walk
// would read to reach each of them still hold what they held. Returns n if
// all do, else the first frame that differs.
int Verify(const UnwindState& t, int from, int n) {
  if (!g_verify_prefix) return n;
  for (int i = from; i < n; ++i) {
    const uintptr_t sp = t.prev_sp[i];
    if (Load(sp - 8) != t.prev_ip[i]) return i;
    if (t.prev_cell[i] != 0 && Load(sp + t.prev_cell[i]) != t.prev_rbp[i]) return i;
  }
  return n;
}

// Checks a recent capture's cells as Verify() does the previous capture's
// (the same cells, in the same order): true if each still holds what it held.
// Two cells a turn, each read only when the ones before it held (as the walk
// would read them): one test of the loop's end for two cells.
__attribute__((always_inline)) inline bool VerifyRecent(const RecentFrames& f, int checks) {
  if (!g_verify_prefix) return true;
  const RecentCheck* c = f.check;
  const RecentCheck* const pairs_end = c + (checks & ~1);
  for (; c != pairs_end; c += 2) {
    if (Load(c[0].at) != c[0].value) return false;
    if (Load(c[1].at) != c[1].value) return false;
  }
  return (checks & 1) == 0 || Load(c[0].at) == c[0].value;
}

// Whether a capture from FastBacktrace's frame at fp may take the rule walk
// and the recent captures: fp on a stack a learned walk covered (below its
// top, at most kStackSlack under its lowest first frame).
inline bool InRange(const UnwindState& t, uintptr_t fp) {
  return t.stack_hi != 0 && fp < t.stack_hi && fp + kStackSlack >= t.stack_lo;
}

// A recent capture answered (FromRecent, RecentTag): it is the one tried
// first next time, and was used since the clock's hand last passed it.
inline void RecentAnswered(UnwindState& t, int j) {
  t.recent_used |= 1u << j;
  t.recent_last = static_cast<uint32_t>(j);
}

// The recent capture that answers a capture from FastBacktrace's frame at
// fp: the first, in the order below, whose first frame state is the current
// one (RBP too where that frame's rule reads it: the rule of the same IP in
// the same generation) and whose cells hold (the walk would repeat it: see
// the file comment); -1 if none.
__attribute__((always_inline)) inline int FindRecent(UnwindState& t, ThreadBlock& block, int max,
                                                     uint32_t gen, uintptr_t fp) {
  const uintptr_t sp0 = fp + 16;
  const uintptr_t ip0 = Load(fp + 8);
  const uintptr_t rbp0 = Load(fp);
  const uint32_t key = RecentKey(sp0, ip0);
  // The entry that answered last first (the same stack again is the most
  // common case), without comparing every key.
  const uint32_t last = t.recent_last;
  const uint32_t last_bit = t.recent_key[last] == key ? 1u << last : 0;
  uint32_t m = last_bit;
  for (bool scanned = false;; m &= m - 1) {
    if (m == 0) {
      if (scanned) return -1;
      m = RecentMatches(t.recent_key, key) & ~last_bit;
      scanned = true;
      if (m == 0) return -1;
    }
    const int j = __builtin_ctz(m);
    const RecentCapture& e = t.recent[j];
    if (e.sp0 != sp0 || e.ip0 != ip0 || e.gen != gen || e.max != max) continue;
    if (e.rbp_used != 0 && e.rbp0 != rbp0) continue;
    if (!VerifyRecent(RecentFramesOf(block)[j], e.checks)) continue;
    return j;
  }
}

// The capture from FastBacktrace's frame at fp, if a recent one answers
// (FindRecent): its frame count, with ips filled unless the caller gets the
// tag instead (info->tagged); else 0.
int FromRecent(UnwindState& t, ThreadBlock& block, void** ips, int max, uint32_t gen, uintptr_t fp,
               CaptureInfo* info) {
  const int j = FindRecent(t, block, max, gen, fp);
  if (j < 0) return 0;
  RecentCapture& e = t.recent[j];
  RecentAnswered(t, j);
  if (info->tag_epoch != 0 && e.tag_epoch == info->tag_epoch) {
    info->tagged = true;
    info->tag = e.tag;
  } else {
    // Untagged, or tagged in another epoch (a region before a fork): this
    // capture may tag it (TagCapture).
    CopyFrames(ips, RecentFramesOf(block)[j].ip, e.n);
    e.serial = t.stats.captures;
    t.recent_kept = j + 1;
  }
  return e.n;
}

// Keeps the capture the rule walk just made (t.prev_*, n frames, capture
// serial) among the recent ones, in place of one not used lately, if it
// ended where a repeat ends too (a last rule, or max) and is
// neither too short nor too long.
void KeepRecent(UnwindState& t, ThreadBlock& block, int n, int max, uint32_t gen, uint64_t serial) {
  t.recent_kept = 0;
  if (n < 2 || n > kRecentFrames || t.prev_n != n || t.prev_gen != gen) return;
  if (t.prev_complete == 0 && n < max) return;
  // At most two cells a frame after the first: counted only where that
  // could be too many.
  if (2 * (n - 1) > kRecentChecks) {
    int checks = n - 1;
    for (int i = 1; i < n; ++i) checks += t.prev_cell[i] != 0;
    if (checks > kRecentChecks) return;
  }
  // The first entry from the hand on that was not used since the hand last
  // passed it (each passed bit is cleared: at most one turn).
  uint32_t v = t.recent_hand;
  while ((t.recent_used & (1u << v)) != 0) {
    t.recent_used &= ~(1u << v);
    v = (v + 1) % kRecentCaptures;
  }
  t.recent_hand = (v + 1) % kRecentCaptures;
  t.recent_key[v] = RecentKey(t.prev_sp[0], t.prev_ip[0]);
  RecentCapture& e = t.recent[v];
  e.sp0 = t.prev_sp[0];
  e.ip0 = t.prev_ip[0];
  e.rbp0 = t.prev_rbp[0];
  e.rbp_used = ReadsRbp(Rule(t, t.prev_ip[0], gen)) ? 1 : 0;
  e.serial = serial;
  e.tag = 0;
  e.gen = gen;
  e.tag_epoch = 0;
  e.n = static_cast<uint16_t>(n);
  e.max = static_cast<uint16_t>(max);
  RecentFrames& f = RecentFramesOf(block)[v];
  memcpy(f.ip, t.prev_ip, static_cast<size_t>(n) * sizeof(uintptr_t));
  RecentCheck* c = f.check;
  for (int i = 1; i < n; ++i) {
    const uintptr_t sp = t.prev_sp[i];
    *c++ = {sp - 8, t.prev_ip[i]};
    if (t.prev_cell[i] != 0) *c++ = {sp + t.prev_cell[i], t.prev_rbp[i]};
  }
  e.checks = static_cast<uint16_t>(c - f.check);
  t.recent_kept = static_cast<int32_t>(v) + 1;
}

// The rule walk from FastBacktrace's frame at fp. Returns the frame count,
// or -1 (then *missed is the IP without a rule, or 0) for libunwind to redo.
// *repeat: whether the frames are exactly the previous capture's (see
// CaptureInfo): the match came at the walk's first frame, every frame after
// it was reused, none cut. Then, with skip_repeat (the caller keeps what
// it made of them), ips holds only the first frame.
int RuleWalk(UnwindState& t, void** ips, int max, uint32_t gen, uintptr_t fp, uintptr_t* missed,
             uintptr_t* missed_sp, uintptr_t* missed_rbp, bool skip_repeat, bool* repeat,
             CaptureInfo* info) {
  *repeat = false;
  // This capture's frames, kept for the next one.
  uintptr_t* const sps = t.walk_sp;
  uintptr_t* const rbps = t.walk_rbp;
  int32_t* const cells = t.walk_cell;

  // FastBacktrace keeps a frame pointer: its caller's state is at hand.
  uintptr_t sp = fp + 16;
  uintptr_t ip = Load(fp + 8);
  uintptr_t rbp = Load(fp);
  int32_t cell = -16;
  // The frame whose RBP cell the current RBP was read from, and whether a
  // rule used that RBP since (see "Dead cells" above).
  int src = 0;
  bool src_used = false;

  int pn = g_prefix_reuse && t.prev_gen == gen ? t.prev_n : 0;
  int k = 0;      // first previous frame whose sp is not below ours
  int min_k = 0;  // matches below this index are known to fail Verify
  int reuse_from = -1, reuse_at = 0, reuse_count = 0;
  bool complete = false;
  int n = 0;
  for (;;) {
    ips[n] = reinterpret_cast<void*>(ip);
    if (n < kPrevFrames) {
      sps[n] = sp;
      rbps[n] = rbp;
      cells[n] = cell;
    }
    if (++n == max) break;

    const UnwindRule r = Rule(t, ip, gen);
    if (r.kind == RuleKind::kLast) {
      if (!src_used && src < kPrevFrames) cells[src] = 0;  // read by nothing
      complete = true;
      break;
    }
    if (r.kind != RuleKind::kCfaRsp && r.kind != RuleKind::kCfaRbp) {
      *missed = r.kind == RuleKind::kNone ? ip : 0;
      *missed_sp = sp;
      *missed_rbp = rbp;
      return -1;
    }
    if (r.kind == RuleKind::kCfaRbp) {
      src_used = true;
    } else if (r.rbp_saved && !src_used && src < kPrevFrames) {
      cells[src] = 0;  // replaced from a cell before any rule read it
    }
    if (pn > 0) {
      while (k < pn && t.prev_sp[k] < sp) ++k;
      // RBP must match only where the walk from here would use it (where
      // the rule restores the caller's RBP, Verify() checks that cell).
      const bool rbp_used = ReadsRbp(r);
      if (k < pn && k >= min_k && t.prev_sp[k] == sp && t.prev_ip[k] == ip &&
          (t.prev_rbp[k] == rbp || !rbp_used)) {
        const int bad = Verify(t, k + 1, pn);
        const int rest = pn - k - 1;
        if (bad == pn && (t.prev_complete != 0 || n + rest >= max)) {
          reuse_count = rest < max - n ? rest : max - n;
          *repeat = k == 0 && n == 1 && reuse_count == rest;
          if (!(*repeat && skip_repeat)) {
            CopyFrames(ips + n, &t.prev_ip[k + 1], reuse_count);
          }
          reuse_from = k + 1;
          reuse_at = n;
          if (reuse_count == rest) {  // to the previous capture's last frame
            info->outer = static_cast<uint32_t>(reuse_count);
            info->outer_at = static_cast<uint32_t>(n);
            info->outer_from = static_cast<uint32_t>(reuse_from);
          }
          n += reuse_count;
          complete = t.prev_complete != 0 && reuse_count == rest;
          break;
        }
        if (bad == pn) {
          pn = 0;  // valid but ends too early (truncated): walk on
        } else {
          min_k = bad;
        }
      }
    }

    const uintptr_t cfa = NextCfa(t, r, sp, rbp);
    if (cfa == 0) return -1;
    const uintptr_t next_ip = Load(cfa - 8);
    if (r.rbp_saved) {
      const uintptr_t at = cfa + static_cast<intptr_t>(r.rbp_offset);
      if (at < sp) return -1;
      rbp = Load(at);
      cell = r.rbp_offset;
      src = n;
      src_used = false;
    } else {
      cell = 0;
    }
    sp = cfa;
    if (next_ip < 0x4000) return -1;  // libunwind's business
    ip = next_ip;
  }

  // Keep this capture for the next one (the reused part is moved in place).
  if (n > kPrevFrames) {
    t.prev_n = 0;
  } else {
    if (reuse_from >= 0 && reuse_from != reuse_at) {
      memmove(&t.prev_sp[reuse_at], &t.prev_sp[reuse_from], reuse_count * sizeof(uintptr_t));
      memmove(&t.prev_ip[reuse_at], &t.prev_ip[reuse_from], reuse_count * sizeof(uintptr_t));
      memmove(&t.prev_rbp[reuse_at], &t.prev_rbp[reuse_from], reuse_count * sizeof(uintptr_t));
      memmove(&t.prev_cell[reuse_at], &t.prev_cell[reuse_from], reuse_count * sizeof(int32_t));
    }
    const int walked = reuse_from >= 0 ? reuse_at : n;
    for (int i = 0; i < walked; ++i) {
      t.prev_sp[i] = sps[i];
      t.prev_ip[i] = reinterpret_cast<uintptr_t>(ips[i]);
      t.prev_rbp[i] = rbps[i];
      t.prev_cell[i] = cells[i];
    }
    t.prev_n = n;
    t.prev_complete = complete ? 1 : 0;
    t.prev_gen = gen;
  }
  if (reuse_from >= 0) ++t.stats.reused;
  return n;
}

// Frames learned one at a time in a capture before it takes the slow path.
constexpr int kLearnAtMost = 8;

// Frames before start_fp's caller that the slow path may have to drop: it
// asks libunwind for this many more than wanted.
constexpr int kFromSlack = 16;

// Copies into ips at most max of libunwind's n frames in all, from the caller
// of start_fp's function on (found among the first kFromSlack: the
// recorder's own frames), or from the first if that frame is not there.
int FromStart(void** ips, int max, void* const* all, int n, uintptr_t start_fp) {
  const uintptr_t first = Load(start_fp + 8);
  int j = 0;
  while (j < n && j < kFromSlack && reinterpret_cast<uintptr_t>(all[j]) != first) ++j;
  if (j == n || j == kFromSlack) j = 0;
  const int m = n - j < max ? n - j : max;
  memcpy(ips, all + j, sizeof(void*) * static_cast<size_t>(m));
  return m;
}

// The slow path's question and answer, so that it can run on the spare
// stack (one pointer through CallOnStack).
struct SlowCall {
  void** ips;
  int max;
  uintptr_t start_fp;  // 0: from FastBacktrace's caller
  uintptr_t first_ip;  // the entry point's return address
  bool learn;
  uint32_t gen;
  uintptr_t missed;
  LearnOutcome outcome;
  int n;  // the answer: frames in ips
};

// libunwind's answer (SlowBacktrace). From start_fp's caller on when
// start_fp is set: libunwind is asked for kFromSlack more frames, into all,
// and those before it are dropped. Not inlined: its arrays (~4.5 KiB) live
// on whichever stack it runs on.
__attribute__((noinline)) void Slow(SlowCall* c) {
  if (c->start_fp == 0) {
    c->n = SlowBacktrace(c->ips, c->max, c->first_ip, c->learn, c->gen, c->missed, &c->outcome);
    return;
  }
  void* all[kFastUnwindMaxFrames];
  const int slow_max =
      c->max + kFromSlack < kFastUnwindMaxFrames ? c->max + kFromSlack : kFastUnwindMaxFrames;
  const int n = SlowBacktrace(all, slow_max, c->first_ip, c->learn, c->gen, c->missed, &c->outcome);
  c->n = FromStart(c->ips, c->max, all, n, c->start_fp);
}

void SlowOnSpareStack(void* c) { Slow(static_cast<SlowCall*>(c)); }

// LearnAt's question and answer, for the spare stack.
struct LearnCall {
  uintptr_t ip, sp, rbp;
  uint32_t gen;
  bool learned;
};

void LearnOnSpareStack(void* p) {
  auto* c = static_cast<LearnCall*>(p);
  c->learned = LearnAt(c->ip, c->sp, c->rbp, c->gen);
}

// Runs fn(arg) on the block's spare stack, every signal blocked meanwhile
// (no handler of the program may run there; libunwind takes a hold anyway).
void OnSpareStack(ThreadBlock& block, void (*fn)(void*), void* arg) {
  const SignalHold hold;
  CallOnStack(fn, arg, SpareStackTop(block));
}

// FastBacktrace and FastBacktraceFrom, inlined into each: first_ip and
// own_fp are the entry point's return address and frame. The walk's first
// frame is start_fp's function, else the entry point. With a block, the
// rule walk uses its state and the slow path (libunwind, learning) runs on
// its spare stack; without one (nullptr), or nested in a handler that
// interrupted a capture, libunwind answers in place, learning nothing.
__attribute__((always_inline)) inline int Backtrace(void** ips, int max, uintptr_t start_fp,
                                                    uintptr_t first_ip, uintptr_t own_fp,
                                                    ThreadBlock* block, CaptureInfo* info) {
  const uint64_t kept_serial = info->kept_serial;
  info->serial = 0;
  info->repeat = false;
  info->outer = 0;
  info->tagged = false;
  if (max <= 0) return 0;
  const uintptr_t fp = start_fp != 0 ? start_fp : own_fp;
  if (__builtin_expect(block == nullptr, 0) || UnwindOf(*block).busy != 0 ||
      max > kFastUnwindMaxFrames) {
    SlowCall slow = {ips, max, start_fp, first_ip, false, 0, 0, {}, 0};
    Slow(&slow);
    asm volatile("" ::: "memory");  // keep the call out of tail position
    return slow.n;
  }
  UnwindState& t = UnwindOf(*block);
  t.busy = 1;
  // The caller keeps what it made of the previous capture's frames.
  const bool skip_repeat = kept_serial != 0 && kept_serial == t.stats.captures;
  info->serial = ++t.stats.captures;
  const uint32_t gen = UnwindGeneration();
  bool repeat = false;
  int n = -1;
  uintptr_t missed = 0, missed_sp = 0, missed_rbp = 0;
  const bool in_range = InRange(t, fp);
  const bool recent = in_range && info->use_recent && g_recent_on && max <= UINT16_MAX;
  if (recent) {
    const int got = FromRecent(t, *block, ips, max, gen, fp, info);
    if (got > 0) {
      ++t.stats.fast;
      ++t.stats.recent;
      t.busy = 0;
      return got;
    }
  }
  if (in_range) {
    n = RuleWalk(t, ips, max, gen, fp, &missed, &missed_sp, &missed_rbp, skip_repeat, &repeat,
                 info);
  }
  // An IP without a rule on a stack already walked: learn that frame's rule
  // alone and walk again (a few times at most), rather than the whole stack.
  for (int i = 0; n < 0 && missed != 0 && i < kLearnAtMost && !UnwindRulesFull(); ++i) {
    LearnCall learn = {missed, missed_sp, missed_rbp, gen, false};
    OnSpareStack(*block, LearnOnSpareStack, &learn);
    if (!learn.learned) break;
    ++t.stats.frames_learned;
    missed = 0;
    n = RuleWalk(t, ips, max, gen, fp, &missed, &missed_sp, &missed_rbp, skip_repeat, &repeat,
                 info);
  }
  if (n >= 0) {
    info->repeat = repeat;
    ++t.stats.fast;
    if (recent) KeepRecent(t, *block, n, max, gen, info->serial);
  } else {
    t.prev_n = 0;
    info->outer = 0;
    // Filled only here: the fast path does not pay for it.
    SlowCall slow = {ips, max, start_fp, first_ip, false, 0, 0, {}, 0};
    slow.learn = (!in_range || missed != 0) && !UnwindRulesFull();
    slow.gen = gen;
    slow.missed = missed;
    OnSpareStack(*block, SlowOnSpareStack, &slow);
    n = slow.n;
    if (slow.outcome.covered) {
      if (slow.outcome.stack_hi > t.stack_hi) t.stack_hi = slow.outcome.stack_hi;
      if (t.stack_lo == 0 || own_fp < t.stack_lo) t.stack_lo = own_fp;
    }
    ++(slow.learn ? t.stats.learned : t.stats.fallback);
  }
  t.busy = 0;
  return n;
}

}  // namespace

int FastBacktrace(void** ips, int max) {
  CaptureInfo info;
  info.use_recent = true;
  return Backtrace(ips, max, 0, reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                   reinterpret_cast<uintptr_t>(__builtin_frame_address(0)), ThisThreadBlock(),
                   &info);
}

int FastBacktraceFrom(void** ips, int max, uintptr_t start_fp, ThreadBlock* block) {
  CaptureInfo info;
  info.use_recent = true;
  return Backtrace(ips, max, start_fp, reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                   reinterpret_cast<uintptr_t>(__builtin_frame_address(0)), block, &info);
}

int FastBacktraceFrom(void** ips, int max, uintptr_t start_fp, ThreadBlock* block,
                      CaptureInfo* info) {
  return Backtrace(ips, max, start_fp, reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                   reinterpret_cast<uintptr_t>(__builtin_frame_address(0)), block, info);
}

bool RecentTag(ThreadBlock* block, uintptr_t start_fp, int max, uint32_t epoch, uint64_t* tag) {
  // Backtrace's conditions for trying the recent captures, in one test.
  UnwindState& t = UnwindOf(*block);
  static_assert(kFastUnwindMaxFrames <= UINT16_MAX);
  if (t.busy != 0 || start_fp == 0 || static_cast<unsigned>(max - 1) >= kFastUnwindMaxFrames ||
      epoch == 0 || !g_recent_on || !InRange(t, start_fp)) {
    return false;
  }
  t.busy = 1;  // a capture in a signal handler that comes now takes libunwind
  const int j = FindRecent(t, *block, max, UnwindGeneration(), start_fp);
  if (j < 0 || t.recent[j].tag_epoch != epoch) {  // FastBacktraceFrom answers
    t.busy = 0;
    return false;
  }
  // What Backtrace and FromRecent record of a tagged answer.
  ++t.stats.captures;
  ++t.stats.fast;
  ++t.stats.recent;
  RecentAnswered(t, j);
  *tag = t.recent[j].tag;
  t.busy = 0;
  return true;
}

void BlockFastUnwindForFork() { BlockUnwindForFork(); }

void UnblockFastUnwindAfterFork() { UnblockUnwindAfterFork(); }

void ResetFastUnwindAfterFork() {
  if (ThreadBlock* block = PeekThreadBlock()) UnwindOf(*block).busy = 0;
  ResetUnwindLearnAfterFork();
}

FastUnwindStats FastUnwindThreadStats() {
  ThreadBlock* block = PeekThreadBlock();
  return block != nullptr ? UnwindOf(*block).stats : FastUnwindStats{};
}

void TagCapture(ThreadBlock* block, uint64_t serial, uint32_t epoch, uint64_t tag) {
  if (block == nullptr) return;
  UnwindState& t = UnwindOf(*block);
  if (t.recent_kept == 0) return;
  RecentCapture& e = t.recent[t.recent_kept - 1];
  if (e.serial != serial || e.gen == 0) return;
  e.tag = tag;
  e.tag_epoch = epoch;
}

void SetFastUnwindOptions(bool prefix_reuse, bool verify_prefix, bool recent) {
  g_prefix_reuse = prefix_reuse;
  g_verify_prefix = verify_prefix;
  g_recent = recent;
  g_recent_on = prefix_reuse && recent;
}

}  // namespace heaprec::recorder::preload
