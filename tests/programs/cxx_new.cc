// cxx_new: C++ allocations known exactly, per named function
// (tests/cxx_new_test.cc). Sizes: Node 24 bytes, Wide (alignas(64)) 128 bytes.
//   leak_new()           4 x new Node                 -> 4 blocks, 96 B leaked
//   leak_new_array()     2 x new int[25] (100 B)      -> 2 blocks, 200 B leaked
//   leak_aligned_new()   3 x new Wide (align 64)      -> 3 blocks, 384 B leaked
//   leak_nothrow_new()   2 x new (nothrow) Node       -> 2 blocks, 48 B leaked
//   make_sized()         5 x new Node, freed by `delete` (sized delete)
//   make_array()         3 x new long[10] (80 B), freed by delete[]
//   make_aligned()       2 x new Wide, freed by delete (aligned sized delete)
//   make_aligned_array() 1 x new Wide[2] (256 B, align 64), freed by delete[]
//   make_nothrow()       2 x new (nothrow) Node, freed by delete
//   make_explicit()      ::operator new(40), freed by ::operator delete(p, 40)
// Leaked in total from these functions: 11 blocks, 728 bytes.
#include <cstdint>
#include <cstdio>
#include <new>

struct Node {
  int64_t value[3];
};

struct alignas(64) Wide {
  char bytes[100];
};

static_assert(sizeof(Node) == 24);
static_assert(sizeof(Wide) == 128);

__attribute__((noinline)) Node* leak_new() { return new Node{}; }
__attribute__((noinline)) int* leak_new_array() { return new int[25]; }
__attribute__((noinline)) Wide* leak_aligned_new() { return new Wide{}; }
__attribute__((noinline)) Node* leak_nothrow_new() { return new (std::nothrow) Node{}; }
__attribute__((noinline)) Node* make_sized() { return new Node{}; }
__attribute__((noinline)) long* make_array() { return new long[10]; }
__attribute__((noinline)) Wide* make_aligned() { return new Wide{}; }
__attribute__((noinline)) Wide* make_aligned_array() { return new Wide[2]; }
__attribute__((noinline)) Node* make_nothrow() { return new (std::nothrow) Node{}; }
__attribute__((noinline)) void* make_explicit() { return ::operator new(40); }

static void* g_kept[16];  // keeps the leaks reachable until exit

int main() {
  int n = 0;
  for (int i = 0; i < 4; ++i) g_kept[n++] = leak_new();
  for (int i = 0; i < 2; ++i) g_kept[n++] = leak_new_array();
  for (int i = 0; i < 3; ++i) g_kept[n++] = leak_aligned_new();
  for (int i = 0; i < 2; ++i) g_kept[n++] = leak_nothrow_new();
  for (int i = 0; i < 5; ++i) delete make_sized();
  for (int i = 0; i < 3; ++i) delete[] make_array();
  for (int i = 0; i < 2; ++i) delete make_aligned();
  delete[] make_aligned_array();
  for (int i = 0; i < 2; ++i) delete make_nothrow();
  ::operator delete(make_explicit(), 40);
  std::printf("cxx_new: kept %d blocks\n", n);
  return 0;
}
