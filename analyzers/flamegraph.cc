// FlameGraphSvg (flamegraph.h): lays the flame tree out and writes the SVG.
#include "analyzers/flamegraph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "analyzers/flame_colors.h"
#include "analyzers/flame_tree.h"
#include "analyzers/flamegraph_script.h"
#include "analyzers/folded_paths.h"
#include "analyzers/human_bytes.h"
#include "analyzers/svg_text.h"

namespace heaprec::analyzers {
namespace {

constexpr int kMinCanvasWidth = 200;
constexpr double kSidePad = 10;                  // px left and right of the frames
constexpr int kFrameHeight = 16;                 // px per stack level, a 1 px gap included
constexpr int kFontSize = 12;                    // px
constexpr double kCharWidth = 0.59 * kFontSize;  // px per label character (Verdana)
constexpr double kTextPad = 3;                   // px between a frame's left edge and its label
constexpr int kTextDy = 11;                      // px from a frame's top to its label's baseline
constexpr double kMinFrameWidth = 0.1;           // px; narrower frames are left out
constexpr int kBottomPad = 30;                   // px under the root, for the details line

std::string Fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// What the drawing of one graph needs to know besides the tree.
struct Canvas {
  int width = 0;
  int height = 0;
  double scale = 0;  // px per unit of value
  uint64_t total = 0;
  Metric metric = Metric::kBytes;
  std::string unit;
};

std::string ValueText(uint64_t value, const Canvas& c) {
  const double share = c.total == 0 ? 100.0 : 100.0 * value / c.total;
  const std::string percent = " (" + Fixed(share, 2) + "%)";
  if (c.metric == Metric::kCount) return std::to_string(value) + " " + c.unit + percent;
  std::string text = HumanBytes(value) + percent;
  if (value >= 1024) text += ", " + std::to_string(value) + " " + c.unit;
  return text;
}

std::string DisplayName(const PathFrame& f) {
  std::string_view name = f.name;
  if (f.inlined && name.ends_with(kInlinedSuffix)) {
    name.remove_suffix(sizeof(kInlinedSuffix) - 1);
  }
  return std::string(name);
}

// The <title>: name, value, then file:line and "(inlined)" when there are.
std::string TitleText(const FlameNode& node, const std::string& name, const Canvas& c) {
  std::string title = name + "\n" + ValueText(node.value, c);
  std::string where = node.frame.file;
  if (!where.empty() && node.frame.line != 0) where += ":" + std::to_string(node.frame.line);
  if (node.frame.inlined) where += where.empty() ? "(inlined)" : " (inlined)";
  if (!where.empty()) title += "\n" + where;
  return title;
}

bool Drawn(const FlameNode& node, const Canvas& c) {
  return node.value * c.scale >= kMinFrameWidth;
}

// Stack levels drawn at and above node (node itself drawn).
int Levels(const FlameNode& node, const Canvas& c) {
  int above = 0;
  for (const FlameNode& child : node.children) {
    if (Drawn(child, c)) above = std::max(above, Levels(child, c));
  }
  return above + 1;
}

void DrawFrame(const FlameNode& node, double x, double w, int depth, const Canvas& c,
               std::string* out) {
  const std::string name = DisplayName(node.frame);
  const int y = c.height - kBottomPad - (depth + 1) * kFrameHeight;
  *out += "<g class=\"f\"><title>" + XmlEscape(TitleText(node, name, c)) + "</title><rect x=\"" +
          Fixed(x, 2) + "\" y=\"" + std::to_string(y) + "\" width=\"" + Fixed(w, 2) +
          "\" height=\"" + std::to_string(kFrameHeight - 1) + "\" fill=\"" + FrameFill(node.frame) +
          "\"/>";
  const auto max_chars = static_cast<size_t>(std::max(0.0, (w - 2 * kTextPad) / kCharWidth));
  const std::string label = FitLabel(name, max_chars);
  if (!label.empty()) {
    *out += "<text x=\"" + Fixed(x + kTextPad, 2) + "\" y=\"" + std::to_string(y + kTextDy) +
            "\">" + XmlEscape(label) + "</text>";
  }
  *out += "</g>\n";
}

// node and its callees, left to right in name order; `offset` is the value
// left of node, so that positions never accumulate rounding errors.
void DrawTree(const FlameNode& node, uint64_t offset, int depth, const Canvas& c,
              std::string* out) {
  DrawFrame(node, kSidePad + offset * c.scale, node.value * c.scale, depth, c, out);
  for (const FlameNode& child : node.children) {
    if (Drawn(child, c)) DrawTree(child, offset, depth + 1, c, out);
    offset += child.value;
  }
}

void DrawHeader(const FlameGraphOptions& o, const Canvas& c, std::string* out) {
  const std::string w = std::to_string(c.width), h = std::to_string(c.height);
  const std::string middle = Fixed(c.width / 2.0, 1), right = Fixed(c.width - kSidePad, 1);
  const std::string bottom = std::to_string(c.height - 10);
  *out += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  *out += "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w +
          "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">\n";
  *out +=
      "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
      "</linearGradient></defs>\n";
  *out +=
      "<style>\ntext { font-family: Verdana, sans-serif; font-size: " + std::to_string(kFontSize) +
      "px; fill: rgb(0,0,0); }\n"
      "#title { text-anchor: middle; font-size: 17px; }\n"
      "#subtitle { text-anchor: middle; fill: rgb(110,110,110); }\n"
      "#search, #matched { text-anchor: end; }\n"
      ".button { cursor: pointer; opacity: 0.8; }\n.button:hover { opacity: 1; }\n"
      ".f { cursor: pointer; }\n.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
      ".hide { display: none; }\n.parent { opacity: 0.5; }\n</style>\n";
  *out +=
      "<script type=\"text/ecmascript\"><![CDATA[\n\"use strict\";\nconst LAYOUT = {charWidth: " +
      Fixed(kCharWidth, 2) + ", textPad: " + Fixed(kTextPad, 1) +
      ", textDy: " + std::to_string(kTextDy) + "};" + kFlameGraphScript + "]]></script>\n";
  *out += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h +
          "\" fill=\"url(#background)\"/>\n";
  *out += "<text id=\"title\" x=\"" + middle + "\" y=\"24\">" + XmlEscape(o.title) + "</text>\n";
  if (!o.subtitle.empty()) {
    *out += "<text id=\"subtitle\" x=\"" + middle + "\" y=\"44\">" + XmlEscape(o.subtitle) +
            "</text>\n";
  }
  *out += "<text id=\"unzoom\" class=\"button hide\" x=\"" + Fixed(kSidePad, 1) +
          "\" y=\"24\">Reset Zoom</text>\n";
  *out += "<text id=\"search\" class=\"button\" x=\"" + right + "\" y=\"24\">Search</text>\n";
  *out += "<text id=\"details\" x=\"" + Fixed(kSidePad, 1) + "\" y=\"" + bottom + "\"> </text>\n";
  *out += "<text id=\"matched\" x=\"" + right + "\" y=\"" + bottom + "\"> </text>\n";
}

}  // namespace

std::string FlameGraphSvg(const std::vector<Site>& sites, Metric metric, const SymbolTable& symbols,
                          const FlameGraphOptions& options) {
  const FlameNode root = BuildFlameTree(FoldPaths(sites, metric, symbols));
  Canvas c;
  c.width = std::max(options.width, kMinCanvasWidth);
  c.total = root.value;
  c.scale = root.value == 0 ? 0 : (c.width - 2 * kSidePad) / static_cast<double>(root.value);
  c.metric = metric;
  c.unit = !options.unit.empty()      ? options.unit
           : metric == Metric::kBytes ? "bytes"
                                      : "allocations";
  const int top = options.subtitle.empty() ? 36 : 56;
  c.height = top + Levels(root, c) * kFrameHeight + kBottomPad;

  std::string out;
  DrawHeader(options, c, &out);
  out += "<g id=\"frames\">\n";
  if (root.value == 0) {
    DrawFrame(root, kSidePad, c.width - 2 * kSidePad, 0, c, &out);
  } else {
    DrawTree(root, 0, 0, c, &out);
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace heaprec::analyzers
