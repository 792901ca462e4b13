// tests/rss_test's program: resident memory that rises and falls by a known
// amount. 150 ms idle, then 64 MiB allocated and written (every page
// resident), held 200 ms, freed and trimmed (glibc serves a block this large
// with mmap and gives it back at free), then 200 ms more. At the end it
// prints "vmhwm <bytes>": its /proc/self/status VmHWM, the kernel's own peak
// RSS, to compare with the peak of the launcher's samples.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void Pause(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

static long long VmHwmBytes(void) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  long long kb = -1;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
  }
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

int main(void) {
  const size_t size = (size_t)64 << 20;
  Pause(150);
  char* volatile block = malloc(size);
  if (block == NULL) return 1;
  memset(block, 0x5a, size);
  Pause(200);
  free(block);
  malloc_trim(0);
  Pause(200);
  printf("vmhwm %lld\n", VmHwmBytes());
  return 0;
}
