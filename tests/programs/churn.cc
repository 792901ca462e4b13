// churn: many threads at once, and thousands of threads one after another,
// with allocations known exactly (tests/churn_test.cc).
//
// churn concurrent: 16 workers run at once, 20,000 calls each. Call i of
//   worker w allocates
//     i % 8 != 7: churn_block(i) = malloc(8 * (1 + i % 64)), kept among the
//                 worker's last 32 such blocks, then freed by the worker;
//     i % 8 == 7: handoff_block() = calloc(1, 48), handed to worker
//                 (w + 1) % 16 through its inbox (mutex and condvar), which
//                 frees it.
//   So churn_block: 280,000 mallocs, all freed by their own thread;
//   handoff_block: 40,000 callocs, 1,920,000 bytes, all freed by another.
// churn lifecycle: 3,000 threads, created 15 at a time and joined before the
//   next 15 start. Thread t calls
//     transient_block() = malloc(24), freed by itself;
//     kept_block()      = malloc(100), kept for good if t % 10 == 0 (300
//                         blocks leaked), else freed by itself;
//     result_block(t)   = malloc(16), its result (returned if t is odd,
//                         pthread_exit'ed if even), freed by main after join.
//
// Threads are raw pthreads (std::thread allocates its state) and every
// pointer lives in static arrays, so the workers make no other allocation.
// Prints one line per mode; exit status 0, or 1 if something went wrong.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kWorkers = 16;
constexpr int kCalls = 20000;
constexpr int kHandoffsPerWorker = kCalls / 8;
constexpr int kWindow = 32;  // churn blocks a worker keeps live at a time

constexpr int kLifecycleThreads = 3000;
constexpr int kBatch = 15;  // alive at once (plus main)

// One worker's inbox: blocks other workers hand it.
struct Inbox {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  void* blocks[kHandoffsPerWorker];
  int pushed = 0;  // under mu; only one producer writes each inbox
  int taken = 0;   // by the owner only
};

Inbox g_inbox[kWorkers];
void* g_kept[kLifecycleThreads];

}  // namespace

__attribute__((noinline)) void* churn_block(int i) { return malloc(8 * (1 + i % 64)); }

__attribute__((noinline)) void* handoff_block() { return calloc(1, 48); }

__attribute__((noinline)) void* transient_block() { return malloc(24); }

__attribute__((noinline)) void* kept_block() { return malloc(100); }

__attribute__((noinline)) void* result_block(int t) {
  auto* p = static_cast<int*>(malloc(16));
  if (p != nullptr) *p = t;
  return p;
}

namespace {

void Push(Inbox& in, void* block) {
  pthread_mutex_lock(&in.mu);
  in.blocks[in.pushed++] = block;
  pthread_cond_signal(&in.cv);
  pthread_mutex_unlock(&in.mu);
}

// Frees what arrived in the inbox; with wait, until every handoff has.
void Drain(Inbox& in, bool wait) {
  pthread_mutex_lock(&in.mu);
  while (wait && in.pushed < kHandoffsPerWorker) pthread_cond_wait(&in.cv, &in.mu);
  const int pushed = in.pushed;
  pthread_mutex_unlock(&in.mu);
  for (; in.taken < pushed; ++in.taken) free(in.blocks[in.taken]);
}

void* ConcurrentWorker(void* arg) {
  const int w = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  Inbox& mine = g_inbox[w];
  Inbox& next = g_inbox[(w + 1) % kWorkers];
  void* window[kWindow] = {};
  int kept = 0;
  for (int i = 0; i < kCalls; ++i) {
    if (i % 8 == 7) {
      Push(next, handoff_block());
    } else {
      void*& slot = window[kept++ % kWindow];
      free(slot);  // free(NULL) on the first lap: not recorded
      slot = churn_block(i);
    }
    if (i % 256 == 255) Drain(mine, false);
  }
  for (void*& slot : window) free(slot);
  Drain(mine, true);
  return nullptr;
}

bool Concurrent() {
  pthread_t threads[kWorkers];
  for (int w = 0; w < kWorkers; ++w) {
    if (pthread_create(&threads[w], nullptr, ConcurrentWorker,
                       reinterpret_cast<void*>(static_cast<intptr_t>(w))) != 0) {
      return false;
    }
  }
  for (pthread_t& t : threads) pthread_join(t, nullptr);
  for (const Inbox& in : g_inbox) {
    if (in.taken != kHandoffsPerWorker) return false;
  }
  std::printf("churn: %d workers, %d calls each, %d handed over\n", kWorkers, kCalls,
              kWorkers * kHandoffsPerWorker);
  return true;
}

void* LifecycleThread(void* arg) {
  const int t = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  free(transient_block());
  void* kept = kept_block();
  if (t % 10 == 0) {
    g_kept[t] = kept;
  } else {
    free(kept);
  }
  void* result = result_block(t);
  if (t % 2 == 0) pthread_exit(result);
  return result;
}

bool Lifecycle() {
  int joined = 0;
  for (int first = 0; first < kLifecycleThreads; first += kBatch) {
    pthread_t threads[kBatch];
    for (int k = 0; k < kBatch; ++k) {
      if (pthread_create(&threads[k], nullptr, LifecycleThread,
                         reinterpret_cast<void*>(static_cast<intptr_t>(first + k))) != 0) {
        return false;
      }
    }
    for (int k = 0; k < kBatch; ++k) {
      void* result = nullptr;
      pthread_join(threads[k], &result);
      if (result == nullptr || *static_cast<int*>(result) != first + k) return false;
      free(result);
      ++joined;
    }
  }
  std::printf("churn: %d threads, %d at a time, %d kept blocks\n", joined, kBatch,
              kLifecycleThreads / 10);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "concurrent") == 0) return Concurrent() ? 0 : 1;
  if (std::strcmp(mode, "lifecycle") == 0) return Lifecycle() ? 0 : 1;
  std::fprintf(stderr, "usage: churn concurrent|lifecycle\n");
  return 2;
}
