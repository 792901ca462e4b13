// Known work between allocations, for heaprec --precise-times and the replay
// of it (bench_test.cc): the main thread makes 10 blocks, each held across
// 10 ms of spinning; a second thread sleeps 80 ms, then does the same 5
// times. Prints "gapped: ok".
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin_ms(long ms) {
  const long long end = now_ns() + ms * 1000000LL;
  while (now_ns() < end) {
  }
}

__attribute__((noinline)) void work(int blocks) {
  for (int i = 0; i < blocks; ++i) {
    volatile char* p = malloc(100 + i);
    p[0] = 1;
    spin_ms(10);
    free((void*)p);
  }
}

static void* second(void* arg) {
  (void)arg;
  struct timespec t = {0, 80 * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
  work(5);
  return NULL;
}

int main(void) {
  pthread_t th;
  if (pthread_create(&th, NULL, second, NULL) != 0) return 1;
  work(10);
  pthread_join(th, NULL);
  puts("gapped: ok");
  return 0;
}
