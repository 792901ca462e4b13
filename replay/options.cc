// heapreplay's command line (options.h).
#include "replay/options.h"

#include <cstdlib>
#include <utility>
#include <vector>

namespace heaprec::replay {

const char kUsage[] =
    "usage: heapreplay [analyses] [output options] TRACE\n"
    "\n"
    "Reads a trace written by heaprec and answers, in one pass:\n"
    "  --leaks          blocks never freed, by call stack, largest first\n"
    "  --peak           the highest live heap and the stacks holding it then\n"
    "  --temporaries    allocations freed with no other allocation in between\n"
    "  --hot            stacks by allocation calls and bytes allocated\n"
    "  --histogram      allocation sizes in power-of-two buckets\n"
    "  --mismatches     frees that do not match their allocation (new/free,\n"
    "                   new[]/delete, malloc/delete, wrong sized delete, unknown\n"
    "                   and double frees); free stacks need heaprec --free-stacks\n"
    "  --timeline       live bytes over time: CSV on stdout (in the JSON with --json)\n"
    "  --diff           what grew, by stack: between --from A and --to B (default:\n"
    "                   the end), or from --base OTHER.zst to this trace\n"
    "  --at MOMENT      answer as of a moment instead of the end: a marker label\n"
    "                   (heaprec_mark, or signal-N) or a time (1.5s, 250ms, 40us)\n"
    "With no analysis named: the summary and the top sites of hot, temporaries,\n"
    "peak and leaks.\n"
    "\n"
    "Output (text by default):\n"
    "  --json           one JSON object on stdout\n"
    "  --top N          functions and call stacks shown in text (default 10; 0 = all)\n"
    "  --folded         collapsed stacks on stdout (FlameGraph, speedscope)\n"
    "  --flamegraph F   write an SVG flame graph to F\n"
    "  --metric M       bytes or count, for --folded and --flamegraph (default bytes)\n"
    "  --pprof F        write a gzipped pprof profile to F (alloc and inuse samples)\n"
    "  --html F         write an interactive report to F: one self-contained page\n"
    "                   (heap over time with range selection, flame graphs, tables;\n"
    "                   with --base, the difference; with --bench or --bench-json\n"
    "                   SAVED.json, the allocator comparison)\n"
    "--folded and --flamegraph draw the first named of --leaks, --peak,\n"
    "--temporaries, --hot (default: --hot, i.e. every allocation).\n"
    "  -h, --help       this text\n"
    "\n"
    "Allocator comparison (replays the trace's calls, thread by thread):\n"
    "  --bench          time, peak RSS and fragmentation per allocator, each in a\n"
    "                   fresh process (LD_PRELOAD), against a null replay\n"
    "  --allocators L   comma-separated: glibc, tcmalloc, jemalloc, mimalloc or a\n"
    "                   path to an allocator .so (default: the four)\n"
    "  --repeat N       runs per allocator; medians and spread (default 5)\n"
    "  --touch T        page (one write per page, default), full or none\n"
    "  --plot F         write an SVG of live bytes and each allocator's RSS\n"
    "                   against the operation index to F\n";

namespace {

// "--name=value" or "--name value".
bool TakeValue(int argc, char** argv, int* i, const std::string& arg, const std::string& name,
               std::string* value, std::string* error) {
  if (arg.size() > name.size() && arg.compare(0, name.size() + 1, name + "=") == 0) {
    *value = arg.substr(name.size() + 1);
    return true;
  }
  if (*i + 1 >= argc) {
    *error = name + " needs a value";
    return false;
  }
  *value = argv[++*i];
  return true;
}

bool IsOption(const std::string& arg, const std::string& name) {
  return arg == name || arg.compare(0, name.size() + 1, name + "=") == 0;
}

}  // namespace

bool ParseOptions(int argc, char** argv, Options* o, std::string* error) {
  analyzers::ReportOptions& r = o->report;
  // Options whose value is kept as given.
  const std::pair<const char*, std::string*> text_options[] = {{"--flamegraph", &o->flamegraph},
                                                               {"--pprof", &o->pprof},
                                                               {"--html", &o->html},
                                                               {"--bench-json", &o->bench_json},
                                                               {"--at", &o->at},
                                                               {"--from", &o->from},
                                                               {"--to", &o->to},
                                                               {"--base", &o->base},
                                                               {"--allocators", &o->allocators},
                                                               {"--touch", &o->touch},
                                                               {"--plot", &o->plot}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string v;
    bool taken = false;
    for (const auto& [name, value] : text_options) {
      if (!IsOption(arg, name)) continue;
      if (!TakeValue(argc, argv, &i, arg, name, value, error)) return false;
      taken = true;
    }
    if (taken) continue;
    if (arg == "-h" || arg == "--help") {
      o->help = true;
      return true;
    } else if (arg == "--leaks") {
      r.leaks = true;
    } else if (arg == "--peak") {
      r.peak = true;
    } else if (arg == "--temporaries") {
      r.temporaries = true;
    } else if (arg == "--hot") {
      r.hot = true;
    } else if (arg == "--histogram") {
      r.histogram = true;
    } else if (arg == "--mismatches") {
      r.mismatches = true;
    } else if (arg == "--timeline") {
      r.timeline = true;
    } else if (arg == "--diff") {
      o->diff = true;
    } else if (arg == "--json") {
      o->json = true;
    } else if (arg == "--folded") {
      o->folded = true;
    } else if (arg == "--bench") {
      o->bench = true;
    } else if (IsOption(arg, "--repeat")) {
      if (!TakeValue(argc, argv, &i, arg, "--repeat", &v, error)) return false;
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 1000) {
        *error = "--repeat needs a number from 1 to 1000, not '" + v + "'";
        return false;
      }
      o->repeat = static_cast<int>(n);
    } else if (IsOption(arg, "--top")) {
      if (!TakeValue(argc, argv, &i, arg, "--top", &v, error)) return false;
      char* end = nullptr;
      const unsigned long n = std::strtoul(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || v[0] == '-') {
        *error = "--top needs a number, not '" + v + "'";
        return false;
      }
      r.top = n;
    } else if (IsOption(arg, "--metric")) {
      if (!TakeValue(argc, argv, &i, arg, "--metric", &v, error)) return false;
      if (v != "bytes" && v != "count") {
        *error = "--metric is bytes or count, not '" + v + "'";
        return false;
      }
      o->metric = v == "bytes" ? analyzers::Metric::kBytes : analyzers::Metric::kCount;
      o->metric_given = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      *error = "unknown option '" + arg + "'";
      return false;
    } else if (o->trace.empty()) {
      o->trace = arg;
    } else {
      *error = "more than one trace given ('" + o->trace + "' and '" + arg + "')";
      return false;
    }
  }
  if (o->trace.empty()) {
    *error = "no trace given";
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
  if (o->metric_given && !o->folded && o->flamegraph.empty()) {
    *error = "--metric is for --folded and --flamegraph";
    return false;
  }
  r.overview = !(r.leaks || r.peak || r.temporaries || r.hot || r.histogram || r.mismatches ||
                 r.timeline || o->diff);
  return true;
}

}  // namespace heaprec::replay
