// UnwindRules: the mmap'd rule table and its generation (unwind_rules.h).
#include "recorder/preload/unwind_rules.h"

#include <sys/mman.h>

namespace heaprec::recorder::preload {
namespace {

using unwind_rules_internal::g_table;
using unwind_rules_internal::Hash;
using unwind_rules_internal::kMaxProbes;
using unwind_rules_internal::kSlots;
using unwind_rules_internal::Slot;

std::atomic<bool> g_full{false};
std::atomic<uint32_t> g_count{0};

uint64_t EncodeRule(const UnwindRule& r, uint32_t gen) {
  const uint64_t cfa8 = (r.cfa_offset / 8) & 0xFFFF;
  const uint64_t rbp8 = static_cast<uint64_t>(-r.rbp_offset / 8) & 0xFFF;
  return (static_cast<uint64_t>(gen) << 32) | (rbp8 << 20) | (cfa8 << 4) |
         (static_cast<uint64_t>(r.rbp_saved) << 3) | static_cast<uint64_t>(r.kind);
}

// The table, mapped on first use; a thread that loses the race unmaps its copy.
Slot* Table() {
  Slot* table = g_table.load(std::memory_order_acquire);
  if (table != nullptr) return table;
  // Populated: rules land at random in it, each page would fault on its own.
  void* p = mmap(nullptr, sizeof(Slot) * kSlots, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Slot* mine = static_cast<Slot*>(p);
  if (!g_table.compare_exchange_strong(table, mine, std::memory_order_acq_rel)) {
    munmap(p, sizeof(Slot) * kSlots);
    return table;
  }
  return mine;
}

}  // namespace

void InvalidateUnwindRules() {
  uint32_t gen = g_unwind_generation.load(std::memory_order_relaxed);
  uint32_t next;
  do {
    next = gen + 1 == 0 ? 1 : gen + 1;  // 0 marks an unpublished word
  } while (!g_unwind_generation.compare_exchange_weak(gen, next, std::memory_order_acq_rel));
}

bool InsertUnwindRule(uintptr_t ip, uint32_t gen, const UnwindRule& rule) {
  if (ip == 0 || rule.kind == RuleKind::kNone) return false;
  if (rule.cfa_offset > kMaxCfaOffset || rule.cfa_offset % 8 != 0) return false;
  if (rule.rbp_offset > 0 || rule.rbp_offset < -kMaxRbpOffset || rule.rbp_offset % 8 != 0) {
    return false;
  }
  Slot* table = Table();
  if (table == nullptr) return false;
  const uint64_t word = EncodeRule(rule, gen);
  uint32_t i = Hash(ip);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    uint64_t key = table[i].ip.load(std::memory_order_acquire);
    if (key == 0) {
      if (table[i].ip.compare_exchange_strong(key, ip, std::memory_order_acq_rel)) {
        g_count.fetch_add(1, std::memory_order_relaxed);
        key = ip;
      }
      // else key now holds the winner's ip: compared below.
    }
    if (key == ip) {
      // Publish unless a rule of this generation is already there: within a
      // generation a rule never changes (fast_unwind.cc's prefix reuse
      // relies on it). Older generations are overwritten.
      // A learner whose generation is already stale publishes nothing.
      uint64_t old = table[i].word.load(std::memory_order_acquire);
      while (static_cast<uint32_t>(old >> 32) != gen && gen == UnwindGeneration()) {
        if (table[i].word.compare_exchange_weak(old, word, std::memory_order_acq_rel)) break;
      }
      return true;
    }
    i = (i + 1) & (kSlots - 1);
  }
  g_full.store(true, std::memory_order_relaxed);
  return false;
}

bool UnwindRulesFull() { return g_full.load(std::memory_order_relaxed); }

uint32_t UnwindRuleCount() { return g_count.load(std::memory_order_relaxed); }

const void* UnwindRulesMemory(size_t* bytes) {
  *bytes = sizeof(Slot) * kSlots;
  return Table();
}

}  // namespace heaprec::recorder::preload
