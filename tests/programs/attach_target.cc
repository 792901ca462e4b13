// attach_target: a program heaprec -p attaches to (tests/attach_test.cc).
// It talks with the test through files in DIR: it creates DIR/ready when it
// runs, and waits for the files the test creates (polling with nanosleep:
// no allocation while it waits).
//
//   attach_target load DIR     4 threads allocate at full speed (malloc,
//       new, realloc, free, delete; cross-thread frees) in blocks of work
//       whose checksum is fixed, until DIR/stop exists; prints "blocks N"
//       and exits 0 if every block gave the same checksum, 3 if not.
//   attach_target phases DIR   phase A: before_attach() keeps 10 blocks of
//       1000 bytes; waits for DIR/go-b. Phase B: while_attached() keeps 5
//       blocks of 2000 (malloc) and 3 of new int[100]; temp_in_window()
//       allocates and frees 7 blocks of 300; A's 10 blocks are freed; then
//       DIR/b-done; waits for DIR/go-c. Phase C: B's blocks freed; exit 0.
//   attach_target exit DIR     phase A and B as above, then exits 5 at once.
//   attach_target exec DIR     phase A and B, then execs /bin/sh -c 'exit 4'.
//   attach_target plugin DIR LIB  phase A; after go-b, dlopens LIB and calls
//       its plugin_alloc(48) 20,000 times (freeing each), keeping the last
//       100; then DIR/b-done; waits for go-c; exit 0.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>

namespace {

std::string g_dir;

bool Exists(const char* name) {
  struct stat st;
  return stat((g_dir + "/" + name).c_str(), &st) == 0;
}

void Touch(const char* name) {
  const int fd = open((g_dir + "/" + name).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

void WaitFor(const char* name) {
  while (!Exists(name)) {
    const timespec t = {0, 2 * 1000 * 1000};
    nanosleep(&t, nullptr);
  }
}

// --- load -------------------------------------------------------------------

constexpr int kThreads = 4;
constexpr int kLive = 64;
std::atomic<bool> g_stop{false};
std::atomic<void*> g_handoff[kThreads];  // blocks passed to the next thread to free

struct Worker {
  int index = 0;
  unsigned long first = 0;  // block 0's checksum
  long blocks = 0;
  bool same = true;
};

}  // namespace

extern "C" __attribute__((noinline)) unsigned long WorkBlock(int index) {
  unsigned long seed = static_cast<unsigned long>(index) * 7919 + 1;
  unsigned long sum = 0;
  char* live[kLive] = {};
  for (int i = 0; i < 20000; ++i) {
    seed = seed * 6364136223846793005ul + 1442695040888963407ul;
    const int k = static_cast<int>((seed >> 33) % kLive);
    const size_t n = 16 + (seed >> 40) % 700;
    if (live[k] != nullptr) {
      sum += static_cast<unsigned char>(live[k][0]) + static_cast<unsigned char>(live[k][n % 16]);
      if ((i & 7) == 0) {
        live[k] = static_cast<char*>(realloc(live[k], n));
      } else {
        free(live[k]);
        live[k] = static_cast<char*>(malloc(n));
      }
    } else {
      live[k] = static_cast<char*>(malloc(n));
    }
    memset(live[k], static_cast<int>(i & 0xff), n);
    int* numbers = new int[n % 50 + 1];
    numbers[0] = i;
    sum += static_cast<unsigned long>(numbers[0]);
    delete[] numbers;
    if ((i & 63) == 0) {  // a block freed by another thread
      void* mine = malloc(32);
      void* theirs = g_handoff[index].exchange(mine);
      free(theirs);
    }
  }
  for (char*& p : live) {
    free(p);
    p = nullptr;
  }
  return sum;
}

namespace {

void* RunWorker(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  while (!g_stop.load()) {
    const unsigned long sum = WorkBlock(w->index);
    if (w->blocks == 0) w->first = sum;
    if (sum != w->first) w->same = false;
    ++w->blocks;
  }
  return nullptr;
}

int Load() {
  Worker workers[kThreads];
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    workers[i].index = i;
    pthread_create(&threads[i], nullptr, RunWorker, &workers[i]);
  }
  Touch("ready");
  WaitFor("stop");
  g_stop.store(true);
  long blocks = 0;
  bool same = true;
  for (int i = 0; i < kThreads; ++i) {
    pthread_join(threads[i], nullptr);
    blocks += workers[i].blocks;
    same = same && workers[i].same;
  }
  for (auto& h : g_handoff) free(h.exchange(nullptr));
  printf("blocks %ld\n", blocks);
  return same ? 0 : 3;
}

// --- phases -------------------------------------------------------------------

void* g_a[10];
void* g_b[5];
int* g_b_new[3];

}  // namespace

extern "C" {

__attribute__((noinline)) void before_attach() {
  for (void*& p : g_a) p = malloc(1000);
}

__attribute__((noinline)) void while_attached() {
  for (void*& p : g_b) p = malloc(2000);
  for (int*& p : g_b_new) p = new int[100];
}

__attribute__((noinline)) void temp_in_window() {
  for (int i = 0; i < 7; ++i) {
    void* volatile p = malloc(300);
    free(p);
  }
}

__attribute__((noinline)) void free_a() {
  for (void*& p : g_a) free(p);
}

__attribute__((noinline)) void free_b() {
  for (void*& p : g_b) free(p);
  for (int*& p : g_b_new) delete[] p;
}

}  // extern "C"

namespace {

using PluginAlloc = void* (*)(size_t);

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: attach_target load|phases|exit|exec|plugin DIR [LIB]\n");
    return 2;
  }
  const std::string mode = argv[1];
  g_dir = argv[2];
  if (mode == "load") return Load();
  before_attach();
  Touch("ready");
  WaitFor("go-b");
  if (mode == "plugin") {
    void* lib = dlopen(argc > 3 ? argv[3] : "", RTLD_NOW);
    if (lib == nullptr) return 6;
    auto alloc = reinterpret_cast<PluginAlloc>(dlsym(lib, "plugin_alloc"));
    static void* kept[100];
    for (int i = 0; i < 20000; ++i) {
      void* p = alloc(48);
      if (i >= 20000 - 100) {
        kept[i - (20000 - 100)] = p;
      } else {
        free(p);
      }
    }
    Touch("b-done");
    WaitFor("go-c");
    for (void* p : kept) free(p);
    return 0;
  }
  while_attached();
  temp_in_window();
  free_a();
  Touch("b-done");
  if (mode == "exit") return 5;
  if (mode == "exec") {
    execl("/bin/sh", "sh", "-c", "exit 4", static_cast<char*>(nullptr));
    return 7;
  }
  WaitFor("go-c");
  free_b();
  return 0;
}
