// pprof output: sites and the trace's symbols -> perftools.profiles.Profile ->
// gzip file (pprof.h).
#include "analyzers/pprof.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "analyzers/human_bytes.h"
#include "analyzers/profile.pb.h"

namespace heaprec::analyzers {
namespace {

namespace pb = perftools::profiles;

// alloc_objects, alloc_space, inuse_objects, inuse_space: Sample.value's order.
using Values = std::array<uint64_t, 4>;

// Profile.string_table, each string once; entry 0 is "".
class StringTable {
 public:
  explicit StringTable(pb::Profile* profile) : profile_(profile) { Index(""); }

  int64_t Index(const std::string& s) {
    const auto [it, added] = index_.try_emplace(s, profile_->string_table_size());
    if (added) profile_->add_string_table(s);
    return it->second;
  }

 private:
  pb::Profile* profile_;
  std::unordered_map<std::string, int64_t> index_;
};

// Fills a Profile's Mappings, then its Samples with the Locations and
// Functions they reach. Ids are dense from 1 in order of first use, so
// id - 1 is the index in the Profile's repeated field.
class ProfileBuilder {
 public:
  ProfileBuilder(const SymbolTable& symbols, pb::Profile* profile)
      : symbols_(symbols), profile_(profile), strings_(profile) {}

  StringTable& strings() { return strings_; }

  // One Mapping per mapped range of each module, in the trace's order (the
  // main executable is the first module the recorder sees).
  void AddMappings() {
    for (const format::Module& m : symbols_.modules()) {
      for (const format::MappedRange& r : m.ranges) {
        pb::Mapping* mapping = profile_->add_mapping();
        mapping->set_id(profile_->mapping_size());
        mapping->set_memory_start(r.start);
        mapping->set_memory_limit(r.end);
        mapping->set_file_offset(r.file_offset);
        mapping->set_filename(strings_.Index(m.path));
        mapping->set_build_id(strings_.Index(HexBytes(m.build_id)));
        spans_.push_back({m.id, r.start, r.end});
        mapping_symbols_.emplace_back();
      }
    }
  }

  void AddSample(uint32_t stack, const Values& values) {
    pb::Sample* sample = profile_->add_sample();
    for (const uint64_t address : symbols_.stacks().Frames(stack)) {
      sample->add_location_id(LocationOf(address));
    }
    // Counts and byte totals of one trace stay far below 2^63.
    for (const uint64_t v : values) sample->add_value(static_cast<int64_t>(v));
  }

  // Tells pprof which symbol information each mapping already has, so that
  // it does not symbolize it again; a mapping with a location without a
  // name says none. Line numbers come from DWARF, which also gives the
  // inlined calls (DwarfSymbolizer expands them). After the last sample.
  void NoteSymbols() {
    for (size_t i = 0; i < mapping_symbols_.size(); ++i) {
      const MappingSymbols& s = mapping_symbols_[i];
      if (s.unnamed) continue;
      pb::Mapping* mapping = profile_->mutable_mapping(static_cast<int>(i));
      mapping->set_has_functions(s.functions);
      mapping->set_has_filenames(s.files);
      mapping->set_has_line_numbers(s.lines);
      mapping->set_has_inline_frames(s.lines);
    }
  }

 private:
  struct Span {
    uint32_t module;  // format::Module::id
    uint64_t start, end;
  };

  uint64_t LocationOf(uint64_t address) {
    const auto [it, added] = locations_.try_emplace(address, profile_->location_size() + 1);
    if (!added) return it->second;
    pb::Location* location = profile_->add_location();
    location->set_id(it->second);
    // Inside the call instruction, as profile.proto asks of a caller's
    // address (a return address can belong to the next line, or the next
    // function after a call that does not return).
    location->set_address(address == 0 ? 0 : address - 1);
    const format::Symbol* symbol = symbols_.SymbolOf(address);
    const uint64_t mapping = MappingOf(address, symbol == nullptr ? 0 : symbol->module);
    location->set_mapping_id(mapping);
    // Frames and Location lines share an order: the innermost inlined call
    // first, the function the code belongs to last. A frame without a name
    // gets MODULE+0xOFFSET (FrameName), and its mapping stays marked
    // unsymbolized, so that pprof still tries the binary (PPROF_BINARY_PATH)
    // and keeps this name where it finds none.
    const std::vector<Frame> frames = symbols_.FramesOf(address);
    bool named = true;
    for (size_t i = 0; i < frames.size(); ++i) {
      const bool has_source = symbol != nullptr && i < symbol->frames.size();
      pb::Line* line = location->add_line();
      line->set_function_id(FunctionOf(FrameName(frames[i]), frames[i].file));
      line->set_line(frames[i].line);
      if (has_source) line->set_column(symbol->frames[i].column);
      named = named && HasFunction(frames[i]);
    }
    if (mapping != 0) {
      MappingSymbols& m = mapping_symbols_[mapping - 1];
      m.unnamed = m.unnamed || !named;
      for (const Frame& f : frames) {
        m.functions = m.functions || HasFunction(f);
        m.files = m.files || !f.file.empty();
        m.lines = m.lines || f.line != 0;
      }
    }
    return it->second;
  }

  // The mapping holding address - 1 (a return address may sit just past the
  // end of its call's function), of module when the symbol names one, newest
  // module first as in SymbolTable; 0 when none does.
  uint64_t MappingOf(uint64_t address, uint32_t module) const {
    for (size_t i = spans_.size(); i-- > 0;) {
      const Span& s = spans_[i];
      if (module != 0 && s.module != module) continue;
      if (address - 1 >= s.start && address - 1 < s.end) return i + 1;
    }
    return module != 0 ? MappingOf(address, 0) : 0;
  }

  uint64_t FunctionOf(const std::string& name, const std::string& file) {
    const auto [it, added] =
        functions_.try_emplace(std::make_pair(name, file), profile_->function_size() + 1);
    if (!added) return it->second;
    pb::Function* function = profile_->add_function();
    function->set_id(it->second);
    function->set_name(strings_.Index(name));
    function->set_system_name(function->name());  // the trace keeps demangled names only
    function->set_filename(strings_.Index(file));
    return it->second;
  }

  // What the locations of one mapping know.
  struct MappingSymbols {
    bool functions = false, files = false, lines = false;
    bool unnamed = false;  // a location without a function name
  };

  const SymbolTable& symbols_;
  pb::Profile* profile_;
  StringTable strings_;
  std::vector<Span> spans_;                                            // spans_[i] is mapping i + 1
  std::vector<MappingSymbols> mapping_symbols_;                        // per mapping, as spans_
  std::unordered_map<uint64_t, uint64_t> locations_;                   // address -> id
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;  // (name, file) -> id
};

void BuildProfile(const PprofInput& in, const SymbolTable& symbols, pb::Profile* profile) {
  ProfileBuilder builder(symbols, profile);
  StringTable& strings = builder.strings();
  static constexpr std::pair<const char*, const char*> kSampleTypes[] = {
      {"alloc_objects", "count"},
      {"alloc_space", "bytes"},
      {"inuse_objects", "count"},
      {"inuse_space", "bytes"},
  };
  for (const auto& [type, unit] : kSampleTypes) {
    pb::ValueType* t = profile->add_sample_type();
    t->set_type(strings.Index(type));
    t->set_unit(strings.Index(unit));
  }
  profile->set_default_sample_type(strings.Index("inuse_space"));
  // Every allocation is in the trace: a period of one byte, i.e. not sampled.
  profile->mutable_period_type()->set_type(strings.Index("space"));
  profile->mutable_period_type()->set_unit(strings.Index("bytes"));
  profile->set_period(1);
  profile->set_time_nanos(in.time_nanos);
  profile->set_duration_nanos(in.duration_nanos);
  for (const std::string& c : in.comments) profile->add_comment(strings.Index(c));

  builder.AddMappings();
  std::map<uint32_t, Values> per_stack;  // ordered: the same input gives the same file
  for (const Site& s : in.allocated) {
    per_stack[s.stack][0] += s.count;
    per_stack[s.stack][1] += s.bytes;
  }
  for (const Site& s : in.inuse) {
    per_stack[s.stack][2] += s.count;
    per_stack[s.stack][3] += s.bytes;
  }
  for (const auto& [stack, values] : per_stack) builder.AddSample(stack, values);
  builder.NoteSymbols();
}

std::string Reason(gzFile f) {
  int code = Z_OK;
  const char* message = gzerror(f, &code);
  return code == Z_ERRNO ? std::strerror(errno) : message;
}

bool WriteGzip(const std::string& path, const std::string& bytes, std::string* error) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) {
    *error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  std::string reason;
  for (size_t done = 0; done < bytes.size() && reason.empty();) {
    const unsigned n = static_cast<unsigned>(std::min<size_t>(bytes.size() - done, 1 << 20));
    if (gzwrite(f, bytes.data() + done, n) != static_cast<int>(n)) reason = Reason(f);
    done += n;
  }
  const int closed = gzclose(f);  // flushes: a full disk shows here
  if (reason.empty() && closed != Z_OK) {
    reason = closed == Z_ERRNO ? std::strerror(errno) : "gzip error " + std::to_string(closed);
  }
  if (reason.empty()) return true;
  *error = path + ": cannot write: " + reason;
  return false;
}

}  // namespace

bool WritePprof(const std::string& path, const PprofInput& in, const SymbolTable& symbols,
                std::string* error) {
  pb::Profile profile;
  BuildProfile(in, symbols, &profile);
  std::string bytes;
  if (!profile.SerializeToString(&bytes)) {
    *error = path + ": cannot encode the profile (protobuf messages are limited to 2 GiB)";
    return false;
  }
  return WriteGzip(path, bytes, error);
}

}  // namespace heaprec::analyzers
