// The --plot SVG (bench_plot.h).
#include "replay/bench_plot.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "analyzers/human_bytes.h"

namespace heaprec::replay {

namespace {

constexpr double kWidth = 900, kHeight = 480, kLeft = 90, kRight = 20, kTop = 40, kBottom = 50;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

struct Scale {
  double max_ops, max_bytes;
  double X(double ops) const { return kLeft + (kWidth - kLeft - kRight) * ops / max_ops; }
  double Y(double bytes) const {
    return kHeight - kBottom - (kHeight - kTop - kBottom) * bytes / max_bytes;
  }
};

std::string Polyline(const std::vector<CurvePoint>& points, const Scale& s, const char* color,
                     double width) {
  std::string out = "<polyline fill=\"none\" stroke=\"" + std::string(color) +
                    "\" stroke-width=\"" + Num(width) + "\" points=\"";
  for (const CurvePoint& p : points)
    out += Num(s.X(double(p.ops))) + "," + Num(s.Y(double(p.bytes))) + " ";
  return out + "\"/>\n";
}

std::string Text(double x, double y, const std::string& text, const char* anchor = "start") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor + "\">" +
         Escape(text) + "</text>\n";
}

}  // namespace

std::vector<CurvePoint> ParseCurve(const std::string& text) {
  std::vector<CurvePoint> points;
  const char* p = text.c_str();
  while (*p != '\0') {
    char* end = nullptr;
    const uint64_t ops = std::strtoull(p, &end, 10);
    if (*end != ':') break;
    const uint64_t bytes = std::strtoull(end + 1, &end, 10);
    points.push_back({ops, bytes});
    p = *end == ',' ? end + 1 : end;
    if (*end != ',') break;
  }
  return points;
}

void AddCurvesJson(const BenchResult& r, const std::vector<CurvePoint>& live,
                   nlohmann::json* bench) {
  auto points = [](const std::vector<CurvePoint>& curve) {
    nlohmann::json out = nlohmann::json::array();
    for (const CurvePoint& p : curve) out.push_back({p.ops, p.bytes});
    return out;
  };
  (*bench)["live_curve"] = points(live);
  nlohmann::json& allocators = (*bench)["allocators"];
  for (size_t i = 0; i < r.allocators.size() && i < allocators.size(); ++i) {
    const AllocatorResult& a = r.allocators[i];
    if (a.runs.empty() || a.runs.front().curve.empty()) continue;
    allocators[i]["rss_curve"] = points(ParseCurve(a.runs.front().curve));
  }
}

std::string BenchPlotSvg(const BenchResult& r, const std::vector<CurvePoint>& live) {
  std::vector<std::pair<std::string, std::vector<CurvePoint>>> series;
  for (const AllocatorResult& a : r.allocators) {
    if (!a.runs.empty()) series.emplace_back(a.spec.name, ParseCurve(a.runs.front().curve));
  }
  Scale s{std::max<double>(1, double(r.stats.ops)), 1};
  for (const CurvePoint& p : live) s.max_bytes = std::max(s.max_bytes, double(p.bytes));
  for (const auto& [name, points] : series) {
    for (const CurvePoint& p : points) s.max_bytes = std::max(s.max_bytes, double(p.bytes));
  }
  s.max_bytes *= 1.05;

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) +
                    "\" height=\"" + Num(kHeight) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += Text(kWidth / 2, 20,
              "heapreplay --bench " + r.trace + ": RSS above baseline and live bytes", "middle");
  for (int i = 0; i <= 4; ++i) {  // axes, ticks and grid
    const double bytes = s.max_bytes * i / 4, ops = s.max_ops * i / 4;
    svg += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kWidth - kRight) + "\" y1=\"" +
           Num(s.Y(bytes)) + "\" y2=\"" + Num(s.Y(bytes)) + "\" stroke=\"#ddd\"/>\n";
    svg += Text(kLeft - 6, s.Y(bytes) + 4, analyzers::HumanBytes(uint64_t(bytes)), "end");
    svg += Text(s.X(ops), kHeight - kBottom + 18, std::to_string(uint64_t(ops)), "middle");
  }
  svg += Text(kWidth / 2, kHeight - 10, "operation index", "middle");
  svg += Polyline(live, s, "black", 2);
  svg += Text(kLeft + 10, kTop + 14, "live bytes requested");
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = kColors[i % std::size(kColors)];
    svg += Polyline(series[i].second, s, color, 1.5);
    svg += "<text x=\"" + Num(kLeft + 10) + "\" y=\"" + Num(kTop + 30 + 16 * double(i)) +
           "\" fill=\"" + color + "\">" + Escape(series[i].first + " RSS") + "</text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace heaprec::replay
