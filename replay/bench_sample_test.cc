// bench_sample: the worker's line round-trips, and an allocator's start-up
// memory is its anonymous memory beyond the reference's plus its library.
#include "replay/bench_sample.h"

#include <gtest/gtest.h>

namespace heaprec::replay {
namespace {

TEST(BenchSample, LineRoundTripsEveryField) {
  RunSample s;
  s.wall_ns = 1;
  s.cpu_ns = 2;
  s.minor_faults = 3;
  s.baseline_rss = 4;
  s.peak_rss = 5;
  s.end_rss = 6;
  s.released_rss = 7;
  s.baseline_anon_rss = 8;
  s.allocator_file_rss = 9;
  s.ready_ns = 10;
  s.ready_cpu_ns = 11;
  s.malloc_object = "/usr/lib/libx.so";
  s.release = "x()";
  s.curve = "1:2,3:4";
  RunSample back;
  ASSERT_TRUE(ParseSample(FormatSample(s), &back));
  EXPECT_EQ(FormatSample(back), FormatSample(s));
  EXPECT_EQ(back.allocator_file_rss, 9u);
  EXPECT_EQ(back.baseline_anon_rss, 8u);
  EXPECT_EQ(back.ready_ns, 10u);
  EXPECT_EQ(back.ready_cpu_ns, 11u);
  // A line without the start-up fields (an older worker) is refused.
  EXPECT_FALSE(
      ParseSample("wall_ns=1 cpu_ns=2 minor_faults=3 baseline_rss=4 peak_rss=5 "
                  "end_rss=6 released_rss=7 malloc_object=x release=y",
                  &back));
}

TEST(BenchSample, StartupIsAnonymousBeyondTheReferencePlusTheLibrary) {
  RunSample s;
  s.baseline_anon_rss = 5 << 20;
  s.allocator_file_rss = 300 << 10;
  EXPECT_EQ(StartupRss(s), 0);  // no reference
  s.reference_anon_rss = 1 << 20;
  EXPECT_EQ(StartupRss(s), (4 << 20) + (300 << 10));
  s.baseline_anon_rss = 512 << 10;  // starts smaller than glibc
  s.allocator_file_rss = 0;
  EXPECT_EQ(StartupRss(s), -(512 << 10));
}

// Start-up time: this worker's spawn-to-ready span beyond the null worker's
// of the same round; the program's allocator cost adds it to the calls.
TEST(BenchSample, StartupIsTheSpanToReadyBeyondTheReferences) {
  RunSample s;
  s.spawn_ns = 1'000'000'000;
  s.ready_ns = 1'012'000'000;  // 12 ms from spawn to the first malloc done
  s.ready_cpu_ns = 9'000'000;
  s.wall_ns = 50'000'000;
  s.cpu_ns = 49'000'000;
  EXPECT_EQ(StartupNs(s), 0);  // no reference
  EXPECT_EQ(StartupCpuNs(s), 0);
  EXPECT_EQ(WithStartupWallNs(s), 50'000'000);
  s.reference_ready_span_ns = 10'000'000;
  s.reference_ready_cpu_ns = 8'500'000;
  EXPECT_EQ(StartupNs(s), 2'000'000);
  EXPECT_EQ(StartupCpuNs(s), 500'000);
  EXPECT_EQ(WithStartupWallNs(s), 52'000'000);
  EXPECT_EQ(WithStartupCpuNs(s), 49'500'000);
  s.ready_ns = 1'009'000'000;  // started faster than the reference
  EXPECT_EQ(StartupNs(s), -1'000'000);
  EXPECT_EQ(WithStartupWallNs(s), 49'000'000);
}

}  // namespace
}  // namespace heaprec::replay
