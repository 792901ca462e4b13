/* hostile_fds: what daemons do to their file descriptors, with allocations
 * known exactly (tests/hostile_fds_test.cc). It keeps a copy of stdout at fd
 * 9, closes every other descriptor from 0 up (the recorder's included, if it
 * had any), puts /dev/null on 0-2, lowers RLIMIT_NOFILE to 16, allocates
 * 100 blocks of 24 bytes from fd_churn() and frees 95, changes directory to
 * /, then puts stdout back and prints one line. Exit status 7. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void* volatile g_keep[100];

__attribute__((noinline)) void* fd_churn(void) { return malloc(24); }

int main(void) {
  if (dup2(1, 9) != 9) return 1;
  for (int fd = 0; fd < 1024; ++fd) {
    if (fd != 9) close(fd);
  }
  const int null = open("/dev/null", O_RDWR); /* fd 0 */
  if (null != 0 || dup2(0, 1) != 1 || dup2(0, 2) != 2) return 2;
  const struct rlimit few = {16, 16};
  if (setrlimit(RLIMIT_NOFILE, &few) != 0) return 3;
  for (int i = 0; i < 100; ++i) g_keep[i] = fd_churn();
  for (int i = 5; i < 100; ++i) free(g_keep[i]);
  if (chdir("/") != 0) return 4;
  if (dup2(9, 1) != 1) return 5;
  printf("hostile_fds: 100 blocks, 5 kept\n");
  fflush(stdout);
  return 7;
}
