// Moments on the command line and in the event stream (moment.h).
#include "analyzers/moment.h"

#include <cmath>
#include <cstdlib>

namespace heaprec::analyzers {
namespace {

bool HasDigitsThenUnit(const std::string& t) {
  size_t i = 0;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  if (i == 0) return false;
  const std::string unit = t.substr(i);
  return unit == "s" || unit == "ms" || unit == "us" || unit == "ns";
}

}  // namespace

std::string MomentWords(const Moment& m) {
  switch (m.kind) {
    case Moment::Kind::kEnd:
      return "the end";
    case Moment::Kind::kTime:
      return m.text;
    case Moment::Kind::kLabel:
      break;
  }
  return "marker " + m.label;
}

std::optional<Moment> ParseMoment(const std::string& text, std::string* error) {
  Moment m;
  m.text = text;
  if (text.empty()) {
    *error = "an empty moment (give a marker label or a time like 1.5s)";
    return std::nullopt;
  }
  if (text == "end") return m;
  if (!HasDigitsThenUnit(text)) {
    m.kind = Moment::Kind::kLabel;
    m.label = text;
    return m;
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  if (unit != "s" && unit != "ms" && unit != "us" && unit != "ns") {
    *error = "'" + text + "' is not a time (like 1.5s, 250ms, 40us, 1000ns)";
    return std::nullopt;
  }
  const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1;
  if (end == text.c_str() || !std::isfinite(v) || v < 0 || v * scale > 1.8e19) {
    *error = "'" + text + "' is not a time (like 1.5s, 250ms, 40us, 1000ns)";
    return std::nullopt;
  }
  m.kind = Moment::Kind::kTime;
  m.time_ns = static_cast<uint64_t>(std::llround(v * scale));
  return m;
}

bool MomentWatch::Reach(uint64_t seq, uint64_t time_ns) {
  reached_ = true;
  seq_ = seq;
  time_ns_ = time_ns;
  return true;
}

bool MomentWatch::AtMarker(const format::Marker& m) {
  if (reached_ || moment_.kind != Moment::Kind::kLabel || m.label != moment_.label) return false;
  return Reach(m.seq, m.time_ns);
}

bool MomentWatch::BeforeEvent(const format::Event& e) {
  if (reached_ || moment_.kind != Moment::Kind::kTime || e.time_ns <= moment_.time_ns) return false;
  return Reach(e.seq, moment_.time_ns);
}

}  // namespace heaprec::analyzers
