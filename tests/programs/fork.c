/* fork: allocations on both sides of a fork (tests/fork_test.cc).
 *   parent, before the fork: before_fork()  3 x malloc(111)     leaked
 *   child:                   child_alloc()  5 x malloc(222)     leaked
 *                            child_temp()   2 x malloc(50)      freed
 *   parent, after wait:      after_fork()   4 x calloc(1, 333)  leaked
 * The child exits 0; the parent exits 0 if the child did, else 1. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void* before_fork(void) { return malloc(111); }

__attribute__((noinline)) static void* child_alloc(void) { return malloc(222); }

__attribute__((noinline)) static void child_temp(void) {
  char* p = malloc(50);
  if (p != NULL) p[0] = 1;
  free(p);
}

__attribute__((noinline)) static void* after_fork(void) { return calloc(1, 333); }

static void* g_kept[16];

int main(void) {
  int n = 0;
  for (int i = 0; i < 3; ++i) g_kept[n++] = before_fork();
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    for (int i = 0; i < 5; ++i) g_kept[n++] = child_alloc();
    for (int i = 0; i < 2; ++i) child_temp();
    exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) {
    perror("waitpid");
    return 2;
  }
  for (int i = 0; i < 4; ++i) g_kept[n++] = after_fork();
  printf("fork: child %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
