/* c_leaks: C allocations known exactly, per named function (tests/c_leaks_test.cc).
 *   leak_malloc()     5 x malloc(100)                      -> 5 blocks, 500 B leaked
 *   leak_calloc()     3 x calloc(10, 30)                   -> 3 blocks, 900 B leaked
 *   grow_buffer()     malloc(16), then realloc to 64, 1000, 5000, 20000
 *                                                          -> 1 block, 20000 B leaked
 *   leak_memalign()   2 x posix_memalign(64, 200)          -> 2 blocks, 400 B leaked
 *   leak_aligned()    1 x aligned_alloc(256, 512)          -> 1 block, 512 B leaked
 *   temp_malloc()     7 x malloc(48), each freed at once   -> nothing leaked
 *   make_freed()      4 x calloc(4, 8), freed by main      -> nothing leaked
 *   aligned_freed()   posix_memalign(32, 96) + aligned_alloc(128, 256), freed by main
 *   realloc_edges()   realloc(NULL, 40), realloc(p, 2^62) (fails, p kept), then
 *                     realloc(p, 0) (glibc frees)           -> nothing leaked
 *   move_buffer()     malloc(32) x 2, realloc of the first to 4096 (it must move:
 *                     the second block is in the way), free of the second
 *                                                          -> 1 block, 4096 B leaked
 *   failed_alloc()    malloc(2^62), which fails            -> nothing
 * Leaked in total from these functions: 13 blocks, 26408 bytes.
 * Prints one line and exits 3 (to check that heaprec passes the status on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void* leak_malloc(void) { return malloc(100); }

__attribute__((noinline)) static void* leak_calloc(void) { return calloc(10, 30); }

__attribute__((noinline)) static char* grow_buffer(void) {
  static const size_t kSizes[] = {64, 1000, 5000, 20000};
  char* buffer = malloc(16);
  if (buffer == NULL) return NULL;
  strcpy(buffer, "grow");
  for (size_t i = 0; i < sizeof(kSizes) / sizeof(kSizes[0]); ++i) {
    char* bigger = realloc(buffer, kSizes[i]);
    if (bigger == NULL) return buffer;
    buffer = bigger;
  }
  return buffer;
}

__attribute__((noinline)) static void* leak_memalign(void) {
  void* p = NULL;
  return posix_memalign(&p, 64, 200) == 0 ? p : NULL;
}

__attribute__((noinline)) static void* leak_aligned(void) { return aligned_alloc(256, 512); }

__attribute__((noinline)) static size_t temp_malloc(int i) {
  char* p = malloc(48);
  if (p == NULL) return 0;
  snprintf(p, 48, "temporary %d", i);
  const size_t n = strlen(p);
  free(p);
  return n;
}

__attribute__((noinline)) static void* make_freed(void) { return calloc(4, 8); }

__attribute__((noinline)) static void aligned_freed(void** a, void** b) {
  if (posix_memalign(a, 32, 96) != 0) *a = NULL;
  *b = aligned_alloc(128, 256);
}

static volatile size_t g_huge = (size_t)1 << 62; /* no allocator has that much */

__attribute__((noinline)) static int realloc_edges(void) {
  char* p = realloc(NULL, 40);
  if (p == NULL) return 0;
  p[0] = 'x';
  const int failed = realloc(p, g_huge) == NULL; /* p stays valid */
  p = realloc(p, 0);                             /* glibc frees p and returns NULL */
  return failed + (p == NULL);
}

/* Runs first, on a fresh heap: p and blocker are neighbours, so p cannot
 * grow in place. */
__attribute__((noinline)) static char* move_buffer(void) {
  char* p = malloc(32);
  char* blocker = malloc(32);
  if (p == NULL || blocker == NULL) return NULL;
  strcpy(p, "move");
  char* moved = realloc(p, 4096);
  free(blocker);
  return moved != NULL ? moved : p;
}

__attribute__((noinline)) static int failed_alloc(void) { return malloc(g_huge) == NULL; }

static void* g_kept[16]; /* keeps the leaks reachable until exit */

int main(void) {
  int n = 0;
  g_kept[n++] = move_buffer();
  for (int i = 0; i < 5; ++i) g_kept[n++] = leak_malloc();
  for (int i = 0; i < 3; ++i) g_kept[n++] = leak_calloc();
  g_kept[n++] = grow_buffer();
  for (int i = 0; i < 2; ++i) g_kept[n++] = leak_memalign();
  g_kept[n++] = leak_aligned();
  size_t chars = 0;
  for (int i = 0; i < 7; ++i) chars += temp_malloc(i);
  void* freed[4];
  for (int i = 0; i < 4; ++i) freed[i] = make_freed();
  for (int i = 0; i < 4; ++i) free(freed[i]);
  void* a = NULL;
  void* b = NULL;
  aligned_freed(&a, &b);
  free(a);
  free(b);
  const int edges = realloc_edges();
  const int failed = failed_alloc();
  printf("c_leaks: kept %d blocks, %zu temporary chars, realloc edges %d, failed %d\n", n, chars,
         edges, failed);
  return 3;
}
