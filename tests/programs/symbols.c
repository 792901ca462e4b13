/* symbols: the same allocations in every run, under static functions whose
 * names only the symbol table and the debug information know, for frames
 * without names, the symbol sources heapreplay uses and the difference of
 * two runs (tests/symbols_test.cc):
 *   make_table() -> fill_row()   4 x malloc(256)   never freed: 1024 B
 *   make_name()                  malloc(48)        freed
 *   keep_buffer()                calloc(2, 1000)   never freed: 2000 B
 * No stdio (its buffer would be one more allocation). */
#include <stdlib.h>
#include <unistd.h>

static void* g_rows[4];
static void* g_buffer;

__attribute__((noinline)) static void* fill_row(int i) { return malloc(256 + 0 * i); }

__attribute__((noinline)) static void make_table(void) {
  for (int i = 0; i < 4; ++i) g_rows[i] = fill_row(i);
}

__attribute__((noinline)) static void make_name(void) {
  char* volatile name = malloc(48);
  free(name);
}

__attribute__((noinline)) static void keep_buffer(void) { g_buffer = calloc(2, 1000); }

int main(void) {
  make_table();
  make_name();
  keep_buffer();
  (void)!write(1, "symbols: ok\n", 12);
  return 0;
}
