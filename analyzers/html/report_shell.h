// The HTML report's page shell: web/report.html with the CSS, the libraries
// and the app's scripts inlined at build time (embed_page.cc generates the
// definition), and one data placeholder, "/*@HEAPREC_DATA@*/", left for
// HtmlPage (html_page.h). Constant data; thread-safe.
#ifndef HEAPREC_ANALYZERS_HTML_REPORT_SHELL_H_
#define HEAPREC_ANALYZERS_HTML_REPORT_SHELL_H_

#include <cstddef>

namespace heaprec::analyzers::html {

extern const char kReportShell[];
extern const size_t kReportShellSize;

}  // namespace heaprec::analyzers::html

#endif  // HEAPREC_ANALYZERS_HTML_REPORT_SHELL_H_
