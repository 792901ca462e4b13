/* spawn: children started from a multi-threaded program while its other
 * threads are inside malloc and free, or inside the recorder's stack
 * unwinder, with allocations known exactly (tests/spawn_test.cc).
 *
 * `spawn` starts 4 busy threads and runs 22 rounds. In each round every busy
 * thread makes 5,000 busy_block(i) = malloc(16 + 8 * (i % 32)) calls, each
 * block freed at once; once every busy thread is a quarter of the way
 * through, main starts a child and waits for it:
 *   rounds 0-19: fork; the child (only main's thread) makes 100
 *                child_block(i) = malloc(64 + i) calls and frees them, keeps
 *                one child_kept() = malloc(200), prints "spawn: child N" and
 *                exits 30 + N;
 *   round 20:    vfork, and the child execs this program as `spawn target
 *                vfork` (exit status 21);
 *   round 21:    posix_spawn of `spawn target spawn` (exit status 22).
 * After each child main keeps one parent_note() = malloc(40) and prints how
 * the child exited. So the parent allocates 440,000 busy blocks (all freed)
 * and 22 notes (all kept).
 *
 * `spawn target HOW` makes 6 target_block() = malloc(321) calls, frees 2,
 * prints "spawn: target HOW" and exits 21 (vfork) or 22 (spawn).
 *
 * `spawn unwinding` forks while another thread is inside libunwind, where a
 * recorder asks it for a stack it has not seen (libunwind holds its cache
 * lock there): a thread frees one warm_block() = malloc(24) (the recorder
 * learns its stack), then calls fresh_block() = malloc(88) (a new call
 * site; freed too), and this program's own dl_iterate_phdr, which libunwind
 * calls while it looks the new site up, holds that thread there until main
 * has forked (300 ms at most). The child is round 0's fork child; main then
 * keeps one parent_note(). Without a recorder nothing calls dl_iterate_phdr
 * and main forks once the thread is done.
 *
 * A child that has not exited after 5 s is killed (and reported). Exit
 * status 0 if every child exited as it should, else 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

#define BUSY_THREADS 4
#define BUSY_CALLS 5000
#define FORKS 20
#define ROUNDS (FORKS + 2)

static pthread_barrier_t g_round_start, g_round_end;
static int g_progress[BUSY_THREADS]; /* calls made this round (atomic) */
static void* volatile g_kept[ROUNDS + 8];

__attribute__((noinline)) void* busy_block(int i) { return malloc(16 + 8 * (i % 32)); }
__attribute__((noinline)) void* child_block(int i) { return malloc(64 + i); }
__attribute__((noinline)) void* child_kept(void) { return malloc(200); }
__attribute__((noinline)) void* parent_note(void) { return malloc(40); }
__attribute__((noinline)) void* target_block(void) { return malloc(321); }
__attribute__((noinline)) void* warm_block(void) { return malloc(24); }
__attribute__((noinline)) void* fresh_block(void) { return malloc(88); }

static void SleepMs(long ms) {
  const struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, NULL);
}

/* The unwinding mode's rendezvous (atomics). */
static __thread int t_hold_in_iterate; /* the next dl_iterate_phdr call waits */
static int g_held, g_forked, g_unwound;

typedef int (*IterateFn)(int (*)(struct dl_phdr_info*, size_t, void*), void*);

/* Takes the place of libc's for every library (the executable comes first
 * in symbol lookup), libunwind included; forwards to libc's. */
int dl_iterate_phdr(int (*callback)(struct dl_phdr_info*, size_t, void*), void* data) {
  static IterateFn real;
  IterateFn fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    fn = (IterateFn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    __atomic_store_n(&real, fn, __ATOMIC_RELEASE);
  }
  if (t_hold_in_iterate) {
    t_hold_in_iterate = 0;
    __atomic_store_n(&g_held, 1, __ATOMIC_RELEASE);
    for (int ms = 0; ms < 300 && !__atomic_load_n(&g_forked, __ATOMIC_ACQUIRE); ++ms) SleepMs(1);
  }
  return fn(callback, data);
}

static int Target(const char* how) {
  for (int i = 0; i < 6; ++i) g_kept[i] = target_block();
  free(g_kept[0]);
  free(g_kept[1]);
  printf("spawn: target %s\n", how);
  return strcmp(how, "vfork") == 0 ? 21 : 22;
}

static void* Busy(void* arg) {
  const int id = (int)(long)arg;
  for (int round = 0; round < ROUNDS; ++round) {
    pthread_barrier_wait(&g_round_start);
    for (int i = 0; i < BUSY_CALLS; ++i) {
      void* p = busy_block(i);
      if (p != NULL) *(volatile char*)p = (char)i;
      free(p);
      __atomic_store_n(&g_progress[id], i + 1, __ATOMIC_RELEASE);
    }
    pthread_barrier_wait(&g_round_end);
  }
  return NULL;
}

/* Until every busy thread is a quarter of the way through this round. */
static void AwaitBusy(void) {
  for (int t = 0; t < BUSY_THREADS; ++t) {
    while (__atomic_load_n(&g_progress[t], __ATOMIC_ACQUIRE) < BUSY_CALLS / 4) sched_yield();
  }
}

static void ForkedChild(int round) {
  void* blocks[100];
  for (int i = 0; i < 100; ++i) blocks[i] = child_block(i);
  for (int i = 0; i < 100; ++i) free(blocks[i]);
  g_kept[ROUNDS] = child_kept();
  printf("spawn: child %d\n", round);
  exit(30 + round);
}

/* Waits for child pid (killing it after 5 s), keeps a parent_note() and
 * prints how it ended. True if it exited with status want. */
static int WaitChild(pid_t pid, int round, const char* what, int want) {
  int status = 0;
  pid_t got = pid < 0 ? -1 : 0;
  for (int ms = 0; got == 0; ++ms) {
    got = waitpid(pid, &status, WNOHANG);
    if (got == 0) {
      if (ms == 5000) kill(pid, SIGKILL);
      SleepMs(1);
    }
  }
  if (got != pid || !WIFEXITED(status)) {
    printf("spawn: %s failed (%s)\n", what, got == pid ? "killed" : "not started");
    return 0;
  }
  g_kept[round] = parent_note();
  printf("spawn: %s exited %d\n", what, WEXITSTATUS(status));
  return WEXITSTATUS(status) == want;
}

/* Starts round's child; its pid, or -1. */
static pid_t StartChild(int round, char* self) {
  if (round < FORKS) {
    const pid_t pid = fork();
    if (pid == 0) ForkedChild(round);
    return pid;
  }
  if (round == FORKS) {
    char* args[] = {self, "target", "vfork", NULL};
    const pid_t pid = vfork();
    if (pid == 0) {
      execv(self, args);
      _exit(127);
    }
    return pid;
  }
  char* args[] = {self, "target", "spawn", NULL};
  pid_t pid = -1;
  return posix_spawn(&pid, self, NULL, NULL, args, environ) == 0 ? pid : -1;
}

static int Rounds(void) {
  static char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return 2;
  self[n] = '\0';
  printf("spawn: %d busy threads\n", BUSY_THREADS);
  pthread_barrier_init(&g_round_start, NULL, BUSY_THREADS + 1);
  pthread_barrier_init(&g_round_end, NULL, BUSY_THREADS + 1);
  pthread_t threads[BUSY_THREADS];
  for (long t = 0; t < BUSY_THREADS; ++t) {
    if (pthread_create(&threads[t], NULL, Busy, (void*)t) != 0) return 2;
  }
  int ok = 1;
  for (int round = 0; round < ROUNDS; ++round) {
    for (int t = 0; t < BUSY_THREADS; ++t) __atomic_store_n(&g_progress[t], 0, __ATOMIC_RELEASE);
    pthread_barrier_wait(&g_round_start);
    AwaitBusy();
    fflush(stdout); /* nothing buffered for a child to write again */
    const pid_t pid = StartChild(round, self);
    char what[32];
    if (round < FORKS) {
      snprintf(what, sizeof(what), "child %d", round);
    } else {
      snprintf(what, sizeof(what), "%s", round == FORKS ? "vfork+exec" : "posix_spawn");
    }
    const int want = round < FORKS ? 30 + round : round == FORKS ? 21 : 22;
    ok &= WaitChild(pid, round, what, want);
    pthread_barrier_wait(&g_round_end);
  }
  for (int t = 0; t < BUSY_THREADS; ++t) pthread_join(threads[t], NULL);
  printf("spawn: %s\n", ok ? "done" : "FAILED");
  return ok ? 0 : 1;
}

static void* Unwinder(void* arg) {
  (void)arg;
  free(warm_block());
  t_hold_in_iterate = 1;
  void* p = fresh_block();
  t_hold_in_iterate = 0;
  free(p);
  __atomic_store_n(&g_unwound, 1, __ATOMIC_RELEASE);
  return NULL;
}

static int ForkWhileUnwinding(void) {
  printf("spawn: fork while unwinding\n");
  fflush(stdout);
  pthread_t thread;
  if (pthread_create(&thread, NULL, Unwinder, NULL) != 0) return 2;
  /* No allocation from here to the fork: one from a new call site would wait
   * for the libunwind lock the other thread holds. */
  while (!__atomic_load_n(&g_held, __ATOMIC_ACQUIRE) &&
         !__atomic_load_n(&g_unwound, __ATOMIC_ACQUIRE)) {
    SleepMs(1);
  }
  const pid_t pid = fork();
  if (pid == 0) ForkedChild(0);
  __atomic_store_n(&g_forked, 1, __ATOMIC_RELEASE);
  const int ok = WaitChild(pid, 0, "child 0", 30);
  pthread_join(thread, NULL);
  printf("spawn: %s\n", ok ? "done" : "FAILED");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "target") == 0) return Target(argv[2]);
  if (argc == 2 && strcmp(argv[1], "unwinding") == 0) return ForkWhileUnwinding();
  return Rounds();
}
