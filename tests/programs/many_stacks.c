/* many_stacks: 2^17 = 131,072 distinct call stacks, for measuring the HTML
 * report on a large trace (tools/bench_html.sh). left() and right() recurse
 * 17 levels, each level calling one or the other by one bit of the path, so
 * every path is its own stack (4 distinct call sites per level); each leaf
 * allocates twice and frees one of the two blocks (the other leaks when the
 * path's low 3 bits are 0). Runs in well under a second. `many_stacks N`
 * walks the first N paths only (the browser test's deep, small trace). */
#include <stdlib.h>

#define DEPTH 17

static void* g_keep[1 << DEPTH];

static void left(unsigned path, int depth);
static void right(unsigned path, int depth);

__attribute__((noinline)) static void leaf(unsigned path) {
  void* a = malloc(16 + (path % 61) * 8);
  void* b = malloc(32);
  free(b);
  if ((path & 7) == 0) {
    g_keep[path] = a;
  } else {
    free(a);
  }
}

__attribute__((noinline)) static void left(unsigned path, int depth) {
  if (depth == DEPTH) {
    leaf(path);
  } else if ((path >> depth) & 1) {
    right(path, depth + 1);
  } else {
    left(path, depth + 1);
  }
}

__attribute__((noinline)) static void right(unsigned path, int depth) {
  if (depth == DEPTH) {
    leaf(path);
  } else if ((path >> depth) & 1) {
    right(path, depth + 1);
  } else {
    left(path, depth + 1);
  }
}

int main(int argc, char** argv) {
  unsigned paths = 1u << DEPTH;
  if (argc > 1 && atoi(argv[1]) > 0 && (unsigned)atoi(argv[1]) < paths) paths = atoi(argv[1]);
  for (unsigned path = 0; path < paths; ++path) left(path, 0);
  return 0;
}
