/* exits: ways a program ends without returning from main, with allocations
 * known exactly (tests/exits_test.cc). Each mode allocates 50 blocks of 40
 * bytes from before_exit() (freeing 20) and then:
 *   thread: a second thread allocates 10 blocks of 56 from in_thread() and
 *           calls exit(5) while main waits in pthread_join;
 *   _exit:  prints its line and calls _exit(6) (no atexit, no stdio flush,
 *           so it writes with write(2));
 *   static: a static destructor (atexit) allocates 3 blocks of 72 from
 *           at_exit_handler() during exit(4). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void* volatile g_keep[64];

__attribute__((noinline)) void* before_exit(void) { return malloc(40); }
__attribute__((noinline)) void* in_thread(void) { return malloc(56); }
__attribute__((noinline)) void* at_exit_handler_block(void) { return malloc(72); }

static void Prologue(void) {
  for (int i = 0; i < 50; ++i) g_keep[i] = before_exit();
  for (int i = 0; i < 20; ++i) free(g_keep[i]);
}

static void* ExitFromThread(void* arg) {
  (void)arg;
  for (int i = 0; i < 10; ++i) g_keep[50 + i] = in_thread();
  printf("exits: thread\n");
  fflush(stdout);
  exit(5);
}

static void AtExit(void) {
  for (int i = 0; i < 3; ++i) g_keep[60 + i] = at_exit_handler_block();
  printf("exits: static\n");
  fflush(stdout);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  Prologue();
  if (strcmp(mode, "thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, ExitFromThread, NULL);
    pthread_join(t, NULL);
    return 1; /* not reached */
  }
  if (strcmp(mode, "_exit") == 0) {
    const char line[] = "exits: _exit\n";
    if (write(1, line, sizeof(line) - 1) < 0) return 2;
    _exit(6);
  }
  if (strcmp(mode, "static") == 0) {
    atexit(AtExit);
    exit(4);
  }
  return 3;
}
