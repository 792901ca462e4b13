// Medians, the comparison table and the JSON object (bench_report.h).
#include "replay/bench_report.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "analyzers/human_bytes.h"
#include "replay/paired_report.h"

namespace heaprec::replay {

namespace {

using analyzers::HumanBytes;

std::string Printf(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

struct Column {
  const char* title;
  std::function<double(const AllocatorResult&)> value;
  std::function<std::string(double)> show;
  bool spread = false;  // show the wall-time spread beside the value
};

std::vector<Column> Columns() {
  auto ms = [](double ns) { return Printf("%.1f ms", ns / 1e6); };
  auto bytes = [](double b) { return HumanBytes(static_cast<uint64_t>(b)); };
  return {
      {"wall", [](const AllocatorResult& a) { return a.wall_ns.median; }, ms, true},
      {"cpu", [](const AllocatorResult& a) { return a.cpu_ns.median; }, ms},
      {"ns/op", [](const AllocatorResult& a) { return a.ns_per_op; },
       [](double v) { return Printf("%.1f", v); }},
      {"peak RSS", [](const AllocatorResult& a) { return a.peak_rss.median; }, bytes},
      {"end RSS", [](const AllocatorResult& a) { return a.end_rss.median; }, bytes},
      {"released", [](const AllocatorResult& a) { return a.released_rss.median; }, bytes},
      {"minor faults", [](const AllocatorResult& a) { return a.minor_faults.median; },
       [](double v) { return Printf("%.0f", v); }},
      {"frag", [](const AllocatorResult& a) { return a.fragmentation.median; },
       [](double v) { return Printf("%.2f", v); }},
  };
}

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

// glibc wherever it is in the list, else the first allocator.
const AllocatorResult* Reference(const BenchResult& r) {
  for (const AllocatorResult& a : r.allocators) {
    if (a.spec.name == "glibc") return &a;
  }
  return r.allocators.empty() ? nullptr : &r.allocators.front();
}

// The allocator with the lowest wall time below the reference's beyond
// noise, or nullptr.
const AllocatorResult* FastestBeyondNoise(const BenchResult& r) {
  std::vector<base::PairedDifference> diffs;
  for (const AllocatorResult& a : r.allocators) diffs.push_back(a.wall_diff);
  const int best = BestBeyondNoise(diffs);
  return best < 0 ? nullptr : &r.allocators[size_t(best)];
}

// The other allocators (not the reference) that the fastest does not beat
// beyond noise, paired with it run by run by the program's allocator cost
// (start-up + calls): beating the reference beyond noise does not make one
// allocator better than another that does too.
std::vector<std::string> TiedWithFastest(const BenchResult& r, const AllocatorResult& fastest) {
  std::vector<std::string> tied;
  const AllocatorResult* ref = Reference(r);
  for (const AllocatorResult& a : r.allocators) {
    if (&a == &fastest || &a == ref) continue;
    std::vector<double> d;
    for (size_t i = 0; i < a.runs.size() && i < fastest.runs.size(); ++i) {
      d.push_back(
          (double(WithStartupWallNs(a.runs[i])) - double(WithStartupWallNs(fastest.runs[i]))) /
          1e9);
    }
    if (base::DescribeDifferences(d).noise) tied.push_back(a.spec.name);
  }
  return tied;
}

std::string DifferencesText(const BenchResult& r) {
  const AllocatorResult* ref = Reference(r);
  if (ref == nullptr || r.allocators.size() < 2 || r.stats.ops == 0) return "";
  std::string out = "\nvs " + ref->spec.name + ", run by run (X - " + ref->spec.name + ": " +
                    DifferenceMethodText(ref->runs.size()) + "):\n";
  for (const AllocatorResult& a : r.allocators) {
    if (&a == ref) continue;
    out += "  " + a.spec.name + "\n";
    auto startup = [](const base::PairedDifference& d) {
      return ", including start-up (" + SignedAmount(d.median, Unit::kSeconds) + ")";
    };
    out += "    wall      " + DifferenceText(a.wall_diff, Unit::kSeconds) +
           startup(a.startup_diff) + "\n";
    out += "    cpu       " + DifferenceText(a.cpu_diff, Unit::kSeconds) +
           startup(a.startup_cpu_diff) + "\n";
    out += "    peak RSS  " + DifferenceText(a.peak_rss_diff, Unit::kBytes) + "\n";
  }
  if (ref->runs.size() < 2) {
    out += "one run each: no interval, nothing told apart from noise (--repeat 2 or more)\n";
  } else if (const AllocatorResult* fastest = FastestBeyondNoise(r)) {
    std::string tie;
    for (const std::string& name : TiedWithFastest(r, *fastest)) {
      tie += (tie.empty() ? "; tied within noise with " : ", ") + name;
    }
    out += "fastest beyond noise: " + fastest->spec.name + ", saves " +
           SignedAmount(-fastest->wall_diff.median, Unit::kSeconds).substr(1) +
           " of allocator time (wall, start-up + replayed calls) against " + ref->spec.name + tie +
           "\n";
  } else {
    out += "fastest: no allocator is faster than " + ref->spec.name + " beyond noise\n";
  }
  return out;
}

}  // namespace

const char kReplayCannotSee[] =
    "A replay times the allocator's start-up and calls alone: it cannot see the allocator's effect "
    "on the "
    "program's own code (cache locality of the blocks it hands out) nor the program's compute "
    "between calls, so savings here are allocator time, not the program's. For a program that "
    "can run again (tests, batch jobs, benchmarks), `heaprec --compare-allocators ./app args` "
    "runs the real program under each allocator.";

Stat Summarize(std::vector<double> v) {
  Stat s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

void Summarize(BenchResult* r) {
  for (AllocatorResult& a : r->allocators) {
    auto stat = [&](auto field) {
      std::vector<double> v;
      for (const RunSample& s : a.runs) v.push_back(field(s));
      return Summarize(v);
    };
    a.wall_ns = stat([](const RunSample& s) { return double(s.wall_ns); });
    a.cpu_ns = stat([](const RunSample& s) { return double(s.cpu_ns); });
    a.minor_faults = stat([](const RunSample& s) { return double(s.minor_faults); });
    // Start-up plus growth; at least 0 (an allocator that starts smaller than
    // glibc and grows less than that difference).
    auto with_startup = [](const RunSample& s, uint64_t growth) {
      return std::max(0.0, double(StartupRss(s)) + double(growth));
    };
    a.startup_rss = stat([](const RunSample& s) { return double(StartupRss(s)); });
    a.peak_rss = stat([&](const RunSample& s) { return with_startup(s, s.peak_rss); });
    a.end_rss = stat([&](const RunSample& s) { return with_startup(s, s.end_rss); });
    a.released_rss = stat([&](const RunSample& s) { return with_startup(s, s.released_rss); });
    a.replay_peak_rss = stat([](const RunSample& s) { return double(s.peak_rss); });
    const double live = double(r->stats.peak_live_bytes);
    a.fragmentation =
        stat([&](const RunSample& s) { return live > 0 ? double(s.peak_rss) / live : 0.0; });
    a.ns_per_op = r->stats.ops > 0 ? a.wall_ns.median / double(r->stats.ops) : 0;
    a.startup_ns = stat([](const RunSample& s) { return double(StartupNs(s)); });
    a.startup_cpu_ns = stat([](const RunSample& s) { return double(StartupCpuNs(s)); });
    a.with_startup_wall_ns = stat([](const RunSample& s) { return double(WithStartupWallNs(s)); });
    a.with_startup_cpu_ns = stat([](const RunSample& s) { return double(WithStartupCpuNs(s)); });
  }
  const AllocatorResult* ref = Reference(*r);
  if (ref == nullptr) return;
  r->reference = ref->spec.name;
  auto values = [](const AllocatorResult& a, auto field) {
    std::vector<double> v;
    for (const RunSample& s : a.runs) v.push_back(field(s));
    return v;
  };
  // The program's allocator cost: start-up + calls (bench_sample.h).
  const auto wall = [](const RunSample& s) { return double(WithStartupWallNs(s)) / 1e9; };
  const auto cpu = [](const RunSample& s) { return double(WithStartupCpuNs(s)) / 1e9; };
  const auto rss = [](const RunSample& s) { return double(s.peak_rss); };
  const auto startup = [](const RunSample& s) { return double(StartupNs(s)) / 1e9; };
  const auto startup_cpu = [](const RunSample& s) { return double(StartupCpuNs(s)) / 1e9; };
  for (AllocatorResult& a : r->allocators) {
    if (&a == ref) continue;
    a.wall_diff = base::ComparePaired(values(a, wall), values(*ref, wall));
    a.cpu_diff = base::ComparePaired(values(a, cpu), values(*ref, cpu));
    a.peak_rss_diff = base::ComparePaired(values(a, rss), values(*ref, rss));
    a.startup_diff = base::ComparePaired(values(a, startup), values(*ref, startup));
    a.startup_cpu_diff = base::ComparePaired(values(a, startup_cpu), values(*ref, startup_cpu));
  }
}

std::string BenchText(const BenchResult& r) {
  const CompileStats& st = r.stats;
  std::string out = "heapreplay --bench " + r.trace + "\n";
  out += std::to_string(st.ops) + " ops on " + std::to_string(st.threads) +
         " thread(s), peak live " + HumanBytes(st.peak_live_bytes) + " (" +
         std::to_string(st.peak_live_bytes) + " bytes); medians of " + std::to_string(r.repeat) +
         " run(s), touch " + r.touch + "\n";
  out += "skipped: " + std::to_string(st.unknown_frees) + " frees of blocks not live, " +
         std::to_string(st.failed_calls) + " failed calls; " + std::to_string(st.unknown_reallocs) +
         " reallocs of unknown blocks replayed as malloc; " +
         std::to_string(st.cross_thread_waits) + " frees or reallocs of another thread's block (" +
         std::to_string(st.wait_points) + " waits once merged)\n";
  if (st.ops == 0) out += "nothing to replay: the trace holds no allocation or free\n";
  const AllocatorResult* base = nullptr;
  for (const AllocatorResult& a : r.allocators) {
    if (a.spec.name == "glibc") base = &a;
  }
  if (base == nullptr && !r.allocators.empty()) base = &r.allocators.front();
  out += "replayer's own cost (null): " + Printf("%.1f ms", r.null_wall_ns.median / 1e6);
  if (base != nullptr && base->wall_ns.median > 0 && st.ops > 0) {
    out += Printf(" = %.1f%%", 100 * r.null_wall_ns.median / base->wall_ns.median) + " of " +
           base->spec.name + "'s wall time";
  }
  out += "\nRSS = the allocator's start-up memory + what the replay grew it by; start-up:";
  for (const AllocatorResult& a : r.allocators) {
    const double b = a.startup_rss.median;
    out += " " + a.spec.name + " " + (b < 0 ? "-" : "") +
           HumanBytes(static_cast<uint64_t>(b < 0 ? -b : b));
  }
  out +=
      "\n(its anonymous memory before the first call beyond glibc's, plus its library's pages);\n"
      "start-up time (loading, relocating and initialising the allocator, paid by every run of "
      "the program;\nthe worker's time from spawn to its first malloc beyond the null worker's):";
  for (const AllocatorResult& a : r.allocators) {
    out += " " + a.spec.name + " " + Printf("%+.2f ms", a.startup_ns.median / 1e6);
  }
  out +=
      "\nwall, cpu = the replayed calls; the differences below add start-up, run by run;\n"
      "frag = the replay's peak RSS growth / peak live bytes;\n" +
      std::string("x = ratio to ") + (base ? base->spec.name : "?") +
      ", * = best in the column (lowest); wall +-% = (max - min) / median\n\n";

  const std::vector<Column> columns = Columns();
  const size_t name_width = 12, width = 22;
  out += Pad("allocator", name_width);
  for (const Column& c : columns) out += Pad(c.title, width);
  out += "\n";
  for (const AllocatorResult& a : r.allocators) {
    out += Pad(a.spec.name, name_width);
    for (const Column& c : columns) {
      const double v = c.value(a);
      double best = v;
      for (const AllocatorResult& o : r.allocators) best = std::min(best, c.value(o));
      std::string cell = c.show(v);
      if (c.spread) cell += Printf(" +-%.0f%%", a.wall_ns.SpreadPercent());
      const double b = base ? c.value(*base) : 0;
      cell += b > 0 ? Printf(" %.2fx", v / b) : std::string(" -");
      if (v == best) cell += "*";
      out += Pad(cell, width);
    }
    out += "\n";
  }
  out += DifferencesText(r);
  if (st.ops > 0) out += "\n" + WrapText(kReplayCannotSee, 100);
  return out;
}

nlohmann::json BenchJson(const BenchResult& r) {
  nlohmann::json allocators = nlohmann::json::array();
  for (const AllocatorResult& a : r.allocators) {
    allocators.push_back({
        {"name", a.spec.name},
        {"wall_s", a.wall_ns.median / 1e9},
        {"cpu_s", a.cpu_ns.median / 1e9},
        {"ns_per_op", a.ns_per_op},
        {"startup_s", a.startup_ns.median / 1e9},
        {"startup_cpu_s", a.startup_cpu_ns.median / 1e9},
        {"with_startup_wall_s", a.with_startup_wall_ns.median / 1e9},
        {"with_startup_cpu_s", a.with_startup_cpu_ns.median / 1e9},
        {"peak_rss_bytes", static_cast<uint64_t>(a.peak_rss.median)},
        {"startup_rss_bytes", static_cast<int64_t>(a.startup_rss.median)},
        {"replay_peak_rss_bytes", static_cast<uint64_t>(a.replay_peak_rss.median)},
        {"fragmentation", a.fragmentation.median},
        {"end_rss_bytes", static_cast<uint64_t>(a.end_rss.median)},
        {"released_rss_bytes", static_cast<uint64_t>(a.released_rss.median)},
        {"minor_faults", static_cast<uint64_t>(a.minor_faults.median)},
        {"wall_s_min", a.wall_ns.min / 1e9},
        {"wall_s_max", a.wall_ns.max / 1e9},
        {"peak_rss_bytes_min", static_cast<uint64_t>(a.peak_rss.min)},
        {"peak_rss_bytes_max", static_cast<uint64_t>(a.peak_rss.max)},
        {"runs", a.runs.size()},
        {"library",
         a.spec.library.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.spec.library)},
        {"malloc_object", a.runs.empty() ? "" : a.runs.front().malloc_object},
        {"release", a.runs.empty() ? "" : a.runs.front().release},
        {"vs_reference",
         a.wall_diff.pairs == 0
             ? nlohmann::json(nullptr)
             : nlohmann::json{{"wall_s", DifferenceJson(a.wall_diff)},
                              {"cpu_s", DifferenceJson(a.cpu_diff)},
                              {"peak_rss_bytes", DifferenceJson(a.peak_rss_diff)},
                              {"startup_s", DifferenceJson(a.startup_diff)},
                              {"startup_cpu_s", DifferenceJson(a.startup_cpu_diff)}}},
    });
  }
  const AllocatorResult* fastest = FastestBeyondNoise(r);
  const CompileStats& st = r.stats;
  return {{"ops", st.ops},
          {"threads", st.threads},
          {"main_thread_ops", st.main_thread_ops},
          {"peak_live_bytes", st.peak_live_bytes},
          {"null_wall_s", r.null_wall_ns.median / 1e9},
          {"repeat", r.repeat},
          {"touch", r.touch},
          {"unknown_frees", st.unknown_frees},
          {"failed_calls", st.failed_calls},
          {"unknown_reallocs", st.unknown_reallocs},
          {"cross_thread_waits", st.cross_thread_waits},
          {"wait_points", st.wait_points},
          {"allocators", allocators},
          {"reference", r.reference},
          {"difference", DifferenceMethodJson()},
          {"fastest_beyond_noise",
           fastest ? nlohmann::json(fastest->spec.name) : nlohmann::json(nullptr)},
          {"fastest_tied_with",
           fastest ? nlohmann::json(TiedWithFastest(r, *fastest)) : nlohmann::json::array()},
          {"replay_cannot_see", kReplayCannotSee}};
}

}  // namespace heaprec::replay
