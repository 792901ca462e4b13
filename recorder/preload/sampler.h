// Sampling (heaprec --sample-rate BYTES): which allocations the recorder
// records when it records a sample instead of every call. As tcmalloc and
// jemalloc do, the bytes a thread allocates are cut by a Poisson process
// with one point every `rate` bytes on average: each thread counts down the
// bytes until its next point, drawn from an exponential distribution of mean
// rate, and an allocation that reaches the point is recorded. An allocation
// of s bytes is so recorded with probability 1 - exp(-s / rate); readers
// weigh it by the inverse (format/sampling.h).
//
// The fast path (an allocation that is not sampled) is one thread-local
// subtraction: no atomics, no seq, no stack, and it runs before the re-entry
// guard. In exact mode (rate 0, the default) the countdown stays 0 and every
// allocation is recorded.
//
// Thread-safety: the countdown and the generator are the calling thread's
// own (initial-exec TLS, zero-initialized: no constructor runs); the rate is
// written once, by Initialize() before the recorder turns on (and never
// changes after). Async-signal-safe: a handler that allocates shares its
// thread's countdown, at worst redrawing it. Never allocates. Called by the
// hooks (hook_scope.h, hooks_malloc.cc).
#ifndef HEAPREC_RECORDER_PRELOAD_SAMPLER_H_
#define HEAPREC_RECORDER_PRELOAD_SAMPLER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

// The mean bytes between samples; 0 = exact mode (every call recorded).
extern std::atomic<uint64_t> g_sample_rate;

struct SamplerState {
  uint64_t countdown;  // bytes this thread may allocate before its next sample
  uint64_t rng;        // xorshift64 state; 0 = not seeded yet
};
extern __thread SamplerState t_sampler __attribute__((tls_model("initial-exec")));

// The slow path of SampleAllocation in sampling mode: a thread's first call,
// or an allocation that reached the countdown.
bool SampleSlow(SamplerState& s, size_t size);

// True: record this allocation of size bytes (always in exact mode).
__attribute__((always_inline)) inline bool SampleAllocation(size_t size) {
  SamplerState& s = t_sampler;
  if (__builtin_expect(size < s.countdown, 1)) {
    s.countdown -= size;
    return false;
  }
  // Exact mode (the countdown stays 0): every call, without a call here.
  if (g_sample_rate.load(std::memory_order_relaxed) == 0) return true;
  return SampleSlow(s, size);
}

// True in sampling mode.
inline bool Sampling() { return g_sample_rate.load(std::memory_order_acquire) != 0; }

// Sets the rate (Initialize, before recording starts); seed: the generators'
// seed, 0 = from the time and each thread's id (heaprec --sample-seed, for
// tests that need one sample every run).
void SetSampleRate(uint64_t rate, uint64_t seed);

// The math, apart for tests. -ln(u) for u in (0, 1], without libm (the
// library links none): within 1e-9.
double NegLog(double u);
// The next xorshift64 value of *state (non-zero).
uint64_t NextRandom(uint64_t* state);
// Bytes until the next sample: exponential with mean rate, at least 1.
uint64_t DrawCountdown(uint64_t* state, uint64_t rate);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_SAMPLER_H_
