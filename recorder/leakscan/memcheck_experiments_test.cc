// The experiments of the leak spec's Appendix B that make sense without V
// bits, rebuilt in a SyntheticProcess (valgrind's addresses where they
// matter); each asserts valgrind's LEAK SUMMARY text verbatim (the
// "suppressed" line is 0: suppressions are the caller's).
#include <gtest/gtest.h>

#include <string>

#include "recorder/leakscan/leak_graph.h"
#include "recorder/leakscan/leak_summary.h"
#include "recorder/leakscan/synthetic_process.h"

namespace heaprec::recorder::leakscan {
namespace {

std::string Summary(uint64_t definite_bytes, uint64_t definite_blocks, uint64_t indirect_bytes,
                    uint64_t indirect_blocks, uint64_t possible_bytes, uint64_t possible_blocks,
                    uint64_t reachable_bytes, uint64_t reachable_blocks,
                    const std::string& heuristic_lines = "") {
  LeakSummary s;
  s.by_kind[0] = {definite_bytes, definite_blocks};
  s.by_kind[1] = {indirect_bytes, indirect_blocks};
  s.by_kind[2] = {possible_bytes, possible_blocks};
  s.by_kind[3] = {reachable_bytes, reachable_blocks};
  std::string text = FormatLeakSummary(s);
  if (!heuristic_lines.empty()) {
    const size_t at = text.find("        suppressed:");
    text.insert(at, "                      of which reachable via heuristic:\n" + heuristic_lines);
  }
  return text;
}

TEST(LeakSummaryText, MatchesValgrindsLines) {
  LeakSummary s;
  s.by_kind[3] = {72760, 2};
  s.via_heuristic[static_cast<int>(Heuristic::kNewArray)] = {56, 1};
  EXPECT_EQ(FormatLeakSummary(s),
            "LEAK SUMMARY:\n"
            "   definitely lost: 0 bytes in 0 blocks\n"
            "   indirectly lost: 0 bytes in 0 blocks\n"
            "     possibly lost: 0 bytes in 0 blocks\n"
            "   still reachable: 72,760 bytes in 2 blocks\n"
            "                      of which reachable via heuristic:\n"
            "                        newarray           : 56 bytes in 1 blocks\n"
            "        suppressed: 0 bytes in 0 blocks\n");
  EXPECT_EQ(WithThousands(2097152), "2,097,152");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(WithThousands(1000), "1,000");
}

// E01: the only pointer to a 16-byte block is in a global.
TEST(MemcheckExperiments, E01Global) {
  SyntheticProcess p;
  p.Set(p.Global(), p.Malloc(16));
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 0, 0, 16, 1));
}

// E02: a function-static local (also .bss).
TEST(MemcheckExperiments, E02StaticLocal) {
  SyntheticProcess p;
  p.Global();
  p.Set(p.Global(), p.Malloc(24));
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 0, 0, 24, 1));
}

// E03: a __thread variable of the main thread.
TEST(MemcheckExperiments, E03ThreadLocal) {
  SyntheticProcess p;
  p.Set(p.ThreadLocal(), p.Malloc(40));
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 0, 0, 40, 1));
}

// E04: a lost list of four 16-byte nodes, each pointing at the one made
// before it: the newest (highest) is the clique leader.
TEST(MemcheckExperiments, E04List) {
  SyntheticProcess p;
  uint64_t head = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t n = p.Malloc(16);
    p.Set(n, head);
    p.Set(n + 8, i);
    head = n;
  }
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)), Summary(16, 1, 48, 3, 0, 0, 0, 0));
  // "64 (16 direct, 48 indirect) bytes in 1 blocks are definitely lost"
  EXPECT_EQ(r.indirect_bytes[p.IndexOf(head)], 48u);
  EXPECT_EQ(r.verdicts[p.IndexOf(head)].kind, LeakKind::kDefinitelyLost);
}

// E05: a lost two-block cycle: the lower address leads, whatever the sizes
// or the allocation order.
TEST(MemcheckExperiments, E05CycleOrder1) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(16), b = p.Malloc(32);
  ASSERT_EQ(a, 0x4a42040u);
  ASSERT_EQ(b, 0x4a42090u);
  p.Set(a, b);
  p.Set(b, a);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)), Summary(16, 1, 32, 1, 0, 0, 0, 0));
  EXPECT_EQ(r.indirect_bytes[p.IndexOf(a)], 32u);  // "48 (16 direct, 32 indirect)"
}

TEST(MemcheckExperiments, E05CycleOrder2) {
  SyntheticProcess p;
  const uint64_t b = p.Malloc(32), a = p.Malloc(16);
  ASSERT_EQ(a, 0x4a420a0u);
  ASSERT_EQ(b, 0x4a42040u);
  p.Set(a, b);
  p.Set(b, a);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)), Summary(32, 1, 16, 1, 0, 0, 0, 0));
  EXPECT_EQ(r.indirect_bytes[p.IndexOf(b)], 16u);  // "48 (32 direct, 16 indirect)"
}

// ORDER=3: the 32-byte block allocated last reuses a freed filler's memory
// below the 16-byte one; 'spare' stays reachable through a global.
TEST(MemcheckExperiments, E05CycleOrder3) {
  SyntheticProcess p;
  p.MallocAt(0x4a42340, 16);
  const uint64_t a = 0x4a42340, b = 0x4a42040, spare = 0x4a420a0;
  p.MallocAt(b, 32);
  p.MallocAt(spare, 32);
  p.Set(p.Global(), spare);
  p.Set(a, b);
  p.Set(b, a);
  EXPECT_EQ(p.Summary(), Summary(32, 1, 16, 1, 0, 0, 32, 1));
}

// E06: an interior pointer (offset 12, no heuristic) from a root.
TEST(MemcheckExperiments, E06Interior) {
  SyntheticProcess p;
  p.Set(p.Global(), p.Malloc(32) + 12);
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 32, 1, 0, 0));
}

// E07: a start pointer inside a Possible block gives Possible.
TEST(MemcheckExperiments, E07StartInPossible) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(32), b = p.Malloc(48);
  p.Set(a, b);
  p.Set(p.Global(), a + 12);
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 80, 2, 0, 0));
}

// E07b: a heuristic pointer from a Possible block: B stays Possible but its
// heuristic field is set, so it shows under "reachable via heuristic".
TEST(MemcheckExperiments, E07bHeuristicInPossible) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(32), b = p.Malloc(40);
  p.Set(b, 1);
  p.Set(a, b + 8);
  p.Set(p.Global(), a + 12);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)),
            Summary(0, 0, 0, 0, 72, 2, 0, 0,
                    "                        newarray           : 40 bytes in 1 blocks\n"));
  EXPECT_EQ(r.verdicts[p.IndexOf(b)].kind, LeakKind::kPossiblyLost);
  EXPECT_EQ(r.verdicts[p.IndexOf(b)].heuristic, Heuristic::kNewArray);
}

// E10: global -> A -> B.
TEST(MemcheckExperiments, E10Chain) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(24);
  p.Set(p.Global(), a);
  p.Set(a + 8, p.Malloc(56));
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 0, 0, 80, 2));
}

// E11: new T[3] with a destructor: cookie 3, the global holds block+8.
class E11NewArray : public ::testing::Test {
 protected:
  void SetUp() override {
    block_ = p_.Malloc(56);
    p_.Set(block_, 3);
    p_.Set(p_.Global(), block_ + 8);
  }
  SyntheticProcess p_;
  uint64_t block_ = 0;
};

TEST_F(E11NewArray, Default) {
  EXPECT_EQ(p_.Summary(),
            Summary(0, 0, 0, 0, 0, 0, 56, 1,
                    "                        newarray           : 56 bytes in 1 blocks\n"));
}

TEST_F(E11NewArray, HeuristicsNone) {
  LeakScanOptions options;
  options.heuristics = HeuristicSet::None();
  EXPECT_EQ(p_.Summary(options), Summary(0, 0, 0, 0, 56, 1, 0, 0));
}

// --run-cxx-freeres=no: libstdc++'s emergency pool, held from its .bss.
TEST_F(E11NewArray, CxxFreeresNo) {
  p_.Set(p_.Global(), p_.Malloc(72704));
  EXPECT_EQ(p_.Summary(),
            Summary(0, 0, 0, 0, 0, 0, 72760, 2,
                    "                        newarray           : 56 bytes in 1 blocks\n"));
}

// E12: a pointer held only in another thread's register (R12); the thread
// also has glibc's DTV block, held by its TCB through dtv+16 (an interior
// pointer: possibly lost).
class E12Register : public ::testing::Test {
 protected:
  static constexpr RootId kThread2 = 12;
  void SetUp() override {
    dtv_ = p_.Malloc(272);
    p_.Set(p_.ThreadLocal(), dtv_ + 16);
    block_ = p_.Malloc(64);
  }
  SyntheticProcess p_;
  uint64_t dtv_ = 0, block_ = 0;
};

TEST_F(E12Register, StartPointerInR12) {  // MODE=1
  for (int reg = 0; reg < 16; ++reg) p_.AddRegister(reg == 12 ? block_ : 0, kThread2);
  EXPECT_EQ(p_.Summary(), Summary(0, 0, 0, 0, 272, 1, 64, 1));
}

TEST_F(E12Register, InteriorPointerInR12) {  // MODE=2
  for (int reg = 0; reg < 16; ++reg) p_.AddRegister(reg == 12 ? block_ + 24 : 0, kThread2);
  EXPECT_EQ(p_.Summary(), Summary(0, 0, 0, 0, 336, 2, 0, 0));
}

TEST_F(E12Register, Zeroed) {  // MODE=5
  for (int reg = 0; reg < 16; ++reg) p_.AddRegister(0, kThread2);
  EXPECT_EQ(p_.Summary(), Summary(64, 1, 0, 0, 272, 1, 0, 0));
}

// E18: pointers stored unaligned are invisible.
TEST(MemcheckExperiments, E18Unaligned) {
  SyntheticProcess p;
  const uint64_t packed = p.Global();
  p.Global();
  const uint64_t a = p.Malloc(16);
  p.memory().WriteBytes(packed + 1, &a, 8);  // packed.p at offset 1
  const uint64_t r = p.Malloc(40);
  p.Set(p.Global(), r);
  const uint64_t b = p.Malloc(24), c = p.Malloc(8);
  p.memory().WriteBytes(r + 4, &b, 8);
  p.memory().WriteBytes(r + 32, &c, 8);
  EXPECT_EQ(p.Summary(), Summary(40, 2, 0, 0, 0, 0, 48, 2));
}

// E19: a zero-size block hit by its start; one past the end is not a
// pointer; the last byte is an interior pointer.
TEST(MemcheckExperiments, E19ZeroSizeOnePastEndLastByte) {
  SyntheticProcess p;
  const uint64_t z = p.Malloc(0), a = p.Malloc(16), b = p.Malloc(16);
  p.Set(p.Global(), z);
  p.Set(p.Global(), a + 16);
  p.Set(p.Global(), b + 15);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)), Summary(16, 1, 0, 0, 16, 1, 0, 1));
  EXPECT_EQ(r.verdicts[p.IndexOf(z)].kind, LeakKind::kStillReachable);
  EXPECT_EQ(r.verdicts[p.IndexOf(a)].kind, LeakKind::kDefinitelyLost);
  EXPECT_EQ(r.verdicts[p.IndexOf(b)].kind, LeakKind::kPossiblyLost);
}

// E20: one block per heuristic, each held only by an interior pointer in a
// global.
void BuildE20(SyntheticProcess* p, bool old_string_abi) {
  const uint64_t len64 = p->Malloc(72);  // calloc(1, 72), first word 64
  p->Set(len64, 64);
  p->Set(p->Global(), len64 + 8);
  const uint64_t arr1 = p->Malloc(13);  // new C1[5]: cookie 5 == 13 - 8
  p->Set(arr1, 5);
  p->Set(p->Global(), arr1 + 8);
  const uint64_t arr = p->Malloc(40);  // new C8[4]
  p->Set(arr, 4);
  p->Set(p->Global(), arr + 8);
  // new Derived, Derived : A, B: vptr A at +0, vptr B at +16; the global
  // holds the B* (+16).
  const uint64_t vptr_a = p->Vtable(3);       // ~D1, ~D0, fa
  const uint64_t vptr_b = p->Vtable(3, -16);  // thunks ~D1, ~D0, fb
  const uint64_t derived = p->Malloc(40);
  p->Set(derived, vptr_a);
  p->Set(derived + 16, vptr_b);
  p->Set(p->Global(), derived + 16);
  if (old_string_abi) {
    // COW std::string _Rep of 40 chars: length, capacity, refcount, chars;
    // the string object (in a static buffer) holds the chars' address.
    const uint64_t rep = p->Malloc(65);
    p->Set(rep, 40);
    p->Set(rep + 8, 40);
    p->Set(p->Global(), rep + 24);
  }
}

TEST(MemcheckExperiments, E20Heuristics) {
  SyntheticProcess p;
  BuildE20(&p, false);
  EXPECT_EQ(p.Summary(),
            Summary(0, 0, 0, 0, 0, 0, 165, 4,
                    "                        length64           : 85 bytes in 2 blocks\n"
                    "                        newarray           : 40 bytes in 1 blocks\n"
                    "                        multipleinheritance: 40 bytes in 1 blocks\n"));
}

TEST(MemcheckExperiments, E20HeuristicsOldStringAbi) {
  SyntheticProcess p;
  BuildE20(&p, true);
  EXPECT_EQ(p.Summary(),
            Summary(0, 0, 0, 0, 0, 0, 230, 5,
                    "                        stdstring          : 65 bytes in 1 blocks\n"
                    "                        length64           : 85 bytes in 2 blocks\n"
                    "                        newarray           : 40 bytes in 1 blocks\n"
                    "                        multipleinheritance: 40 bytes in 1 blocks\n"));
}

// Only the enabled heuristics are tried: with newarray alone, the length64
// blocks are newarray too (72: 64 divides 64; 13: 5 divides 5), the others
// possibly lost.
TEST(MemcheckExperiments, E20OnlyNewArray) {
  SyntheticProcess p;
  BuildE20(&p, true);
  LeakScanOptions options;
  options.heuristics = HeuristicSet::None().With(Heuristic::kNewArray);
  EXPECT_EQ(p.Summary(options),
            Summary(0, 0, 0, 0, 105, 2, 125, 3,
                    "                        newarray           : 125 bytes in 3 blocks\n"));
}

// E22: cliques in address order; valgrind's addresses.
TEST(MemcheckExperiments, E22Cliques) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(16), b = p.Malloc(32);
  p.Set(a, b);
  p.Set(b, a);
  const uint64_t pp = p.Malloc(24), q = p.Malloc(40), r = p.Malloc(64);
  p.Set(pp, r);
  p.Set(q, r);
  const uint64_t x = p.Malloc(8);
  p.Set(x, b);
  const uint64_t a2 = p.Malloc(72), b2 = p.Malloc(80);
  p.Set(a2, b2);
  p.Set(b2, a2);
  const uint64_t x2 = p.Malloc(88);
  p.Set(x2, a2);
  EXPECT_EQ(a, 0x4a42040u);
  EXPECT_EQ(b, 0x4a42090u);
  EXPECT_EQ(pp, 0x4a420f0u);
  EXPECT_EQ(q, 0x4a42150u);
  EXPECT_EQ(r, 0x4a421c0u);
  EXPECT_EQ(x, 0x4a42240u);
  EXPECT_EQ(a2, 0x4a42290u);
  EXPECT_EQ(b2, 0x4a42320u);
  EXPECT_EQ(x2, 0x4a423b0u);
  const LeakScanResult res = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(res)), Summary(176, 5, 248, 4, 0, 0, 0, 0));
  // The loss records: 8 X; 48 (16 direct, 32 indirect) A; 40 Q; 88 (24
  // direct, 64 indirect) P; 240 (88 direct, 152 indirect) X2.
  struct Expected {
    uint64_t address;
    LeakKind kind;
    uint64_t indirect;
  };
  for (const Expected& e :
       {Expected{a, LeakKind::kDefinitelyLost, 32}, Expected{b, LeakKind::kIndirectlyLost, 0},
        Expected{pp, LeakKind::kDefinitelyLost, 64}, Expected{q, LeakKind::kDefinitelyLost, 0},
        Expected{r, LeakKind::kIndirectlyLost, 0}, Expected{x, LeakKind::kDefinitelyLost, 0},
        Expected{a2, LeakKind::kIndirectlyLost, 0}, Expected{b2, LeakKind::kIndirectlyLost, 0},
        Expected{x2, LeakKind::kDefinitelyLost, 152}}) {
    const uint32_t i = p.IndexOf(e.address);
    EXPECT_EQ(res.verdicts[i].kind, e.kind) << std::hex << e.address;
    EXPECT_EQ(res.indirect_bytes[i], e.indirect) << std::hex << e.address;
  }
}

// E23: A made Possible by g1 = A+12 is upgraded by B's start pointer and
// rescanned, which upgrades C.
TEST(MemcheckExperiments, E23Upgrade) {
  SyntheticProcess p;
  const uint64_t a = p.Malloc(32), b = p.Malloc(48), c = p.Malloc(64);
  p.Set(a, c);
  p.Set(b, a);
  const uint64_t g1 = p.Global(), g2 = p.Global();
  EXPECT_EQ(g1, 0x10c050u);
  EXPECT_EQ(g2, 0x10c058u);
  p.Set(g1, a + 12);
  p.Set(g2, b);
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 0, 0, 144, 3));
}

// E24: the same graph with the two roots swapped: equal totals, the newarray
// line only in one layout (LIFO stack, roots in address order).
void BuildE24(SyntheticProcess* p, bool swap) {
  const uint64_t a = p->Malloc(32), c = p->Malloc(48), b = p->Malloc(40);
  p->Set(b, 1);
  p->Set(a, b);
  p->Set(c, b + 8);
  const uint64_t r0 = p->Global(), r1 = p->Global();
  p->Set(r0, swap ? c : a + 12);
  p->Set(r1, swap ? a + 12 : c);
}

TEST(MemcheckExperiments, E24HeuristicLineOrderDefault) {
  SyntheticProcess p;
  BuildE24(&p, false);
  EXPECT_EQ(p.Summary(), Summary(0, 0, 0, 0, 32, 1, 88, 2));
}

TEST(MemcheckExperiments, E24HeuristicLineOrderSwapped) {
  SyntheticProcess p;
  BuildE24(&p, true);
  EXPECT_EQ(p.Summary(),
            Summary(0, 0, 0, 0, 32, 1, 88, 2,
                    "                        newarray           : 40 bytes in 1 blocks\n"));
}

// E25: among lost blocks an interior pointer counts like a start pointer.
TEST(MemcheckExperiments, E25LostInterior) {
  SyntheticProcess p;
  const uint64_t x = p.Malloc(16), y = p.Malloc(48);
  p.Set(x, y + 12);
  const LeakScanResult r = p.Scan();
  EXPECT_EQ(FormatLeakSummary(SummaryOf(r)), Summary(16, 1, 48, 1, 0, 0, 0, 0));
  EXPECT_EQ(r.indirect_bytes[p.IndexOf(x)], 48u);
}

// E26 (adapted): the only pointer lies in a freed block's memory, which is
// heap memory but neither a live block nor a root.
TEST(MemcheckExperiments, E26FreedHolder) {
  SyntheticProcess p;
  const uint64_t holder = p.Malloc(32);
  p.Set(holder + 16, p.Malloc(16));
  p.Free(holder);
  EXPECT_EQ(p.Summary(), Summary(16, 1, 0, 0, 0, 0, 0, 0));
}

}  // namespace
}  // namespace heaprec::recorder::leakscan
