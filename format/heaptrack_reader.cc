// heaptrack recordings as records (heaptrack_reader.h).
#include "format/heaptrack_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string_view>

#include "format/text_lines.h"

namespace heaprec::format {
namespace {

// The newest file format this reader knows (heaptrack 1.4 to 1.6 write 3).
constexpr uint32_t kNewestFileVersion = 3;
constexpr uint32_t kThread = 1;

// The fields of one line after its type letter: hex numbers and, from file
// format 3, strings prefixed with their length.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line.size() > 2 ? line.substr(2) : "") {}

  bool Hex(uint64_t* out) {
    if (rest_.empty()) return false;
    uint64_t v = 0;
    size_t i = 0;
    for (; i < rest_.size() && rest_[i] != ' '; ++i) {
      const char c = rest_[i];
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else {
        return false;
      }
      if (i >= 16) return false;  // more than 64 bits
      v = v * 16 + static_cast<uint64_t>(d);
    }
    if (i == 0) return false;
    *out = v;
    rest_.remove_prefix(i < rest_.size() ? i + 1 : i);
    return true;
  }
  bool SizedString(std::string* out) {
    uint64_t n = 0;
    if (!Hex(&n) || n > rest_.size()) return false;
    out->assign(rest_.substr(0, n));
    rest_.remove_prefix(n);
    if (!rest_.empty()) {
      if (rest_[0] != ' ') return false;
      rest_.remove_prefix(1);
    }
    return true;
  }
  bool empty() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

struct Ip {
  uint64_t address = 0;
  bool operator_new = false;
};

struct Info {
  uint64_t size = 0;
  uint32_t stack = 0;
};

class Parser {
 public:
  Parser(TraceVisitor& v, HeaptrackFacts* facts, std::string pid_from_name)
      : v_(v), facts_(*facts) {
    process_.recorder = "heaptrack";
    process_.clock = "heaptrack's clock (milliseconds, about every 10 ms)";
    process_.pid = pid_from_name.empty() ? 0 : std::atoi(pid_from_name.c_str());
  }

  // One line; false + *error on damage.
  bool Line(std::string_view line, std::string* error);
  // After the last line (complete or cut): the records still owed.
  void Finish();
  uint64_t events() const { return seq_; }
  bool closed() const { return closed_; }

 private:
  bool Fail(std::string* error, const std::string& what) {
    *error = what;
    return false;
  }
  void StartProcess();
  bool String(std::string_view line, std::string* error);
  bool InstructionPointer(Fields f, std::string* error);
  bool TraceNode(Fields f, std::string* error);
  bool Allocation(Fields f, std::string* error);
  bool Free(Fields f, std::string* error);
  bool StringAt(uint64_t index, const char* what, std::string* out, std::string* error);

  TraceVisitor& v_;
  HeaptrackFacts& facts_;
  ProcessInfo process_;
  bool seen_version_ = false, seen_command_ = false, started_ = false, closed_ = false;
  std::vector<std::string> strings_;        // string index - 1
  std::vector<uint32_t> module_of_string_;  // string index -> Module id (0: none yet)
  uint32_t modules_ = 0;
  std::vector<Ip> ips_;                // ip index - 1
  std::vector<uint32_t> stack_of_{0};  // trace index -> StackNode id; [0] = 0
  uint32_t stacks_ = 0;
  std::vector<Info> infos_;                  // info index
  std::vector<std::vector<uint64_t>> live_;  // per info: its live blocks, newest last
  uint64_t blocks_ = 0, seq_ = 0, time_ns_ = 0;
  uint64_t allocations_ = 0, frees_ = 0, bytes_ = 0;
  uint64_t last_allocated_info_ = 0;  // heaptrack_print's temporary rule
};

void Parser::StartProcess() {
  if (started_) return;
  started_ = true;
  v_.OnProcess(process_);
  v_.OnThread({.thread = kThread, .tid = process_.pid, .name = "(heaptrack records no threads)"});
}

bool Parser::StringAt(uint64_t index, const char* what, std::string* out, std::string* error) {
  if (index > strings_.size()) {
    return Fail(error, std::string(what) + " names string " + std::to_string(index) + " of only " +
                           std::to_string(strings_.size()));
  }
  *out = index == 0 ? "" : strings_[index - 1];
  return true;
}

bool Parser::String(std::string_view line, std::string* error) {
  if (facts_.file_version >= 3) {
    Fields f(line);
    std::string s;
    if (!f.SizedString(&s) || !f.empty()) return Fail(error, "malformed string ('s LENGTH TEXT')");
    strings_.push_back(std::move(s));
  } else {
    strings_.emplace_back(line.size() > 2 ? line.substr(2) : "");
  }
  return true;
}

bool Parser::InstructionPointer(Fields f, std::string* error) {
  uint64_t address = 0, module = 0;
  if (!f.Hex(&address) || !f.Hex(&module)) return Fail(error, "malformed instruction pointer");
  Symbol symbol{.address = address};
  std::string path;
  if (!StringAt(module, "instruction pointer's module", &path, error)) return false;
  if (module != 0) {
    if (module_of_string_.size() <= module) module_of_string_.resize(module + 1, 0);
    if (module_of_string_[module] == 0) {
      module_of_string_[module] = ++modules_;
      v_.OnModule({.id = modules_, .path = path});
    }
    symbol.module = module_of_string_[module];
  }
  // The frame (function, then file and line), then its inlined callers.
  bool operator_new = false;
  while (!f.empty()) {
    uint64_t function = 0, file = 0, line = 0;
    if (!f.Hex(&function)) return Fail(error, "malformed frame of an instruction pointer");
    const bool first = symbol.frames.empty();
    if (!f.empty() || !first) {
      if (!f.Hex(&file) || !f.Hex(&line) || line > UINT32_MAX) {
        return Fail(error, "malformed frame of an instruction pointer");
      }
    }
    SourceFrame frame;
    if (!StringAt(function, "frame's function", &frame.function, error) ||
        !StringAt(file, "frame's file", &frame.file, error)) {
      return false;
    }
    frame.line = static_cast<uint32_t>(line);
    if (first) {
      // heaptrack_print's rule: these frames start a trace and are skipped.
      operator_new = frame.function == "operator new(unsigned long)" ||
                     frame.function == "operator new[](unsigned long)" ||
                     frame.function == "operator new(unsigned int)" ||
                     frame.function == "operator new[](unsigned int)";
    }
    symbol.frames.push_back(std::move(frame));
  }
  ips_.push_back({address, operator_new});
  if (!operator_new) v_.OnSymbol(symbol);
  return true;
}

bool Parser::TraceNode(Fields f, std::string* error) {
  uint64_t ip = 0, parent = 0;
  if (!f.Hex(&ip) || !f.Hex(&parent)) return Fail(error, "malformed trace node ('t IP PARENT')");
  if (ip > ips_.size()) {
    return Fail(error, "trace node names instruction pointer " + std::to_string(ip) + " of only " +
                           std::to_string(ips_.size()));
  }
  if (parent >= stack_of_.size()) {
    return Fail(error, "trace node names parent " + std::to_string(parent) + " of only " +
                           std::to_string(stack_of_.size() - 1) + " traces");
  }
  if (ip != 0 && ips_[ip - 1].operator_new) {
    stack_of_.push_back(stack_of_[parent]);
    return true;
  }
  ++stacks_;
  v_.OnStackNode(
      {.id = stacks_, .parent = stack_of_[parent], .address = ip == 0 ? 0 : ips_[ip - 1].address});
  stack_of_.push_back(stacks_);
  return true;
}

bool Parser::Allocation(Fields f, std::string* error) {
  uint64_t index = 0;
  if (!f.Hex(&index)) return Fail(error, "malformed allocation ('+ INFO')");
  if (index >= infos_.size()) {
    return Fail(error, "allocation of info " + std::to_string(index) + " of only " +
                           std::to_string(infos_.size()));
  }
  const Info& info = infos_[index];
  live_[index].push_back(++blocks_);
  last_allocated_info_ = index;
  ++allocations_;
  bytes_ += info.size;
  v_.OnEvent({.seq = ++seq_,
              .time_ns = time_ns_,
              .thread = kThread,
              .api = Api::kMalloc,
              .size = info.size,
              .stack = info.stack,
              .block = blocks_});
  return true;
}

bool Parser::Free(Fields f, std::string* error) {
  uint64_t index = 0;
  if (!f.Hex(&index)) return Fail(error, "malformed free ('- INFO')");
  if (index >= infos_.size()) {
    return Fail(error, "free of info " + std::to_string(index) + " of only " +
                           std::to_string(infos_.size()));
  }
  if (index == last_allocated_info_) ++facts_.heaptrack_print_temporaries;
  last_allocated_info_ = 0;
  std::vector<uint64_t>& live = live_[index];
  if (live.empty()) {
    ++facts_.unmatched_frees;
    return true;
  }
  const uint64_t block = live.back();
  live.pop_back();
  ++frees_;
  v_.OnEvent({.seq = ++seq_,
              .time_ns = time_ns_,
              .thread = kThread,
              .api = Api::kFree,
              .size = 0,
              .stack = 0,
              .block = block});
  return true;
}

bool Parser::Line(std::string_view line, std::string* error) {
  const char type = line.empty() ? '#' : line[0];
  const bool record_shape = line.size() < 2 || line[1] == ' ';
  if (seen_command_ && !started_ &&
      (!record_shape || std::string_view("vXIASsitac+-R#").find(type) == std::string_view::npos)) {
    // heaptrack writes the command line as it is: an argument with a newline
    // continues the `X` line on the next ones.
    for (std::string_view part = line; !part.empty();) {
      const size_t space = part.find(' ');
      if (space != 0) process_.args.emplace_back(part.substr(0, space));
      if (space == std::string_view::npos) break;
      part.remove_prefix(space + 1);
    }
    return true;
  }
  if (!record_shape) return Fail(error, "not a heaptrack record");
  if (type == '#') {
    if (line.substr(0, 10) == "# strings:") closed_ = true;
    return true;
  }
  if (!seen_version_ && type != 'v') {
    if (type != 'X') return Fail(error, "no heaptrack version line ('v') first");
  }
  Fields f(line);
  switch (type) {
    case 'v': {
      uint64_t version = 0, file_version = 0;
      if (seen_version_ || !f.Hex(&version))
        return Fail(error, "malformed or repeated version line");
      if (!f.Hex(&file_version) && version == 0x010200) file_version = 1;  // heaptrack 1.0's
      if (file_version == 0) {
        return Fail(error, "file format 0 (heaptrack before 1.0) is not supported");
      }
      if (file_version > kNewestFileVersion) {
        return Fail(error, "file format " + std::to_string(file_version) +
                               " is newer than this reader knows (" +
                               std::to_string(kNewestFileVersion) + ")");
      }
      seen_version_ = true;
      facts_.heaptrack_version = static_cast<uint32_t>(version);
      facts_.file_version = static_cast<uint32_t>(file_version);
      process_.recorder = facts_.Describe();
      return true;
    }
    case 'X': {
      if (seen_command_) return Fail(error, "a second command line ('X')");
      seen_command_ = true;
      const std::string_view command = f.rest();
      size_t start = 0;
      while (start < command.size()) {
        size_t end = command.find(' ', start);
        if (end == std::string_view::npos) end = command.size();
        if (end > start) process_.args.emplace_back(command.substr(start, end - start));
        start = end + 1;
      }
      if (!process_.args.empty()) process_.program = process_.args[0];
      return true;
    }
    case 'I': {
      uint64_t page_size = 0, pages = 0;
      if (!f.Hex(&page_size) || !f.Hex(&pages)) return Fail(error, "malformed system information");
      facts_.page_size = page_size;
      process_.page_size = static_cast<uint32_t>(page_size);
      return true;
    }
    case 'A':
      facts_.attached = true;
      process_.from_start = false;
      return true;
    case 'S':
      facts_.suppressions.emplace_back(f.rest());
      return true;
    default:
      break;
  }
  StartProcess();
  switch (type) {
    case 's':
      return String(line, error);
    case 'i':
      return InstructionPointer(f, error);
    case 't':
      return TraceNode(f, error);
    case 'a': {
      uint64_t size = 0, trace = 0;
      if (!f.Hex(&size) || !f.Hex(&trace)) return Fail(error, "malformed allocation info");
      if (trace >= stack_of_.size()) {
        return Fail(error, "allocation info names trace " + std::to_string(trace) + " of only " +
                               std::to_string(stack_of_.size() - 1));
      }
      infos_.push_back({size, stack_of_[trace]});
      live_.emplace_back();
      return true;
    }
    case '+':
      return Allocation(f, error);
    case '-':
      return Free(f, error);
    case 'c': {
      uint64_t ms = 0;
      if (!f.Hex(&ms) || ms > UINT64_MAX / 1000000) return Fail(error, "malformed time stamp");
      time_ns_ = std::max(time_ns_, ms * 1000000);
      return true;
    }
    case 'R': {
      uint64_t pages = 0;
      if (!f.Hex(&pages)) return Fail(error, "malformed RSS sample");
      facts_.peak_rss_pages = std::max(facts_.peak_rss_pages, pages);
      // Pages of the `I` line's size (without one, the count stays a fact).
      if (facts_.page_size != 0 && pages <= UINT64_MAX / facts_.page_size) {
        v_.OnRssSample(
            {.seq = seq_ + 1, .time_ns = time_ns_, .unsplit_bytes = pages * facts_.page_size});
      }
      return true;
    }
    default:
      ++facts_.unknown_lines;
      return true;
  }
}

void Parser::Finish() {
  StartProcess();
  EndRecord end;
  end.events = seq_;
  end.allocations = allocations_;
  end.frees = frees_;
  end.bytes_allocated = bytes_;
  end.stack_nodes = stacks_;
  end.end_time_ns = time_ns_;
  // Every instruction pointer came with what heaptrack knew of it: there is
  // nothing more to look up (and no load address to look it up with).
  end.symbols_complete = true;
  v_.OnEnd(end);
}

// heaptrack names its files heaptrack.APP.PID.{zst,gz}: the pid, if so.
std::string PidFromName(const std::string& path) {
  static const std::regex kName(R"(heaptrack\..*\.([0-9]+)(\.(zst|gz))?$)");
  std::smatch m;
  return std::regex_search(path, m, kName) ? m[1].str() : "";
}

}  // namespace

std::string HeaptrackFacts::Describe() const {
  char version[32];
  std::snprintf(version, sizeof version, "%u.%u.%u", (heaptrack_version >> 16) & 0xff,
                (heaptrack_version >> 8) & 0xff, heaptrack_version & 0xff);
  return std::string("heaptrack ") + version + " (file format " + std::to_string(file_version) +
         ")";
}

std::vector<std::string> HeaptrackLacks() {
  return {"threads",
          "block addresses (a free names a stack and size; blocks are paired last in, first out)",
          "allocation functions (every call is a malloc or a free; no --mismatches)",
          "leak kinds (no memory scan)",
          "module load addresses and build-ids (an unnamed frame shows its absolute address)",
          "markers or exit status",
          "time finer than ~10 ms (heaptrack's clock)"};
}

bool IsHeaptrackFile(const std::string& path) {
  TextLines in;
  std::string error;
  std::string_view line;
  if (!in.Open(path, &error)) return false;
  if (!in.Next(&line)) line = in.pending();  // a recording cut in its first line
  if (line.size() >= 2 && line[0] == 'X' && line[1] == ' ') return true;
  Fields f(line);
  uint64_t version = 0;
  return line.size() > 2 && line[0] == 'v' && line[1] == ' ' && f.Hex(&version);
}

ReadResult ReadHeaptrackFile(const std::string& path, TraceVisitor& visitor,
                             HeaptrackFacts* facts) {
  HeaptrackFacts own;
  if (facts == nullptr) facts = &own;
  ReadResult r;
  TextLines in;
  if (!in.Open(path, &r.message)) return r;
  Parser parser(visitor, facts, PidFromName(path));
  std::string_view line;
  std::string error;
  while (in.Next(&line)) {
    if (!parser.Line(line, &error)) {
      r.status = ReadResult::kError;
      r.message = path + ": line " + std::to_string(in.line_number()) + ": " + error +
                  " (a heaptrack recording)";
      r.error_offset = in.file_bytes_read();
      r.events = parser.events();
      return r;
    }
  }
  r.bytes = in.file_bytes_read();
  if (in.end() == TextLines::End::kError) {
    r.status = ReadResult::kError;
    r.message = path + ": " + in.message() + " after line " + std::to_string(in.line_number());
    r.events = parser.events();
    return r;
  }
  parser.Finish();
  r.events = parser.events();
  r.chunks = in.line_number() > 0 ? 1 : 0;  // the whole text counts as one chunk
  if (in.end() == TextLines::End::kCut) {
    r.status = ReadResult::kTruncated;
    r.message = path + ": truncated: " + in.message() + " (after line " +
                std::to_string(in.line_number()) + "); read what comes before";
  } else if (!parser.closed()) {
    r.status = ReadResult::kTruncated;
    r.message = path + ": truncated: no closing '# strings' line after line " +
                std::to_string(in.line_number()) + " (heaptrack did not finish); read what " +
                "comes before";
  } else {
    r.status = ReadResult::kComplete;
  }
  return r;
}

}  // namespace heaprec::format
