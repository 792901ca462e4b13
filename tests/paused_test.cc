// Recording only a phase (tests/programs/paused.c): heaprec --start-paused,
// then `heaprec --start PID` before phase 2 and `heaprec --stop PID` before
// phase 3, run from outside as a user would (or the switch signal). The trace
// holds exactly phase 2's allocations; blocks phase 2 made and phase 3 freed
// (or realloc'd) are not leaked; frees of blocks made while not recording
// are "freed, allocated before recording", never mismatches; the two markers
// sit where the switches took effect. And --start / --stop refuse what is
// not a process heaprec records, with one line and a non-zero exit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/api.h"
#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

using format::Api;

std::string Heaprec() { return Runfile("recorder/heaprec"); }

struct PhasedRun {
  int exit_code = -1;
  std::string out, err;
  std::string trace;                    // the only trace (empty if several)
  std::vector<std::string> traces;      // every trace written
  std::vector<ProcessResult> switches;  // heaprec --start/--stop runs, in order
};

// Runs paused.c (with program_args after its folder) under heaprec with
// options; before phase 2 and before phase 3 calls switch_on(pid) /
// switch_off(pid).
template <typename On, typename Off>
PhasedRun RunPhases(const std::string& name, const std::vector<std::string>& options,
                    const std::vector<std::string>& program_args, On switch_on, Off switch_off) {
  PhasedRun run;
  const std::string dir = MakeTempDir(name);
  std::vector<std::string> argv = {Heaprec(), "-q", "-o", dir + "/trace.%p.%n.zst"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(Runfile("tests/paused"));
  argv.push_back(dir);
  argv.insert(argv.end(), program_args.begin(), program_args.end());
  const pid_t heaprec = StartInBackground(argv, dir + "/stdout", dir + "/stderr");
  EXPECT_GT(heaprec, 0);
  EXPECT_TRUE(WaitForFile(dir + "/ready2")) << ReadTextFile(dir + "/stderr");
  const int pid = std::stoi(ReadTextFile(dir + "/pid"));
  switch_on(pid, &run);
  TouchFile(dir + "/go2");
  EXPECT_TRUE(WaitForFile(dir + "/ready3"));
  switch_off(pid, &run);
  TouchFile(dir + "/go3");
  int status = 0;
  waitpid(heaprec, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = ReadTextFile(dir + "/stdout");
  run.err = ReadTextFile(dir + "/stderr");
  run.traces = ListFiles(dir, ".zst");
  if (run.traces.size() == 1) run.trace = run.traces[0];
  return run;
}

// What every run of the phases must show, however recording was switched.
void ExpectOnlyPhaseTwo(const PhasedRun& run) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "paused: ok\n");
  ASSERT_FALSE(run.trace.empty()) << Join(run.traces);
  const TraceSummary s = SummarizeTrace(run.trace);
  ExpectConsistent(s);
  EXPECT_FALSE(s.process.from_start);
  // Exactly phase 2's allocations: 4 sites, 9 calls, 7,300 bytes.
  EXPECT_EQ(s.total.usage_allocs, 9u);
  EXPECT_EQ(s.total.bytes, 7300u);
  for (const char* not_recorded :
       {"phase1_alloc", "phase1_grown", "phase3_alloc", "phase3_realloc"}) {
    EXPECT_EQ(s.Site(not_recorded), nullptr) << not_recorded;
  }
  // Made in phase 2, freed while paused in phase 3: not leaked.
  ExpectSite(s, "phase2_alloc",
             {.calls = {{Api::kMalloc, 5}},
              .allocations = 5,
              .bytes = 1000,
              .released_by = {{Api::kFree, 5}}});
  ExpectSite(s, "phase2_keep",
             {.calls = {{Api::kMalloc, 2}},
              .allocations = 2,
              .bytes = 600,
              .leaked_blocks = 2,
              .leaked_bytes = 600});
  // realloc of a phase-1 block: the old block unknown, the new one freed in phase 3.
  ExpectSite(s, "phase2_realloc",
             {.calls = {{Api::kRealloc, 1}},
              .reallocs = 1,
              .bytes = 5000,
              .released_by = {{Api::kFree, 1}}});
  // Released by phase 3's realloc, recorded while paused (its new block is not).
  ExpectSite(s, "phase2_realloced",
             {.calls = {{Api::kMalloc, 1}},
              .allocations = 1,
              .bytes = 700,
              .released_by = {{Api::kRealloc, 1}}});
  // The switches, where they took effect: start before phase 2's first
  // call, stop after its last.
  ASSERT_EQ(s.MarkerLabels(), (std::vector<std::string>{"heaprec:start", "heaprec:stop"}));
  uint64_t first = UINT64_MAX, last = 0;
  for (const char* site : {"phase2_alloc", "phase2_keep", "phase2_realloc", "phase2_realloced"}) {
    if (const SiteStats* st = s.Site(site)) {
      first = std::min(first, st->first_seq);
      last = std::max(last, st->last_seq);
    }
  }
  EXPECT_LT(s.markers[0].seq, first);
  EXPECT_GT(s.markers[1].seq, last);

  // heapreplay: 9 frees of blocks made while not recording (4 phase-1 frees,
  // phase 2's realloc of a phase-1 block, 3 phase-3 frees, the free of phase
  // 3's realloc), none a mismatch; leaks are phase 2's.
  const ProcessResult replay =
      RunProgram({Runfile("replay/heapreplay"), "--json", "--mismatches", "--leaks", run.trace});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const nlohmann::json j = nlohmann::json::parse(replay.out);
  EXPECT_EQ(j["summary"]["recorded_whole_life"], false);
  EXPECT_EQ(j["summary"]["freed_before_recording"], 9);
  EXPECT_EQ(j["summary"]["allocations"], 9);
  EXPECT_EQ(j["summary"]["frees"], 16);
  EXPECT_EQ(j["summary"]["leaked_bytes"], 600);
  EXPECT_EQ(j["summary"]["leaked_blocks"], 2);
  EXPECT_EQ(j["summary"]["peak_bytes"], 7300);
  EXPECT_EQ(j["mismatches"]["count"], 0) << j["mismatches"].dump();
  ASSERT_EQ(j["markers"].size(), 2u);
  EXPECT_EQ(j["markers"][0]["label"], "heaprec:start");
  EXPECT_EQ(j["markers"][1]["label"], "heaprec:stop");
  // The switch markers bound a range like any others.
  const ProcessResult range =
      RunProgram({Runfile("replay/heapreplay"), "--json", "--diff", "--from", "heaprec:start",
                  "--to", "heaprec:stop", run.trace});
  EXPECT_EQ(range.exit_code, 0) << range.err;
  // The text report says so in one line.
  const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), run.trace});
  EXPECT_NE(text.out.find("freed, allocated before recording: 9"), std::string::npos) << text.out;
}

TEST(PausedTest, StartAndStopFromAnotherShell) {
  const auto control = [](const char* verb) {
    return [verb](int pid, PhasedRun* run) {
      run->switches.push_back(RunProgram({Heaprec(), verb, std::to_string(pid)}));
      // Idempotent: the second says so and succeeds.
      run->switches.push_back(RunProgram({Heaprec(), verb, std::to_string(pid)}));
    };
  };
  const PhasedRun run =
      RunPhases("paused_cli", {"--start-paused"}, {}, control("--start"), control("--stop"));
  ExpectOnlyPhaseTwo(run);
  ASSERT_EQ(run.switches.size(), 4u);
  for (const ProcessResult& r : run.switches) EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(run.switches[0].out.find("recording allocations"), std::string::npos);
  EXPECT_NE(run.switches[1].out.find("already recording"), std::string::npos);
  EXPECT_NE(run.switches[2].out.find("recording paused"), std::string::npos);
  EXPECT_NE(run.switches[3].out.find("already paused"), std::string::npos);
}

TEST(PausedTest, SwitchSignalToggles) {
  const auto toggle = [](int pid, PhasedRun*) { EXPECT_EQ(kill(pid, SIGUSR1), 0); };
  ExpectOnlyPhaseTwo(
      RunPhases("paused_signal", {"--start-paused", "--switch-signal", "10"}, {}, toggle, toggle));
}

// Stopped before phase 2 (heaprec started it recording), the program forks
// a child that execs tests/markers, then execs it itself: both images start
// paused, as their predecessors were when they forked or exec'd (not as
// HEAPREC_PAUSED, which says recording), so markers' 3 allocations are not
// recorded; only phase 1's are, and the stop marker.
TEST(PausedTest, ForkAndExecStartAsTheirPredecessorWas) {
  const auto stop = [](int pid, PhasedRun* run) {
    run->switches.push_back(RunProgram({Heaprec(), "--stop", std::to_string(pid)}));
  };
  const auto nothing = [](int, PhasedRun*) {};
  const PhasedRun run =
      RunPhases("paused_exec", {}, {"exec", Runfile("tests/markers")}, stop, nothing);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "paused: ok\nmarkers: ok\nmarkers: ok\n");
  ASSERT_EQ(run.switches.size(), 1u);
  EXPECT_EQ(run.switches[0].exit_code, 0) << run.switches[0].err;
  int markers_traces = 0;
  for (const std::string& path : run.traces) {
    SCOPED_TRACE(path);
    const TraceSummary s = SummarizeTrace(path);
    ExpectConsistent(s);
    if (path.find(".paused.zst") != std::string::npos) {
      // The first image: phase 1 recorded, then stopped; its fork child
      // (same program) records nothing and starts paused.
      if (s.Site("phase1_alloc") != nullptr) {
        EXPECT_TRUE(s.process.from_start);
        EXPECT_EQ(s.Site("phase1_alloc")->allocations, 4u);
        EXPECT_EQ(s.Site("phase2_alloc"), nullptr);
        EXPECT_EQ(s.MarkerLabels(), (std::vector<std::string>{"heaprec:stop"}));
      } else {
        EXPECT_FALSE(s.process.from_start);
        EXPECT_EQ(s.total.usage_allocs, 0u);
      }
      continue;
    }
    ASSERT_NE(path.find(".markers.zst"), std::string::npos);
    ++markers_traces;
    EXPECT_FALSE(s.process.from_start);
    EXPECT_EQ(s.Site("marked_alloc"), nullptr);
    EXPECT_EQ(s.total.usage_allocs, 0u);
    // Its 3 frees are still recorded.
    EXPECT_EQ(s.total.usage_frees, 3u);
  }
  EXPECT_EQ(markers_traces, 2) << Join(run.traces);
}

TEST(PausedTest, RefusesWhatHeaprecDoesNotRecord) {
  // No such process (pid_max is at most 2^22).
  const ProcessResult gone = RunProgram({Heaprec(), "--start", "999999999"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("no such process"), std::string::npos) << gone.err;
  // A live process heaprec does not record: this test.
  const ProcessResult untraced = RunProgram({Heaprec(), "--stop", std::to_string(getpid())});
  EXPECT_EQ(untraced.exit_code, 1);
  EXPECT_NE(untraced.err.find("not recorded by heaprec"), std::string::npos) << untraced.err;
  EXPECT_EQ(untraced.out, "");
  // Not a process id, or with a program to run.
  EXPECT_EQ(RunProgram({Heaprec(), "--start", "x"}).exit_code, 2);
  EXPECT_EQ(RunProgram({Heaprec(), "--start", "1", "/bin/true"}).exit_code, 2);
}

}  // namespace
}  // namespace heaprec::tests
