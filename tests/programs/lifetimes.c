// tests/lifetimes_test's program: blocks with known lifetimes, each kind
// from its own function (its own allocation site):
//   immediate:  100 blocks freed right away (0 allocations in between);
//   spaced:     50 blocks, each freed after exactly 7 allocations (filler);
//   filler:     350 blocks, freed after spaced's: the k-th of each 7 has
//               6 - k allocations after it before its free (0..6, 50 each);
//   slept:      5 blocks, each freed 30 ms after it was made;
//   handed:     40 blocks made by the main thread, all freed by a worker;
//   half:       40 blocks made by a worker, 20 freed by it and 20 by main.
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static void* volatile sink;

NOINLINE static void* immediate(void) { return malloc(16); }
NOINLINE static void* spaced(void) { return malloc(32); }
NOINLINE static void* filler(void) { return malloc(8); }
NOINLINE static void* slept(void) { return malloc(48); }
NOINLINE static void* handed(void) { return malloc(64); }
NOINLINE static void* half(void) { return malloc(80); }

static void* handed_blocks[40];
static void* half_blocks[40];

static void* FreeHanded(void* arg) {
  (void)arg;
  for (int i = 0; i < 40; ++i) free(handed_blocks[i]);
  return NULL;
}

static void* MakeHalf(void* arg) {
  (void)arg;
  for (int i = 0; i < 40; ++i) half_blocks[i] = half();
  for (int i = 0; i < 20; ++i) free(half_blocks[i]);
  return NULL;
}

int main(void) {
  for (int i = 0; i < 100; ++i) {
    void* p = immediate();
    sink = p;
    free(p);
  }
  for (int i = 0; i < 50; ++i) {
    void* b = spaced();
    void* f[7];
    for (int k = 0; k < 7; ++k) f[k] = filler();
    free(b);
    for (int k = 0; k < 7; ++k) free(f[k]);
  }
  for (int i = 0; i < 5; ++i) {
    void* p = slept();
    struct timespec t = {0, 30 * 1000 * 1000};
    nanosleep(&t, NULL);
    free(p);
  }
  for (int i = 0; i < 40; ++i) handed_blocks[i] = handed();
  pthread_t t;
  if (pthread_create(&t, NULL, FreeHanded, NULL) != 0) return 1;
  pthread_join(t, NULL);
  if (pthread_create(&t, NULL, MakeHalf, NULL) != 0) return 1;
  pthread_join(t, NULL);
  for (int i = 20; i < 40; ++i) free(half_blocks[i]);
  return 0;
}
