// heaptrack's format, written (heaptrack_writer.h).
#include "format/heaptrack_writer.h"

#include <zstd.h>

#include <memory>

#include "format/byte_io.h"

namespace heaprec::format {
namespace {

// What heaptrack 1.4.0 writes in its `v` line: its version, file format 3.
constexpr uint64_t kHeaptrackVersion = 0x010400;
constexpr uint64_t kFileVersion = 3;

}  // namespace

void HeaptrackWriter::Hex(std::string* out, uint64_t v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v != 0);
  out->push_back(' ');
  while (n > 0) out->push_back(digits[--n]);
}

HeaptrackWriter::HeaptrackWriter() = default;

void HeaptrackWriter::SetProcess(const std::string& command_line, uint32_t page_size,
                                 bool attached) {
  command_line_ = command_line;
  page_size_ = page_size == 0 ? 4096 : page_size;
  attached_ = attached;
}

std::string HeaptrackWriter::Header() const {
  std::string header = "v";
  Hex(&header, kHeaptrackVersion);
  Hex(&header, kFileVersion);
  header += "\nX ";
  for (char c : command_line_) header.push_back(c == '\n' ? ' ' : c);
  header += "\nI";
  Hex(&header, page_size_);
  Hex(&header, 0);  // physical pages: not known to a trace
  header += "\n";
  if (attached_) header += "A\n";
  return header;
}

uint64_t HeaptrackWriter::AddString(std::string_view s) {
  if (s.empty()) return 0;
  const auto [it, added] = strings_.emplace(std::string(s), strings_.size() + 1);
  if (added) {
    stacks_ += "s";
    Hex(&stacks_, s.size());
    stacks_ += ' ';
    for (char c : s) stacks_.push_back(c == '\n' ? ' ' : c);
    stacks_ += '\n';
  }
  return it->second;
}

uint64_t HeaptrackWriter::AddIp(uint64_t address, uint64_t module,
                                const std::vector<HeaptrackFrame>& frames) {
  stacks_ += "i";
  Hex(&stacks_, address);
  Hex(&stacks_, module);
  // heaptrack's layout: FUNCTION [FILE LINE [FUNCTION FILE LINE]...].
  if (!frames.empty() && (frames[0].function != 0 || frames[0].file != 0)) {
    Hex(&stacks_, frames[0].function);
    if (frames[0].file != 0 || frames.size() > 1) {
      for (size_t i = 0; i < frames.size(); ++i) {
        if (i > 0) Hex(&stacks_, frames[i].function);
        Hex(&stacks_, frames[i].file);
        Hex(&stacks_, frames[i].line);
      }
    }
  }
  stacks_ += '\n';
  return ++ips_;
}

uint64_t HeaptrackWriter::AddTrace(uint64_t ip, uint64_t parent) {
  stacks_ += "t";
  Hex(&stacks_, ip);
  Hex(&stacks_, parent);
  stacks_ += '\n';
  return ++traces_;
}

uint64_t HeaptrackWriter::InfoOf(uint64_t size, uint64_t trace) {
  const auto [it, added] = info_index_.emplace(std::pair(size, trace), infos_count_);
  if (added) {
    ++infos_count_;
    infos_ += "a";
    Hex(&infos_, size);
    Hex(&infos_, trace);
    infos_ += '\n';
  }
  return it->second;
}

void HeaptrackWriter::Allocate(uint64_t info) {
  ++allocations_;
  events_ += "+";
  Hex(&events_, info);
  events_ += '\n';
}

void HeaptrackWriter::Free(uint64_t info) {
  events_ += "-";
  Hex(&events_, info);
  events_ += '\n';
}

void HeaptrackWriter::Time(uint64_t ms) {
  if (ms <= ms_) return;
  ms_ = ms;
  events_ += "c";
  Hex(&events_, ms);
  events_ += '\n';
}

void HeaptrackWriter::Rss(uint64_t pages) {
  events_ += "R";
  Hex(&events_, pages);
  events_ += '\n';
}

std::string HeaptrackWriter::Text() const {
  std::string text = Header() + stacks_ + infos_ + events_;
  text +=
      "# strings: " + std::to_string(strings_.size()) + "\n# ips: " + std::to_string(ips_) + "\n";
  return text;
}

bool HeaptrackWriter::WriteFile(const std::string& path, std::string* error) const {
  std::unique_ptr<FdSink> sink = FdSink::Create(path, error);
  if (!sink) return false;
  const std::string trailer =
      "# strings: " + std::to_string(strings_.size()) + "\n# ips: " + std::to_string(ips_) + "\n";
  const std::string header = Header();
  const std::string* pieces[] = {&header, &stacks_, &infos_, &events_, &trailer};
  ZSTD_CCtx* z = ZSTD_createCCtx();
  std::string out(ZSTD_CStreamOutSize(), '\0');
  bool ok = true;
  for (size_t p = 0; p < 5 && ok; ++p) {
    const bool last = p == 4;
    ZSTD_inBuffer in{pieces[p]->data(), pieces[p]->size(), 0};
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      const size_t left = ZSTD_compressStream2(z, &o, &in, last ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(left)) {
        *error = path + ": zstd: " + ZSTD_getErrorName(left);
        ok = false;
        break;
      }
      if (o.pos != 0 && !sink->Write(out.data(), o.pos)) {
        *error = path + ": " + sink->error();
        ok = false;
        break;
      }
      if (last ? left == 0 : in.pos == in.size) break;
    }
  }
  ZSTD_freeCCtx(z);
  if (ok && !sink->Close()) {
    *error = path + ": " + sink->error();
    ok = false;
  }
  return ok;
}

}  // namespace heaprec::format
