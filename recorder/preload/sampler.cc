// Sampling decisions (sampler.h).
#include "recorder/preload/sampler.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

namespace heaprec::recorder::preload {

std::atomic<uint64_t> g_sample_rate{0};
__thread SamplerState t_sampler __attribute__((tls_model("initial-exec")));

namespace {

std::atomic<uint64_t> g_seed{0};  // 0: from the time and the thread id

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::atomic<uint64_t> g_threads_seeded{0};

// A fixed seed gives the k-th thread to allocate the k-th stream (the same
// sample every run of a deterministic program); else the time and the tid.
uint64_t SeedForThisThread() {
  uint64_t seed = g_seed.load(std::memory_order_relaxed);
  uint64_t salt;
  if (seed != 0) {
    salt = g_threads_seeded.fetch_add(1, std::memory_order_relaxed);
  } else {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    seed = static_cast<uint64_t>(t.tv_sec) * 1000000000ULL + static_cast<uint64_t>(t.tv_nsec);
    salt = static_cast<uint64_t>(syscall(SYS_gettid));
  }
  const uint64_t s = Mix(seed ^ Mix(salt));
  return s != 0 ? s : 1;
}

}  // namespace

void SetSampleRate(uint64_t rate, uint64_t seed) {
  g_seed.store(seed, std::memory_order_relaxed);
  g_sample_rate.store(rate, std::memory_order_release);
}

double NegLog(double u) {
  // u = m * 2^e with m in [1, 2): -ln u = -(e ln 2 + ln m), and
  // ln m = 2 atanh(t), t = (m - 1) / (m + 1) in [0, 1/3): an odd series.
  uint64_t bits;
  std::memcpy(&bits, &u, sizeof(bits));
  const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m;
  std::memcpy(&m, &bits, sizeof(m));
  const double t = (m - 1) / (m + 1);
  const double t2 = t * t;
  double series = 1.0 / 17;
  for (int k = 15; k >= 1; k -= 2) series = 1.0 / k + t2 * series;
  const double ln_m = 2 * t * series;
  return -(e * 0.6931471805599453 + ln_m);
}

uint64_t NextRandom(uint64_t* state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

uint64_t DrawCountdown(uint64_t* state, uint64_t rate) {
  // u uniform in (0, 1]: 53 random bits, plus one.
  const double u = static_cast<double>((NextRandom(state) >> 11) + 1) * 0x1p-53;
  const double bytes = NegLog(u) * static_cast<double>(rate);
  if (bytes < 1) return 1;
  if (bytes > 0x1p62) return uint64_t{1} << 62;
  return static_cast<uint64_t>(bytes);
}

bool SampleSlow(SamplerState& s, size_t size) {
  const uint64_t rate = g_sample_rate.load(std::memory_order_acquire);
  if (rate == 0) return true;  // exact mode: the countdown stays 0
  if (s.rng == 0) {
    // The thread's first allocation: its first point is drawn from here,
    // as every later one is (the process is memoryless).
    s.rng = SeedForThisThread();
    s.countdown = DrawCountdown(&s.rng, rate);
    if (size < s.countdown) {
      s.countdown -= size;
      return false;
    }
  }
  // The point falls inside this allocation: record it, and draw the next
  // point from its end (points beyond the first in one allocation do not
  // change the decision, and the process is memoryless).
  s.countdown = DrawCountdown(&s.rng, rate);
  return true;
}

}  // namespace heaprec::recorder::preload
