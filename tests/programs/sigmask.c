// Signal masks stay the program's under heaprec (libheaprec interposes
// sigprocmask; signal_hold.h). Blocks SIGUSR1, allocates from 20 stack
// depths (new stacks: slow captures, which block every signal meanwhile),
// then checks that its mask is exactly what it set, that an invalid
// sigprocmask still fails with EINVAL, and that the signal raised while
// blocked is delivered once unblocked. Prints "sigmask: ok" or what failed.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t g_got;

static void OnUsr1(int sig) {
  (void)sig;
  g_got = 1;
}

__attribute__((noinline)) static void deep_alloc(int depth) {
  if (depth > 0) {
    deep_alloc(depth - 1);
    __asm__ volatile("");  // not a tail call: each depth is its own frame
    return;
  }
  free(malloc(48));
}

static int Fail(const char* what) {
  printf("sigmask: %s\n", what);
  return 1;
}

int main(void) {
  signal(SIGUSR1, OnUsr1);
  sigset_t usr1, old, now;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &usr1, &old) != 0) return Fail("SIG_BLOCK failed");
  if (sigismember(&old, SIGUSR1)) return Fail("SIGUSR1 blocked at start");
  for (int d = 1; d <= 20; ++d) deep_alloc(d);
  if (sigprocmask(SIG_BLOCK, NULL, &now) != 0) return Fail("query failed");
  if (!sigismember(&now, SIGUSR1)) return Fail("SIGUSR1 no longer blocked");
  if (sigismember(&now, SIGTERM) || sigismember(&now, SIGUSR2))
    return Fail("extra signals blocked");
  errno = 0;
  if (sigprocmask(12345, &usr1, NULL) != -1 || errno != EINVAL) return Fail("bad how accepted");
  raise(SIGUSR1);
  if (g_got) return Fail("SIGUSR1 delivered while blocked");
  if (sigprocmask(SIG_SETMASK, &old, NULL) != 0) return Fail("SIG_SETMASK failed");
  if (!g_got) return Fail("SIGUSR1 not delivered once unblocked");
  printf("sigmask: ok\n");
  return 0;
}
