/* attach_static: a statically linked program, which heaprec -p must refuse
 * (tests/attach_test.cc): creates DIR/ready, waits for DIR/stop, exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  char path[4096];
  snprintf(path, sizeof(path), "%s/ready", argv[1]);
  close(open(path, O_CREAT | O_WRONLY, 0644));
  snprintf(path, sizeof(path), "%s/stop", argv[1]);
  struct stat st;
  while (stat(path, &st) != 0) {
    const struct timespec t = {0, 5 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  return 0;
}
