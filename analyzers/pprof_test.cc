// WritePprof on a hand-built symbol table: the file is read back with zlib
// and the generated profile.proto classes, and checked field by field as
// pprof would read it.
#include "analyzers/pprof.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyzers/profile.pb.h"

namespace heaprec::analyzers {
namespace {

namespace pb = perftools::profiles;

// Two modules: app (two ranges, a build id) and libfoo (one range, no build
// id). Stacks, outermost first:
//   1: main@0x401100
//   2: main -> build@0x401200, where make_widget and Widget::Widget were inlined
//   3: main -> build@0x401200 -> 0x7f0000000100 in libfoo, no symbol
//   4: main -> build@0x401300, not inlined
//   5: main -> 0x900000000, in no module
SymbolTable Symbols() {
  SymbolTable t;
  t.AddModule({.id = 1,
               .path = "/usr/bin/app",
               .build_id = std::string("\xde\xad\xbe\xef\x01\x0a", 6),
               .load_address = 0x400000,
               .ranges = {{0x400000, 0x401000, 0}, {0x401000, 0x405000, 0x1000}}});
  t.AddModule({.id = 2,
               .path = "/lib/libfoo.so",
               .load_address = 0x7f0000000000,
               .ranges = {{0x7f0000000000, 0x7f0000010000, 0}}});
  t.AddStackNode({1, 0, 0x401100});
  t.AddStackNode({2, 1, 0x401200});
  t.AddStackNode({3, 2, 0x7f0000000100});
  t.AddStackNode({4, 1, 0x401300});
  t.AddStackNode({5, 1, 0x900000000});
  t.AddSymbol({0x401100, 1, {{"main", "app.cc", 10, 3}}});
  t.AddSymbol({0x401200,
               1,
               {{"Widget::Widget", "widget.h", 20, 5},
                {"make_widget", "widget.cc", 30, 7},
                {"build", "app.cc", 40, 9}}});
  t.AddSymbol({0x401300, 1, {{"build", "app.cc", 45, 2}}});
  return t;
}

PprofInput Input() {
  PprofInput in;
  in.allocated = {{.stack = 2, .bytes = 1000, .count = 10},
                  {.stack = 3, .bytes = 500, .count = 5},
                  {.stack = 0, .bytes = 7, .count = 1},
                  {.stack = 4, .bytes = 64, .count = 2},
                  {.stack = 2, .bytes = 24, .count = 1}};  // same stack again: summed
  in.inuse = {{.stack = 2, .bytes = 100, .count = 1}, {.stack = 5, .bytes = 32, .count = 1}};
  in.time_nanos = 1700000000123456789;
  in.duration_nanos = 2500000000;
  in.comments = {"./app --size 3"};
  return in;
}

std::string TempPath(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadRaw(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string Gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (f == nullptr) return "";
  std::string out;
  char buf[4096];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, n);
  EXPECT_EQ(n, 0) << "gzip stream damaged";
  gzclose(f);
  return out;
}

// The profile's tables as pprof resolves them.
class Reader {
 public:
  explicit Reader(const pb::Profile& p) : p_(p) {
    for (const pb::Location& l : p.location()) locations_[l.id()] = &l;
    for (const pb::Function& f : p.function()) functions_[f.id()] = &f;
    for (const pb::Mapping& m : p.mapping()) mappings_[m.id()] = &m;
  }
  std::string Str(int64_t i) const {
    EXPECT_GE(i, 0);
    EXPECT_LT(i, p_.string_table_size());
    return i >= 0 && i < p_.string_table_size() ? p_.string_table(i) : "<bad index>";
  }
  const pb::Location& Location(uint64_t id) const { return *locations_.at(id); }
  const pb::Function& Function(uint64_t id) const { return *functions_.at(id); }
  const pb::Mapping& Mapping(uint64_t id) const { return *mappings_.at(id); }
  const std::map<uint64_t, const pb::Location*>& locations() const { return locations_; }
  const std::map<uint64_t, const pb::Function*>& functions() const { return functions_; }
  const std::map<uint64_t, const pb::Mapping*>& mappings() const { return mappings_; }

  // Return addresses of a sample, leaf first.
  std::vector<uint64_t> Addresses(const pb::Sample& s) const {
    std::vector<uint64_t> out;
    // A Location's address is inside the call instruction: return address - 1.
    for (uint64_t id : s.location_id()) out.push_back(Location(id).address() + 1);
    return out;
  }
  // "function file:line:column" for each line of a location, in stored order.
  std::vector<std::string> Lines(const pb::Location& l) const {
    std::vector<std::string> out;
    for (const pb::Line& line : l.line()) {
      const pb::Function& f = Function(line.function_id());
      out.push_back(Str(f.name()) + " " + Str(f.filename()) + ":" + std::to_string(line.line()) +
                    ":" + std::to_string(line.column()));
    }
    return out;
  }

 private:
  const pb::Profile& p_;
  std::map<uint64_t, const pb::Location*> locations_;
  std::map<uint64_t, const pb::Function*> functions_;
  std::map<uint64_t, const pb::Mapping*> mappings_;
};

class PprofTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = TempPath("heap.pb.gz");
    std::string error;
    ASSERT_TRUE(WritePprof(path_, Input(), symbols_, &error)) << error;
    ASSERT_TRUE(profile_.ParseFromString(Gunzip(path_)));
  }

  // The sample whose leaf is at address (0: the sample without locations).
  const pb::Sample* SampleAt(const Reader& r, uint64_t leaf) const {
    for (const pb::Sample& s : profile_.sample()) {
      const auto addresses = r.Addresses(s);
      if (addresses.empty() ? leaf == 0 : addresses[0] == leaf) return &s;
    }
    return nullptr;
  }

  SymbolTable symbols_ = Symbols();
  std::string path_;
  pb::Profile profile_;
};

TEST_F(PprofTest, IsGzip) {
  const std::string raw = ReadRaw(path_);
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(raw[1]), 0x8b);
}

TEST_F(PprofTest, HeaderAsGoHeapProfiles) {
  Reader r(profile_);
  ASSERT_GT(profile_.string_table_size(), 0);
  EXPECT_EQ(profile_.string_table(0), "");
  std::vector<std::string> types;
  for (const pb::ValueType& t : profile_.sample_type()) {
    types.push_back(r.Str(t.type()) + "/" + r.Str(t.unit()));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes",
                                             "inuse_objects/count", "inuse_space/bytes"}));
  EXPECT_EQ(r.Str(profile_.default_sample_type()), "inuse_space");
  EXPECT_EQ(profile_.time_nanos(), 1700000000123456789);
  EXPECT_EQ(profile_.duration_nanos(), 2500000000);
  ASSERT_EQ(profile_.comment_size(), 1);
  EXPECT_EQ(r.Str(profile_.comment(0)), "./app --size 3");
}

TEST_F(PprofTest, OneSamplePerStackWithFourValues) {
  Reader r(profile_);
  ASSERT_EQ(profile_.sample_size(), 5);  // stacks 0, 2, 3, 4, 5
  const std::map<uint64_t, std::vector<int64_t>> want = {
      {0, {1, 7, 0, 0}},                 // stack 0
      {0x401200, {11, 1024, 1, 100}},    // stack 2, allocated twice
      {0x7f0000000100, {5, 500, 0, 0}},  // stack 3
      {0x401300, {2, 64, 0, 0}},         // stack 4
      {0x900000000, {0, 0, 1, 32}},      // stack 5, in use only
  };
  for (const auto& [leaf, values] : want) {
    const pb::Sample* s = SampleAt(r, leaf);
    ASSERT_NE(s, nullptr) << std::hex << leaf;
    EXPECT_EQ(std::vector<int64_t>(s->value().begin(), s->value().end()), values)
        << std::hex << leaf;
  }
}

TEST_F(PprofTest, LocationsAreReturnAddressesLeafFirst) {
  Reader r(profile_);
  using V = std::vector<uint64_t>;
  EXPECT_EQ(r.Addresses(*SampleAt(r, 0)), V{});
  EXPECT_EQ(r.Addresses(*SampleAt(r, 0x401200)), (V{0x401200, 0x401100}));
  EXPECT_EQ(r.Addresses(*SampleAt(r, 0x7f0000000100)), (V{0x7f0000000100, 0x401200, 0x401100}));
  EXPECT_EQ(r.Addresses(*SampleAt(r, 0x401300)), (V{0x401300, 0x401100}));
  // One Location per distinct return address, shared between samples.
  EXPECT_EQ(profile_.location_size(), 5);
  EXPECT_EQ(SampleAt(r, 0x401200)->location_id(1), SampleAt(r, 0x401300)->location_id(1));
}

TEST_F(PprofTest, InlinedCallsAreLinesInnermostFirst) {
  Reader r(profile_);
  const pb::Sample& s = *SampleAt(r, 0x401200);
  EXPECT_EQ(r.Lines(r.Location(s.location_id(0))),
            (std::vector<std::string>{"Widget::Widget widget.h:20:5", "make_widget widget.cc:30:7",
                                      "build app.cc:40:9"}));
  EXPECT_EQ(r.Lines(r.Location(s.location_id(1))), std::vector<std::string>{"main app.cc:10:3"});
  // One Function per (name, file): build at 0x401300 is the caller of the
  // inlined chain at 0x401200.
  const pb::Sample& s4 = *SampleAt(r, 0x401300);
  EXPECT_EQ(r.Lines(r.Location(s4.location_id(0))), std::vector<std::string>{"build app.cc:45:2"});
  EXPECT_EQ(r.Location(s4.location_id(0)).line(0).function_id(),
            r.Location(s.location_id(0)).line(2).function_id());
  // Widget::Widget, make_widget, build, main, and the frames without a name:
  // libfoo.so+0x100, 0x900000000.
  EXPECT_EQ(profile_.function_size(), 6);
  const pb::Function& build = r.Function(r.Location(s4.location_id(0)).line(0).function_id());
  EXPECT_EQ(r.Str(build.system_name()), "build");
}

TEST_F(PprofTest, MappingsFromModuleRanges) {
  Reader r(profile_);
  ASSERT_EQ(profile_.mapping_size(), 3);
  struct Want {
    uint64_t start, limit, offset;
    std::string file, build_id;
    bool symbols;
  };
  const Want want[] = {
      {0x400000, 0x401000, 0, "/usr/bin/app", "deadbeef010a", false},
      {0x401000, 0x405000, 0x1000, "/usr/bin/app", "deadbeef010a", true},
      {0x7f0000000000, 0x7f0000010000, 0, "/lib/libfoo.so", "", false},
  };
  for (int i = 0; i < 3; ++i) {
    const pb::Mapping& m = profile_.mapping(i);
    SCOPED_TRACE(i);
    EXPECT_EQ(m.id(), static_cast<uint64_t>(i + 1));
    EXPECT_EQ(m.memory_start(), want[i].start);
    EXPECT_EQ(m.memory_limit(), want[i].limit);
    EXPECT_EQ(m.file_offset(), want[i].offset);
    EXPECT_EQ(r.Str(m.filename()), want[i].file);
    EXPECT_EQ(r.Str(m.build_id()), want[i].build_id);
    EXPECT_EQ(m.has_functions(), want[i].symbols);
    EXPECT_EQ(m.has_filenames(), want[i].symbols);
    EXPECT_EQ(m.has_line_numbers(), want[i].symbols);
    EXPECT_EQ(m.has_inline_frames(), want[i].symbols);
  }
  auto mapping_of = [&](uint64_t leaf) {
    return r.Location(SampleAt(r, leaf)->location_id(0)).mapping_id();
  };
  EXPECT_EQ(mapping_of(0x401200), 2u);
  EXPECT_EQ(mapping_of(0x7f0000000100), 3u);
  EXPECT_EQ(mapping_of(0x900000000), 0u);  // in no module
  // No symbol: named by module and offset, and its mapping (libfoo's) is
  // left for pprof to symbolize from the binary.
  EXPECT_EQ(r.Lines(r.Location(SampleAt(r, 0x7f0000000100)->location_id(0))),
            std::vector<std::string>{"libfoo.so+0x100 :0:0"});
  EXPECT_EQ(r.Lines(r.Location(SampleAt(r, 0x900000000)->location_id(0))),
            std::vector<std::string>{"0x900000000 :0:0"});
}

TEST_F(PprofTest, EveryReferencedIdExistsAndIdsAreUnique) {
  Reader r(profile_);
  EXPECT_EQ(r.locations().size(), static_cast<size_t>(profile_.location_size()));
  EXPECT_EQ(r.functions().size(), static_cast<size_t>(profile_.function_size()));
  EXPECT_EQ(r.mappings().size(), static_cast<size_t>(profile_.mapping_size()));
  EXPECT_EQ(r.locations().count(0), 0u);
  EXPECT_EQ(r.functions().count(0), 0u);
  EXPECT_EQ(r.mappings().count(0), 0u);
  for (const pb::Sample& s : profile_.sample()) {
    EXPECT_EQ(s.value_size(), profile_.sample_type_size());
    for (uint64_t id : s.location_id()) EXPECT_EQ(r.locations().count(id), 1u) << id;
  }
  for (const pb::Location& l : profile_.location()) {
    if (l.mapping_id() != 0) {
      EXPECT_EQ(r.mappings().count(l.mapping_id()), 1u);
    }
    for (const pb::Line& line : l.line()) EXPECT_EQ(r.functions().count(line.function_id()), 1u);
  }
  // Str() fails the test on an index outside the string table.
  for (const pb::Function& f : profile_.function()) {
    r.Str(f.name());
    r.Str(f.system_name());
    r.Str(f.filename());
  }
  for (const pb::Mapping& m : profile_.mapping()) {
    r.Str(m.filename());
    r.Str(m.build_id());
  }
  r.Str(profile_.period_type().type());
  r.Str(profile_.period_type().unit());
  // Each string once.
  const std::set<std::string> distinct(profile_.string_table().begin(),
                                       profile_.string_table().end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(profile_.string_table_size()));
}

TEST(PprofEmptyTest, NoSitesStillMakesAValidProfile) {
  const std::string path = TempPath("empty.pb.gz");
  std::string error;
  ASSERT_TRUE(WritePprof(path, {}, SymbolTable(), &error)) << error;
  pb::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(path)));
  EXPECT_EQ(p.sample_type_size(), 4);
  EXPECT_EQ(p.sample_size(), 0);
  EXPECT_EQ(p.string_table(0), "");
}

TEST(PprofErrorTest, UncreatableFileNamesThePath) {
  const std::string path = TempPath("no/such/dir/heap.pb.gz");
  std::string error;
  EXPECT_FALSE(WritePprof(path, Input(), Symbols(), &error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(PprofErrorTest, FullDiskNamesThePath) {
  std::string error;
  if (!std::ifstream("/dev/full")) GTEST_SKIP() << "no /dev/full";
  EXPECT_FALSE(WritePprof("/dev/full", Input(), Symbols(), &error));
  EXPECT_NE(error.find("/dev/full"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

}  // namespace
}  // namespace heaprec::analyzers
