// SymbolTable: names the frames of a trace's stacks from the trace itself
// (stack nodes, modules and the Symbol records the recorder embedded).
// Feed it the reader's OnStackNode/OnModule/OnSymbol calls; ask for a stack's
// frames, innermost first, inlined frames expanded (the DESIGN's FRAME).
// Every frame inside a module carries the module and its offset there, so
// that a frame without a name is still told apart, and told the same in
// another run of the program (FrameName; FrameKey in diff.h). Each frame says
// whether it is the allocator (alloc_functions.h: the built-in wrappers and
// heapreplay --alloc-fn), so a site is named by its first frame outside it
// (ViaIndex).
// The frames of a return address are worked out once and kept (a site's
// stacks share most of their frames: on cppcheck's trace, naming every site
// for --json took 27% of the run, mostly matching names against the
// allocator list and formatting build-ids again); what changes an answer
// (a module, a symbol, the allocator list) empties what was kept.
// Not thread-safe, const calls included; allocates.
#ifndef HEAPREC_ANALYZERS_SYMBOL_TABLE_H_
#define HEAPREC_ANALYZERS_SYMBOL_TABLE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzers/alloc_functions.h"
#include "format/records.h"
#include "format/stack_table.h"

namespace heaprec::analyzers {

struct Frame {
  std::string function;     // "??" when unknown
  std::string file;         // empty when unknown
  uint32_t line = 0;        // 0 when unknown
  std::string module;       // the module's file name (last path component)
  uint64_t address = 0;     // the return address
  bool inlined = false;     // an inlined call inside the next frame
  std::string module_path;  // the module's path as mapped; empty when unknown
  // address - the module's load bias (format::Module::load_address): the
  // ELF virtual address `addr2line -e MODULE` takes, as glibc's
  // backtrace_symbols prints it (`git(+0x1f069)`); 0 when module is empty.
  uint64_t offset = 0;
  std::string build_id;  // the module's GNU build-id, lowercase hex; "" when none or unknown
  // The function is the allocator or one of its wrappers (AllocFunctions).
  bool allocator = false;
};

// How people see a frame: its function; for a frame without one ("??"),
// MODULE+0xOFFSET with the module's file name (`git+0x1f069`); without a
// module either, the address (`0x7f3a2c001234`).
std::string FrameName(const Frame& f);
// Whether the frame's function is known (not "??").
inline bool HasFunction(const Frame& f) { return f.function != "??"; }
// A site's "via" frame: the index of the first frame (innermost first)
// outside the allocator and its wrappers; 0 when every frame is inside (or
// there is none).
size_t ViaIndex(const std::vector<Frame>& frames);
// The same for frames as the table keeps them (SymbolTable::KeptFramesOf).
size_t ViaIndex(const std::vector<const Frame*>& frames);

class SymbolTable {
 public:
  void AddStackNode(const format::StackNode& n) { stacks_.Add(n); }
  void AddModule(const format::Module& m);
  void AddSymbol(const format::Symbol& s) {
    symbols_[s.address] = s;
    Forget();
  }
  // What Frame::allocator marks (default: AllocFunctions' built-in list).
  void SetAllocFunctions(AllocFunctions a) {
    alloc_ = std::move(a);
    Forget();
  }
  const AllocFunctions& alloc_functions() const { return alloc_; }

  // Frames of a stack id, innermost first.
  std::vector<Frame> Frames(uint32_t stack) const;
  // Frames of one return address (more than one when calls were inlined).
  std::vector<Frame> FramesOf(uint64_t address) const;
  // The same, as kept: valid until the table next changes (AddModule,
  // AddSymbol, SetAllocFunctions).
  const std::vector<Frame>& KeptFramesOf(uint64_t address) const { return Kept(address); }
  const format::StackTable& stacks() const { return stacks_; }
  const std::vector<format::Module>& modules() const { return modules_; }
  // The trace's Symbol for a return address, or nullptr.
  const format::Symbol* SymbolOf(uint64_t address) const {
    const auto it = symbols_.find(address);
    return it == symbols_.end() ? nullptr : &it->second;
  }

 private:
  const format::Module* ModuleOf(uint64_t address, uint32_t module_id) const;
  // FramesOf's answer, worked out now or kept from before.
  const std::vector<Frame>& Kept(uint64_t address) const;
  std::vector<Frame> Work(uint64_t address) const;
  void Forget() {
    if (!kept_.empty()) kept_.clear();
  }

  format::StackTable stacks_;
  std::unordered_map<uint64_t, format::Symbol> symbols_;
  std::vector<format::Module> modules_;
  AllocFunctions alloc_;
  mutable std::unordered_map<uint64_t, std::vector<Frame>> kept_;  // by return address
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SYMBOL_TABLE_H_
