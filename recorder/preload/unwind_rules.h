// UnwindRules: the process-wide cache of per-return-address unwind rules that
// fast_unwind.cc walks stacks with (x86-64 only).
//
// A rule says, for a return address IP (a frame whose code is at IP-1), how
// to get its caller's frame:
//   CFA = RSP + cfa_offset   or   CFA = RBP + cfa_offset;
//   caller's IP = [CFA - 8]; caller's RSP = CFA;
//   caller's RBP = RBP (unchanged) or [CFA + rbp_offset].
// or that IP is the outermost frame (kLast: libunwind stops there), or that
// IP must always be unwound by libunwind (kUncacheable: signal trampolines,
// code without CFI, anything unwind_learn.cc could not prove).
//
// Rules are never parsed from DWARF here: unwind_learn.cc learns them from
// libunwind and inserts them. Each carries the generation it was learned in;
// InvalidateUnwindRules() (around dlclose) bumps the generation so that every
// older rule reads as a miss. Within one generation a rule, once published,
// never changes (an insert does not overwrite a current rule).
//
// Storage: one mmap'd open-addressing table (no heap), allocated on first
// insert; lookups are two acquire loads, inserts publish with a CAS. When the
// table is full, inserts fail and callers stop caching (Full()).
// Thread-safe, async-signal-safe, fork-safe (the child keeps a copy), never
// allocates from the heap. Called by fast_unwind.cc and unwind_learn.cc.
#ifndef HEAPREC_RECORDER_PRELOAD_UNWIND_RULES_H_
#define HEAPREC_RECORDER_PRELOAD_UNWIND_RULES_H_

#include <atomic>
#include <cstdint>

namespace heaprec::recorder::preload {

enum class RuleKind : uint8_t {
  kNone = 0,         // no rule (a miss)
  kCfaRsp = 1,       // CFA = RSP + cfa_offset
  kCfaRbp = 2,       // CFA = RBP + cfa_offset
  kLast = 3,         // the outermost frame: the walk ends after this IP
  kUncacheable = 4,  // always unwind this IP with libunwind
};

struct UnwindRule {
  RuleKind kind = RuleKind::kNone;
  bool rbp_saved = false;   // caller's RBP is at [CFA + rbp_offset], else unchanged
  uint32_t cfa_offset = 0;  // bytes, a multiple of 8, at most kMaxCfaOffset
  int32_t rbp_offset = 0;   // bytes, negative multiple of 8, at least -kMaxRbpOffset
};

inline constexpr uint32_t kMaxCfaOffset = 8u * 0xFFFF;  // 512 KiB
inline constexpr int32_t kMaxRbpOffset = 8 * 0xFFF;     // 32 KiB

// The current generation (never 0). Read once per capture.
inline std::atomic<uint32_t> g_unwind_generation{1};
inline uint32_t UnwindGeneration() { return g_unwind_generation.load(std::memory_order_acquire); }

// Makes every rule learned so far a miss. Call before and after a module is
// unloaded (so no rule learned from the old code survives the unload window).
void InvalidateUnwindRules();

// The table's memory (mapped now if it was not yet), for the leak scan to
// leave out; nullptr if it cannot be mapped.
const void* UnwindRulesMemory(size_t* bytes);

// Table layout (internal; inline here so that the fast path's lookup is).
namespace unwind_rules_internal {
inline constexpr uint32_t kSlots = 1u << 16;  // 1 MiB of 16-byte slots
inline constexpr uint32_t kMaxProbes = 16;
struct Slot {
  std::atomic<uint64_t> ip;    // 0 = free; set once by CAS, never changed
  std::atomic<uint64_t> word;  // 0 = not yet published; else EncodeRule()
};
inline std::atomic<Slot*> g_table{nullptr};
inline uint32_t Hash(uintptr_t ip) {
  return static_cast<uint32_t>((ip * 0x9E3779B97F4A7C15ULL) >> 48) & (kSlots - 1);
}
// word: generation in bits 32..63, kind in 0..2, rbp_saved in 3,
// cfa_offset / 8 in 4..19, -rbp_offset / 8 in 20..31.
inline UnwindRule DecodeRule(uint64_t word) {
  UnwindRule r;
  r.kind = static_cast<RuleKind>(word & 7);
  r.rbp_saved = ((word >> 3) & 1) != 0;
  r.cfa_offset = static_cast<uint32_t>((word >> 4) & 0xFFFF) * 8;
  r.rbp_offset = -static_cast<int32_t>((word >> 20) & 0xFFF) * 8;
  return r;
}
}  // namespace unwind_rules_internal

// The rule for ip in generation gen, or kind kNone.
inline UnwindRule LookupUnwindRule(uintptr_t ip, uint32_t gen) {
  using namespace unwind_rules_internal;
  Slot* table = g_table.load(std::memory_order_acquire);
  if (table == nullptr) return {};
  uint32_t i = Hash(ip);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    const uint64_t key = table[i].ip.load(std::memory_order_acquire);
    if (key == ip) {
      const uint64_t word = table[i].word.load(std::memory_order_acquire);
      if (static_cast<uint32_t>(word >> 32) != gen) return {};
      return DecodeRule(word);
    }
    if (key == 0) return {};
    i = (i + 1) & (kSlots - 1);
  }
  return {};
}

// The CFA a kCfaRsp or kCfaRbp rule gives for a frame with RSP sp, RBP rbp.
inline uintptr_t CfaOf(const UnwindRule& r, uintptr_t sp, uintptr_t rbp) {
  return (r.kind == RuleKind::kCfaRsp ? sp : rbp) + r.cfa_offset;
}

// Publishes rule for ip in generation gen unless ip already has a rule of
// that generation. False if the table is full (or cannot be mapped).
bool InsertUnwindRule(uintptr_t ip, uint32_t gen, const UnwindRule& rule);

// True once an insert failed for want of room: callers stop learning.
bool UnwindRulesFull();

// Rules currently stored (any generation), for tests and benchmarks.
uint32_t UnwindRuleCount();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_UNWIND_RULES_H_
