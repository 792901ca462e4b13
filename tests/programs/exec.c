/* exec: allocates, then replaces itself with the program named by argv[1]
 * (tests/exec_test.cc runs it with exec_target).
 *   before_exec()  2 x malloc(444), still live at the exec
 * Waits 200 ms before the exec, so that heaprec (which looks for new traced
 * images every 5 ms) has surely found this image before the next one starts:
 * the test then sees the same order of events every time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void* before_exec(void) { return malloc(444); }

static void* g_kept[2];

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: exec PROGRAM\n");
    return 2;
  }
  for (int i = 0; i < 2; ++i) g_kept[i] = before_exec();
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
  char* args[] = {argv[1], NULL};
  execv(argv[1], args);
  perror("execv");
  return 127;
}
