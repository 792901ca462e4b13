// HeaptrackWriter: writes a recording in heaptrack's own format (the
// interpreted text of file format 3, zstd-compressed, as heaptrack 1.4 writes
// heaptrack.APP.PID.zst), which heaptrack_print and heaptrack_gui open and
// ReadHeaptrackFile (heaptrack_reader.h, which describes every line) reads.
//
//   HeaptrackWriter w;
//   uint64_t info = w.InfoOf(size, trace);  // during a pass: + and - lines
//   w.Allocate(info); w.Free(info); w.Time(ms); w.Rss(pages);
//   // at the end, the call stacks: strings, instruction pointers, traces
//   uint64_t ip = w.AddIp(address, w.AddString(module), frames);
//   w.AddTrace(ip, parent);                  // trace indices 1, 2, ... in order
//   w.SetProcess("./app --fast", 4096);
//   w.WriteFile(path, &error);
// A file must name strings, instruction pointers and traces before the
// events that use them (heaptrack_print reads it in one pass); the writer
// keeps the event lines until WriteFile, so a caller may number traces
// before adding them. Allocation infos are numbered 0, 1, ... in the order
// InfoOf first sees them, as heaptrack numbers them: heaptrack_gui counts
// infos in the order + lines first use them and crashes on one out of that
// order (so InfoOf must first be called for an allocation). As in
// heaptrack's own files, heaptrack_print then counts a free of info 0 that
// directly follows another free as a temporary (it takes info 0 for "no
// allocation since the last free"). Not thread-safe; memory: the event lines (a few bytes each).
#ifndef HEAPREC_FORMAT_HEAPTRACK_WRITER_H_
#define HEAPREC_FORMAT_HEAPTRACK_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace heaprec::format {

// One frame of an instruction pointer: string indices (0 = unknown).
struct HeaptrackFrame {
  uint64_t function = 0;
  uint64_t file = 0;
  uint32_t line = 0;
};

class HeaptrackWriter {
 public:
  HeaptrackWriter();
  // The `X` and `I` lines, and `A` (attached: not recorded from the start).
  void SetProcess(const std::string& command_line, uint32_t page_size, bool attached);

  // Interned; 0 for "".
  uint64_t AddString(std::string_view s);
  // frames: the innermost first, then the functions it is inlined in,
  // outward. Returns the instruction pointer's index (from 1).
  uint64_t AddIp(uint64_t address, uint64_t module, const std::vector<HeaptrackFrame>& frames);
  // Returns the trace's index: 1, 2, ... in the order added.
  uint64_t AddTrace(uint64_t ip, uint64_t parent);

  // The allocation info of (size, trace), made on first use (from 1).
  uint64_t InfoOf(uint64_t size, uint64_t trace);
  void Allocate(uint64_t info);
  void Free(uint64_t info);
  // Milliseconds since the start; written when it grows.
  void Time(uint64_t ms);
  // An RSS sample: resident pages (of SetProcess's page size), as heaptrack
  // writes one after each time stamp (`R`, from /proc/self/statm);
  // heaptrack_print's "peak RSS" is the highest times the page size.
  void Rss(uint64_t pages);

  uint64_t allocations() const { return allocations_; }
  // The whole recording, uncompressed.
  std::string Text() const;
  // Text(), zstd-compressed, to path; false + *error = "PATH: why".
  bool WriteFile(const std::string& path, std::string* error) const;

 private:
  static void Hex(std::string* out, uint64_t v);

  std::string Header() const;  // v, X, I, A

  std::string command_line_;
  uint32_t page_size_ = 4096;
  bool attached_ = false;
  std::string stacks_;  // s, i, t in the order added
  std::string infos_;   // a
  std::string events_;  // +, -, c, R
  std::unordered_map<std::string, uint64_t> strings_;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> info_index_;
  uint64_t ips_ = 0, traces_ = 0, infos_count_ = 0, allocations_ = 0, ms_ = 0;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_HEAPTRACK_WRITER_H_
