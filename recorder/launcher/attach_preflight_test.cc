// heaprec -p's refusals: each reason in one line, from the facts.
#include "recorder/launcher/attach_preflight.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace heaprec::recorder::launcher {
namespace {

AttachFacts Allowed() {
  AttachFacts f;
  f.pid = 4242;
  f.exists = true;
  f.comm = "server";
  f.uid = f.our_uid = 1000;
  f.user = "alice";
  f.dynamic = true;
  f.ptrace_scope = 0;
  return f;
}

TEST(AttachPreflightTest, EachReasonInOneLine) {
  EXPECT_EQ(WhyCannotAttach(Allowed()), "");
  AttachFacts f = Allowed();
  f.exists = false;
  EXPECT_EQ(WhyCannotAttach(f), "no process 4242");
  f = Allowed();
  f.zombie = true;
  EXPECT_EQ(WhyCannotAttach(f),
            "process 4242 (server) has exited (a zombie waiting for its parent)");
  f = Allowed();
  f.tracer = 99;
  EXPECT_EQ(WhyCannotAttach(f),
            "process 4242 (server) is already traced by process 99 (a debugger or strace): a "
            "process has one tracer at a time");
  f = Allowed();
  f.uid = 0;
  f.user = "root";
  EXPECT_EQ(WhyCannotAttach(f),
            "process 4242 (server) runs as user root (uid 0) and heaprec as uid 1000 without "
            "CAP_SYS_PTRACE: run heaprec as that user, or as root");
  f.cap_sys_ptrace = true;
  EXPECT_EQ(WhyCannotAttach(f), "");
  f = Allowed();
  f.ptrace_scope = 3;
  EXPECT_NE(WhyCannotAttach(f).find("ptrace_scope is 3"), std::string::npos);
  f = Allowed();
  f.ptrace_scope = 2;
  EXPECT_NE(WhyCannotAttach(f).find("ptrace_scope is 2: only a process with CAP_SYS_PTRACE"),
            std::string::npos);
  f.cap_sys_ptrace = true;
  EXPECT_EQ(WhyCannotAttach(f), "");
  f = Allowed();
  f.dynamic = false;
  EXPECT_NE(WhyCannotAttach(f).find("is statically linked"), std::string::npos);
}

TEST(AttachPreflightTest, PtraceRefusalExplainedByYamaScope) {
  AttachFacts f = Allowed();
  f.ptrace_scope = 1;
  EXPECT_NE(WhyPtraceRefused(f).find("ptrace_scope is 1: only a process's ancestors may attach"),
            std::string::npos);
  f.descendant = true;
  EXPECT_NE(WhyPtraceRefused(f).find("PR_SET_DUMPABLE"), std::string::npos);
}

TEST(AttachPreflightTest, FactsOfThisProcess) {
  const AttachFacts f = ReadAttachFacts(getpid());
  EXPECT_TRUE(f.exists);
  EXPECT_TRUE(f.is_self);
  EXPECT_EQ(WhyCannotAttach(f), "process " + std::to_string(getpid()) + " is heaprec itself");
  EXPECT_TRUE(f.dynamic);
  EXPECT_EQ(f.uid, getuid());
  const AttachFacts none = ReadAttachFacts(999999999);
  EXPECT_FALSE(none.exists);
}

}  // namespace
}  // namespace heaprec::recorder::launcher
