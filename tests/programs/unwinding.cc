// unwinding: allocation sites the stack walker and the recorder's re-entry
// guard find hard, with counts known exactly (tests/unwinding_test.cc).
//   deep       10 malloc(48) from deep_leaf() under 1,000 frames of Recurse
//              (deeper than heaprec's depth limit), all kept.
//   longjmp    100 rounds: jump_middle() mallocs 32 bytes and calls
//              jump_leaf(), which mallocs 64 (kept, freed later by main) and
//              longjmps out on odd rounds, skipping jump_middle's free: 50
//              blocks of 32 leak.
//   exceptions 100 throws through throw_middle(), whose unique_ptr owns a
//              new char[16] freed by the unwinding; throw_leaf() makes a
//              new char[24] (kept, delete[]d by main) and throws an Oops,
//              whose exception object libstdc++ mallocs and frees.
//   signals    SIGUSR1 raised 50 times, then SIGALRM from a 1 ms timer 50
//              times on an alternate signal stack while main computes: each
//              handler run mallocs 200 bytes in handler_alloc() (freed later
//              by main) and frees one of 100 blocks of 40 that
//              for_handler() made before.
// Prints "unwinding: MODE ok" and exits 0.
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <memory>

// Global scope, not an anonymous namespace: the sites are named as written.
static void* volatile g_keep[100];
static volatile int g_sink;

extern "C" __attribute__((noinline)) void* deep_leaf(size_t n) { return malloc(n); }

// Not a tail call: the add after the call keeps each frame on the stack.
__attribute__((noinline)) static int Recurse(int depth, int i) {
  if (depth == 0) {
    g_keep[i] = deep_leaf(48);
    return 1;
  }
  const int r = Recurse(depth - 1, i) + 1;
  g_sink = g_sink + r;
  return r;
}

static jmp_buf g_jump;

extern "C" __attribute__((noinline)) void jump_leaf(int i) {
  g_keep[i] = malloc(64);
  if (i % 2 == 1) longjmp(g_jump, 1);
}

extern "C" __attribute__((noinline)) void jump_middle(int i) {
  void* volatile q = malloc(32);
  jump_leaf(i);
  free(q);
}

struct Oops {
  int round;
};

extern "C" __attribute__((noinline)) void throw_leaf(int i) {
  g_keep[i] = new char[24];
  throw Oops{i};
}

extern "C" __attribute__((noinline)) void throw_middle(int i) {
  std::unique_ptr<char[]> owned(new char[16]);
  owned[0] = static_cast<char>(i);
  throw_leaf(i);
  g_sink = owned[0];
}

static void* volatile g_for_handler[100];
static void* volatile g_from_handler[100];
static volatile sig_atomic_t g_runs;

extern "C" __attribute__((noinline)) void* for_handler(void) { return malloc(40); }
extern "C" __attribute__((noinline)) void* handler_alloc(void) { return malloc(200); }

static void OnSignal(int) {
  const int n = g_runs;
  if (n >= 100) return;
  g_from_handler[n] = handler_alloc();
  free(g_for_handler[n]);
  g_runs = n + 1;
}

static int Deep() {
  for (int i = 0; i < 10; ++i) Recurse(1000, i);
  return 0;
}

static int LongJump() {
  for (int i = 0; i < 100; ++i) {
    if (setjmp(g_jump) == 0) jump_middle(i);
  }
  for (int i = 0; i < 100; ++i) free(g_keep[i]);
  return 0;
}

static int Exceptions() {
  int caught = 0;
  for (int i = 0; i < 100; ++i) {
    try {
      throw_middle(i);
    } catch (const Oops& e) {
      caught += e.round == i;
    }
  }
  for (int i = 0; i < 100; ++i) delete[] static_cast<char*>(g_keep[i]);
  return caught == 100 ? 0 : 1;
}

static int Signals() {
  for (int i = 0; i < 100; ++i) g_for_handler[i] = for_handler();
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGUSR1, &sa, nullptr) != 0) return 2;
  for (int i = 0; i < 50; ++i) raise(SIGUSR1);
  if (g_runs != 50) return 3;
  // On an alternate stack: the unwinder crosses the signal frame there.
  static char alt[64 * 1024];
  stack_t ss = {};
  ss.ss_sp = alt;
  ss.ss_size = sizeof(alt);
  if (sigaltstack(&ss, nullptr) != 0) return 4;
  sa.sa_flags = SA_ONSTACK | SA_RESTART;
  if (sigaction(SIGALRM, &sa, nullptr) != 0) return 5;
  const struct itimerval every_ms = {{0, 1000}, {0, 1000}};
  if (setitimer(ITIMER_REAL, &every_ms, nullptr) != 0) return 6;
  // Computing, not allocating, while the timer fires: the handler's malloc
  // never interrupts glibc's.
  unsigned x = 1;
  while (g_runs < 100) x = x * 1664525u + 1013904223u;
  g_sink = static_cast<int>(x);
  const struct itimerval off = {};
  setitimer(ITIMER_REAL, &off, nullptr);
  for (int i = 0; i < 100; ++i) free(g_from_handler[i]);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int status;
  if (strcmp(mode, "deep") == 0) {
    status = Deep();
  } else if (strcmp(mode, "longjmp") == 0) {
    status = LongJump();
  } else if (strcmp(mode, "exceptions") == 0) {
    status = Exceptions();
  } else if (strcmp(mode, "signals") == 0) {
    status = Signals();
  } else {
    fprintf(stderr, "usage: unwinding deep|longjmp|exceptions|signals\n");
    return 2;
  }
  if (status == 0) printf("unwinding: %s ok\n", mode);
  return status;
}
