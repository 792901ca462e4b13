// small_stacks: threads with the smallest stack glibc allows
// (tests/small_stacks_test.cc). Eight threads start with
// pthread_attr_setstacksize(PTHREAD_STACK_MIN), as language runtimes start
// their watchdog and signal threads. glibc carves every module's static TLS
// out of that stack, so a preloaded library with kilobytes of TLS made
// pthread_create fail with EINVAL. Thread i calls small_alloc(i) 5 times
// (malloc(40 + 8 * i), each freed with small_free) and small_leak() once
// (calloc(1, 100), kept), all from a few frames down its stack; as it
// exits, a destructor of a thread-specific key (created in main, so after
// heaprec's own, whose destructor gives the thread's block back) calls
// small_exit (malloc(24), freed), one thread at a time (a mutex). So:
//   small_alloc  40 allocations, 5 * (8 * 40 + 8 * 28) = 2720 bytes, all freed
//   small_leak    8 allocations, 800 bytes, all leaked
//   small_exit    8 allocations, 192 bytes, all freed
// It prints how many threads started and ran, and exits 0 only if all did
// (the failing pthread_create's error on stderr otherwise).
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kThreads = 8, kRounds = 5 };

static void* g_kept[kThreads];
static int g_ran[kThreads];

__attribute__((noinline)) void* small_alloc(int i) { return malloc(40 + 8 * i); }

__attribute__((noinline)) void small_free(void* p) { free(p); }

__attribute__((noinline)) void* small_leak(void) { return calloc(1, 100); }

__attribute__((noinline)) void work(int i) {
  for (int r = 0; r < kRounds; ++r) {
    char* p = small_alloc(i);
    if (p == NULL) return;
    memset(p, r, 40 + 8 * i);
    small_free(p);
  }
  g_kept[i] = small_leak();
  g_ran[i] = g_kept[i] != NULL;
}

static pthread_key_t g_key;
static pthread_mutex_t g_exit_mutex = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void* small_exit(void) { return malloc(24); }

static void AtThreadExit(void* value) {
  (void)value;
  pthread_mutex_lock(&g_exit_mutex);
  free(small_exit());
  pthread_mutex_unlock(&g_exit_mutex);
}

static void* Thread(void* arg) {
  work((int)(long)arg);
  pthread_setspecific(g_key, arg == NULL ? (void*)1 : arg);
  return NULL;
}

int main(void) {
  if (pthread_key_create(&g_key, AtThreadExit) != 0) return 2;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
  if (rc != 0) {
    fprintf(stderr, "small_stacks: pthread_attr_setstacksize: %s\n", strerror(rc));
    return 2;
  }
  pthread_t threads[kThreads];
  int started[kThreads] = {0};
  int failures = 0;
  for (int i = 0; i < kThreads; ++i) {
    rc = pthread_create(&threads[i], &attr, Thread, (void*)(long)i);
    if (rc != 0) {
      fprintf(stderr, "small_stacks: pthread_create: %s\n", strerror(rc));
      ++failures;
    } else {
      started[i] = 1;
    }
  }
  int ran = 0;
  for (int i = 0; i < kThreads; ++i) {
    if (!started[i]) continue;
    pthread_join(threads[i], NULL);
    ran += g_ran[i];
  }
  pthread_attr_destroy(&attr);
  printf("small_stacks: %d of %d threads ran\n", ran, kThreads);
  return failures == 0 && ran == kThreads ? 0 : 1;
}
