// UnwindLearn: libunwind answers; rules are learned on the way (unwind_learn.h).
//
// Telling an RSP-based CFA from an RBP-based one. One unw_step shows a
// single (RSP, RBP) -> CFA pair, which both forms can explain (a
// frame-pointer function without alloca keeps RBP - RSP constant at a call
// site; an RSP-based function may hold any value in RBP). So we ask
// libunwind twice more, with the same IP and other registers, on a copy of
// the top of the frame placed in a scratch mapping at an offset D (D is not
// a multiple of 16, so a CFA rule that realigns would not follow it):
//   probe A: RSP + D, RBP as is;   probe B: RSP as is, RBP + D.
// CFA = RSP + c  moves by D in probe A and stays in probe B;
// CFA = RBP + c  stays in probe A and moves by D in probe B.
// Each probe must also return the same caller IP and the expected caller
// RBP. Any other outcome (a CFA expression, a register other than RSP/RBP, a
// CFA that depends on memory) matches neither: uncacheable. Probe B runs
// only when RBP points into the copied top of the frame; otherwise an
// RBP-based CFA is impossible for compiled code (RBP would be the frame
// base) and probe A alone decides.
//
// Probes never read outside mapped memory: libunwind reads at CFA-relative
// addresses, which are in the copy (moved) or the real frame (not moved),
// and the copy sits in a 1 MiB scratch mapping well inside its bounds.
//
// The rule's other parts come from the real step: the return address must be
// at CFA-8 (unw_get_save_loc of RIP); the caller's RBP is unchanged when its
// save location equals the frame's own RBP location, or saved at CFA+k when
// it is a stack slot in the frame. Not cached at all: signal frames
// (unw_is_signal_frame), the frame after one (its IP is no return address),
// IPs without CFI (unw_get_proc_info fails: libunwind guessed), frames larger
// than kMaxCfaOffset, and a step libunwind could not do. The outermost
// frame is cached as kLast only when libunwind stopped because the CFI says
// so (return address or RBP undefined), not because of the data it read.
#include "recorder/preload/unwind_learn.h"

#include <sched.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <atomic>
#include <cstring>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "recorder/preload/fast_unwind.h"
#include "recorder/preload/signal_hold.h"
#include "recorder/preload/unwind_rules.h"

namespace heaprec::recorder::preload {
namespace {

// Reads a cell of another frame (an unwinder's job); not instrumented by ASan,
// which would flag the other frames' redzones.
__attribute__((no_sanitize("address"))) uintptr_t StackCell(uintptr_t address) {
  return *reinterpret_cast<const uintptr_t*>(address);
}

// Copies n bytes (a multiple of 8, 8-aligned) of other frames' stack cells,
// for the same reason word by word rather than through memcpy (which ASan
// intercepts).
__attribute__((no_sanitize("address"), noinline)) void CopyStackCells(uintptr_t to, uintptr_t from,
                                                                      size_t n) {
  volatile uintptr_t* out = reinterpret_cast<volatile uintptr_t*>(to);
  for (size_t i = 0; i < n / 8; ++i) out[i] = reinterpret_cast<const uintptr_t*>(from)[i];
}

constexpr uintptr_t kScratchBytes = 1u << 20;
constexpr uintptr_t kWindow = 512;        // top of the frame copied for the probes
constexpr uintptr_t kProbeShift = 0x128;  // D modulo 4096: not a multiple of 16
std::atomic<uint32_t> g_learning{0};      // the scratch's try-lock
std::atomic<uint8_t*> g_scratch{nullptr};

// libunwind takes locks of its own inside unw_backtrace and unw_step
// (Debian's keeps its register-state cache global, behind a pthread mutex
// taken on every step; its dl_iterate_phdr calls take the loader's). A fork
// while another thread holds one leaves it held for good in the child, whose
// first capture of a new call site then waits on it forever with every
// signal blocked (SignalHold). So no fork starts while a thread is inside
// libunwind: each use counts itself in g_unwinding (LibunwindUse), and the
// fork's prepare handler closes the gate (g_forks_pending) and waits for the
// count to reach 0 (BlockUnwindForFork). Each side writes its own counter
// and then reads the other's, all seq_cst: at least one sees the other.
std::atomic<uint32_t> g_unwinding{0};
std::atomic<uint32_t> g_forks_pending{0};

// Held around every libunwind call, inside the SignalHold (so no handler on
// this thread runs while it is counted).
class LibunwindUse {
 public:
  LibunwindUse() {
    for (;;) {
      while (g_forks_pending.load(std::memory_order_seq_cst) != 0) sched_yield();
      g_unwinding.fetch_add(1, std::memory_order_seq_cst);
      if (g_forks_pending.load(std::memory_order_seq_cst) == 0) return;
      g_unwinding.fetch_sub(1, std::memory_order_seq_cst);  // a fork came first: after it
    }
  }
  ~LibunwindUse() { g_unwinding.fetch_sub(1, std::memory_order_release); }
  LibunwindUse(const LibunwindUse&) = delete;
  LibunwindUse& operator=(const LibunwindUse&) = delete;
};

struct FrameObs {
  uintptr_t ip, sp, rbp;
  uintptr_t rbx, r12, r13, r14, r15;
  unw_save_loc_t rbp_loc;  // where this frame's RBP value is (memory)
  unw_save_loc_t rip_loc;  // where this frame's IP was read from
  bool signal;
};

uintptr_t Reg(unw_cursor_t* c, int reg) {
  unw_word_t v = 0;
  if (unw_get_reg(c, reg, &v) < 0) return 0;
  return static_cast<uintptr_t>(v);
}

bool Observe(unw_cursor_t* c, FrameObs* f) {
  unw_word_t v;
  if (unw_get_reg(c, UNW_REG_IP, &v) < 0) return false;
  f->ip = v;
  if (unw_get_reg(c, UNW_REG_SP, &v) < 0) return false;
  f->sp = v;
  if (unw_get_reg(c, UNW_X86_64_RBP, &v) < 0) return false;
  f->rbp = v;
  f->rbx = Reg(c, UNW_X86_64_RBX);
  f->r12 = Reg(c, UNW_X86_64_R12);
  f->r13 = Reg(c, UNW_X86_64_R13);
  f->r14 = Reg(c, UNW_X86_64_R14);
  f->r15 = Reg(c, UNW_X86_64_R15);
  if (unw_get_save_loc(c, UNW_X86_64_RBP, &f->rbp_loc) < 0) f->rbp_loc.type = UNW_SLT_NONE;
  if (unw_get_save_loc(c, UNW_X86_64_RIP, &f->rip_loc) < 0) f->rip_loc.type = UNW_SLT_NONE;
  f->signal = unw_is_signal_frame(c) > 0;
  return true;
}

uint8_t* Scratch() {
  uint8_t* s = g_scratch.load(std::memory_order_acquire);
  if (s != nullptr) return s;
  void* p = mmap(nullptr, kScratchBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  uint8_t* mine = static_cast<uint8_t*>(p);
  if (!g_scratch.compare_exchange_strong(s, mine, std::memory_order_acq_rel)) {
    munmap(p, kScratchBytes);
    return s;
  }
  return mine;
}

struct ProbeResult {
  bool ok;
  uintptr_t ip, cfa, rbp;
};

// One libunwind step from frame f with RSP and RBP replaced.
ProbeResult Probe(const unw_context_t& base, const FrameObs& f, uintptr_t sp, uintptr_t rbp) {
  ProbeResult out = {};
  unw_context_t uc = base;
  greg_t* g = uc.uc_mcontext.gregs;
  g[REG_RIP] = static_cast<greg_t>(f.ip);
  g[REG_RSP] = static_cast<greg_t>(sp);
  g[REG_RBP] = static_cast<greg_t>(rbp);
  g[REG_RBX] = static_cast<greg_t>(f.rbx);
  g[REG_R12] = static_cast<greg_t>(f.r12);
  g[REG_R13] = static_cast<greg_t>(f.r13);
  g[REG_R14] = static_cast<greg_t>(f.r14);
  g[REG_R15] = static_cast<greg_t>(f.r15);
  unw_cursor_t c;
  if (unw_init_local(&c, &uc) < 0 || unw_step(&c) <= 0) return out;
  out.ip = Reg(&c, UNW_REG_IP);
  out.cfa = Reg(&c, UNW_REG_SP);
  out.rbp = Reg(&c, UNW_X86_64_RBP);
  out.ok = true;
  return out;
}

UnwindRule Uncacheable() {
  UnwindRule r;
  r.kind = RuleKind::kUncacheable;
  return r;
}

// The rule for cur.ip, from the step cur -> next (see the file comment).
UnwindRule Classify(const unw_context_t& base, unw_cursor_t* at_cur, const FrameObs& cur,
                    const FrameObs& next) {
  unw_proc_info_t pi;
  if (cur.signal || unw_get_proc_info(at_cur, &pi) < 0 || pi.format == UNW_INFO_FORMAT_DYNAMIC) {
    return Uncacheable();
  }
  const uintptr_t cfa = next.sp;
  if (cfa <= cur.sp || (cfa & 15) != 0 || cfa - cur.sp > kMaxCfaOffset) return Uncacheable();
  if (next.rip_loc.type != UNW_SLT_MEMORY || next.rip_loc.u.addr != cfa - 8 ||
      StackCell(cfa - 8) != next.ip) {
    return Uncacheable();
  }
  UnwindRule rule;
  if (next.rbp_loc.type == UNW_SLT_MEMORY && cur.rbp_loc.type == UNW_SLT_MEMORY &&
      next.rbp_loc.u.addr == cur.rbp_loc.u.addr) {
    if (next.rbp != cur.rbp) return Uncacheable();
    rule.rbp_saved = false;
  } else if (next.rbp_loc.type == UNW_SLT_MEMORY && next.rbp_loc.u.addr >= cur.sp &&
             next.rbp_loc.u.addr < cfa && next.rbp_loc.u.addr >= cfa - kWindow &&
             (cfa - next.rbp_loc.u.addr) % 8 == 0 && StackCell(next.rbp_loc.u.addr) == next.rbp) {
    rule.rbp_saved = true;
    rule.rbp_offset = -static_cast<int32_t>(cfa - next.rbp_loc.u.addr);
  } else {
    return Uncacheable();
  }

  // Copy the frame's top [max(cfa - kWindow, sp), cfa) to the scratch, at
  // an offset d from the real stack with d % 4096 == kProbeShift.
  uint8_t* scratch = Scratch();
  if (scratch == nullptr) return {};
  const uintptr_t top =
      (reinterpret_cast<uintptr_t>(scratch) + kScratchBytes - 8192) & ~uintptr_t{4095};
  const uintptr_t copy_cfa = top + ((cfa + kProbeShift) & 4095);
  const uintptr_t d = copy_cfa - cfa;  // modulo 2^64
  const uintptr_t lo = cfa - kWindow > cur.sp ? cfa - kWindow : cur.sp;
  memset(reinterpret_cast<void*>(copy_cfa - kWindow), 0, kWindow);
  CopyStackCells(lo + d, lo, cfa - lo);

  const uintptr_t rbp_if_unchanged = cur.rbp;
  const ProbeResult a = Probe(base, cur, cur.sp + d, cur.rbp);
  const uintptr_t a_rbp = rule.rbp_saved ? next.rbp : rbp_if_unchanged;
  const bool a_moved = a.ok && a.cfa == cfa + d && a.ip == next.ip && a.rbp == a_rbp;
  const bool a_stayed = a.ok && a.cfa == cfa && a.ip == next.ip;

  const bool rbp_in_copy = cur.rbp >= lo && cur.rbp < cfa;
  bool b_moved = false, b_stayed = false;
  if (rbp_in_copy) {
    const ProbeResult b = Probe(base, cur, cur.sp, cur.rbp + d);
    const uintptr_t b_rbp = rule.rbp_saved ? next.rbp : cur.rbp + d;
    b_moved = b.ok && b.cfa == cfa + d && b.ip == next.ip && b.rbp == b_rbp;
    b_stayed = b.ok && b.cfa == cfa && b.ip == next.ip && b.rbp == b_rbp;
  }
  if (a_moved && (!rbp_in_copy || b_stayed)) {
    rule.kind = RuleKind::kCfaRsp;
    rule.cfa_offset = static_cast<uint32_t>(cfa - cur.sp);
  } else if (rbp_in_copy && b_moved && a_stayed) {
    rule.kind = RuleKind::kCfaRbp;
    rule.cfa_offset = static_cast<uint32_t>(cfa - cur.rbp);
  } else {
    return Uncacheable();
  }
  if (rule.cfa_offset % 8 != 0 || rule.cfa_offset > kMaxCfaOffset) return Uncacheable();
  return rule;
}

// The rule for cur's IP where unw_step from it returned ret <= 0 (c is the
// cursor after that step, at_cur before it): kLast when libunwind stopped
// because the CFI says so (return address or RBP undefined), not because of
// the data it read; else kUncacheable.
UnwindRule EndRule(int ret, unw_cursor_t* c, unw_cursor_t* at_cur, const FrameObs& cur) {
  unw_save_loc_t rip_loc, rbp_loc;
  unw_proc_info_t pi;
  UnwindRule r = Uncacheable();
  if (ret == 0 && unw_get_save_loc(c, UNW_X86_64_RIP, &rip_loc) == 0 &&
      unw_get_save_loc(c, UNW_X86_64_RBP, &rbp_loc) == 0 &&
      (rip_loc.type == UNW_SLT_NONE || rbp_loc.type == UNW_SLT_NONE) && !cur.signal &&
      unw_get_proc_info(at_cur, &pi) == 0 && pi.format != UNW_INFO_FORMAT_DYNAMIC) {
    r.kind = RuleKind::kLast;
  }
  return r;
}

bool IsStandard(const UnwindRule& r) {
  return r.kind == RuleKind::kCfaRsp || r.kind == RuleKind::kCfaRbp;
}

// LearnWalk's end once every IP left has a rule: frames ips[j..n) from
// frame j's RSP and RBP, as the rule walk would go (no libunwind steps, ~1 us
// each, and their memory checks), checking that each return address read is
// the one unw_backtrace found. Returns whether all is covered, as LearnWalk.
bool FinishWithRules(const void* const* ips, int j, int n, int max, uint32_t gen, uintptr_t sp,
                     uintptr_t rbp, bool covered, uintptr_t* stack_hi) {
  for (int k = j; k < n; ++k) {
    const bool last_output = k == n - 1;
    if (last_output && n == max) break;  // truncated: nothing beyond to check against
    const UnwindRule r = LookupUnwindRule(reinterpret_cast<uintptr_t>(ips[k]), gen);
    if (r.kind == RuleKind::kLast) {
      if (!last_output) return false;  // the rules end where unw_backtrace went on
      break;
    }
    if (!IsStandard(r) || last_output) {
      covered = false;  // uncacheable, or unw_backtrace stopped where the rules go on
      break;
    }
    const uintptr_t cfa = CfaOf(r, sp, rbp);
    if (cfa <= sp || (cfa & 15) != 0) return false;
    if (StackCell(cfa - 8) != reinterpret_cast<uintptr_t>(ips[k + 1])) return false;
    if (r.rbp_saved) rbp = StackCell(cfa + static_cast<intptr_t>(r.rbp_offset));
    sp = cfa;
  }
  *stack_hi = sp;
  return covered;
}

// Walks the stack with unw_step in lockstep with ips[0..n) (unw_backtrace's
// answer), learning a rule for each IP not yet known. Returns whether the
// learned rules cover every output frame (LearnOutcome). skip = frames from
// this one to the first output frame (it must not be inlined).
__attribute__((noinline)) bool LearnWalk(const void* const* ips, int n, int max, uint32_t gen,
                                         int skip, uintptr_t* stack_hi) {
  unw_context_t uc;
  unw_cursor_t c;
  if (unw_getcontext(&uc) < 0 || unw_init_local(&c, &uc) < 0) return false;
  for (int i = 0; i < skip; ++i) {
    if (unw_step(&c) <= 0) return false;
  }
  FrameObs cur;
  if (!Observe(&c, &cur)) return false;
  // Past the last IP without a rule, libunwind has nothing to teach: the
  // rules finish the walk (FinishWithRules).
  int last_unknown = -1;
  for (int j = 0; j < n; ++j) {
    if (LookupUnwindRule(reinterpret_cast<uintptr_t>(ips[j]), gen).kind == RuleKind::kNone) {
      last_unknown = j;
    }
  }
  bool covered = true;
  bool after_signal = false;  // the first frame's callee is FastBacktrace
  for (int j = 0; j < n; ++j) {
    if (cur.ip != reinterpret_cast<uintptr_t>(ips[j])) return false;  // disagrees: stop
    if (j > last_unknown && !after_signal) {
      return FinishWithRules(ips, j, n, max, gen, cur.sp, cur.rbp, covered, stack_hi);
    }
    const bool last_output = j == n - 1;
    if (last_output && n == max) break;  // truncated: nothing beyond to check against
    const UnwindRule known = LookupUnwindRule(cur.ip, gen);
    unw_cursor_t at_cur = c;  // for unw_get_proc_info in Classify
    const int ret = unw_step(&c);
    if (ret <= 0) {
      // libunwind ends here; unw_backtrace must have ended here too.
      if (!last_output) return false;
      if (known.kind == RuleKind::kNone && !after_signal) {
        const UnwindRule r = EndRule(ret, &c, &at_cur, cur);
        InsertUnwindRule(cur.ip, gen, r);
        covered = covered && r.kind == RuleKind::kLast;
      } else {
        covered = covered && known.kind == RuleKind::kLast;
      }
      break;
    }
    FrameObs next;
    if (!Observe(&c, &next)) return false;
    if (last_output) {
      // unw_backtrace stopped where unw_step goes on (a return address
      // below 0x4000): learn nothing from this step.
      covered = false;
      break;
    }
    if (after_signal) {
      covered = false;  // this IP is no return address: not learned
    } else if (known.kind != RuleKind::kNone) {
      covered = covered && IsStandard(known);
    } else {
      const UnwindRule r = Classify(uc, &at_cur, cur, next);
      if (r.kind != RuleKind::kNone) InsertUnwindRule(cur.ip, gen, r);
      covered = covered && IsStandard(r);
    }
    after_signal = cur.signal;
    cur = next;
  }
  *stack_hi = cur.sp;
  return covered;
}

}  // namespace

bool LearnAt(uintptr_t ip, uintptr_t sp, uintptr_t rbp, uint32_t gen) {
  uint32_t expected = 0;
  if (!g_learning.compare_exchange_strong(expected, 1, std::memory_order_acquire)) return false;
  UnwindRule rule;  // kNone: nothing learned
  {
    const SignalHold hold;  // libunwind's own sigprocmask pairs cost no system call
    const LibunwindUse use;
    unw_context_t uc;
    unw_cursor_t c;
    FrameObs cur;
    if (unw_getcontext(&uc) == 0) {
      // Other registers keep this function's values: a rule uses only RSP
      // and RBP, and a CFI row that uses others fails the probes.
      greg_t* g = uc.uc_mcontext.gregs;
      g[REG_RIP] = static_cast<greg_t>(ip);
      g[REG_RSP] = static_cast<greg_t>(sp);
      g[REG_RBP] = static_cast<greg_t>(rbp);
      if (unw_init_local(&c, &uc) >= 0 && Observe(&c, &cur) && cur.ip == ip && cur.sp == sp) {
        unw_cursor_t at_cur = c;  // for unw_get_proc_info in Classify
        const int ret = unw_step(&c);
        FrameObs next;
        if (ret > 0 && Observe(&c, &next)) {
          rule = Classify(uc, &at_cur, cur, next);
        } else if (ret == 0) {
          rule = EndRule(ret, &c, &at_cur, cur);  // the outermost frame?
        }
      }
    }
    if (rule.kind != RuleKind::kNone) InsertUnwindRule(ip, gen, rule);
  }
  g_learning.store(0, std::memory_order_release);
  return rule.kind != RuleKind::kNone && LookupUnwindRule(ip, gen).kind != RuleKind::kNone;
}

int SlowBacktrace(void** ips, int max, uintptr_t first_ip, bool learn, uint32_t gen,
                  uintptr_t missed_ip, LearnOutcome* outcome) {
  // raw[0] is where this function resumes, then the fast_unwind.cc frames
  // up to FastBacktrace's (through the switch to the spare stack, or not),
  // then first_ip, FastBacktrace's caller: the first frame asked for. It
  // cannot come earlier: those frames are all between SlowBacktrace and
  // FastBacktrace, and first_ip is a return address outside them.
  constexpr int kMaxSkip = 8;
  const SignalHold hold;  // libunwind's own sigprocmask pairs cost no system call
  const LibunwindUse use;
  void* raw[kFastUnwindMaxFrames + kMaxSkip];
  if (max > kFastUnwindMaxFrames) max = kFastUnwindMaxFrames;
  const int got = unw_backtrace(raw, max + kMaxSkip);
  int skip = 1;
  while (skip < got && skip < kMaxSkip && reinterpret_cast<uintptr_t>(raw[skip]) != first_ip) {
    ++skip;
  }
  if (skip >= got || reinterpret_cast<uintptr_t>(raw[skip]) != first_ip) return 0;
  const int n = got - skip < max ? got - skip : max;
  memcpy(ips, raw + skip, sizeof(void*) * n);
  if (!learn) return n;
  uint32_t expected = 0;
  if (!g_learning.compare_exchange_strong(expected, 1, std::memory_order_acquire)) return n;
  uintptr_t stack_hi = 0;
  // The walk starts in LearnWalk: then this function and the others skipped.
  const bool covered = LearnWalk(ips, n, max, gen, skip + 1, &stack_hi);
  if (missed_ip != 0 && LookupUnwindRule(missed_ip, gen).kind == RuleKind::kNone) {
    InsertUnwindRule(missed_ip, gen, Uncacheable());  // no verdict: never try again
  }
  g_learning.store(0, std::memory_order_release);
  if (outcome != nullptr && covered) {
    outcome->covered = true;
    outcome->stack_hi = stack_hi;
  }
  return n;
}

void BlockUnwindForFork() {
  g_forks_pending.fetch_add(1, std::memory_order_seq_cst);
  while (g_unwinding.load(std::memory_order_seq_cst) != 0) sched_yield();
}

void UnblockUnwindAfterFork() { g_forks_pending.fetch_sub(1, std::memory_order_release); }

void ResetUnwindLearnAfterFork() {
  g_learning.store(0, std::memory_order_relaxed);
  g_unwinding.store(0, std::memory_order_relaxed);  // 0 already: the fork waited for it
  g_forks_pending.store(0, std::memory_order_relaxed);
}

const void* UnwindScratchMemory(size_t* bytes) {
  *bytes = kScratchBytes;
  return Scratch();
}

}  // namespace heaprec::recorder::preload
