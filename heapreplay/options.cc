// heapreplay's command line (options.h): one table for parsing and the help.
#include "heapreplay/options.h"

#include <algorithm>
#include <cstdlib>

#include "base/command_line.h"
#include "heapreplay/export_formats.h"

namespace heaprec::heapreplay {
namespace {

bool ParseKinds(const std::string& name, const std::string& text, analyzers::LeakKindSet* set,
                std::string* error) {
  if (analyzers::LeakKindSet::Parse(text, set, error)) return true;
  *error = name + ": " + *error;
  return false;
}

base::CommandLine Table(Options* o) {
  using base::Flag, base::Heading, base::Text, base::Value;
  analyzers::ReportOptions& r = o->report;
  base::CommandLine line;
  line.usage =
      "usage: heapreplay [analyses] [output options] TRACE\n"
      "       heapreplay [--json | --html F] TRACE TRACE... | FOLDER  (every process)";
  line.min_help_column = 19;
  line.positional = [o](const std::string& arg, std::string* error) {
    if (!o->exports.empty() && o->exports.back().file.empty()) {  // --export FORMAT FILE
      o->exports.back().file = arg;
      return true;
    }
    if (o->trace.empty()) o->trace = arg;
    o->traces.push_back(arg);
    return true;
  };
  line.rows = {
      Heading("Reads a heaprec trace (or a heaptrack recording) and answers, in one pass:"),
      Flag("--leaks",
           "blocks never freed by kind (definitely, indirectly, possibly\n"
           "lost, still reachable), by call stack, largest first",
           &r.leaks),
      Flag("--peak", "the highest live heap and the stacks holding it then", &r.peak),
      Flag("--temporaries", "allocations freed with no other allocation in between",
           &r.temporaries),
      Flag("--hot", "stacks by allocation calls and bytes allocated", &r.hot),
      Flag("--histogram", "allocation sizes in power-of-two buckets", &r.histogram),
      Flag("--mismatches",
           "frees that do not match their allocation (new/free,\n"
           "new[]/delete, malloc/delete, wrong sized delete, unknown\n"
           "and double frees); free stacks need heaprec --free-stacks",
           &r.mismatches),
      Flag("--timeline", "live bytes over time: CSV on stdout (in the JSON with --json)",
           &r.timeline),
      Flag("--diff",
           "what grew, by stack: between --from A and --to B (default:\n"
           "the end), or from --base OTHER.zst to this trace",
           &o->diff),
      Value("--from", "MOMENT", "", &o->from),  // explained by --diff
      Value("--to", "MOMENT", "", &o->to),
      Value("--base", "OTHER.zst", "", &o->base),
      Value("--at", "MOMENT",
            "answer as of a moment instead of the end: a marker label\n"
            "(heaprec_mark, or signal-N) or a time (1.5s, 250ms, 40us)",
            &o->at),
      Text("With no analysis named: the summary and the top sites of hot, temporaries,\n"
           "peak and leaks."),
      Flag("--index",
           "write TRACE.hri, checkpoints that let --at, --from/--to and\n"
           "--leaks skip to the moment asked (made by itself for traces\n"
           "of 16 MiB and more); alone, only that",
           &o->index),
      Flag("--no-index", "neither use nor write TRACE.hri", &o->no_index),
      Value("--debug-dir", "DIR",
            "name frames the trace left unnamed from the files in DIR:\n"
            "DIR/.build-id/xx/rest[.debug], a .gnu_debuglink name, the\n"
            "module's file name or path (repeatable, or DIR:DIR; then\n"
            "/usr/lib/debug)",
            [o](const std::string&, const std::string& v, std::string* error) {
              size_t start = 0;
              while (start <= v.size()) {
                const size_t colon = std::min(v.find(':', start), v.size());
                if (colon > start) o->debug_dirs.push_back(v.substr(start, colon - start));
                start = colon + 1;
              }
              if (v.empty()) *error = "--debug-dir needs a directory";
              return !v.empty();
            }),
      Value("--alloc-fn", "NAME[,NAME...]",
            "fold these functions (your malloc wrappers) into the allocator:\n"
            "a site is named by its first frame outside them, its \"via\"\n"
            "(repeatable; malloc & co, operator new, strdup and the C++\n"
            "library's allocate helpers are built in)",
            [o](const std::string&, const std::string& v, std::string* error) {
              return o->alloc_functions.AddList(v, error);
            }),
      Heading("Leak check (valgrind memcheck's kinds and spellings; the trace's leak scan):"),
      Value("--leak-kinds, --show-leak-kinds", "SET",
            "the kinds whose sites --leaks lists and draws: a comma\n"
            "list of definite, indirect, possible, reachable, or all\n"
            "(default definite,possible)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseKinds(name, v, &o->report.leak_kinds, error);
            }),
      Value("--suppressions", "FILE",
            "valgrind (Memcheck:Leak) or LeakSanitizer (leak:) suppressions;\n"
            "matching sites count as suppressed (repeatable)",
            [o](const std::string&, const std::string& v, std::string*) {
              o->suppressions.push_back(v);
              return true;
            }),
      Value("--error-exitcode", "N",
            "exit with N when a kind of --errors-for-leak-kinds has bytes\n"
            "after suppressions (default 0: the usual status)",
            [o](const std::string&, const std::string& v, std::string* error) {
              char* end = nullptr;
              const long n = std::strtol(v.c_str(), &end, 10);
              if (v.empty() || *end != '\0' || n < 0 || n > 255) {
                *error = "--error-exitcode needs a number from 0 to 255, not '" + v + "'";
                return false;
              }
              o->error_exitcode = static_cast<int>(n);
              return true;
            }),
      Value("--errors-for-leak-kinds", "SET",
            "the kinds that count for --error-exitcode (default\n"
            "definite,possible)",
            [o](const std::string& name, const std::string& v, std::string* error) {
              return ParseKinds(name, v, &o->errors_for, error);
            }),
      Heading("Output (text by default):"),
      Flag("--json", "one JSON object on stdout", &o->json),
      Value("--top", "N", "functions and call stacks shown in text (default 10; 0 = all)",
            [o](const std::string&, const std::string& v, std::string* error) {
              char* end = nullptr;
              const unsigned long n = std::strtoul(v.c_str(), &end, 10);
              if (v.empty() || *end != '\0' || v[0] == '-') {
                *error = "--top needs a number, not '" + v + "'";
                return false;
              }
              o->report.top = n;
              return true;
            }),
      Flag("--folded", "collapsed stacks on stdout (FlameGraph, speedscope)", &o->folded),
      Value("--flamegraph", "F", "write an SVG flame graph to F", &o->flamegraph),
      Value("--metric", "M", "bytes or count, for --folded and --flamegraph (default bytes)",
            [o](const std::string&, const std::string& v, std::string* error) {
              if (v != "bytes" && v != "count") {
                *error = "--metric is bytes or count, not '" + v + "'";
                return false;
              }
              o->metric = v == "bytes" ? analyzers::Metric::kBytes : analyzers::Metric::kCount;
              o->metric_given = true;
              return true;
            }),
      Value("--pprof", "F", "write a gzipped pprof profile to F (alloc and inuse samples)",
            &o->pprof),
      Value("--html", "F",
            "write an interactive report to F: one self-contained page\n"
            "(heap over time with range selection, flame graphs, tables;\n"
            "with --base, the difference; with --bench or --bench-json\n"
            "SAVED.json, the allocator comparison; with several traces\n"
            "or a folder, every process and the process table)",
            &o->html),
      Value("--bench-json", "SAVED.json", "", &o->bench_json),  // explained by --html
      Value("--export", "FORMAT FILE",
            "write FILE in FORMAT (repeatable); the formats:\n" + ExportFormatsHelp(),
            [o](const std::string&, const std::string& v, std::string* error) {
              if (FindExportFormat(v) == nullptr) {
                *error = "--export: unknown format '" + v +
                         "' (the formats: " + ExportFormatNames() + ")";
                return false;
              }
              o->exports.push_back({v, ""});
              return true;
            }),
      Text("--folded (--export folded) and --flamegraph draw the first named of --leaks,\n"
           "--peak, --temporaries, --hot (default: --hot, i.e. every allocation).\n"
           "--html, --pprof, --flamegraph and --export write only their file unless an\n"
           "analysis or --json or --folded is named too."),
      base::FinalFlag("-h, --help", "this text", &o->help),
      base::FinalFlag("--version", "heapreplay's version", &o->version),
      Heading("Allocator comparison (replays the trace's calls, thread by thread):"),
      Flag("--bench",
           "time, peak RSS and fragmentation per allocator, each in a\n"
           "fresh process (LD_PRELOAD), against a null replay",
           &o->bench),
      Value("--allocators", "L",
            "comma-separated: glibc, tcmalloc, jemalloc, mimalloc or a\n"
            "path to an allocator .so (default: the four)",
            &o->allocators),
      Value("--repeat", "N", "runs per allocator; medians and spread (default 5)",
            [o](const std::string&, const std::string& v, std::string* error) {
              char* end = nullptr;
              const long n = std::strtol(v.c_str(), &end, 10);
              if (v.empty() || *end != '\0' || n < 1 || n > 1000) {
                *error = "--repeat needs a number from 1 to 1000, not '" + v + "'";
                return false;
              }
              o->repeat = static_cast<int>(n);
              return true;
            }),
      Value("--touch", "T", "page (one write per page, default), full or none", &o->touch),
      Value("--plot", "F",
            "write an SVG of live bytes and each allocator's RSS\n"
            "against the operation index to F",
            &o->plot),
  };
  return line;
}

bool EndsWith(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// No trace was given: when an option took it as its value ("--html T.zst"),
// what that option takes, else that a trace is missing.
std::string MissingTrace(const Options& o) {
  const struct {
    const char* name;
    const std::string& value;
    const char* takes;
    const char* example;
  } files[] = {
      {"--html", o.html, "the page to write", "--html OUT.html"},
      {"--pprof", o.pprof, "the profile to write", "--pprof OUT.pb.gz"},
      {"--flamegraph", o.flamegraph, "the SVG to write", "--flamegraph OUT.svg"},
      {"--plot", o.plot, "the SVG to write", "--bench --plot OUT.svg"},
      {"--bench-json", o.bench_json, "the saved --bench --json results",
       "--html OUT.html --bench-json SAVED.json"},
      {"--base", o.base, "the trace to compare with", "--base OLD.zst"},
  };
  for (const Options::Export& e : o.exports) {
    if (e.file.empty() || EndsWith(e.file, ".zst")) {
      return "--export takes a format and the file to write, then the trace: heapreplay --export " +
             e.format + " OUT T.zst";
    }
  }
  for (const auto& f : files) {
    if (!EndsWith(f.value, ".zst")) continue;
    return std::string(f.name) + " takes " + f.takes + ", then the trace: heapreplay " + f.example +
           " T.zst";
  }
  return "no trace given (usage: heapreplay [analyses] [output options] TRACE)";
}

}  // namespace

std::string UsageText() {
  Options unused;
  return base::Usage(Table(&unused));
}

bool ParseOptions(int argc, char** argv, Options* o, std::string* error) {
  base::ParseError e;
  if (!base::Parse(Table(o), argc, argv, &e)) {
    // Where the line does not show the way itself, the help does.
    const bool lost = e.kind == base::ParseError::Kind::kMissingValue ||
                      (e.kind == base::ParseError::Kind::kUnknownOption && e.nearest.empty());
    *error = e.message + (lost ? " (see heapreplay --help)" : "");
    return false;
  }
  if (o->help || o->version) return true;
  analyzers::ReportOptions& r = o->report;
  for (const Options::Export& x : o->exports) {
    if (x.file.empty()) {
      *error = "--export " + x.format + " needs a file: heapreplay --export " + x.format +
               " OUT.zst TRACE";
      return false;
    }
  }
  if (o->trace.empty()) {
    *error = MissingTrace(*o);
    return false;
  }
  const bool folded_export =
      std::any_of(o->exports.begin(), o->exports.end(),
                  [](const Options::Export& e) { return e.format == "folded"; });
  const bool analysis_named = r.leaks || r.peak || r.temporaries || r.hot || r.histogram ||
                              r.mismatches || r.timeline || o->diff || !o->from.empty() ||
                              !o->to.empty() || (!o->base.empty() && o->html.empty());
  const bool files =
      !o->html.empty() || !o->pprof.empty() || !o->flamegraph.empty() || !o->exports.empty();
  const bool index_alone = o->index && !analysis_named && !o->json && !o->folded && !files;
  o->report_to_stdout = analysis_named || o->json || o->folded || (!files && !index_alone);
  if (o->index && o->no_index) {
    *error = "--index and --no-index do not mix";
    return false;
  }
  if ((!o->from.empty() || !o->to.empty() || !o->base.empty()) && !o->diff) o->diff = true;
  if (o->diff && !o->base.empty() && !o->from.empty()) {
    *error = "--diff takes --from/--to within one trace or --base, not both";
    return false;
  }
  if (o->diff && o->base.empty() && o->from.empty()) {
    *error = "--diff needs --from MOMENT (and optionally --to MOMENT) or --base OTHER.zst";
    return false;
  }
  if (o->diff && !o->at.empty()) {
    *error = "--at and --diff do not mix (use --from and --to)";
    return false;
  }
  if (o->touch != "page" && o->touch != "full" && o->touch != "none") {
    *error = "--touch is page, full or none, not '" + o->touch + "'";
    return false;
  }
  if (!o->bench_json.empty() && o->html.empty()) {
    *error = "--bench-json is for --html (it adds saved --bench --json results to the page)";
    return false;
  }
  if (!o->bench_json.empty() && o->bench) {
    *error = "--bench and --bench-json do not mix (one set of allocator results per page)";
    return false;
  }
  if (!o->html.empty() && (!o->at.empty() || !o->from.empty() || !o->to.empty())) {
    *error = "--html shows the whole trace (select a time range in the page), not --at/--from/--to";
    return false;
  }
  if (o->metric_given && !o->folded && o->flamegraph.empty() && !folded_export) {
    *error = "--metric is for --folded, --export folded and --flamegraph";
    return false;
  }
  r.overview = !(r.leaks || r.peak || r.temporaries || r.hot || r.histogram || r.mismatches ||
                 r.timeline || o->diff || index_alone);
  return true;
}

}  // namespace heaprec::heapreplay
