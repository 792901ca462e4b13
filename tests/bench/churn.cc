// Benchmark workload (e), issue 23: a churn-like C++ program, as services
// hold their state. Each thread keeps an unordered_map<string, vector<int>>
// of up to 4,096 entries: keys of random length (8-64 characters, so many
// are heap strings), vectors of random size (0-48 ints, grown by push_back),
// and about one operation in three erases a random key. Every operation is
// made through a chain of 10-15 non-inlined calls (random), so that the
// allocations' stacks are as deep as in a real service.
//
// usage: churn [THREADS [OPS]]: OPS operations in all (default 1500000),
// split evenly over THREADS threads (default 1), each with its own map and
// random seed; the same total work whatever THREADS is. Prints a checksum.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

using Map = std::unordered_map<std::string, std::vector<int>>;

struct Rng {
  uint64_t s;
  uint64_t Next() {  // xorshift64*
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>((Next() >> 32) % n); }
};

std::string Key(Rng& rng) {
  const uint32_t id = rng.Below(4096);
  std::string key = "key-" + std::to_string(id);
  key.resize(8 + (id * 2654435761u) % 57, static_cast<char>('a' + id % 26));
  return key;
}

__attribute__((noinline)) uint64_t Operate(Map& map, Rng& rng) {
  std::string key = Key(rng);
  if (rng.Below(3) == 0) return map.erase(key);
  std::vector<int>& v = map[std::move(key)];
  const uint32_t n = rng.Below(49);
  std::vector<int> fresh;
  for (uint32_t i = 0; i < n; ++i) fresh.push_back(static_cast<int>(i));
  v.swap(fresh);
  return v.size();
}

// depth more calls, then Operate: keeps the frames the recorder walks.
__attribute__((noinline)) uint64_t Descend(Map& map, Rng& rng, int depth) {
  if (depth == 0) return Operate(map, rng);
  const uint64_t r = Descend(map, rng, depth - 1);
  asm volatile("" ::: "memory");  // no tail call: the frame stays
  return r + 1;
}

uint64_t Work(uint64_t ops, uint64_t seed) {
  Map map;
  Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
  uint64_t sum = 0;
  for (uint64_t i = 0; i < ops; ++i) sum += Descend(map, rng, 10 + rng.Below(6));
  return sum + map.size();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const uint64_t ops = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1500000;
  if (threads < 1 || threads > 64) {
    std::fprintf(stderr, "churn: THREADS must be 1..64\n");
    return 2;
  }
  std::vector<uint64_t> sums(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back([&sums, t, threads, ops] { sums[t] = Work(ops / threads, t); });
  }
  sums[0] = Work(ops / threads, 0);
  for (std::thread& t : pool) t.join();
  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
