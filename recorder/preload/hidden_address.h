// HiddenAddress: a block's address as the recorder carries it from a hook to
// the ring, XOR-ed with a constant that puts it outside user space.
//
// Why: the leak scan reads the program's stacks conservatively, as memcheck
// does, and a stack holds, below the live frames, whatever calls left there;
// a frame made later with slots it has not written yet (abort's, a signal
// handler's, heaprec_leak_check's) shows them again. The recorder's frames
// hold the address of each block they record, in spills and in the callee-
// saved registers its calls push, so a block the program has dropped could
// be found through a copy the recorder left (leak_kinds "abort": every block
// "still reachable"), and which one survives changed with each change of
// the recorder's code. Carried hidden, those copies point nowhere; the
// address is revealed only for the store into the ring (shared memory the
// scan leaves out) and in a scratch register the hook empties
// (recorder.cc, ClearScratchRegisters).
//
// The asm statements keep the compiler from undoing the XOR by keeping the
// address itself alive beside its hidden form. Header-only, no state.
#ifndef HEAPREC_RECORDER_PRELOAD_HIDDEN_ADDRESS_H_
#define HEAPREC_RECORDER_PRELOAD_HIDDEN_ADDRESS_H_

#include <cstdint>

namespace heaprec::recorder::preload {

struct HiddenAddress {
  uint64_t bits;
};

// Sets the top 17 bits: user-space addresses (below 2^47) come out as
// kernel-half values, which no block and no interior of one is.
inline constexpr uint64_t kHiddenAddressMask = 0xffff800000000000ull;

inline HiddenAddress Hide(uint64_t address) {
  uint64_t bits = address ^ kHiddenAddressMask;
  asm("" : "+r"(bits));
  return {bits};
}
inline HiddenAddress Hide(const void* p) { return Hide(reinterpret_cast<uint64_t>(p)); }

inline uint64_t Reveal(HiddenAddress h) {
  uint64_t bits = h.bits;
  asm("" : "+r"(bits));
  return bits ^ kHiddenAddressMask;
}
inline void* RevealPointer(HiddenAddress h) { return reinterpret_cast<void*>(Reveal(h)); }

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_HIDDEN_ADDRESS_H_
