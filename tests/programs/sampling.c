// Known answers for heaprec --sample-rate (tests/sampling_test.cc): sites
// whose allocated, peak and leaked bytes are exact numbers, most of them
// thousands of times a 4 KiB rate, one far below it.
//   big_leak:      20000 x 1000 B, never freed            (20,000,000 B leaked)
//   peak_hold:      5000 x 4096 B, freed after the peak    (20,480,000 B at the peak)
//   churn_small:  400000 x 64 B, each freed at once        (25,600,000 B allocated)
//   realloc_churn: 100000 x realloc(NULL, 32) -> 64 -> 128 -> 256, then freed
//                  (48,000,000 B allocated by realloc, none leaked)
//   few_small:        10 x 100 B, never freed              (1,000 B: below the rate)
// The peak is big_leak and peak_hold live together: 40,480,000 B.
#include <stdio.h>
#include <stdlib.h>

static void* g_keep[20000];
static void* g_hold[5000];
static void* g_few[10];

void big_leak(void) {
  for (int i = 0; i < 20000; ++i) g_keep[i] = malloc(1000);
}

void peak_hold(void) {
  for (int i = 0; i < 5000; ++i) g_hold[i] = malloc(4096);
}

void release_hold(void) {
  for (int i = 0; i < 5000; ++i) free(g_hold[i]);
}

void churn_small(void) {
  for (int i = 0; i < 400000; ++i) {
    char* p = malloc(64);
    p[0] = (char)i;
    free(p);
  }
}

void realloc_churn(void) {
  static const size_t kSizes[] = {32, 64, 128, 256};
  for (int i = 0; i < 100000; ++i) {
    void* p = NULL;
    for (int k = 0; k < 4; ++k) p = realloc(p, kSizes[k]);
    free(p);
  }
}

void few_small(void) {
  for (int i = 0; i < 10; ++i) g_few[i] = malloc(100);
}

int main(void) {
  big_leak();
  peak_hold();
  release_hold();
  churn_small();
  realloc_churn();
  few_small();
  // Not freed on purpose: g_keep and g_few hold the leaks (still reachable
  // through globals, but a sample is not scanned, so kind unknown).
  printf("sampling: done\n");
  return 0;
}
