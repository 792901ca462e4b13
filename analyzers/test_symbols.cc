// TestSymbols (test_symbols.h).
#include "analyzers/test_symbols.h"

namespace heaprec::analyzers {

void TestSymbols::AddModule(uint32_t id, const std::string& path, uint64_t start, uint64_t end) {
  format::Module m;
  m.id = id;
  m.path = path;
  m.load_address = start;
  m.ranges.push_back({start, end, 0});
  table_.AddModule(m);
}

void TestSymbols::AddSymbol(uint64_t address, uint32_t module,
                            std::vector<format::SourceFrame> frames) {
  table_.AddSymbol({address, module, std::move(frames)});
}

uint32_t TestSymbols::Stack(const std::vector<uint64_t>& outermost_first) {
  uint32_t id = 0;
  for (const uint64_t address : outermost_first) {
    auto [it, added] = nodes_.try_emplace({id, address}, 0);
    if (added) {
      it->second = static_cast<uint32_t>(nodes_.size());  // ids 1, 2, 3...
      table_.AddStackNode({it->second, id, address});
    }
    id = it->second;
  }
  return id;
}

uint32_t TestSymbols::RandomStack(std::mt19937_64& rng, const std::vector<uint64_t>& addresses,
                                  size_t max_depth) {
  std::vector<uint64_t> stack(1 + rng() % max_depth);
  for (uint64_t& a : stack) a = addresses[rng() % addresses.size()];
  return Stack(stack);
}

}  // namespace heaprec::analyzers
