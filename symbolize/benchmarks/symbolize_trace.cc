// symbolize_trace: times symbolizing every return address of a trace again,
// from the binaries on disk, as the launcher does when a recording ends (one
// DwarfSymbolizer, modules first, addresses in the order the trace first
// names them).
//
//   symbolize_trace TRACE [--dump]
//
// Prints the address count and the seconds the symbolizer took; with --dump,
// every address's frames too (one line a frame), so that two builds of the
// symbolizer can be compared with diff. A tool for measuring, not a test.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "format/trace_reader.h"
#include "format/trace_visitor.h"
#include "symbolize/dwarf_symbolizer.h"

namespace {

class Collect : public heaprec::format::TraceVisitor {
 public:
  void OnModule(const heaprec::format::Module& m) override { modules.push_back(m); }
  void OnStackNode(const heaprec::format::StackNode& n) override {
    if (seen_.insert(n.address).second) addresses.push_back(n.address);
  }
  std::vector<heaprec::format::Module> modules;
  std::vector<uint64_t> addresses;

 private:
  std::unordered_set<uint64_t> seen_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: symbolize_trace TRACE [--dump]\n");
    return 2;
  }
  const bool dump = argc > 2 && std::strcmp(argv[2], "--dump") == 0;
  Collect c;
  const heaprec::format::ReadResult r = heaprec::format::ReadTraceFile(argv[1], c);
  if (r.status == heaprec::format::ReadResult::kError) {
    std::fprintf(stderr, "symbolize_trace: %s\n", r.message.c_str());
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  heaprec::symbolize::DwarfSymbolizer symbolizer;
  for (const auto& m : c.modules) symbolizer.AddModule(m);
  std::vector<heaprec::format::Symbol> symbols;
  symbols.reserve(c.addresses.size());
  for (uint64_t a : c.addresses) symbols.push_back(symbolizer.Symbolize(a, 0));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu modules, %zu addresses, %.3f s\n", c.modules.size(), c.addresses.size(), s);
  if (dump) {
    for (const auto& sym : symbols) {
      for (const auto& f : sym.frames) {
        std::printf("%llx %s %s:%u:%u\n", static_cast<unsigned long long>(sym.address),
                    f.function.c_str(), f.file.c_str(), f.line, f.column);
      }
    }
  }
  return 0;
}
