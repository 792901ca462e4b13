// Allocations 300 ms apart, with bursts of allocations around the pause: the
// times heaprec records must follow the clock (timed_test.cc).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

__attribute__((noinline)) void* before_pause(void) { return malloc(16); }

__attribute__((noinline)) void* after_pause(void) { return malloc(32); }

__attribute__((noinline)) void burst(void) {
  for (int i = 0; i < 1000; ++i) free(malloc(8 + i % 64));
}

int main(void) {
  void* a = before_pause();
  burst();
  sleep_ms(300);
  void* b = after_pause();
  burst();
  free(a);
  free(b);
  puts("timed: ok");
  return 0;
}
