// endings: ways a program ends that could cut a recording short, with
// counts known exactly (tests/endings_test.cc).
//   static_dtor   main returns 3; then a static Registry's destructor frees
//                 the 100 blocks of 64 its constructor took in
//                 registry_alloc() and leaks 5 blocks of 32 from
//                 dtor_alloc(), during static destruction.
//   abort_handler 20 blocks of 16 from before_abort() (kept), then abort();
//                 the program's SIGABRT handler allocates 3 blocks of 128
//                 in report_alloc(), prints, restores the default action and
//                 raises SIGABRT again: killed by SIGABRT.
//   never_returns main starts a thread that mallocs 1,000 blocks of 8 in
//                 exiting_thread_alloc() and calls exit(7), and two threads
//                 that malloc and free in spin_alloc() until then; main
//                 itself waits in pause() forever.
//   sigkill       200,000 blocks of 16 from sigkill_alloc() (kept), as fast
//                 as it can, then SIGKILL to itself: records still in the
//                 rings when it dies must reach the trace.
//   long_run      400 rounds of 10,000 malloc/free pairs from churn_alloc()
//                 with a checksum, printed at the end; heaprec is killed
//                 while it runs and the program must finish unharmed.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>

extern "C" __attribute__((noinline)) void* registry_alloc(void) { return malloc(64); }
extern "C" __attribute__((noinline)) void* dtor_alloc(void) { return malloc(32); }
extern "C" __attribute__((noinline)) void* before_abort(void) { return malloc(16); }
extern "C" __attribute__((noinline)) void* report_alloc(void) { return malloc(128); }
extern "C" __attribute__((noinline)) void* exiting_thread_alloc(void) { return malloc(8); }
extern "C" __attribute__((noinline)) void* spin_alloc(size_t n) { return malloc(n); }
extern "C" __attribute__((noinline)) void* churn_alloc(size_t n) { return malloc(n); }
extern "C" __attribute__((noinline)) void* sigkill_alloc(void) { return malloc(16); }

static void* volatile g_keep[1000];
static void* volatile g_leaked[5];
static bool g_use_registry;

struct Registry {
  void* blocks[100];
  Registry() {
    for (void*& b : blocks) b = g_use_registry ? registry_alloc() : nullptr;
  }
  ~Registry() {
    if (!g_use_registry) return;
    for (void* b : blocks) free(b);
    for (void* volatile& p : g_leaked) p = dtor_alloc();
  }
};

static int StaticDtor() {
  static Registry registry;  // constructed now, destroyed after main returns
  return 3;
}

static void OnAbort(int) {
  void* report[3];
  for (void*& r : report) r = report_alloc();
  static const char kLine[] = "endings: abort handler ran\n";
  (void)!write(1, kLine, sizeof(kLine) - 1);
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

static int AbortHandler() {
  const struct rlimit no_core = {0, 0};  // no core file for the expected abort
  setrlimit(RLIMIT_CORE, &no_core);
  for (int i = 0; i < 20; ++i) g_keep[i] = before_abort();
  signal(SIGABRT, OnAbort);
  fflush(stdout);
  abort();
}

static void* ExitingThread(void*) {
  for (int i = 0; i < 1000; ++i) g_keep[i] = exiting_thread_alloc();
  printf("endings: never_returns exits from a thread\n");
  fflush(stdout);
  exit(7);
}

static std::atomic<int> g_spinning{0};  // spinners that have freed a block

static void* Spinner(void* arg) {
  const size_t n = reinterpret_cast<size_t>(arg);
  free(spin_alloc(n));
  g_spinning.fetch_add(1);
  for (;;) free(spin_alloc(n));
}

static int NeverReturns() {
  pthread_t t;
  pthread_create(&t, nullptr, Spinner, reinterpret_cast<void*>(24));
  pthread_create(&t, nullptr, Spinner, reinterpret_cast<void*>(40));
  // Both spin before the exit (a loaded machine may start a thread late).
  while (g_spinning.load() < 2) usleep(1000);
  usleep(20000);
  pthread_create(&t, nullptr, ExitingThread, nullptr);
  for (;;) pause();
}

static void* volatile g_many[200000];

static int SigKill() {
  for (void* volatile& p : g_many) p = sigkill_alloc();
  printf("endings: sigkill\n");
  fflush(stdout);
  raise(SIGKILL);
  return 1;
}

static int LongRun() {
  unsigned long sum = 0;
  for (int round = 0; round < 400; ++round) {
    for (int i = 0; i < 10000; ++i) {
      char* p = static_cast<char*>(churn_alloc(16 + i % 48));
      p[0] = static_cast<char>(i);
      sum = sum * 31 + static_cast<unsigned char>(p[0]);
      free(p);
    }
  }
  printf("endings: long_run done %lu\n", sum);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "static_dtor") == 0) {
    g_use_registry = true;
    printf("endings: static_dtor\n");
    return StaticDtor();
  }
  if (strcmp(mode, "abort_handler") == 0) return AbortHandler();
  if (strcmp(mode, "never_returns") == 0) return NeverReturns();
  if (strcmp(mode, "long_run") == 0) return LongRun();
  if (strcmp(mode, "sigkill") == 0) return SigKill();
  fprintf(stderr, "usage: endings static_dtor|abort_handler|never_returns|sigkill|long_run\n");
  return 2;
}
