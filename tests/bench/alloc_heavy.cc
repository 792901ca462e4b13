// Benchmark workload (a): allocation-heavy, single-threaded C++.
//
// Each round builds a std::map<std::string, std::vector<int>> of `keys`
// entries and destroys it. Every entry costs several small allocations, made
// through call chains of varying depth so that the trace holds a few dozen
// distinct stacks rather than one:
//   - the key: a std::string longer than the small-string buffer, grown by
//     appends (two allocations, the first freed by the second);
//   - the map node (one);
//   - the value vector, grown by push_back (about log2(n) + 1);
//   - a temporary lookup string (one, freed at once).
// With the defaults (40 rounds of 10000 keys) that is about 3.6 million
// allocations and as many frees; it runs in well under a second untraced.
// (Small maps keep the time in the allocator rather than in cache misses.)
//
// usage: alloc_heavy [ROUNDS [KEYS]]; prints a checksum so that nothing is
// optimised away.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using Map = std::map<std::string, std::vector<int>>;

__attribute__((noinline)) std::string MakeKey(uint32_t i) {
  std::string key = std::to_string(i * 2654435761u);  // short: no allocation
  key += "/a-key-longer-than-15-bytes";               // one allocation
  key += "/and-longer-still-so-it-grows";             // another one
  return key;
}

__attribute__((noinline)) void AddValues(std::vector<int>& values, uint32_t i) {
  const uint32_t n = 4 + i % 29;
  for (uint32_t k = 0; k < n; ++k) values.push_back(static_cast<int>(i ^ k));
}

// Inserts key i, reached through `depth` extra frames, so that the call
// stacks of the allocations differ with i.
__attribute__((noinline)) void Insert(Map& map, uint32_t i, uint32_t depth) {
  if (depth > 0) {
    Insert(map, i, depth - 1);
    asm volatile("" ::: "memory");  // keeps the recursion a real call
    return;
  }
  std::vector<int>& values = map[MakeKey(i)];
  AddValues(values, i);
}

__attribute__((noinline)) uint64_t Lookups(const Map& map, uint32_t keys) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < keys; i += 3) {
    const std::string key = MakeKey(i);  // a temporary, freed at once
    const auto it = map.find(key);
    if (it != map.end()) sum += it->second.size();
  }
  return sum;
}

__attribute__((noinline)) uint64_t Round(uint32_t round, uint32_t keys) {
  Map map;
  for (uint32_t i = 0; i < keys; ++i) Insert(map, i + round, i % 8);
  uint64_t sum = Lookups(map, keys);
  for (const auto& [key, values] : map) sum += key.size() + static_cast<uint64_t>(values.back());
  return sum;  // the map and everything in it is freed here
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t rounds = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 40;
  const uint32_t keys =
      argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 10000;
  uint64_t sum = 0;
  for (uint32_t r = 0; r < rounds; ++r) sum += Round(r, keys);
  std::printf("alloc_heavy: %u rounds of %u keys, checksum %llu\n", rounds, keys,
              static_cast<unsigned long long>(sum));
  return 0;
}
