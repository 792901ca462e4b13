// Reading FlameGraphSvg's output back (svg_test_reader.h).
#include "analyzers/svg_test_reader.h"

#include <utility>
#include <vector>

namespace heaprec::analyzers {
namespace {

std::string Unescape(std::string s) {
  const std::pair<std::string, std::string> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
  }
  return s;
}

std::string Between(const std::string& s, size_t from, const std::string& open,
                    const std::string& close) {
  const size_t start = s.find(open, from);
  if (start == std::string::npos) return "";
  const size_t end = s.find(close, start + open.size());
  return s.substr(start + open.size(), end - start - open.size());
}

bool IsName(const std::string& name) {
  return !name.empty() && name.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.") == std::string::npos;
}

// "" when text (character data or an attribute value) has no '<' and every
// '&' starts a known entity.
std::string TextProblem(const std::string& text) {
  for (size_t i = text.find_first_of("<&"); i != std::string::npos;
       i = text.find_first_of("<&", i + 1)) {
    if (text[i] == '<') return "raw < in text";
    const size_t end = text.find(';', i);
    const std::string name = text.substr(i + 1, end == std::string::npos ? 10 : end - i - 1);
    if (name != "amp" && name != "lt" && name != "gt" && name != "quot" && name != "apos") {
      return "unknown entity &" + name;
    }
  }
  return "";
}

// "" when attributes is a run of ` name="value"`.
std::string AttributesProblem(const std::string& attributes) {
  size_t i = 0;
  while (i < attributes.size()) {
    if (attributes[i] != ' ') return "no space before an attribute";
    const size_t eq = attributes.find("=\"", i);
    if (eq == std::string::npos || !IsName(attributes.substr(i + 1, eq - i - 1))) {
      return "bad attribute";
    }
    const size_t close = attributes.find('"', eq + 2);
    if (close == std::string::npos) return "unterminated attribute";
    if (std::string p = TextProblem(attributes.substr(eq + 2, close - eq - 2)); !p.empty()) {
      return p;
    }
    i = close + 1;
  }
  return "";
}

}  // namespace

std::vector<DrawnFrame> FramesOf(const std::string& svg) {
  std::vector<DrawnFrame> frames;
  for (size_t at = svg.find("<g class=\"f\">"); at != std::string::npos;
       at = svg.find("<g class=\"f\">", at + 1)) {
    const std::string group = svg.substr(at, svg.find("</g>", at) - at);
    DrawnFrame f;
    f.title = Unescape(Between(group, 0, "<title>", "</title>"));
    const size_t rect = group.find("<rect");
    f.x = std::stod(Between(group, rect, " x=\"", "\""));
    f.y = std::stod(Between(group, rect, " y=\"", "\""));
    f.width = std::stod(Between(group, rect, " width=\"", "\""));
    f.fill = Between(group, rect, " fill=\"", "\"");
    const size_t text = group.find("<text");
    f.label = text == std::string::npos ? "" : Unescape(Between(group, text, ">", "</text>"));
    frames.push_back(f);
  }
  return frames;
}

std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const std::string text = xml.substr(i, lt == std::string::npos ? lt : lt - i);
    if (text.find('>') != std::string::npos) return "stray > in text";
    if (std::string p = TextProblem(text); !p.empty()) return p;
    if (open.empty() && text.find_first_not_of(" \n") != std::string::npos) {
      return "text outside the root";
    }
    if (lt == std::string::npos) break;
    if (xml.compare(lt, 2, "<?") == 0 || xml.compare(lt, 9, "<![CDATA[") == 0) {
      const bool pi = xml[lt + 1] == '?';
      const size_t end = xml.find(pi ? "?>" : "]]>", lt);
      if (end == std::string::npos) return pi ? "unterminated <?" : "unterminated CDATA";
      if (!pi && open.empty()) return "CDATA outside the root";
      i = end + (pi ? 2 : 3);
      continue;
    }
    const size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag.starts_with('/')) {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched <" + tag + ">";
      open.pop_back();
      continue;
    }
    const bool empty = tag.ends_with('/');
    if (empty) tag.pop_back();
    const std::string name = tag.substr(0, tag.find(' '));
    if (!IsName(name)) return "bad tag name <" + name;
    if (open.empty() && ++roots > 1) return "second root <" + name;
    if (std::string p = AttributesProblem(tag.substr(name.size())); !p.empty()) {
      return p + " in <" + name;
    }
    if (!empty) open.push_back(name);
  }
  if (roots == 0) return "no root";
  return open.empty() ? "" : "unclosed <" + open.back();
}

}  // namespace heaprec::analyzers
