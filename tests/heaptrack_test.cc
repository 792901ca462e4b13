// heapreplay on heaptrack's own recordings: programs with known allocations
// (c_leaks, cxx_new) recorded by heaptrack (Debian's, from tools/setup.sh)
// in the test, then read by heapreplay and by heaptrack_print. Their totals
// (calls, temporaries, peak, leaked) and every call stack's numbers agree,
// and the known sites show their known bytes. The same recording as plain
// text and gzip reads the same; a cut one yields what precedes the cut with
// a warning; a damaged one is one line naming the file and a non-zero exit.
// --export heaptrack writes what heaptrack_print reads as heapreplay does.
// RSS both ways (tests/rss: 64 MiB written and held): heaptrack's `R` lines
// are heapreplay's RSS samples, and --export heaptrack writes heaprec's
// samples as `R` lines, so heaptrack_print's peak RSS is heapreplay's.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

using nlohmann::json;

constexpr char kHeaptrack[] = "/usr/bin/heaptrack";
constexpr char kHeaptrackPrint[] = "/usr/bin/heaptrack_print";

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Records program under heaptrack; the recording's path (DIR/ht.zst).
std::string RecordWithHeaptrack(const std::string& name, const std::string& program) {
  EXPECT_EQ(access(kHeaptrack, X_OK), 0) << "heaptrack is missing (tools/setup.sh)";
  const std::string dir = MakeTempDir(name);
  const ProcessResult run = RunProgram({kHeaptrack, "-o", dir + "/ht", Runfile(program)});
  EXPECT_EQ(access((dir + "/ht.zst").c_str(), R_OK), 0) << run.out << run.err;
  return dir + "/ht.zst";
}

std::string Decompress(const std::string& zst) {
  const std::string in = ReadTextFile(zst);
  std::string out;
  ZSTD_DStream* d = ZSTD_createDStream();
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  std::string block(1 << 16, '\0');
  while (ib.pos < ib.size) {
    ZSTD_outBuffer ob{block.data(), block.size(), 0};
    const size_t r = ZSTD_decompressStream(d, &ob, &ib);
    if (ZSTD_isError(r)) break;
    out.append(block.data(), ob.pos);
  }
  ZSTD_freeDStream(d);
  return out;
}

// text as a zstd stream whose frame never ends (complete blocks, no end):
// what a heaptrack killed mid-run leaves.
std::string ZstdWithoutEnd(const std::string& text) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  std::string out(ZSTD_compressBound(text.size()) + 1024, '\0');
  ZSTD_inBuffer ib{text.data(), text.size(), 0};
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_flush);
  ZSTD_freeCCtx(c);
  out.resize(ob.pos);
  return out;
}

void WriteGzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

// heaptrack_print's numbers: its closing lines and, per call stack, each
// cost of its flame graph output (exact integers, one line per stack).
struct PrintNumbers {
  uint64_t calls = 0, temporaries = 0;
  std::map<std::string, std::vector<uint64_t>> per_stack;  // cost type -> nonzero values, sorted
  std::map<std::string, uint64_t> sums;                    // cost type -> total
  std::string text;
};

uint64_t NumberAfter(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  return at == std::string::npos ? UINT64_MAX : std::stoull(text.substr(at + label.size()));
}

PrintNumbers HeaptrackPrint(const std::string& recording) {
  EXPECT_EQ(access(kHeaptrackPrint, X_OK), 0) << "heaptrack_print is missing (tools/setup.sh)";
  PrintNumbers p;
  const ProcessResult text = RunProgram({kHeaptrackPrint, "-f", recording});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  p.text = text.out;
  p.calls = NumberAfter(text.out, "calls to allocation functions: ");
  p.temporaries = NumberAfter(text.out, "temporary memory allocations: ");
  EXPECT_EQ(text.out.find("suppressed leaks"), std::string::npos) << "builtin suppressions";
  for (const char* cost : {"allocations", "temporary", "leaked", "peak"}) {
    const std::string out = recording + "." + cost + ".folded";
    const ProcessResult r = RunProgram({kHeaptrackPrint, "-f", recording, "--print-flamegraph", out,
                                        "--flamegraph-cost-type", cost});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(ReadTextFile(out));
    std::string line;
    std::vector<uint64_t>& values = p.per_stack[cost];
    while (std::getline(lines, line)) {
      const uint64_t v = std::stoull(line.substr(line.rfind(' ') + 1));
      p.sums[cost] += v;
      if (v != 0) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    if (std::string(cost) == "allocations") EXPECT_FALSE(values.empty()) << "no stack in " << out;
  }
  return p;
}

json HeapreplayJson(const std::string& recording, std::string* err = nullptr) {
  const ProcessResult r = RunProgram({Heapreplay(), "--json", "--leaks", "--leak-kinds", "all",
                                      "--peak", "--hot", "--temporaries", "--top", "0", recording});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err != nullptr) *err = r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

std::vector<uint64_t> SiteValues(const json& sites, const char* key) {
  std::vector<uint64_t> values;
  for (const json& s : sites) {
    if (s[key].get<uint64_t>() != 0) values.push_back(s[key].get<uint64_t>());
  }
  std::sort(values.begin(), values.end());
  return values;
}

// Bytes and blocks per innermost function of the sites.
std::map<std::string, std::pair<uint64_t, uint64_t>> ByFunction(const json& sites) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (const json& s : sites) {
    auto& [bytes, count] = out[s["stack"][0]["function"].get<std::string>()];
    bytes += s["bytes"].get<uint64_t>();
    count += s["count"].get<uint64_t>();
  }
  return out;
}

// heaptrack_print's temporary rule, derived here from the text on its own:
// a `-` of the info of the latest `+`, where each `-` sets "the latest" to
// info 0. What it counts beyond a free right after its own allocation: the
// `- 0` lines that follow another `-` (or nothing).
uint64_t FreesOfInfoZeroAfterAFree(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  bool last_was_free = true;
  uint64_t n = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("+ ", 0) == 0) last_was_free = false;
    if (line.rfind("- ", 0) == 0) {
      n += line == "- 0" && last_was_free;
      last_was_free = true;
    }
  }
  return n;
}

// Every number heaptrack_print gives equals heapreplay's on the same file.
void ExpectSameAsHeaptrackPrint(const std::string& recording, const json& j) {
  const PrintNumbers p = HeaptrackPrint(recording);
  const json& s = j["summary"];
  EXPECT_EQ(s["allocations"].get<uint64_t>(), p.calls) << p.text;
  EXPECT_EQ(p.sums.at("allocations"), p.calls);
  EXPECT_EQ(s["peak_bytes"].get<uint64_t>(), p.sums.at("peak"));
  EXPECT_EQ(j["peak"]["bytes"].get<uint64_t>(), p.sums.at("peak"));
  EXPECT_EQ(s["leaked_bytes"].get<uint64_t>(), p.sums.at("leaked"));
  EXPECT_EQ(j["leaks"]["bytes"].get<uint64_t>(), p.sums.at("leaked"));
  const uint64_t quirk = FreesOfInfoZeroAfterAFree(Decompress(recording));
  EXPECT_EQ(s["temporaries"].get<uint64_t>() + quirk, p.temporaries) << p.text;
  // Per call stack, all of them (heaptrack's traces are heapreplay's stacks).
  EXPECT_EQ(SiteValues(j["hot"]["sites"], "count"), p.per_stack.at("allocations"));
  EXPECT_EQ(SiteValues(j["peak"]["sites"], "bytes"), p.per_stack.at("peak"));
  EXPECT_EQ(SiteValues(j["leaks"]["sites"], "bytes"), p.per_stack.at("leaked"));
  if (quirk == 0) {
    EXPECT_EQ(SiteValues(j["temporaries"]["sites"], "count"), p.per_stack.at("temporary"));
  }
  // What the recording does not hold is said.
  EXPECT_EQ(j["trace"]["recorded_by"], "heaptrack 1.4.0 (file format 3)");
  EXPECT_GE(j["trace"]["lacks"].size(), 3u);
  EXPECT_EQ(j["trace"]["lacks"][0], "threads");
}

TEST(HeaptrackTest, CLeaksAsHeaptrackPrintAndTheTruth) {
  const std::string recording = RecordWithHeaptrack("c_leaks", "tests/c_leaks");
  const json j = HeapreplayJson(recording);
  ASSERT_TRUE(j.is_object());
  ExpectSameAsHeaptrackPrint(recording, j);
  // tests/programs/c_leaks.c's sites, exactly.
  const auto leaks = ByFunction(j["leaks"]["sites"]);
  const std::map<std::string, std::pair<uint64_t, uint64_t>> want = {
      {"leak_malloc", {500, 5}},
      {"leak_calloc", {900, 3}},
      {"grow_buffer", {20000, 1}},
      {"leak_memalign", {400, 2}},
      {"leak_aligned", {512, 1}},
      {"move_buffer", {4096, 1}},
      // heaptrack records nothing for realloc(p, 0): its 40 B stay live.
      {"realloc_edges", {40, 1}}};
  for (const auto& [function, bytes_blocks] : want) {
    ASSERT_EQ(leaks.count(function), 1u) << function;
    EXPECT_EQ(leaks.at(function), bytes_blocks) << function;
  }
  EXPECT_EQ(ByFunction(j["temporaries"]["sites"]).at("temp_malloc"),
            (std::pair<uint64_t, uint64_t>{7 * 48, 7}));
  EXPECT_EQ(ByFunction(j["hot"]["sites"]).at("make_freed"),
            (std::pair<uint64_t, uint64_t>{4 * 32, 4}));
}

TEST(HeaptrackTest, CxxNewSkipsOperatorNewAsHeaptrackPrint) {
  const std::string recording = RecordWithHeaptrack("cxx_new", "tests/cxx_new");
  const json j = HeapreplayJson(recording);
  ASSERT_TRUE(j.is_object());
  ExpectSameAsHeaptrackPrint(recording, j);
  const auto leaks = ByFunction(j["leaks"]["sites"]);
  // operator new(unsigned long) and new[] are skipped, as heaptrack_print
  // does; the aligned and nothrow forms stay (heaptrack_print keeps them).
  EXPECT_EQ(leaks.at("leak_new()"), (std::pair<uint64_t, uint64_t>{96, 4}));
  EXPECT_EQ(leaks.at("leak_new_array()"), (std::pair<uint64_t, uint64_t>{200, 2}));
  EXPECT_EQ(leaks.at("operator new(unsigned long, std::align_val_t)"),
            (std::pair<uint64_t, uint64_t>{384, 3}));
}

TEST(HeaptrackTest, PlainAndGzipReadAsZstd) {
  const std::string recording = RecordWithHeaptrack("formats", "tests/c_leaks");
  const std::string text = Decompress(recording);
  ASSERT_EQ(text.rfind("v ", 0), 0u);
  const std::string dir = MakeTempDir("formats_out");
  WriteFile(dir + "/plain", text);
  WriteGzip(dir + "/recording.gz", text);
  const json zst = HeapreplayJson(recording);
  for (const std::string& other : {dir + "/plain", dir + "/recording.gz"}) {
    const json j = HeapreplayJson(other);
    ASSERT_TRUE(j.is_object()) << other;
    EXPECT_EQ(j["summary"], zst["summary"]) << other;
    EXPECT_EQ(j["leaks"]["sites"], zst["leaks"]["sites"]) << other;
  }
}

TEST(HeaptrackTest, CutRecordingYieldsWhatPrecedesTheCut) {
  const std::string recording = RecordWithHeaptrack("cut", "tests/c_leaks");
  const std::string text = Decompress(recording);
  // Cut in the middle of a line about two thirds in.
  size_t cut = text.size() * 2 / 3;
  while (text[cut] == '\n') ++cut;
  const std::string kept = text.substr(0, cut);
  uint64_t allocations = 0, frees = 0;
  std::istringstream lines(kept.substr(0, kept.rfind('\n') + 1));
  for (std::string line; std::getline(lines, line);) {
    allocations += line.rfind("+ ", 0) == 0;
    frees += line.rfind("- ", 0) == 0;
  }
  ASSERT_GT(allocations, 0u);
  const std::string dir = MakeTempDir("cut_out");
  WriteFile(dir + "/cut.txt", kept);
  WriteFile(dir + "/cut.zst", ZstdWithoutEnd(kept));
  for (const std::string& path : {dir + "/cut.txt", dir + "/cut.zst"}) {
    std::string err;
    const json j = HeapreplayJson(path, &err);
    ASSERT_TRUE(j.is_object()) << path;
    EXPECT_NE(err.find("truncated"), std::string::npos) << err;
    EXPECT_NE(err.find(path), std::string::npos) << err;
    EXPECT_EQ(j["trace"]["truncated"], true);
    EXPECT_EQ(j["summary"]["allocations"].get<uint64_t>(), allocations) << path;
    EXPECT_EQ(j["summary"]["frees"].get<uint64_t>(), frees) << path;
  }
}

// heaptrack_print's extra temporary (a free of info 0 after another free),
// checked on heaptrack_print itself: heapreplay counts by the block rule and
// says heaptrack_print's count in a note.
TEST(HeaptrackTest, HeaptrackPrintsExtraTemporaryIsNoted) {
  const std::string dir = MakeTempDir("extra_temporary");
  const std::string path = dir + "/recording";
  WriteFile(path,
            "v 10400 3\nX ./app\ns 3 app\ni 1000 1\nt 1 0\na 10 1\na 20 1\n"
            "+ 0\n+ 1\n- 1\n- 0\n# strings: 1\n# ips: 1\n");
  const PrintNumbers p = HeaptrackPrint(path);
  EXPECT_EQ(p.calls, 2u);
  EXPECT_EQ(p.temporaries, 2u);  // - 1 after + 1, and - 0 after - 1
  EXPECT_EQ(FreesOfInfoZeroAfterAFree(ReadTextFile(path)), 1u);
  const json j = HeapreplayJson(path);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["summary"]["temporaries"], 1);
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0].get<std::string>().rfind("heaptrack_print counts 2 temporaries", 0), 0u)
      << j["notes"];
}

// heaptrack_print's built-in suppressions (dl_open_worker here), checked on
// heaptrack_print itself: heapreplay notes the bytes they leave out, and
// --suppressions with the same LeakSanitizer line leaves them out too.
TEST(HeaptrackTest, HeaptrackPrintsSuppressedLeaksAreNoted) {
  const std::string dir = MakeTempDir("suppressed");
  const std::string path = dir + "/recording", supp = dir + "/lsan.supp";
  WriteFile(path,
            "v 10400 3\nX ./app\ns 3 app\ns e dl_open_worker\ni 1000 1 2\nt 1 0\n"
            "i 2000 1\nt 2 0\na 64 1\na 10 2\n+ 0\n+ 1\n# strings: 2\n# ips: 2\n");
  WriteFile(supp, "leak:dl_open_worker\n");
  const ProcessResult print = RunProgram({kHeaptrackPrint, "-f", path});
  EXPECT_NE(print.out.find("total memory leaked: 16B\nsuppressed leaks: 100B\n"), std::string::npos)
      << print.out;
  const json j = HeapreplayJson(path);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["summary"]["leaked_bytes"], 116);
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0].get<std::string>().rfind("heaptrack_print leaves 100 B out", 0), 0u)
      << j["notes"];
  const ProcessResult r =
      RunProgram({Heapreplay(), "--leaks", "--json", "--suppressions", supp, path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(r.out);
  EXPECT_EQ(s["leaks"]["kinds"]["suppressed"]["bytes"], 100);
  EXPECT_EQ(s["leaks"]["kinds"]["unknown"]["bytes"], 16);
  ASSERT_EQ(s["leaks"]["sites"].size(), 1u);
  EXPECT_EQ(s["leaks"]["sites"][0]["bytes"], 16);
}

TEST(HeaptrackTest, DamageIsOneLineNamingTheFile) {
  const std::string dir = MakeTempDir("damage");
  const std::string head = "v 10400 3\nX ./app\ns 3 app\ni 1000 1\nt 1 0\na 10 1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + "+ zz\n", "line 7: malformed allocation"},
      {head + "+ 5\n", "line 7: allocation of info 5 of only 1"},
      {head + "t 9 0\n", "line 7: trace node names instruction pointer 9 of only 1"},
      {"v 10600 4\n", "line 1: file format 4 is newer than this reader knows (3)"},
      {"v 10400 3\nX a\nX b\n", "line 3: a second command line"},
  };
  int n = 0;
  for (const auto& [content, what] : cases) {
    const std::string path = dir + "/bad" + std::to_string(n++);
    WriteFile(path, content);
    const ProcessResult r = RunProgram({Heapreplay(), "--leaks", path});
    EXPECT_EQ(r.exit_code, 1) << path;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(path + ": " + what), std::string::npos) << r.err;
  }
}

// heaptrack_gui's parser (src/analyze/gui/parser.cpp, handleAllocation)
// counts allocation infos in the order a + line first uses them, and reads
// past its table when one comes out of that order: so every a line's info is
// first used by a + line, in index order, and a - line names only an info a
// + line used before.
void ExpectInfosInFirstUseOrder(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  uint64_t infos = 0, used = 0;
  std::vector<bool> seen;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line[1] != ' ') continue;
    if (line[0] == 'a') ++infos;
    if (line[0] != '+' && line[0] != '-') continue;
    const uint64_t index = std::stoull(line.substr(2), nullptr, 16);
    if (line[0] == '+' && (index >= seen.size() || !seen[index])) {
      ASSERT_EQ(index, used) << "'" << line << "': a new info out of order";
      seen.resize(index + 1);
      seen[index] = true;
      ++used;
    } else if (line[0] == '-') {
      ASSERT_TRUE(index < seen.size() && seen[index]) << "'" << line << "' before any + of it";
    }
  }
  EXPECT_EQ(infos, used) << "a lines no + line uses";
}

// --export heaptrack: a program recorded by heaprec, written as heaptrack's
// format; heaptrack_print's numbers on that file are heapreplay's on the
// trace, and heapreplay reads its own export back to the same summary.
void ExpectExportAsHeapreplay(const std::string& name, const std::string& program) {
  const std::string dir = MakeTempDir(name);
  const std::string trace = dir + "/trace.zst", exported = dir + "/exported.zst";
  const ProcessResult run = RunHeaprec(trace, {Runfile(program)});
  ASSERT_EQ(access(trace.c_str(), R_OK), 0) << run.err;
  const ProcessResult x = RunProgram({Heapreplay(), "--export", "heaptrack", exported, trace});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  EXPECT_EQ(x.out, "");  // a file alone is written alone
  ExpectInfosInFirstUseOrder(Decompress(exported));
  const json j = HeapreplayJson(trace);
  ASSERT_TRUE(j.is_object());
  const PrintNumbers p = HeaptrackPrint(exported);
  const json& s = j["summary"];
  EXPECT_EQ(s["allocations"].get<uint64_t>(), p.calls) << p.text;
  // heaptrack's own quirk on info 0 (as on its recordings, above).
  const uint64_t quirk = FreesOfInfoZeroAfterAFree(Decompress(exported));
  EXPECT_EQ(s["temporaries"].get<uint64_t>() + quirk, p.temporaries) << p.text;
  EXPECT_EQ(s["peak_bytes"].get<uint64_t>(), p.sums.at("peak"));
  EXPECT_EQ(s["leaked_bytes"].get<uint64_t>(), p.sums.at("leaked"));
  EXPECT_EQ(SiteValues(j["peak"]["sites"], "bytes"), p.per_stack.at("peak"));
  EXPECT_EQ(SiteValues(j["leaks"]["sites"], "bytes"), p.per_stack.at("leaked"));
  if (quirk == 0) {
    EXPECT_EQ(SiteValues(j["temporaries"]["sites"], "count"), p.per_stack.at("temporary"));
  }
  EXPECT_EQ(SiteValues(j["hot"]["sites"], "count"), p.per_stack.at("allocations"));
  // Read back: the same numbers.
  const json back = HeapreplayJson(exported);
  ASSERT_TRUE(back.is_object());
  for (const char* key : {"allocations", "frees", "bytes_allocated", "peak_bytes", "leaked_bytes",
                          "leaked_blocks", "temporaries"}) {
    EXPECT_EQ(back["summary"][key], s[key]) << key;
  }
}

TEST(HeaptrackTest, ExportOfCLeaksAsHeaptrackPrintSees) {
  ExpectExportAsHeapreplay("export_c_leaks", "tests/c_leaks");
}

TEST(HeaptrackTest, ExportOfCxxNewAsHeaptrackPrintSees) {
  ExpectExportAsHeapreplay("export_cxx_new", "tests/cxx_new");
}

TEST(HeaptrackTest, ExportRefusesASampleAndAnUnknownFormat) {
  const std::string dir = MakeTempDir("export_refusals");
  const std::string trace = dir + "/sampled.zst";
  RunProgram({Runfile("recorder/heaprec"), "-q", "--sample-rate", "1K", "-o", trace,
              Runfile("tests/c_leaks")});
  ASSERT_EQ(access(trace.c_str(), R_OK), 0);
  ProcessResult r = RunProgram({Heapreplay(), "--export", "heaptrack", dir + "/x.zst", trace});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(dir + "/x.zst: --export heaptrack: the trace is a sample"),
            std::string::npos)
      << r.err;
  r = RunProgram({Heapreplay(), "--export", "massive", dir + "/x.zst", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format 'massive'"), std::string::npos) << r.err;
  r = RunProgram({Heapreplay(), trace, "--export", "heaptrack"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--export heaptrack needs a file"), std::string::npos) << r.err;
  r = RunProgram({Heapreplay(), "--export", "heaptrack", dir + "/x.zst", trace, trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("an output other than --json takes one trace"), std::string::npos) << r.err;
  EXPECT_NE(access((dir + "/x.zst").c_str(), F_OK), 0);
}

// A recording's `I` page size and its `R` lines (resident pages, in order).
struct RssLines {
  uint64_t page_size = 0;
  std::vector<uint64_t> pages;
  uint64_t peak_bytes() const {
    return pages.empty() ? 0 : *std::max_element(pages.begin(), pages.end()) * page_size;
  }
};

RssLines ReadRssLines(const std::string& text) {
  RssLines r;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("I ", 0) == 0) r.page_size = std::stoull(line.substr(2), nullptr, 16);
    if (line.rfind("R ", 0) == 0) r.pages.push_back(std::stoull(line.substr(2), nullptr, 16));
  }
  return r;
}

// heaptrack_print's "peak RSS (including heaptrack overhead): 70.97M" in
// bytes, with the half unit of its last digit (two decimals of 1000-based
// units, named by their first letter; bytes whole, as "512B").
std::pair<double, double> PrintedPeakRss(const std::string& text) {
  const std::string label = "peak RSS (including heaptrack overhead): ";
  const size_t at = text.find(label);
  if (at == std::string::npos) return {-1, 0};
  size_t used = 0;
  const double value = std::stod(text.substr(at + label.size()), &used);
  const char unit = text[at + label.size() + used];
  double scale = 1;
  for (const char u : {'K', 'M', 'G', 'T'}) {
    scale *= 1000;
    if (unit == u) return {value * scale, 0.005 * scale};
  }
  return {value, 0.5};
}

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(HeaptrackTest, ExportWritesRssAsHeaptrackDoes) {
  const std::string dir = MakeTempDir("export_rss");
  const std::string trace = dir + "/trace.zst", exported = dir + "/exported.zst";
  const ProcessResult run = RunHeaprec(trace, {Runfile("tests/rss")});
  ASSERT_EQ(access(trace.c_str(), R_OK), 0) << run.err;
  const ProcessResult x = RunProgram({Heapreplay(), "--export", "heaptrack", exported, trace});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  const json j = HeapreplayJson(trace);
  ASSERT_TRUE(j.is_object());
  const uint64_t peak_rss = j["summary"]["peak_rss_bytes"];
  EXPECT_GE(peak_rss, 64 * kMiB);
  // One R line per sample, in pages: their highest is the peak exactly.
  // tests/rss frees a block made before recording (by the loader): no line.
  ExpectInfosInFirstUseOrder(Decompress(exported));
  const RssLines lines = ReadRssLines(Decompress(exported));
  EXPECT_EQ(lines.page_size, static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(lines.pages.size(), j["rss"]["samples"].get<uint64_t>());
  EXPECT_EQ(lines.peak_bytes(), peak_rss);
  // heaptrack_print says so, to its two decimals.
  const PrintNumbers p = HeaptrackPrint(exported);
  const auto [shown, half_unit] = PrintedPeakRss(p.text);
  EXPECT_NEAR(shown, static_cast<double>(peak_rss), half_unit + 1) << p.text;
  // heapreplay reads the export's R lines back as the same samples.
  const json back = HeapreplayJson(exported);
  ASSERT_TRUE(back.is_object());
  EXPECT_EQ(back["summary"]["peak_rss_bytes"], peak_rss);
  EXPECT_EQ(back["rss"]["samples"], j["rss"]["samples"]);
}

TEST(HeaptrackTest, RecordingsRssIsHeapreplaysRss) {
  const std::string recording = RecordWithHeaptrack("rss", "tests/rss");
  const RssLines lines = ReadRssLines(Decompress(recording));
  ASSERT_GE(lines.pages.size(), 20u);  // ~550 ms, a sample every 10 ms
  const ProcessResult r = RunProgram({Heapreplay(), "--json", "--timeline", "--peak", recording});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["rss"]["samples"].get<uint64_t>(), lines.pages.size());
  const uint64_t peak_rss = j["summary"]["peak_rss_bytes"];
  EXPECT_EQ(peak_rss, lines.peak_bytes());
  EXPECT_GE(peak_rss, 64 * kMiB);
  // Held 200 ms after it was written: the RSS at the heap's peak holds it.
  // (The peak has 64 MiB and what heaptrack's libstdc++ allocates at load.)
  const uint64_t peak = j["summary"]["peak_bytes"];
  EXPECT_GE(peak, 64 * kMiB);
  EXPECT_LT(peak, 65 * kMiB);
  EXPECT_GE(j["summary"]["rss_at_peak_bytes"].get<uint64_t>(), 64 * kMiB);
  // statm does not split anonymous from file pages: the points say so.
  for (const json& point : j["rss"]["points"]) {
    EXPECT_EQ(point["anon_bytes"], 0);
    EXPECT_EQ(point["rss_bytes"], point["unsplit_bytes"]);
  }
  const auto [shown, half_unit] = PrintedPeakRss(HeaptrackPrint(recording).text);
  EXPECT_NEAR(shown, static_cast<double>(peak_rss), half_unit + 1);
  // --export massif shows that RSS beside the heap and says whose it is.
  const std::string massif = MakeTempDir("rss_massif") + "/massif.out";
  const ProcessResult m = RunProgram({Heapreplay(), "--export", "massif", massif, recording});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const std::string text = ReadTextFile(massif);
  EXPECT_NE(text.find("mem_heap_extra_B = the process's RSS (heaptrack's samples"),
            std::string::npos)
      << text.substr(0, 400);
  // The peak's snapshot: heapreplay's peak, and the RSS held above it.
  const size_t tree = text.find("heap_tree=peak");
  ASSERT_NE(tree, std::string::npos);
  const size_t heap = text.rfind("mem_heap_B=", tree);
  const size_t extra = text.rfind("mem_heap_extra_B=", tree);
  ASSERT_TRUE(heap != std::string::npos && extra != std::string::npos);
  EXPECT_EQ(std::stoull(text.substr(heap + 11)), peak);
  EXPECT_GT(std::stoull(text.substr(extra + 17)), 0u) << text.substr(heap, 60);
}

}  // namespace
}  // namespace heaprec::tests
