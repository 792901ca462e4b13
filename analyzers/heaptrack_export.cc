// heapreplay --export heaptrack (heaptrack_export.h).
#include "analyzers/heaptrack_export.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace heaprec::analyzers {

void HeaptrackExport::OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap&) {
  if (c.released == 0 && c.made == 0) return;
  writer_.Time(e.time_ns / 1000000);
  // Trace indices are stack ids: Write adds the stacks in id order. A free
  // of a block the trace never saw made (released 0) has no line, as
  // heaptrack writes none for a pointer it does not know; so every info is
  // first used by a + line (heaptrack_writer.h says why that matters).
  if (c.released != 0) {
    writer_.Free(writer_.InfoOf(c.released_block.size, c.released_block.stack));
  }
  if (c.made != 0) writer_.Allocate(writer_.InfoOf(c.made_block.size, c.made_block.stack));
}

uint32_t HeaptrackExport::PageSize() const {
  const std::optional<format::ProcessInfo>& p = pass_.process();
  // heaptrack's I line needs one: the common 4 KiB when the trace has none.
  return p && p->page_size != 0 ? p->page_size : 4096;
}

void HeaptrackExport::OnRssSample(const format::RssSample& s, const LiveHeap&) {
  writer_.Time(s.time_ns / 1000000);
  const uint64_t page = PageSize();
  writer_.Rss(s.total_bytes() / page + (s.total_bytes() % page != 0 ? 1 : 0));
}

bool HeaptrackExport::Write(const std::string& path, std::string* error) {
  const Analysis& a = pass_;
  if (a.heap().sampled()) {
    *error = path +
             ": --export heaptrack: the trace is a sample (heaprec --sample-rate) and "
             "heaptrack's format has no weights for its allocations";
    return false;
  }
  const SymbolTable& symbols = a.symbols();
  const format::StackTable& stacks = symbols.stacks();
  std::unordered_map<uint64_t, uint64_t> ips;  // return address -> ip index
  for (uint32_t id = 1; id <= stacks.size(); ++id) {
    const uint64_t address = stacks.Address(id);
    if (const auto known = ips.find(address); known != ips.end()) {
      writer_.AddTrace(known->second, stacks.Parent(id));
      continue;
    }
    const std::vector<Frame> frames = symbols.FramesOf(address);
    std::vector<format::HeaptrackFrame> out;
    for (const Frame& f : frames) {
      out.push_back(
          {HasFunction(f) ? writer_.AddString(f.function) : 0, writer_.AddString(f.file), f.line});
    }
    const uint64_t module = frames.empty() ? 0 : writer_.AddString(frames[0].module_path);
    const uint64_t ip = writer_.AddIp(address, module, out);
    ips.emplace(address, ip);
    writer_.AddTrace(ip, stacks.Parent(id));
  }
  writer_.SetProcess(a.CommandLine(), PageSize(), !a.heap().RecordedWholeLife());
  return writer_.WriteFile(path, error);
}

}  // namespace heaprec::analyzers
