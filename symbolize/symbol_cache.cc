// SymbolCache (symbol_cache.h).
#include "symbolize/symbol_cache.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "symbolize/debug_files.h"

namespace heaprec::symbolize {
namespace {

constexpr const char* kVersion = "heaprec-symbols 1";

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string StatPart(const std::string& path) {
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0) return "none";
  return std::to_string(st.st_size) + "@" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

bool Clean(const std::string& s) { return s.find_first_of("\t\n") == std::string::npos; }

// mkdir -p.
bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i == dir.size() || dir[i] == '/') {
      const std::string part = dir.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

}  // namespace

std::string SymbolCache::DefaultDir() {
  if (const char* dir = std::getenv("HEAPREC_SYMBOL_CACHE")) {
    const std::string d = dir;
    return d == "off" ? "" : d;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/heaprec/symbols";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
    return std::string(home) + "/.cache/heaprec/symbols";
  }
  return "";
}

void SymbolCache::AddModule(const format::Module& module, const std::string& file,
                            const std::vector<std::string>& debug_dirs) {
  modules_.erase(module.id);
  if (!enabled() || module.build_id.empty() || module.id == 0) return;
  std::string signature = Hex(module.build_id) + " " + StatPart(file);
  for (const std::string& d : debug_dirs) {
    signature +=
        " " + d + ":" + StatPart(d + "/.build-id/" + BuildIdPath(module.build_id) + ".debug");
  }
  const std::string name = dir_ + "/" + Hex(module.build_id) + ".symbols";
  File& f = files_[name];
  if (f.name.empty()) {
    f.name = name;
    f.signature = signature;
  } else if (f.signature != signature) {
    return;  // the same build-id seen with other files in one run: not cached
  }
  modules_[module.id] = {&f, module.load_address};
}

void SymbolCache::Load(File& f) {
  f.loaded = true;
  std::ifstream in(f.name);
  std::string line;
  if (!in || !std::getline(in, line) || line != std::string(kVersion) + " " + f.signature) return;
  std::unordered_map<uint64_t, std::vector<format::SourceFrame>> read;
  while (std::getline(in, line)) {
    // "offset count", then count lines "function\tfile\tline\tcolumn".
    std::istringstream head(line);
    uint64_t offset = 0;
    size_t count = 0;
    if (!(head >> std::hex >> offset >> std::dec >> count) || count > 256) return;
    std::vector<format::SourceFrame> frames(count);
    for (format::SourceFrame& fr : frames) {
      if (!std::getline(in, line)) return;
      const size_t a = line.find('\t');
      const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
      const size_t c = b == std::string::npos ? b : line.find('\t', b + 1);
      if (c == std::string::npos) return;
      fr.function = line.substr(0, a);
      fr.file = line.substr(a + 1, b - a - 1);
      fr.line = static_cast<uint32_t>(std::strtoul(line.c_str() + b + 1, nullptr, 10));
      fr.column = static_cast<uint32_t>(std::strtoul(line.c_str() + c + 1, nullptr, 10));
    }
    read[offset] = std::move(frames);
  }
  f.frames = std::move(read);  // only a file read whole counts
}

bool SymbolCache::Lookup(uint32_t module, uint64_t address,
                         std::vector<format::SourceFrame>* frames) {
  const auto m = modules_.find(module);
  if (m == modules_.end()) return false;
  File& f = *m->second.file;
  if (!f.loaded) Load(f);
  const auto it = f.frames.find(address - m->second.load_address);
  if (it == f.frames.end()) return false;
  *frames = it->second;
  return true;
}

void SymbolCache::Store(uint32_t module, uint64_t address,
                        const std::vector<format::SourceFrame>& frames) {
  const auto m = modules_.find(module);
  if (m == modules_.end()) return;
  for (const format::SourceFrame& fr : frames) {
    if (!Clean(fr.function) || !Clean(fr.file)) return;
  }
  File& f = *m->second.file;
  if (!f.loaded) Load(f);
  f.frames[address - m->second.load_address] = frames;
  f.dirty = true;
}

void SymbolCache::Save() {
  bool made = false;
  for (auto& [name, f] : files_) {
    if (!f.dirty) continue;
    f.dirty = false;
    if (!made && !(made = MakeDirs(dir_))) return;
    // One launcher runs a symbolizer per traced process: the thread's id
    // keeps their temporary files apart.
    const std::string tmp = name + ".tmp." + std::to_string(getpid()) + "." +
                            std::to_string(static_cast<long>(syscall(SYS_gettid)));
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << kVersion << " " << f.signature << "\n";
      for (const auto& [offset, frames] : f.frames) {
        out << std::hex << offset << std::dec << " " << frames.size() << "\n";
        for (const format::SourceFrame& fr : frames) {
          out << fr.function << "\t" << fr.file << "\t" << fr.line << "\t" << fr.column << "\n";
        }
      }
      if (!out.flush()) {
        unlink(tmp.c_str());
        continue;
      }
    }
    if (rename(tmp.c_str(), name.c_str()) != 0) unlink(tmp.c_str());
  }
}

}  // namespace heaprec::symbolize
