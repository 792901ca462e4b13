// The worker's result line (bench_sample.h).
#include "replay/bench_sample.h"

#include <cstdlib>
#include <sstream>

namespace heaprec::replay {

std::string FormatSample(const RunSample& s) {
  std::ostringstream out;
  out << "wall_ns=" << s.wall_ns << " cpu_ns=" << s.cpu_ns << " minor_faults=" << s.minor_faults
      << " baseline_rss=" << s.baseline_rss << " peak_rss=" << s.peak_rss
      << " end_rss=" << s.end_rss << " released_rss=" << s.released_rss
      << " baseline_anon_rss=" << s.baseline_anon_rss
      << " allocator_file_rss=" << s.allocator_file_rss << " ready_ns=" << s.ready_ns
      << " ready_cpu_ns=" << s.ready_cpu_ns << " malloc_object=" << s.malloc_object
      << " release=" << s.release;
  if (!s.curve.empty()) out << " curve=" << s.curve;
  out << "\n";
  return out.str();
}

int64_t StartupRss(const RunSample& s) {
  if (s.reference_anon_rss == 0) return 0;
  return static_cast<int64_t>(s.baseline_anon_rss) - static_cast<int64_t>(s.reference_anon_rss) +
         static_cast<int64_t>(s.allocator_file_rss);
}

int64_t StartupNs(const RunSample& s) {
  if (s.reference_ready_span_ns == 0 || s.spawn_ns == 0) return 0;
  return static_cast<int64_t>(s.ready_ns - s.spawn_ns) -
         static_cast<int64_t>(s.reference_ready_span_ns);
}

int64_t StartupCpuNs(const RunSample& s) {
  if (s.reference_ready_cpu_ns == 0) return 0;
  return static_cast<int64_t>(s.ready_cpu_ns) - static_cast<int64_t>(s.reference_ready_cpu_ns);
}

int64_t WithStartupWallNs(const RunSample& s) {
  return static_cast<int64_t>(s.wall_ns) + StartupNs(s);
}

int64_t WithStartupCpuNs(const RunSample& s) {
  return static_cast<int64_t>(s.cpu_ns) + StartupCpuNs(s);
}

bool ParseSample(const std::string& line, RunSample* s) {
  std::istringstream in(line);
  std::string item;
  int numbers = 0;
  while (in >> item) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "malloc_object") {
      s->malloc_object = value;
      continue;
    }
    if (key == "curve") {
      s->curve = value == "-" ? "" : value;
      continue;
    }
    if (key == "release") {
      s->release = value;
      continue;
    }
    uint64_t* field = key == "wall_ns"              ? &s->wall_ns
                      : key == "cpu_ns"             ? &s->cpu_ns
                      : key == "minor_faults"       ? &s->minor_faults
                      : key == "baseline_rss"       ? &s->baseline_rss
                      : key == "peak_rss"           ? &s->peak_rss
                      : key == "end_rss"            ? &s->end_rss
                      : key == "released_rss"       ? &s->released_rss
                      : key == "baseline_anon_rss"  ? &s->baseline_anon_rss
                      : key == "allocator_file_rss" ? &s->allocator_file_rss
                      : key == "ready_ns"           ? &s->ready_ns
                      : key == "ready_cpu_ns"       ? &s->ready_cpu_ns
                                                    : nullptr;
    if (field == nullptr) continue;  // a newer worker's key
    *field = std::strtoull(value.c_str(), nullptr, 10);
    ++numbers;
  }
  return numbers == 11;
}

}  // namespace heaprec::replay
