// A statically linked program: heaprec must refuse to trace it
// (traceable_test, tests/untraceable_test).
#include <stdio.h>

int main(void) {
  puts("static_program ran");
  return 0;
}
