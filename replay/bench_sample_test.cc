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
  s.malloc_object = "/usr/lib/libx.so";
  s.release = "x()";
  s.curve = "1:2,3:4";
  RunSample back;
  ASSERT_TRUE(ParseSample(FormatSample(s), &back));
  EXPECT_EQ(FormatSample(back), FormatSample(s));
  EXPECT_EQ(back.allocator_file_rss, 9u);
  EXPECT_EQ(back.baseline_anon_rss, 8u);
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

}  // namespace
}  // namespace heaprec::replay
