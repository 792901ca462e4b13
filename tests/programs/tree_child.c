// A child of tests/process_tree_test.cc's shell script: `tree_child HOW N`
// allocates N blocks of 10000 bytes (live together: a peak of N * 10000
// bytes), frees all but one, then ends as HOW says: "exit11" exit(11),
// "segv" a write through a null pointer (SIGSEGV), "ok" return 0.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void* blocks[64];

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int n = atoi(argv[2]);
  if (n < 1 || n > 64) return 2;
  for (int i = 0; i < n; ++i) blocks[i] = malloc(10000);
  for (int i = 1; i < n; ++i) free(blocks[i]);
  if (strcmp(argv[1], "exit11") == 0) exit(11);
  if (strcmp(argv[1], "segv") == 0) {
    volatile int* volatile null = NULL;
    *null = 1;
  }
  return 0;
}
