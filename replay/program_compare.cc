// The program run under each allocator, round by round (program_compare.h).
#include "replay/program_compare.h"

#include <algorithm>
#include <cstdio>

#include "analyzers/human_bytes.h"
#include "replay/paired_report.h"

namespace heaprec::replay {
namespace {

const char kWhatThisIs[] =
    "These are runs of the real program: for a program that runs the same way each time (tests, "
    "batch jobs, benchmarks) this is the answer; for a service, record it with heaprec and "
    "replay its allocations (heapreplay --bench).";

std::string Duration(double s) {
  char buf[32];
  if (s >= 1) {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  }
  return buf;
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

const char* OutputWords(ProgramOutput o) {
  switch (o) {
    case ProgramOutput::kDiscard:
      return "its output went to /dev/null (--keep-output keeps it)";
    case ProgramOutput::kKeep:
      return "its output was kept";
    case ProgramOutput::kToStderr:
      return "its output went to stderr (stdout holds the JSON)";
  }
  return "";
}

const char* OutputKey(ProgramOutput o) {
  return o == ProgramOutput::kDiscard ? "discarded" : o == ProgramOutput::kKeep ? "kept" : "stderr";
}

// Index of the best beyond noise by one measure, or -1.
int Best(const CompareResult& r, base::PairedDifference AllocatorRuns::*diff) {
  std::vector<base::PairedDifference> diffs;
  for (const AllocatorRuns& a : r.allocators) diffs.push_back(a.*diff);
  return BestBeyondNoise(diffs);
}

// One run's value by the measure a difference is of.
double Measure(const ProgramRun& run, base::PairedDifference AllocatorRuns::*diff) {
  if (diff == &AllocatorRuns::cpu_diff) return run.cpu_s;
  if (diff == &AllocatorRuns::rss_diff) return double(run.max_rss_bytes);
  return run.wall_s;
}

// The other allocators (not the reference) that best does not beat beyond
// noise, paired with it round by round as with the reference: beating glibc
// beyond noise does not make an allocator better than another that also
// does.
std::vector<std::string> TiedWithBest(const CompareResult& r, int best,
                                      base::PairedDifference AllocatorRuns::*diff) {
  std::vector<std::string> tied;
  const AllocatorRuns& b = r.allocators[size_t(best)];
  for (size_t j = 0; j < r.allocators.size(); ++j) {
    const AllocatorRuns& a = r.allocators[j];
    if (int(j) == best || j == r.reference) continue;
    std::vector<double> d;
    for (size_t i = 0; i < a.runs.size() && i < b.runs.size(); ++i) {
      if (a.failed[i] || b.failed[i]) continue;
      d.push_back(Measure(a.runs[i], diff) - Measure(b.runs[i], diff));
    }
    if (base::DescribeDifferences(d).noise) tied.push_back(a.spec.name);
  }
  return tied;
}

std::string BestLine(const CompareResult& r, const char* what,
                     base::PairedDifference AllocatorRuns::*diff, double AllocatorRuns::*median,
                     Unit unit) {
  const AllocatorRuns& ref = r.allocators[r.reference];
  const int best = Best(r, diff);
  if (best < 0) {
    return std::string(what) + ": no allocator beats " + ref.spec.name + " beyond noise\n";
  }
  const AllocatorRuns& a = r.allocators[size_t(best)];
  const double saved = -(a.*diff).median;
  char share[48] = "";
  if (ref.*median > 0) std::snprintf(share, sizeof share, " (%.1f%%)", 100 * saved / (ref.*median));
  const std::string of =
      unit == Unit::kSeconds ? Duration(ref.*median) : analyzers::HumanBytes(uint64_t(ref.*median));
  std::string tie;
  for (const std::string& name : TiedWithBest(r, best, diff)) {
    tie += (tie.empty() ? "; tied within noise with " : ", ") + name;
  }
  return std::string(what) + ": " + a.spec.name + ", saves " + SignedAmount(saved, unit).substr(1) +
         " of " + ref.spec.name + "'s " + of + share + tie + "\n";
}

}  // namespace

int AllocatorRuns::FailedRuns() const {
  int n = 0;
  for (bool f : failed) n += f;
  return n;
}

bool CompareResult::AnyFailed() const {
  for (const AllocatorRuns& a : allocators) {
    if (a.FailedRuns() > 0) return true;
  }
  return false;
}

std::vector<size_t> RoundOrder(size_t n, int round) {
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) order.push_back((i + size_t(round)) % n);
  return order;
}

bool CompareAllocators(const CompareOptions& o, CompareResult* r, std::string* error,
                       const std::function<void(int)>& progress) {
  r->command = o.command;
  r->rounds = o.rounds;
  r->output = o.output;
  r->allocators.clear();
  r->reference = 0;
  for (size_t i = 0; i < o.allocators.size(); ++i) {
    r->allocators.push_back({o.allocators[i]});
    if (o.allocators[i].name == "glibc" && o.allocators[r->reference].name != "glibc") {
      r->reference = i;
    }
  }
  for (int round = 0; round < o.rounds; ++round) {
    if (progress) progress(round);
    const std::vector<size_t> order = RoundOrder(r->allocators.size(), round);
    r->orders.push_back(order);
    for (size_t i : order) {
      ProgramRun run;
      if (!RunProgramOnce(o.command, r->allocators[i].spec, o.output, &run, error)) return false;
      r->allocators[i].runs.push_back(run);
    }
  }
  SummarizeRuns(r);
  return true;
}

void SummarizeRuns(CompareResult* r) {
  const AllocatorRuns& ref = r->allocators[r->reference];
  for (AllocatorRuns& a : r->allocators) {
    a.failed.assign(a.runs.size(), false);
    std::vector<double> wall, cpu, rss;
    std::vector<double> dwall, dcpu, drss;
    for (size_t i = 0; i < a.runs.size(); ++i) {
      const ProgramRun& x = a.runs[i];
      const bool have_ref = i < ref.runs.size();
      a.failed[i] = have_ref && x.exit_code != ref.runs[i].exit_code;
      if (a.failed[i]) continue;
      wall.push_back(x.wall_s);
      cpu.push_back(x.cpu_s);
      rss.push_back(double(x.max_rss_bytes));
      if (&a == &ref || !have_ref) continue;
      const ProgramRun& y = ref.runs[i];
      dwall.push_back(x.wall_s - y.wall_s);
      dcpu.push_back(x.cpu_s - y.cpu_s);
      drss.push_back(double(x.max_rss_bytes) - double(y.max_rss_bytes));
    }
    a.wall_s = base::Median(wall);
    a.cpu_s = base::Median(cpu);
    a.max_rss_bytes = base::Median(rss);
    if (&a == &ref) continue;
    a.wall_diff = base::DescribeDifferences(dwall);
    a.cpu_diff = base::DescribeDifferences(dcpu);
    a.rss_diff = base::DescribeDifferences(drss);
  }
}

std::string CompareText(const CompareResult& r) {
  std::string command;
  for (const std::string& a : r.command) command += (command.empty() ? "" : " ") + a;
  std::string out = "heaprec --compare-allocators: " + command + "\n";
  out += "the real program, " + std::to_string(r.rounds) +
         " run(s) under each allocator, interleaved (order rotated each round);\n" +
         OutputWords(r.output) + "; stdin /dev/null\n\n";
  out += Pad("allocator", 12) + Pad("wall", 14) + Pad("cpu", 14) + Pad("max RSS", 14) +
         Pad("runs", 6) + "failed\n";
  for (const AllocatorRuns& a : r.allocators) {
    out += Pad(a.spec.name, 12) + Pad(Duration(a.wall_s), 14) + Pad(Duration(a.cpu_s), 14) +
           Pad(analyzers::HumanBytes(uint64_t(a.max_rss_bytes)), 14) +
           Pad(std::to_string(a.runs.size()), 6) + std::to_string(a.FailedRuns()) + "\n";
  }
  out += "(medians over the runs that did not fail)\n";
  const AllocatorRuns& ref = r.allocators[r.reference];
  if (r.allocators.size() > 1) {
    out += "\nvs " + ref.spec.name + ", round by round (X - " + ref.spec.name + ": " +
           DifferenceMethodText(ref.runs.size()) + "):\n";
    for (const AllocatorRuns& a : r.allocators) {
      if (&a == &ref) continue;
      out += "  " + a.spec.name + "\n";
      out += "    wall      " + DifferenceText(a.wall_diff, Unit::kSeconds) + "\n";
      out += "    cpu       " + DifferenceText(a.cpu_diff, Unit::kSeconds) + "\n";
      out += "    max RSS   " + DifferenceText(a.rss_diff, Unit::kBytes) + "\n";
    }
    if (r.rounds < 2) {
      out += "one round: no interval, nothing told apart from noise (--rounds 2 or more)\n";
    } else {
      out += BestLine(r, "fastest beyond noise (wall)", &AllocatorRuns::wall_diff,
                      &AllocatorRuns::wall_s, Unit::kSeconds);
      out += BestLine(r, "least CPU beyond noise", &AllocatorRuns::cpu_diff, &AllocatorRuns::cpu_s,
                      Unit::kSeconds);
      out += BestLine(r, "smallest beyond noise (max RSS)", &AllocatorRuns::rss_diff,
                      &AllocatorRuns::max_rss_bytes, Unit::kBytes);
    }
  }
  if (r.AnyFailed()) {
    out += "\nfailed runs (exit code not " + ref.spec.name + "'s in the same round):\n";
    for (const AllocatorRuns& a : r.allocators) {
      for (size_t i = 0; i < a.runs.size(); ++i) {
        if (!a.failed[i]) continue;
        out += "  " + a.spec.name + ", round " + std::to_string(i + 1) + ": exit " +
               std::to_string(a.runs[i].exit_code) + " (" + ref.spec.name + ": exit " +
               std::to_string(ref.runs[i].exit_code) + ")\n";
      }
    }
  }
  out += "\n" + WrapText(kWhatThisIs, 100);
  return out;
}

nlohmann::json CompareJson(const CompareResult& r) {
  const AllocatorRuns& ref = r.allocators[r.reference];
  nlohmann::json allocators = nlohmann::json::array(), failures = nlohmann::json::array();
  for (const AllocatorRuns& a : r.allocators) {
    nlohmann::json exits = nlohmann::json::array();
    double wall_min = 0, wall_max = 0;
    bool first = true;
    for (size_t i = 0; i < a.runs.size(); ++i) {
      exits.push_back(a.runs[i].exit_code);
      if (a.failed[i]) {
        failures.push_back({{"allocator", a.spec.name},
                            {"round", i + 1},
                            {"exit_code", a.runs[i].exit_code},
                            {"reference_exit_code", ref.runs[i].exit_code}});
        continue;
      }
      wall_min = first ? a.runs[i].wall_s : std::min(wall_min, a.runs[i].wall_s);
      wall_max = first ? a.runs[i].wall_s : std::max(wall_max, a.runs[i].wall_s);
      first = false;
    }
    allocators.push_back(
        {{"name", a.spec.name},
         {"library",
          a.spec.library.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.spec.library)},
         {"runs", a.runs.size()},
         {"failed_runs", a.FailedRuns()},
         {"exit_codes", exits},
         {"wall_s", a.wall_s},
         {"cpu_s", a.cpu_s},
         {"max_rss_bytes", uint64_t(a.max_rss_bytes)},
         {"wall_s_min", wall_min},
         {"wall_s_max", wall_max},
         {"vs_reference", &a == &ref
                              ? nlohmann::json(nullptr)
                              : nlohmann::json{{"wall_s", DifferenceJson(a.wall_diff)},
                                               {"cpu_s", DifferenceJson(a.cpu_diff)},
                                               {"max_rss_bytes", DifferenceJson(a.rss_diff)}}}});
  }
  auto best = [&](base::PairedDifference AllocatorRuns::*diff) {
    const int i = Best(r, diff);
    return i < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.allocators[size_t(i)].spec.name);
  };
  auto tied = [&](base::PairedDifference AllocatorRuns::*diff) {
    const int i = Best(r, diff);
    return i < 0 ? nlohmann::json::array() : nlohmann::json(TiedWithBest(r, i, diff));
  };
  nlohmann::json orders = nlohmann::json::array();
  for (const std::vector<size_t>& order : r.orders) {
    nlohmann::json names = nlohmann::json::array();
    for (size_t i : order) names.push_back(r.allocators[i].spec.name);
    orders.push_back(names);
  }
  return {{"command", r.command},
          {"rounds", r.rounds},
          {"program_output", OutputKey(r.output)},
          {"reference", ref.spec.name},
          {"difference", DifferenceMethodJson()},
          {"allocators", allocators},
          {"fastest_beyond_noise", best(&AllocatorRuns::wall_diff)},
          {"least_cpu_beyond_noise", best(&AllocatorRuns::cpu_diff)},
          {"smallest_beyond_noise", best(&AllocatorRuns::rss_diff)},
          {"fastest_tied_with", tied(&AllocatorRuns::wall_diff)},
          {"least_cpu_tied_with", tied(&AllocatorRuns::cpu_diff)},
          {"smallest_tied_with", tied(&AllocatorRuns::rss_diff)},
          {"failures", failures},
          {"orders", orders},
          {"what_this_is", kWhatThisIs}};
}

}  // namespace heaprec::replay
