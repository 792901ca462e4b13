// seq_switch: the main thread records alone, then a second thread starts
// recording while the main thread is in the middle of its allocation loop
// (tests/seq_switch_test.cc). The recorder counts seqs with plain stores while
// one thread records and switches to a shared counter when a second one
// claims a ring: this program makes that switch happen mid-loop and hands
// blocks both ways across it.
//   main:   solo_block() x 40000 (malloc(48)); after the first 20000 it lets
//           the helper start, and goes on allocating;
//   helper: frees the first 20000 solo blocks, then helper_block() x 10000
//           (malloc(80)), which main frees after joining it;
//   both:   once the helper is done with the above, churn_block() x 50000
//           each at the same time (malloc(16), freed at once), so that two
//           threads take seqs concurrently;
//   main:   frees the helper blocks and its last 20000 solo blocks.
// Nothing leaks; every free follows its allocation in the trace.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace {

constexpr int kSolo = 40000;
constexpr int kHelper = 10000;
constexpr int kChurn = 50000;

void* g_solo[kSolo];
void* g_helper[kHelper];
std::atomic<int> g_go{0};
std::atomic<int> g_churn{0};

}  // namespace

__attribute__((noinline)) void* solo_block() { return malloc(48); }

__attribute__((noinline)) void* helper_block() { return malloc(80); }

__attribute__((noinline)) void* churn_block() { return malloc(16); }

void Churn() {
  g_churn.fetch_add(1);
  while (g_churn.load() < 2) {
  }
  for (int i = 0; i < kChurn; ++i) free(churn_block());
}

int main() {
  std::thread helper([] {
    while (g_go.load(std::memory_order_acquire) == 0) {
    }
    for (int i = 0; i < kSolo / 2; ++i) free(g_solo[i]);  // its first record ends solo counting
    for (int i = 0; i < kHelper; ++i) g_helper[i] = helper_block();
    Churn();
  });
  for (int i = 0; i < kSolo; ++i) {
    g_solo[i] = solo_block();
    if (i == kSolo / 2 - 1) g_go.store(1, std::memory_order_release);
  }
  Churn();
  helper.join();
  for (int i = 0; i < kHelper; ++i) free(g_helper[i]);
  for (int i = kSolo / 2; i < kSolo; ++i) free(g_solo[i]);
  std::printf("seq_switch: %d solo blocks, %d helper blocks, %d churned by each\n", kSolo, kHelper,
              kChurn);
  return 0;
}
