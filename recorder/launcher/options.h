// heaprec's command line: `heaprec [options] [--] PROGRAM [ARGS...]`, or
// `heaprec -p PID [options]` for a running process.
// Parsing and the help text, both from one table of options
// (base/command_line.h); no side effects. Allocates; used by main().
#ifndef HEAPREC_RECORDER_LAUNCHER_OPTIONS_H_
#define HEAPREC_RECORDER_LAUNCHER_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/leak_report.h"

namespace heaprec::recorder::launcher {

struct Options {
  std::string output;  // -o; empty = heaprec.%n.%p.zst in the current folder
  unsigned depth = 256;
  bool follow = true;  // --no-follow alone: only the first process is traced
  // --follow=PATTERN, --no-follow=PATTERN (each comma-separated globs,
  // repeatable): the programs traced are those matching one of follow_only
  // (all if empty) and none of follow_skip (recorder/preload/follow.h).
  std::vector<std::string> follow_only;
  std::vector<std::string> follow_skip;
  bool quiet = false;
  bool addresses = false;    // --addresses: keep every block's address in the trace
  bool free_stacks = false;  // --free-stacks: record the call stack of frees too
  // --precise-times: program time at 1 us (recorder/preload/record_clock.h).
  bool precise_times = false;
  int mark_signal = 12;       // SIGUSR2; 0 = none
  bool leak_scan = true;      // --no-leak-scan: no reachability scan at the end
  int scan_signal = 0;        // --scan-signal: the signal that asks for a scan; 0 = none
  bool start_paused = false;  // --start-paused: allocations not recorded until switched on
  int switch_signal = 0;      // --switch-signal: each delivery toggles recording; 0 = none
  // --sample-rate: mean bytes between recorded allocations; 0 = every call.
  uint64_t sample_rate = 0;
  // --start PID / --stop PID: switch the recording of a running traced
  // process (launcher/recording_control.h) instead of running a program.
  enum class Control { kNone, kStart, kStop };
  Control control = Control::kNone;
  int control_pid = 0;
  // The leak check (valgrind's spellings): after the program, a LEAK SUMMARY
  // per process on stderr, and exit error_exitcode when a kind of errors_for
  // has blocks after suppressions.
  enum class LeakCheck { kNo, kSummary, kFull };
  LeakCheck leak_check = LeakCheck::kNo;
  int error_exitcode = 0;
  analyzers::LeakKindSet show_kinds = analyzers::DefaultLeakKinds();
  analyzers::LeakKindSet errors_for = analyzers::DefaultLeakKinds();
  std::vector<std::string> suppressions;
  // --compare-allocators: run the program itself (not recorded) under each
  // allocator, round by round, and compare (replay/program_compare.h).
  bool compare_allocators = false;
  unsigned rounds = 10;                                         // --rounds
  std::string allocators = "glibc,tcmalloc,jemalloc,mimalloc";  // --allocators
  bool keep_output = false;                                     // --keep-output
  bool json = false;                                            // --json
  // The options given that only --compare-allocators takes, and those it
  // does not take (recording's files), for the check after parsing.
  std::vector<std::string> compare_only;
  std::vector<std::string> recording_only;
  // -p PID: record a running process instead of starting one
  // (attach_command.h), for duration_ms (0: until Ctrl-C or its end).
  int attach_pid = 0;
  uint64_t duration_ms = 0;
  bool help = false;
  bool version = false;
  std::vector<std::string> command;  // PROGRAM ARGS...
};

// Parses argv. On a usage error returns false and sets *error to one line.
bool ParseOptions(int argc, char** argv, Options* options, std::string* error);

std::string UsageText();

// "60", "60s", "500ms", "2m", "1h", "1.5s" -> *ms; false if not a time > 0.
bool ParseDuration(const std::string& text, uint64_t* ms);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_OPTIONS_H_
