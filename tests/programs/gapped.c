// Known work between allocations, for heaprec --precise-times and the replay
// of it (timed_test.cc, bench_test.cc): the main thread makes 200 blocks, each
// held across 0.5 ms of spinning, then one across 20 ms; a second thread
// sleeps 80 ms, then makes 100 blocks the same way (0.5 ms each). Prints
// "gapped: ok".
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin_us(long us) {
  const long long end = now_ns() + us * 1000LL;
  while (now_ns() < end) {
  }
}

__attribute__((noinline)) void work(int blocks, long us) {
  for (int i = 0; i < blocks; ++i) {
    volatile char* p = malloc(100 + i);
    p[0] = 1;
    spin_us(us);
    free((void*)p);
  }
}

static void* second(void* arg) {
  (void)arg;
  struct timespec t = {0, 80 * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
  work(100, 500);
  return NULL;
}

int main(void) {
  pthread_t th;
  if (pthread_create(&th, NULL, second, NULL) != 0) return 1;
  work(200, 500);
  work(1, 20000);
  pthread_join(th, NULL);
  puts("gapped: ok");
  return 0;
}
