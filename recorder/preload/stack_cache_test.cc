// StackCache never returns an id other than the one the shared table holds
// for the same frames: alternating stacks, shared outer frames, prefixes,
// deep stacks, another region, many threads, and a fork child.
#include "recorder/preload/stack_cache.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <thread>
#include <vector>

#include "recorder/preload/stack_interner.h"
#include "recorder/shared/private_region.h"

namespace heaprec::recorder::preload {
namespace {

using Region = PrivateRegion;

// A stack of `depth` frames, innermost first: the outer frames come from a
// few shared "outer" chains, the inner ones vary with seed, so that stacks
// share outer frames in many ways.
std::vector<uint64_t> MakeStack(uint32_t seed, uint32_t depth) {
  std::vector<uint64_t> frames(depth);
  const uint32_t outer = depth / 2 + seed % 3;
  for (uint32_t j = 0; j < depth; ++j) {  // j-th from the outermost
    const uint64_t f = j < outer ? 0x400000 + j * 16 + (seed % 2) * 8 : 0x500000 + seed * 64 + j;
    frames[depth - 1 - j] = f;
  }
  return frames;
}

// The id the table holds for frames (looked up without any cache), checked
// against the cached answer; also checks the entry's frames.
void ExpectSameAsTable(StackCache& cache, uint32_t generation, const RegionView& region,
                       const std::vector<uint64_t>& frames) {
  bool inserted = false;
  const auto depth = static_cast<uint32_t>(frames.size());
  const uint32_t cached =
      InternStackCached(cache, generation, region, frames.data(), depth, &inserted);
  inserted = false;
  const uint32_t plain = InternStack(region, frames.data(), depth, &inserted);
  ASSERT_FALSE(inserted);
  ASSERT_EQ(cached, plain);
  const uint64_t* entry = region.stack_arena() + cached;
  ASSERT_EQ(entry[0], HashFrames(frames.data(), depth));
  ASSERT_EQ(entry[1], depth);
  for (uint32_t i = 0; i < depth; ++i) ASSERT_EQ(entry[kStackEntryHeaderWords + i], frames[i]);
}

TEST(StackCacheTest, HashIsIncremental) {
  const std::vector<uint64_t> f = MakeStack(5, 20);
  uint64_t h = kStackHashSeed;
  for (uint32_t i = 20; i > 0; --i) h = HashStep(h, f[i - 1]);
  EXPECT_EQ(HashFinish(h, 20), HashFrames(f.data(), 20));
  EXPECT_NE(HashFrames(f.data(), 20), HashFrames(f.data(), 19));
}

TEST(StackCacheTest, KnownOuterFramesGiveTheSameIds) {
  // With known_outer up to the true count of shared outermost frames (what
  // CaptureStack passes), the ids stay the table's.
  Region r;
  StackCache cache = {};
  std::mt19937 rng(7);
  std::vector<uint64_t> prev;
  int hinted = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::vector<uint64_t> s = MakeStack(rng() % 40, 4 + rng() % 30);
    uint32_t common = 0;
    while (common < s.size() && common < prev.size() &&
           s[s.size() - 1 - common] == prev[prev.size() - 1 - common]) {
      ++common;
    }
    const uint32_t known = common == 0 ? 0 : static_cast<uint32_t>(rng() % (common + 1));
    hinted += known > 0;
    bool inserted = false;
    const auto depth = static_cast<uint32_t>(s.size());
    const uint32_t cached =
        InternStackCached(cache, 1, r.view(), s.data(), depth, &inserted, known);
    inserted = false;
    ASSERT_EQ(cached, InternStack(r.view(), s.data(), depth, &inserted)) << i;
    ASSERT_FALSE(inserted);
    prev = s;
  }
  EXPECT_GT(hinted, 1000);
}

TEST(StackCacheTest, AlternatingAndRelatedStacks) {
  Region r;
  StackCache cache = {};
  const std::vector<uint64_t> a = MakeStack(1, 12);
  const std::vector<uint64_t> b = MakeStack(2, 12);
  std::vector<uint64_t> inner_cut(a.begin() + 1, a.end());  // a without its innermost frame
  std::vector<uint64_t> outer_cut(a.begin(), a.end() - 1);  // a without its outermost frame
  std::vector<uint64_t> longer = a;
  longer.insert(longer.begin(), 0x777);  // a with one more inner frame
  std::vector<uint64_t> swapped = a;
  std::swap(swapped[3], swapped[4]);
  const std::vector<std::vector<uint64_t>> order = {
      a, b, a, a, b, b, inner_cut, a, outer_cut, a, longer, a, swapped, a, longer};
  for (int round = 0; round < 3; ++round) {
    for (const auto& s : order) ExpectSameAsTable(cache, 1, r.view(), s);
  }
  bool inserted = false;
  const uint32_t ia = InternStack(r.view(), a.data(), 12, &inserted);
  const std::vector<uint64_t>* others[] = {&b, &inner_cut, &outer_cut, &longer, &swapped};
  for (const std::vector<uint64_t>* s : others) {
    EXPECT_NE(InternStack(r.view(), s->data(), static_cast<uint32_t>(s->size()), &inserted), ia);
  }
}

TEST(StackCacheTest, RandomSequencesMatchTheTable) {
  Region r;
  StackCache cache = {};
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t depth = 1 + rng() % 40;
    ExpectSameAsTable(cache, 1, r.view(), MakeStack(rng() % 16, depth));
  }
}

TEST(StackCacheTest, ARecentEntryIsCheckedAgainstTheArena) {
  // A recent entry with a's hash but b's id (as a hash collision between two
  // stacks sharing a slot would leave it): the cache must not answer b.
  Region r;
  StackCache cache = {};
  const std::vector<uint64_t> a = MakeStack(1, 10);
  const std::vector<uint64_t> b = MakeStack(2, 10);
  const std::vector<uint64_t> c = MakeStack(3, 10);
  bool inserted = false;
  const uint32_t ia = InternStack(r.view(), a.data(), 10, &inserted);
  const uint32_t ib = InternStack(r.view(), b.data(), 10, &inserted);
  ASSERT_NE(ia, ib);
  ExpectSameAsTable(cache, 1, r.view(), c);  // the previous stack is c, not a
  const uint64_t ha = HashFrames(a.data(), 10);
  cache.recent[ha >> (64 - kRecentStackBits)] = {ha, ib, 1};
  inserted = false;
  EXPECT_EQ(InternStackCached(cache, 1, r.view(), a.data(), 10, &inserted), ia);
  EXPECT_FALSE(inserted);
  // And the honest entry it left answers the next time, after another stack.
  ExpectSameAsTable(cache, 1, r.view(), c);
  EXPECT_EQ(cache.recent[ha >> (64 - kRecentStackBits)].id, ia);
  EXPECT_EQ(InternStackCached(cache, 1, r.view(), a.data(), 10, &inserted), ia);
}

TEST(StackCacheTest, DeepStacksBypassAndReset) {
  Region r;
  StackCache cache = {};
  const std::vector<uint64_t> deep = MakeStack(3, kStackCacheFrames + 10);
  const std::vector<uint64_t> a = MakeStack(3, 20);
  ExpectSameAsTable(cache, 1, r.view(), a);
  ExpectSameAsTable(cache, 1, r.view(), deep);
  ExpectSameAsTable(cache, 1, r.view(), deep);
  ExpectSameAsTable(cache, 1, r.view(), a);
  ExpectSameAsTable(cache, 1, r.view(), a);
}

TEST(StackCacheTest, AnotherRegionIsNotAnsweredFromTheCache) {
  Region r1, r2;
  StackCache cache = {};
  const std::vector<uint64_t> filler = MakeStack(9, 7);
  bool inserted = false;
  InternStack(r2.view(), filler.data(), 7, &inserted);  // ids differ between the regions
  const std::vector<uint64_t> a = MakeStack(1, 15);
  ExpectSameAsTable(cache, 1, r1.view(), a);
  ExpectSameAsTable(cache, 2, r2.view(), a);
  ExpectSameAsTable(cache, 1, r1.view(), a);
}

TEST(StackCacheTest, ThreadsWithTheirOwnCachesAgree) {
  Region r;
  constexpr int kThreads = 4, kCalls = 20000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kCalls));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      StackCache cache = {};
      std::mt19937 rng(7);  // the same sequence in every thread
      for (int i = 0; i < kCalls; ++i) {
        const std::vector<uint64_t> s = MakeStack(rng() % 32, 1 + rng() % 30);
        bool inserted = false;
        ids[t][i] = InternStackCached(cache, 1, r.view(), s.data(), static_cast<uint32_t>(s.size()),
                                      &inserted);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::mt19937 rng(7);
  for (int i = 0; i < kCalls; ++i) {
    const std::vector<uint64_t> s = MakeStack(rng() % 32, 1 + rng() % 30);
    bool inserted = false;
    const uint32_t plain =
        InternStack(r.view(), s.data(), static_cast<uint32_t>(s.size()), &inserted);
    ASSERT_FALSE(inserted);
    for (int t = 0; t < kThreads; ++t) ASSERT_EQ(ids[t][i], plain) << t << " " << i;
  }
}

TEST(StackCacheTest, ForkChildWithNewRegion) {
  Region parent;
  StackCache cache = {};
  const std::vector<uint64_t> a = MakeStack(1, 15);
  ExpectSameAsTable(cache, 1, parent.view(), a);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Region child;  // the child's region starts empty, with a new generation
    const std::vector<uint64_t> filler = MakeStack(9, 3);
    bool inserted = false;
    InternStack(child.view(), filler.data(), 3, &inserted);
    const uint32_t got = InternStackCached(cache, 2, child.view(), a.data(), 15, &inserted);
    const uint32_t want = InternStack(child.view(), a.data(), 15, &inserted);
    _exit(got == want && got != 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ExpectSameAsTable(cache, 1, parent.view(), a);
}

}  // namespace
}  // namespace heaprec::recorder::preload
