// heaprec's command line (options.h): one table for parsing and the help.
#include "recorder/launcher/options.h"

#include <cstdlib>

#include "base/command_line.h"

namespace heaprec::recorder::launcher {
namespace {

bool ParseNumber(const std::string& text, unsigned min, unsigned max, unsigned* out) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  const unsigned v = static_cast<unsigned>(std::strtoul(text.c_str(), nullptr, 10));
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

// Bytes: digits, then K, M or G (KiB, MiB, GiB: powers of 1024) or nothing.
bool ParseBytes(const std::string& text, uint64_t* out) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) return false;
  const std::string unit = text.substr(digits);
  int shift = 0;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "K" || unit == "k" || unit == "KiB") {
    shift = 10;
  } else if (unit == "M" || unit == "MiB") {
    shift = 20;
  } else if (unit == "G" || unit == "GiB") {
    shift = 30;
  } else {
    return false;
  }
  *out = std::strtoull(text.substr(0, digits).c_str(), nullptr, 10) << shift;
  return true;
}

bool ParseKinds(const std::string& name, const std::string& text, analyzers::LeakKindSet* set,
                std::string* error) {
  if (analyzers::LeakKindSet::Parse(text, set, error)) return true;
  *error = name + ": " + *error;
  return false;
}

}  // namespace

bool ParseDuration(const std::string& text, uint64_t* ms) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1000;
  if (unit == "ms") scale = 1;
  if (unit == "m" || unit == "min") scale = 60 * 1000;
  if (unit == "h") scale = 3600 * 1000;
  if (scale == 0 || !(v > 0) || v * scale > 1e12) return false;
  *ms = static_cast<uint64_t>(v * scale + 0.5);
  return *ms > 0;
}

namespace {

bool ParseControl(const std::string& name, const std::string& v, Options::Control control,
                  Options* o, std::string* error) {
  unsigned pid = 0;
  if (!ParseNumber(v, 1, 999999999, &pid)) {
    *error = name + " takes a process id, not '" + v + "'";
    return false;
  }
  if (o->control != Options::Control::kNone) {
    *error = "give one of --start PID and --stop PID";
    return false;
  }
  o->control = control;
  o->control_pid = static_cast<int>(pid);
  return true;
}

base::CommandLine Table(Options* o) {
  using base::Flag, base::Heading, base::Value;
  base::CommandLine line;
  line.usage =
      "usage: heaprec [options] [--] PROGRAM [ARGS...]\n"
      "       heaprec -p PID [--duration TIME] [options]\n"
      "       heaprec --start PID | --stop PID";
  line.positionals = base::Positionals::kEndOptions;
  line.positional = [o](const std::string& arg, std::string*) {
    o->command.push_back(arg);
    return true;
  };
  line.align_long_names = true;
  line.rows = {
      Heading("Runs PROGRAM and records every allocation and free with its call stack.\n"
              "Each traced process (fork children, exec'd programs) writes its own trace."),
      Heading("options:"),
      Value("-o, --output", "PATH",
            "trace file; %p = pid, %n = program name\n"
            "(default heaprec.%n.%p.zst; never overwrites: a\n"
            "numeric suffix is added when the name exists)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              if (v.empty()) {
                *error = "option " + name + " needs a non-empty path";
                return false;
              }
              o->output = v;
              o->recording_only.push_back(name);
              return true;
            }),
      Value("-p, --pid", "PID",
            "record the running process PID instead (no\n"
            "restart; any dynamically linked program): until\n"
            "--duration, Ctrl-C or its end, then detach",
            [o](const std::string&, const std::string& v, std::string* error) {
              unsigned pid = 0;
              if (!ParseNumber(v, 1, 0x3fffffff, &pid)) {
                *error = "-p takes a process id, not '" + v + "'";
                return false;
              }
              o->attach_pid = static_cast<int>(pid);
              return true;
            }),
      Value("--duration", "TIME", "with -p: record for TIME (60, 60s, 500ms, 2m, 1h)",
            [o](const std::string&, const std::string& v, std::string* error) {
              if (!ParseDuration(v, &o->duration_ms)) {
                *error = "--duration takes a time such as 60s, 500ms or 2m, not '" + v + "'";
                return false;
              }
              return true;
            }),
      Value("-d, --depth", "N", "frames per stack, 1..256 (default 256)",
            [o](const std::string&, const std::string& v, std::string* error) {
              if (!ParseNumber(v, 1, 256, &o->depth)) {
                *error = "--depth takes a number from 1 to 256, not '" + v + "'";
                return false;
              }
              return true;
            }),
      base::OptionalValue("--follow", "PATTERN",
                          "trace only the programs whose file name matches a\n"
                          "glob of PATTERN (comma-separated, repeatable; default:\n"
                          "every process of the tree, fork children and exec'd\n"
                          "programs)",
                          [o](const std::string&, const std::string& v, std::string*) {
                            if (!v.empty()) o->follow_only.push_back(v);
                            return true;
                          }),
      base::OptionalValue("--no-follow", "PATTERN",
                          "alone: trace the first process only; with PATTERN:\n"
                          "not the programs matching it (e.g. sh,env,readlink);\n"
                          "their children still are",
                          [o](const std::string&, const std::string& v, std::string*) {
                            if (v.empty()) {
                              o->follow = false;
                            } else {
                              o->follow_skip.push_back(v);
                            }
                            return true;
                          }),
      Value("--mark-signal", "N",
            "signal that records a marker (default 12, SIGUSR2;\n"
            "0 = none); programs can call heaprec_mark(\"label\")",
            [o](const std::string&, const std::string& v, std::string* error) {
              unsigned sig = 0;
              if (!ParseNumber(v, 0, 64, &sig)) {
                *error = "--mark-signal takes a signal number from 0 to 64, not '" + v + "'";
                return false;
              }
              o->mark_signal = static_cast<int>(sig);
              return true;
            }),
      Value("--scan-signal", "N",
            "signal that asks for a leak scan now (and records a\n"
            "marker; default 0, none); programs can call\n"
            "heaprec_leak_check()",
            [o](const std::string&, const std::string& v, std::string* error) {
              unsigned sig = 0;
              if (!ParseNumber(v, 0, 64, &sig)) {
                *error = "--scan-signal takes a signal number from 0 to 64, not '" + v + "'";
                return false;
              }
              o->scan_signal = static_cast<int>(sig);
              return true;
            }),
      Flag("--no-leak-scan",
           "no reachability scan of the process's memory at its\n"
           "end (leaks are then every block not freed, of\n"
           "unknown kind)",
           [o] { o->leak_scan = false; }),
      Heading("recording a phase:"),
      Flag("--start-paused",
           "start with allocations not recorded (frees still are);\n"
           "switch on with heaprec --start PID or --switch-signal",
           [o] {
             o->start_paused = true;
             o->recording_only.push_back("--start-paused");
           }),
      Value("--switch-signal", "N",
            "signal whose each delivery switches the recording of\n"
            "allocations off or on (default 0, none)",
            [o](const std::string&, const std::string& v, std::string* error) {
              unsigned sig = 0;
              if (!ParseNumber(v, 0, 64, &sig)) {
                *error = "--switch-signal takes a signal number from 0 to 64, not '" + v + "'";
                return false;
              }
              o->switch_signal = static_cast<int>(sig);
              return true;
            }),
      Value("--start", "PID",
            "in a process a heaprec records (from another shell):\n"
            "record its allocations from now on (marker heaprec:start)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseControl(name, v, Options::Control::kStart, o, error);
            }),
      Value("--stop", "PID",
            "... and pause them (marker heaprec:stop; frees are still\n"
            "recorded, so blocks freed meanwhile do not leak)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseControl(name, v, Options::Control::kStop, o, error);
            }),
      Heading("leak check (valgrind memcheck's kinds and spellings):"),
      base::OptionalValue("--leak-check", "MODE",
                          "after the program, each process's LEAK SUMMARY on stderr;\n"
                          "MODE summary, or full (the default) with the loss records",
                          [o](const std::string&, const std::string& v, std::string* error) {
                            if (v.empty() || v == "full" || v == "yes") {
                              o->leak_check = Options::LeakCheck::kFull;
                            } else if (v == "summary") {
                              o->leak_check = Options::LeakCheck::kSummary;
                            } else if (v == "no") {
                              o->leak_check = Options::LeakCheck::kNo;
                            } else {
                              *error = "--leak-check is no, summary or full, not '" + v + "'";
                              return false;
                            }
                            return true;
                          }),
      Value("--error-exitcode", "N",
            "exit with N when a kind of --errors-for-leak-kinds has\n"
            "blocks after suppressions (default 0: the program's status;\n"
            "a program a signal ended keeps its status)",
            [o](const std::string&, const std::string& v, std::string* error) {
              unsigned n = 0;
              if (!ParseNumber(v, 0, 255, &n)) {
                *error = "--error-exitcode takes a number from 0 to 255, not '" + v + "'";
                return false;
              }
              o->error_exitcode = static_cast<int>(n);
              return true;
            }),
      Value("--errors-for-leak-kinds", "SET",
            "the kinds that count as errors (default definite,possible)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseKinds(name, v, &o->errors_for, error);
            }),
      Value("--show-leak-kinds, --leak-kinds", "SET",
            "the kinds whose loss records are shown (default\n"
            "definite,possible); SET: definite,indirect,possible,\n"
            "reachable, all or none",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseKinds(name, v, &o->show_kinds, error);
            }),
      Value("--suppressions", "FILE",
            "valgrind (Memcheck:Leak) or LeakSanitizer (leak:) file\n"
            "(repeatable)",
            [o](const std::string& name, const std::string& v, std::string*) {
              o->suppressions.push_back(v);
              o->recording_only.push_back(name);
              return true;
            }),
      Heading("allocator comparison (the program itself, not recorded):"),
      Flag("--compare-allocators",
           "run PROGRAM under each allocator (glibc, then\n"
           "LD_PRELOAD of tcmalloc, jemalloc, mimalloc) round by\n"
           "round, and report wall time, CPU time and max RSS with\n"
           "paired differences to glibc (90% bootstrap intervals);\n"
           "nothing is recorded; stdin and the program's output are\n"
           "/dev/null",
           &o->compare_allocators),
      Value("--rounds", "N",
            "rounds of --compare-allocators, each running every\n"
            "allocator once in a rotated order (default 10)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              if (!ParseNumber(v, 1, 1000, &o->rounds)) {
                *error = "--rounds takes a number from 1 to 1000, not '" + v + "'";
                return false;
              }
              o->compare_only.push_back(name);
              return true;
            }),
      Value("--allocators", "LIST",
            "comma-separated: glibc, tcmalloc, jemalloc, mimalloc or\n"
            "a path to an allocator's .so (default all four)",
            [o](const std::string& name, const std::string& v, std::string*) {
              o->allocators = v;
              o->compare_only.push_back(name);
              return true;
            }),
      Flag("--keep-output",
           "keep the program's stdout and stderr (to stderr with\n"
           "--json)",
           [o] {
             o->keep_output = true;
             o->compare_only.push_back("--keep-output");
           }),
      Flag("--json", "the comparison as JSON on stdout (docs/DESIGN.md)",
           [o] {
             o->json = true;
             o->compare_only.push_back("--json");
           }),
      Heading("more options:"),
      Flag("--addresses",
           "also keep every block's address (larger traces;\n"
           "frees are matched to allocations either way)",
           &o->addresses),
      Flag("--free-stacks",
           "also record the call stack of every free (for\n"
           "heapreplay --mismatches; slower)",
           &o->free_stacks),
      Flag("--precise-times",
           "event times in microseconds of each thread's own work\n"
           "(its time in the allocator and recorder taken out):\n"
           "the time between two of its calls is the program's\n"
           "work between them; two clock reads a call (slower)",
           &o->precise_times),
      Value("--sample-rate", "BYTES",
            "record a sample: one allocation per BYTES allocated on\n"
            "average (e.g. 512K, 1M; tcmalloc's and jemalloc's\n"
            "sampling), and the frees of those only; heapreplay\n"
            "scales every number by the allocations each stands for.\n"
            "Cheaper; the numbers are estimates (a site of 100 x BYTES\n"
            "has a 10% standard error; from 400 x BYTES it is within\n"
            "10% 19 times in 20); no leak scan. Default 0: every call",
            [o](const std::string& name, const std::string& v, std::string* error) {
              if (!ParseBytes(v, &o->sample_rate)) {
                *error = "--sample-rate takes bytes (524288, 512K, 512KiB, 1M), not '" + v + "'";
                return false;
              }
              o->recording_only.push_back(name);
              return true;
            }),
      Flag("-q, --quiet", "no summary line at the end", &o->quiet),
      base::FinalFlag("-h, --help", "this text", &o->help),
      base::FinalFlag("--version", "heaprec's version", &o->version),
      Heading("Then: heapreplay --leaks TRACE (see heapreplay --help)."),
  };
  return line;
}

}  // namespace

std::string UsageText() {
  Options unused;
  return base::Usage(Table(&unused));
}

bool ParseOptions(int argc, char** argv, Options* o, std::string* error) {
  base::ParseError e;
  if (!base::Parse(Table(o), argc, argv, &e)) {
    switch (e.kind) {
      case base::ParseError::Kind::kUnknownOption:
        // With a name near it, the line shows the way itself.
        *error = e.message + (e.nearest.empty() ? " (see heaprec --help)" : "");
        break;
      case base::ParseError::Kind::kMissingValue:
        *error = "option " + e.name + " needs a value (see heaprec --help)";
        break;
      default:
        *error = e.message;
    }
    return false;
  }
  if (o->help || o->version) return true;
  if (o->control != Options::Control::kNone) {
    if (!o->command.empty() || o->attach_pid != 0) {
      *error = std::string(o->control == Options::Control::kStart ? "--start" : "--stop") +
               " PID switches a process heaprec already records: it runs no program";
      return false;
    }
    return true;
  }
  if (o->attach_pid != 0) {
    if (!o->command.empty()) {
      *error = "-p records a running process: give no PROGRAM too ('" + o->command.front() + "')";
      return false;
    }
    if (o->compare_allocators) {
      *error = "--compare-allocators runs a program: it does not go with -p";
      return false;
    }
    if (o->start_paused) {
      *error = "--start-paused is for a program heaprec starts: -p records from the attach on";
      return false;
    }
    return true;
  }
  if (o->duration_ms != 0) {
    *error = "--duration goes with -p PID (a program started by heaprec records to its end)";
    return false;
  }
  if (o->command.empty()) {
    *error = "no program to run (usage: heaprec [options] [--] PROGRAM [ARGS...])";
    return false;
  }
  if (!o->compare_allocators && !o->compare_only.empty()) {
    *error = o->compare_only.front() + " goes with --compare-allocators";
    return false;
  }
  if (o->compare_allocators && !o->recording_only.empty()) {
    *error = o->recording_only.front() +
             " is for recording: --compare-allocators runs the program without recording it";
    return false;
  }
  if (o->sample_rate != 0 && (o->leak_check != Options::LeakCheck::kNo || o->scan_signal != 0)) {
    *error = std::string(o->scan_signal != 0 ? "--scan-signal" : "--leak-check") +
             " needs every allocation: a sample (--sample-rate) cannot tell lost blocks from "
             "reachable ones";
    return false;
  }
  if (!o->follow && (!o->follow_only.empty() || !o->follow_skip.empty())) {
    *error =
        "--no-follow alone traces the first process only: it does not mix with "
        "--follow=PATTERN or --no-follow=PATTERN";
    return false;
  }
  return true;
}

}  // namespace heaprec::recorder::launcher
