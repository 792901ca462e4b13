// mismatch: frees that do not match their allocation, each from a named
// function (tests/heapreplay_test.cc, recorded with --free-stacks):
//   array_then_delete()   new int[4]   released by delete       (family)
//   new_then_free()       new Node     released by free         (family)
//   malloc_then_delete()  malloc(24)   released by delete       (family)
//   wrong_sized_delete()  new Node     ::operator delete(p, 8)  (size)
//   double_free()         malloc(48), free, free again: glibc aborts here,
//                         so the program ends with SIGABRT.
// glibc's malloc serves new and malloc alike, so only the double free is
// noticed without heaprec. Pointers pass through opaque() so the compiler
// cannot see (and warn about, or drop) the mismatch.
#include <cstdint>
#include <cstdlib>
#include <new>

struct Node {
  int64_t value[3];
};

extern "C" __attribute__((noinline)) void* opaque(void* p) {
  asm volatile("" : "+r"(p));
  return p;
}

__attribute__((noinline)) void array_then_delete() {
  int* p = static_cast<int*>(opaque(new int[4]));
  delete p;
}

__attribute__((noinline)) void new_then_free() { free(opaque(new Node{})); }

__attribute__((noinline)) void malloc_then_delete() {
  delete static_cast<Node*>(opaque(malloc(sizeof(Node))));
}

__attribute__((noinline)) void wrong_sized_delete() { ::operator delete(opaque(new Node{}), 8); }

__attribute__((noinline)) void first_free(void* p) { free(p); }
__attribute__((noinline)) void second_free(void* p) { free(p); }

__attribute__((noinline)) void double_free() {
  void* p = opaque(malloc(48));
  first_free(p);
  second_free(p);
}

int main() {
  array_then_delete();
  new_then_free();
  malloc_then_delete();
  wrong_sized_delete();
  double_free();
  return 0;
}
