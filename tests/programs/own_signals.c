/* own_signals: a program with its own signal handlers (tests/own_signals_test.cc).
 * It installs a SIGUSR2 handler (the signal heaprec records markers on by
 * default) and raises SIGUSR2 twice; installs a SIGSEGV handler, writes
 * through a null pointer and jumps back out of the handler with siglongjmp;
 * and blocks every signal in a thread that allocates. Between these it
 * allocates 30 blocks of 16 from in_between() and frees 10. It prints what its
 * handlers saw; exit status 0. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t g_usr2 = 0;
static sigjmp_buf g_back;
static void* volatile g_keep[30];
static int* volatile g_null = NULL;

static void OnUsr2(int sig) {
  (void)sig;
  ++g_usr2;
}
static void OnSegv(int sig) {
  (void)sig;
  siglongjmp(g_back, 1);
}

__attribute__((noinline)) void* in_between(void) { return malloc(16); }

__attribute__((noinline)) void* blocked_thread_block(void) { return malloc(48); }

static void* Blocked(void* arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  for (int i = 0; i < 5; ++i) free(blocked_thread_block());
  return NULL;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = OnUsr2;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, NULL);
  for (int i = 0; i < 10; ++i) g_keep[i] = in_between();
  raise(SIGUSR2);
  raise(SIGUSR2);
  sa.sa_handler = OnSegv;
  sigaction(SIGSEGV, &sa, NULL);
  int segv = 0;
  if (sigsetjmp(g_back, 1) == 0) {
    *g_null = 1;
  } else {
    segv = 1;
  }
  for (int i = 10; i < 30; ++i) g_keep[i] = in_between();
  pthread_t t;
  pthread_create(&t, NULL, Blocked, NULL);
  pthread_join(t, NULL);
  for (int i = 0; i < 10; ++i) free(g_keep[i]);
  printf("own_signals: usr2 %d, segv %d\n", (int)g_usr2, segv);
  return 0;
}
