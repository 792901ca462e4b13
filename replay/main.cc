// heapreplay: answers questions about a heaprec trace, offline, in one
// streaming pass. This first version: the summary and --leaks, as text or
// JSON (DESIGN.md's contract). Exit 0 on success (a truncated trace warns on
// stderr with the word "truncated"); 1 with one line naming the file for
// anything unreadable; 2 for usage errors.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analyzers/leaks.h"
#include "analyzers/report.h"
#include "analyzers/summary.h"
#include "analyzers/symbol_table.h"
#include "format/trace_reader.h"

namespace {

const char kUsage[] =
    "usage: heapreplay [--leaks] [--json] [--top N] TRACE\n"
    "\n"
    "Reads a trace written by heaprec and prints what it answers.\n"
    "  --leaks    blocks never freed, by call stack, largest first\n"
    "  --json     one JSON object on stdout instead of text\n"
    "  --top N    call stacks shown in text (default 10; 0 = all)\n"
    "  -h, --help this text\n"
    "With no analysis named, prints the summary.\n";

// Feeds one reader pass to the summary and the symbol table.
class Collector : public heaprec::format::TraceVisitor {
 public:
  void OnProcess(const heaprec::format::ProcessInfo& p) override { summary.OnProcess(p); }
  void OnModule(const heaprec::format::Module& m) override { symbols.AddModule(m); }
  void OnStackNode(const heaprec::format::StackNode& n) override { symbols.AddStackNode(n); }
  void OnSymbol(const heaprec::format::Symbol& s) override { symbols.AddSymbol(s); }
  void OnEvent(const heaprec::format::Event& e) override { summary.OnEvent(e); }
  void OnEnd(const heaprec::format::EndRecord& e) override { summary.OnEnd(e); }
  heaprec::analyzers::SummaryAnalyzer summary;
  heaprec::analyzers::SymbolTable symbols;
};

int Usage(const std::string& error) {
  std::fprintf(stderr, "heapreplay: %s (see heapreplay --help)\n", error.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  heaprec::analyzers::ReportOptions options;
  bool json = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--leaks") {
      options.leaks = true;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--top") {
      if (i + 1 >= argc) return Usage("--top needs a number");
      char* end = nullptr;
      const unsigned long n = std::strtoul(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0')
        return Usage("--top needs a number, not '" + std::string(argv[i]) + "'");
      options.top = n;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return Usage("unknown option '" + arg + "'");
    } else if (path.empty()) {
      path = arg;
    } else {
      return Usage("more than one trace given");
    }
  }
  if (path.empty()) return Usage("no trace given");

  Collector c;
  const heaprec::format::ReadResult r = heaprec::format::ReadTraceFile(path, c);
  if (r.status == heaprec::format::ReadResult::kError) {
    std::fprintf(stderr, "heapreplay: %s\n", r.message.c_str());
    return 1;
  }
  heaprec::analyzers::TraceInfo info{path, r.version,
                                     r.status == heaprec::format::ReadResult::kTruncated};
  if (info.truncated) std::fprintf(stderr, "heapreplay: warning: %s\n", r.message.c_str());
  const auto sites = heaprec::analyzers::LeakSites(c.summary.heap());
  const std::string out = json ? JsonReport(info, c.summary, sites, c.symbols, options)
                               : TextReport(info, c.summary, sites, c.symbols, options);
  std::fputs(out.c_str(), stdout);
  return 0;
}
