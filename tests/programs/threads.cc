// threads: allocations handed from thread to thread (tests/threads_test.cc).
// Four workers (named worker-0..worker-3) run 5 rounds. In each round worker
// i allocates 200 blocks with produce_block(i) (malloc(32 + 16 * i)) and 200
// objects with produce_object() (new Item, 24 bytes), waits for the others,
// then frees the blocks and objects of worker (i + 1) % 4 (free and sized
// delete), and waits again. So:
//   produce_block   4000 allocations, 224000 bytes, all freed by another thread
//   produce_object  4000 allocations,  96000 bytes, all deleted by another thread
// and nothing leaks from either. The pointers live in static arrays, so no
// other allocation happens in the workers.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

// Outside the anonymous namespace: GCC makes a function whose type names a
// type with internal linkage local and then writes no linkage name to DWARF,
// so its site would be "produce_object" instead of "produce_object(long)".
struct Item {
  int64_t value[3];
};

namespace {

constexpr int kThreads = 4;
constexpr int kRounds = 5;
constexpr int kBlocks = 200;

void* g_blocks[kThreads][kBlocks];
Item* g_objects[kThreads][kBlocks];
pthread_barrier_t g_barrier;

}  // namespace

__attribute__((noinline)) void* produce_block(int thread) { return malloc(32 + 16 * thread); }

__attribute__((noinline)) Item* produce_object(int64_t v) { return new Item{{v, v, v}}; }

__attribute__((noinline)) void consume(void* block, Item* object) {
  free(block);
  delete object;
}

void Worker(int id) {
  char name[16];
  std::snprintf(name, sizeof(name), "worker-%d", id);
  pthread_setname_np(pthread_self(), name);
  const int from = (id + 1) % kThreads;
  for (int round = 0; round < kRounds; ++round) {
    for (int j = 0; j < kBlocks; ++j) {
      g_blocks[id][j] = produce_block(id);
      g_objects[id][j] = produce_object(j);
    }
    pthread_barrier_wait(&g_barrier);
    for (int j = 0; j < kBlocks; ++j) consume(g_blocks[from][j], g_objects[from][j]);
    pthread_barrier_wait(&g_barrier);
  }
}

int main() {
  pthread_barrier_init(&g_barrier, nullptr, kThreads);
  std::vector<std::thread> workers;
  workers.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) workers.emplace_back(Worker, i);
  for (std::thread& t : workers) t.join();
  pthread_barrier_destroy(&g_barrier);
  std::printf("threads: %d workers, %d rounds of %d blocks\n", kThreads, kRounds, kBlocks);
  return 0;
}
