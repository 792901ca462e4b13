// A signal handler's saved registers (signal_context.h).
#include "recorder/launcher/signal_context.h"

#include <ucontext.h>

#include <cstddef>
#include <cstring>

namespace heaprec::recorder::launcher {

bool SignalContextRegs(leakscan::MemorySource& memory, uint64_t context, user_regs_struct* regs) {
  if (context == 0) return false;
  greg_t g[NGREG];
  leakscan::ReadRequest request;
  request.address = context + offsetof(ucontext_t, uc_mcontext.gregs);
  request.length = sizeof(g);
  request.destination = reinterpret_cast<std::byte*>(g);
  bool ok = false;
  memory.Read({&request, 1}, {&ok, 1});
  if (!ok) return false;
  const auto u = [&g](int i) { return static_cast<unsigned long long>(g[i]); };
  regs->r8 = u(REG_R8);
  regs->r9 = u(REG_R9);
  regs->r10 = u(REG_R10);
  regs->r11 = u(REG_R11);
  regs->r12 = u(REG_R12);
  regs->r13 = u(REG_R13);
  regs->r14 = u(REG_R14);
  regs->r15 = u(REG_R15);
  regs->rdi = u(REG_RDI);
  regs->rsi = u(REG_RSI);
  regs->rbp = u(REG_RBP);
  regs->rbx = u(REG_RBX);
  regs->rdx = u(REG_RDX);
  regs->rax = u(REG_RAX);
  regs->rcx = u(REG_RCX);
  regs->rsp = u(REG_RSP);
  regs->rip = u(REG_RIP);
  regs->eflags = u(REG_EFL);
  return true;
}

}  // namespace heaprec::recorder::launcher
