// SignalContextRegs reads a real signal's saved registers (signal_context.h):
// a handler of this process hands its ucontext_t's address over, and the
// registers read back through ProcessMemory are the kernel's.
#include "recorder/launcher/signal_context.h"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>

#include "gtest/gtest.h"
#include "recorder/launcher/process_memory.h"

namespace heaprec::recorder::launcher {
namespace {

ucontext_t g_copy;        // the kernel's context, as the handler saw it
uint64_t g_context = 0;   // its address
user_regs_struct g_regs;  // what SignalContextRegs read, in the handler
bool g_read = false;

void OnSignal(int, siginfo_t*, void* context) {
  std::memcpy(&g_copy, context, sizeof(g_copy));
  g_context = reinterpret_cast<uint64_t>(context);
  std::memset(&g_regs, 0, sizeof(g_regs));
  g_regs.fs_base = 0x1234;  // kept: not in the saved context
  ProcessMemory memory(getpid());
  g_read = SignalContextRegs(memory, g_context, &g_regs);
}

TEST(SignalContextRegs, ReadsTheInterruptedRegisters) {
  struct sigaction sa = {};
  sa.sa_sigaction = OnSignal;
  sa.sa_flags = SA_SIGINFO;
  struct sigaction old;
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  raise(SIGUSR1);
  sigaction(SIGUSR1, &old, nullptr);
  ASSERT_TRUE(g_read);
  const greg_t* g = g_copy.uc_mcontext.gregs;
  EXPECT_EQ(g_regs.rsp, static_cast<unsigned long long>(g[REG_RSP]));
  EXPECT_EQ(g_regs.rip, static_cast<unsigned long long>(g[REG_RIP]));
  EXPECT_EQ(g_regs.rbp, static_cast<unsigned long long>(g[REG_RBP]));
  EXPECT_EQ(g_regs.rbx, static_cast<unsigned long long>(g[REG_RBX]));
  EXPECT_EQ(g_regs.rax, static_cast<unsigned long long>(g[REG_RAX]));
  EXPECT_EQ(g_regs.rdi, static_cast<unsigned long long>(g[REG_RDI]));
  EXPECT_EQ(g_regs.r12, static_cast<unsigned long long>(g[REG_R12]));
  EXPECT_EQ(g_regs.r15, static_cast<unsigned long long>(g[REG_R15]));
  EXPECT_EQ(g_regs.fs_base, 0x1234u);
  // The interrupted code's stack pointer is above the handler's frame (the
  // kernel put the signal frame below it).
  EXPECT_GT(g_regs.rsp, g_context);
}

TEST(SignalContextRegs, LeavesRegistersWhenUnreadable) {
  user_regs_struct regs = {};
  regs.rsp = 42;
  ProcessMemory memory(getpid());
  EXPECT_FALSE(SignalContextRegs(memory, 0, &regs));
  EXPECT_FALSE(SignalContextRegs(memory, 8, &regs));  // page 0: not mapped
  EXPECT_EQ(regs.rsp, 42u);
}

}  // namespace
}  // namespace heaprec::recorder::launcher
