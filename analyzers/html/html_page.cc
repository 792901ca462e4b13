// The report file (html_page.h).
#include "analyzers/html/html_page.h"

#include "analyzers/html/report_shell.h"

namespace heaprec::analyzers::html {

std::string ScriptSafeJson(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";  // '<' occurs only inside strings in JSON
    } else {
      out += c;
    }
  }
  return out;
}

std::string HtmlPage(const nlohmann::json& data) {
  static const std::string kMark = "/*@HEAPREC_DATA@*/";
  std::string page(kReportShell, kReportShellSize);
  const size_t at = page.find(kMark);
  page.replace(at, kMark.size(), ScriptSafeJson(data));
  return page;
}

}  // namespace heaprec::analyzers::html
