// leak_kinds: heaps whose leak kinds are known, one scenario per mode, for
// comparing heaprec's leak scan with valgrind memcheck's LEAK SUMMARY on the
// same binary (tests/leak_kinds_test.cc). Every pointer that matters lives in
// a global, a static, TLS, a blocked thread's stack, an mmap'd buffer or
// another block; nothing is printed with stdio (no stdout buffer block).
//   globals       a global, a function-static and a __thread pointer: reachable
//   list          a lost list of 5: 1 definitely + 4 indirectly lost
//   cycle         a lost cycle of 16 and 32 bytes (16 made first, lower)
//   interior      only a pointer into the middle: possibly lost
//   chain         an interior pointer to a block that points to another:
//                 both possibly lost
//   thread_stack  a pointer only in a blocked thread's local; main exits
//   mmap          a pointer only in an anonymous mmap'd buffer: reachable
//   in_block      a reachable block holding the only pointer to another
//   newarray      new T[3] of a class with a destructor: reachable through
//                 the newarray heuristic
//   plain         a block whose pointer is dropped: definitely lost
//   all           every one of the above at once
//   segv          globals, list and plain, then a write through a null
//                 pointer: the process ends on SIGSEGV
//   abort         the same, then abort(): the process ends on SIGABRT
//   double_free   plain, then a block freed twice: glibc's malloc aborts
//                 inside free (under valgrind it would not abort)
//   sigkill       plain, then SIGKILL to itself: no scan can be done
//   checkpoint    heaprec_leak_check() after a global block and a lost one
//                 are made; then the global one is freed and another lost
//                 one made before the end
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "heaprec.h"

namespace {

struct Node {
  Node* next;
  long payload;
};

struct WithDtor {
  long value = 0;
  ~WithDtor() { value = -1; }
};

void* volatile g_global;
__thread void* volatile t_tls;
char* volatile g_interior;
void** volatile g_mapped;
void** volatile g_holder;
WithDtor* volatile g_array;

__attribute__((noinline)) void* Make(size_t n) {
  void* p = malloc(n);
  memset(p, 0, n);
  return p;
}

__attribute__((noinline)) void Globals() {
  static void* volatile s_static;
  g_global = Make(40);
  s_static = Make(24);
  t_tls = Make(56);
}

__attribute__((noinline)) void List() {
  Node* head = nullptr;
  for (int i = 0; i < 5; ++i) {
    Node* n = static_cast<Node*>(Make(sizeof(Node)));
    n->next = head;
    head = n;
  }
  head = nullptr;
}

__attribute__((noinline)) void Cycle() {
  void** a = static_cast<void**>(Make(16));
  void** b = static_cast<void**>(Make(32));
  a[0] = b;
  b[0] = a;
}

__attribute__((noinline)) void Interior() { g_interior = static_cast<char*>(Make(100)) + 24; }

__attribute__((noinline)) void Chain() {
  void** first = static_cast<void**>(Make(48));
  first[0] = Make(80);
  g_interior = reinterpret_cast<char*>(first) + 8;
}

pthread_t g_thread;

void* Hold(void*) {
  void* volatile mine = Make(72);
  (void)mine;
  for (;;) pause();
  return nullptr;
}

__attribute__((noinline)) void ThreadStack() {
  pthread_create(&g_thread, nullptr, Hold, nullptr);
  usleep(200 * 1000);  // the thread has made its block and waits
}

__attribute__((noinline)) void Mapped() {
  void* area = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_mapped = static_cast<void**>(area);
  g_mapped[3] = Make(64);
}

__attribute__((noinline)) void InBlock() {
  g_holder = static_cast<void**>(Make(32));
  g_holder[1] = Make(200);
}

__attribute__((noinline)) void NewArray() { g_array = new WithDtor[3]; }

__attribute__((noinline)) void Plain() {
  void* volatile p = Make(33);
  p = nullptr;
}

__attribute__((noinline)) void Checkpoint() {
  g_global = Make(1000);
  void* volatile lost = Make(2000);
  lost = nullptr;
  heaprec_leak_check();
  free(g_global);
  g_global = nullptr;
  lost = Make(3000);
  lost = nullptr;
}

int* volatile g_null = nullptr;

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  const bool all = mode == "all";
  if (all || mode == "globals") Globals();
  if (all || mode == "list") List();
  if (all || mode == "cycle") Cycle();
  if (all || mode == "interior") Interior();
  if (mode == "chain") Chain();
  if (all || mode == "mmap") Mapped();
  if (all || mode == "in_block") InBlock();
  if (all || mode == "newarray") NewArray();
  if (all || mode == "plain") Plain();
  if (all || mode == "thread_stack") ThreadStack();
  if (mode == "checkpoint") Checkpoint();
  (void)!write(1, "leak_kinds: done\n", 17);
  if (mode == "segv" || mode == "abort") {
    Globals();
    List();
    Plain();
    if (mode == "abort") abort();
    *static_cast<int* volatile>(g_null) = 1;  // SIGSEGV
  }
  if (mode == "sigkill") {
    Plain();
    kill(getpid(), SIGKILL);
  }
  if (mode == "double_free") {
    Plain();
    void* volatile twice = Make(24);
    free(twice);
    free(twice);
  }
  exit(0);  // with a thread blocked: exit_group ends it
}
