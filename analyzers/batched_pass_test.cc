// Issue 24's point 5: events fed in runs (Analysis::OnEvents, the batched
// analyzers' OnEvents) give exactly the answers the pass gave one event at a
// time, for random programs that use every event kind, exact and sampled,
// with recording switched off and on, and stopped at a moment (--at);
// the replaced lifetime analyzer and a std::map of live blocks agree too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzers/pass_answers.h"

namespace heaprec::analyzers::testing {
namespace {

format::ProcessInfo Process(uint64_t sample_rate) {
  format::ProcessInfo p;
  p.program = "random";
  p.sample_rate = sample_rate;
  return p;
}

// What the old path answered, for checking that a program exercised what
// it should.
struct Old {
  uint64_t mismatches = 0, unknown_frees = 0, before_recording = 0, temporaries = 0;
  uint64_t leaked_blocks = 0;
  bool stopped = false, snapshots = false;
};

// The program through the old path and the new, in runs of up to max_run.
Old Compare(const std::vector<Record>& program, uint64_t sample_rate, const Moment& stop,
            size_t max_run, const std::string& where) {
  AllAnalyzers old(stop, Feed::kOneAtATime), now(stop, Feed::kInRuns);
  FeedProgram(Process(sample_rate), program, Feed::kOneAtATime, 1, 1, &old.analysis);
  FeedProgram(Process(sample_rate), program, Feed::kInRuns, 2, max_run, &now.analysis);
  ExpectSameAnswers(&old, &now, where);
  return {old.mismatches.total(),
          old.analysis.heap().unknown_frees(),
          old.analysis.heap().freed_before_recording(),
          old.summary.temporaries(),
          old.analysis.heap().live_blocks(),
          old.analysis.stopped(),
          old.at_time.watch().reached() && old.at_marker.watch().reached()};
}

TEST(BatchedPassTest, RunsAnswerAsOneEventAtATime) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<Record> program = RandomProgram(seed, {});
    for (size_t max_run : {size_t{1}, size_t{7}, size_t{1024}, size_t{5000}}) {
      const Old old = Compare(program, 0, Moment{}, max_run,
                              "seed " + std::to_string(seed) + " runs " + std::to_string(max_run));
      EXPECT_GT(old.mismatches, 0u);
      EXPECT_GT(old.unknown_frees, 0u);
      EXPECT_GT(old.temporaries, 0u);
      EXPECT_GT(old.leaked_blocks, 0u);
      EXPECT_TRUE(old.snapshots);
    }
  }
}

TEST(BatchedPassTest, ManyStacksAndLongLivedBlocks) {
  // More blocks than the nursery ring holds, many live across it.
  ProgramOptions o;
  o.events = 300000;
  o.stacks = 3000;
  Compare(RandomProgram(4, o), 0, Moment{}, 3000, "long");
}

TEST(BatchedPassTest, SampledTrace) {
  ProgramOptions o;
  o.sample_rate = 4096;
  for (uint32_t seed : {5u, 6u}) {
    Compare(RandomProgram(seed, o), o.sample_rate, Moment{}, 2000,
            "sampled seed " + std::to_string(seed));
  }
}

TEST(BatchedPassTest, RecordingSwitchedOffAndOn) {
  ProgramOptions o;
  o.switches = true;
  const Old old = Compare(RandomProgram(7, o), 0, Moment{}, 2000, "switches");
  EXPECT_GT(old.before_recording, 0u);
}

TEST(BatchedPassTest, StoppedAtAMoment) {
  const std::vector<Record> program = RandomProgram(8, {});
  Moment at_time;
  at_time.kind = Moment::Kind::kTime;
  at_time.time_ns = 2500000000;
  at_time.text = "2.5s";
  Moment at_label;
  at_label.kind = Moment::Kind::kLabel;
  at_label.label = at_label.text = "middle";
  for (size_t max_run : {size_t{1}, size_t{999}, size_t{40000}}) {
    EXPECT_TRUE(
        Compare(program, 0, at_time, max_run, "at 2.5s runs " + std::to_string(max_run)).stopped);
    EXPECT_TRUE(Compare(program, 0, at_label, max_run, "at middle runs " + std::to_string(max_run))
                    .stopped);
  }
}

// heapreplay's most common pass has the CorePass as its only analyzer, which
// then applies the events itself (CorePass::ApplyAndTake): the same live
// heap, RSS track, summary, peak and hot sites as the one-at-a-time path with
// every analyzer, exact and sampled, with recording switched off and on, and
// stopped at a moment.
TEST(BatchedPassTest, TheCorePassAloneAppliesTheEventsAsThePassWould) {
  Moment at_time;
  at_time.kind = Moment::Kind::kTime;
  at_time.time_ns = 2500000000;
  at_time.text = "2.5s";
  ProgramOptions sampled;
  sampled.sample_rate = 4096;
  ProgramOptions switches;
  switches.switches = true;
  ProgramOptions many;
  many.events = 300000;
  many.stacks = 3000;
  const struct {
    uint32_t seed;
    ProgramOptions options;
    Moment stop;
    const char* name;
  } cases[] = {{1, {}, {}, "exact"},
               {5, sampled, {}, "sampled"},
               {7, switches, {}, "switches"},
               {8, {}, at_time, "at 2.5s"},
               {4, many, {}, "long"}};
  for (const auto& c : cases) {
    const std::vector<Record> program = RandomProgram(c.seed, c.options);
    for (size_t max_run : {size_t{1}, size_t{999}, size_t{40000}}) {
      const std::string where = std::string(c.name) + " runs " + std::to_string(max_run);
      AllAnalyzers old(c.stop, Feed::kOneAtATime), alone(c.stop, Feed::kCoreAlone);
      FeedProgram(Process(c.options.sample_rate), program, Feed::kOneAtATime, 1, 1, &old.analysis);
      FeedProgram(Process(c.options.sample_rate), program, Feed::kCoreAlone, 2, max_run,
                  &alone.analysis);
      ExpectSameCoreAnswers(&old, &alone, where);
      EXPECT_GT(old.summary.temporaries(), 0u) << where;
      EXPECT_GT(old.analysis.heap().live_blocks(), 0u) << where;
    }
  }
}

}  // namespace
}  // namespace heaprec::analyzers::testing
