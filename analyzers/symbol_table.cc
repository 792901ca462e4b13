// SymbolTable: trace symbols -> frames (symbol_table.h).
#include "analyzers/symbol_table.h"

#include "analyzers/human_bytes.h"

namespace heaprec::analyzers {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The module's part of a frame: name, path, offset and build-id.
void SetModule(const format::Module* m, uint64_t address, Frame* f) {
  if (m == nullptr) return;
  f->module = BaseName(m->path);
  f->module_path = m->path;
  f->offset = address - m->load_address;
  f->build_id = HexBytes(m->build_id);
}

}  // namespace

std::string FrameName(const Frame& f) {
  if (HasFunction(f)) return f.function;
  if (f.module.empty()) return Hex(f.address);
  std::string name = f.module + "+";
  name += Hex(f.offset);
  return name;
}

namespace {

// ViaIndex's rule, for frames or pointers to them (frame(i) gives the i-th).
template <typename At>
size_t FirstOutsideAllocator(size_t n, At frame) {
  for (size_t i = 0; i < n; ++i) {
    if (!frame(i).allocator) return i;
  }
  return 0;
}

}  // namespace

size_t ViaIndex(const std::vector<Frame>& frames) {
  return FirstOutsideAllocator(frames.size(), [&](size_t i) -> const Frame& { return frames[i]; });
}

size_t ViaIndex(const std::vector<const Frame*>& frames) {
  return FirstOutsideAllocator(frames.size(), [&](size_t i) -> const Frame& { return *frames[i]; });
}

void SymbolTable::AddModule(const format::Module& m) {
  modules_.push_back(m);
  Forget();
}

const format::Module* SymbolTable::ModuleOf(uint64_t address, uint32_t module_id) const {
  for (auto it = modules_.rbegin(); it != modules_.rend(); ++it) {
    if (module_id != 0) {
      if (it->id == module_id) return &*it;
      continue;
    }
    for (const format::MappedRange& r : it->ranges) {
      if (address - 1 >= r.start && address - 1 < r.end) return &*it;
    }
  }
  return nullptr;
}

std::vector<Frame> SymbolTable::FramesOf(uint64_t address) const { return Kept(address); }

const std::vector<Frame>& SymbolTable::Kept(uint64_t address) const {
  const auto [it, fresh] = kept_.try_emplace(address);
  if (fresh) it->second = Work(address);
  return it->second;
}

std::vector<Frame> SymbolTable::Work(uint64_t address) const {
  std::vector<Frame> out;
  if (address == format::kTruncatedFrameAddress) {  // the root of a stack cut at --depth
    Frame f;
    f.function = "[truncated]";
    f.address = address;
    out.push_back(f);
    return out;
  }
  const auto it = symbols_.find(address);
  if (it == symbols_.end() || it->second.frames.empty()) {
    Frame f;
    f.function = "??";
    SetModule(ModuleOf(address, it == symbols_.end() ? 0 : it->second.module), address, &f);
    f.address = address;
    out.push_back(f);
    return out;
  }
  const format::Symbol& s = it->second;
  Frame module;
  SetModule(ModuleOf(address, s.module), address, &module);
  for (size_t i = 0; i < s.frames.size(); ++i) {
    Frame f = module;
    f.function = s.frames[i].function.empty() ? "??" : s.frames[i].function;
    f.file = s.frames[i].file;
    f.line = s.frames[i].line;
    f.address = address;
    f.inlined = i + 1 < s.frames.size();
    f.allocator = alloc_.Contains(f.function);
    out.push_back(f);
  }
  return out;
}

std::vector<Frame> SymbolTable::Frames(uint32_t stack) const {
  std::vector<Frame> out;
  for (uint64_t address : stacks_.Frames(stack)) {
    const std::vector<Frame>& frames = Kept(address);
    out.insert(out.end(), frames.begin(), frames.end());
  }
  return out;
}

}  // namespace heaprec::analyzers
