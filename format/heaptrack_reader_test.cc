// ReadHeaptrackFile on small recordings written here line by line: what
// each heaptrack record becomes (heaptrack_reader.h), the blocks paired last
// in, first out, operator new skipped, heaptrack_print's temporary count,
// `R` lines as RSS samples, the content (not the name) telling a recording
// apart, and what HeaptrackWriter writes read back.
#include "format/heaptrack_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "format/heaptrack_writer.h"

namespace heaprec::format {
namespace {

struct Recorded : TraceVisitor {
  std::vector<ProcessInfo> processes;
  std::vector<Module> modules;
  std::vector<StackNode> nodes;
  std::vector<Symbol> symbols;
  std::vector<Event> events;
  std::vector<EndRecord> ends;
  std::vector<RssSample> rss;
  void OnProcess(const ProcessInfo& p) override { processes.push_back(p); }
  void OnModule(const Module& m) override { modules.push_back(m); }
  void OnStackNode(const StackNode& n) override { nodes.push_back(n); }
  void OnSymbol(const Symbol& s) override { symbols.push_back(s); }
  void OnEvent(const Event& e) override { events.push_back(e); }
  void OnEnd(const EndRecord& e) override { ends.push_back(e); }
  void OnRssSample(const RssSample& s) override { rss.push_back(s); }
};

std::string Write(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A program `app` whose main (inlining helper) calls malloc and operator new.
const char kRecording[] =
    "v 10400 3\n"
    "X ./app --fast\n"
    "I 1000 100\n"
    "s 5 ./app\n"                         // 1
    "s 4 main\n"                          // 2
    "s 8 app.c:xx\n"                      // 3
    "s 6 helper\n"                        // 4
    "s 1b operator new(unsigned long)\n"  // 5
    "s 15 /usr/lib/libstdc++.so\n"        // 6
    "i 4010 1 4 3 a 2 3 14\n"             // ip 1: helper:10, inlined in main:20
    "t 1 0\n"                             // trace 1 -> stack 1
    "i 4020 1 2 3 b\n"                    // ip 2: main:11
    "t 2 0\n"                             // trace 2 -> stack 2
    "i 9000 6 5\n"                        // ip 3: operator new
    "t 3 2\n"                             // trace 3 -> stack 2 (skipped)
    "i 9100 6\n"                          // ip 4: no name
    "t 4 1\n"                             // trace 4 -> stack 3
    "a 40 1\n"                            // info 0: 64 B at stack 1
    "a 10 3\n"                            // info 1: 16 B at stack 2 (via new)
    "a 8 4\n"                             // info 2: 8 B at stack 3
    "+ 0\n+ 0\n"                          // blocks 1, 2
    "c a\n"                               // 10 ms
    "- 0\n"                               // block 2 (the newest)
    "+ 1\n- 1\n"                          // block 3, a temporary
    "- 0\n"                               // block 1: heaptrack_print's extra temporary
    "- 2\n"                               // no live block of info 2
    "+ 2\n"                               // block 4, leaked
    "R 20\nR 30\n"
    "# strings: 6\n# ips: 4\n";

TEST(HeaptrackReaderTest, RecordsFromEveryLine) {
  const std::string path = Write("heaptrack.app.4242.zst", kRecording);  // plain text: by content
  ASSERT_TRUE(IsHeaptrackFile(path));
  Recorded r;
  HeaptrackFacts facts;
  const ReadResult result = ReadHeaptrackFile(path, r, &facts);
  ASSERT_EQ(result.status, ReadResult::kComplete) << result.message;
  EXPECT_EQ(facts.Describe(), "heaptrack 1.4.0 (file format 3)");
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].program, "./app");
  EXPECT_EQ(r.processes[0].args, (std::vector<std::string>{"./app", "--fast"}));
  EXPECT_EQ(r.processes[0].pid, 4242);  // from heaptrack's name for its files
  EXPECT_EQ(r.processes[0].page_size, 0x1000u);
  EXPECT_TRUE(r.processes[0].from_start);

  ASSERT_EQ(r.modules.size(), 2u);
  EXPECT_EQ(r.modules[0].path, "./app");
  EXPECT_EQ(r.modules[1].path, "/usr/lib/libstdc++.so");
  // Stacks: operator new's node stands for its parent.
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[0], (StackNode{1, 0, 0x4010}));
  EXPECT_EQ(r.nodes[1], (StackNode{2, 0, 0x4020}));
  EXPECT_EQ(r.nodes[2], (StackNode{3, 1, 0x9100}));
  ASSERT_EQ(r.symbols.size(), 3u);  // none for operator new
  EXPECT_EQ(r.symbols[0].address, 0x4010u);
  EXPECT_EQ(r.symbols[0].module, 1u);
  EXPECT_EQ(r.symbols[0].frames,
            (std::vector<SourceFrame>{{"helper", "app.c:xx", 10, 0}, {"main", "app.c:xx", 20, 0}}));
  EXPECT_EQ(r.symbols[2].module, 2u);
  EXPECT_TRUE(r.symbols[2].frames.empty());

  // Events: + 0, + 0, - 0, + 1, - 1, - 0, + 2 (the unmatched - 2 dropped).
  ASSERT_EQ(r.events.size(), 7u);
  const std::vector<std::tuple<Api, uint64_t, uint32_t, uint64_t, uint64_t>> want = {
      {Api::kMalloc, 64, 1, 1, 0},        {Api::kMalloc, 64, 1, 2, 0},
      {Api::kFree, 0, 0, 2, 10'000'000},  {Api::kMalloc, 16, 2, 3, 10'000'000},
      {Api::kFree, 0, 0, 3, 10'000'000},  {Api::kFree, 0, 0, 1, 10'000'000},
      {Api::kMalloc, 8, 3, 4, 10'000'000}};
  for (size_t i = 0; i < want.size(); ++i) {
    const Event& e = r.events[i];
    EXPECT_EQ(e.seq, i + 1);
    EXPECT_EQ(e.thread, 1u);
    EXPECT_EQ(std::tuple(e.api, e.size, e.stack, e.block, e.time_ns), want[i]) << i;
  }
  // - 0 after + 0, - 1 after + 1, and (heaptrack_print's extra) - 0 after - 1.
  EXPECT_EQ(facts.heaptrack_print_temporaries, 3u);
  EXPECT_EQ(facts.unmatched_frees, 1u);
  EXPECT_EQ(facts.peak_rss_pages, 0x30u);
  // R lines: pages of the I line's 0x1000 bytes, after the last event, at
  // the last time stamp, of no known kind.
  ASSERT_EQ(r.rss.size(), 2u);
  EXPECT_EQ(r.rss[0], (RssSample{.seq = 8, .time_ns = 10'000'000, .unsplit_bytes = 0x20 * 0x1000}));
  EXPECT_EQ(r.rss[1], (RssSample{.seq = 8, .time_ns = 10'000'000, .unsplit_bytes = 0x30 * 0x1000}));
  EXPECT_EQ(r.rss[1].total_bytes(), 0x30u * 0x1000);
  ASSERT_EQ(r.ends.size(), 1u);
  EXPECT_EQ(r.ends[0].allocations, 4u);
  EXPECT_EQ(r.ends[0].frees, 3u);
  EXPECT_EQ(r.ends[0].bytes_allocated, 64u + 64 + 16 + 8);
  EXPECT_TRUE(r.ends[0].symbols_complete);
}

TEST(HeaptrackReaderTest, ToldByContentWhateverTheName) {
  const std::string text = kRecording;
  std::string zst(ZSTD_compressBound(text.size()), '\0');
  zst.resize(ZSTD_compress(zst.data(), zst.size(), text.data(), text.size(), 3));
  const std::string gz_path = ::testing::TempDir() + "/recording";
  gzFile f = gzopen(gz_path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  for (const std::string& path : {Write("a.trace", zst), gz_path}) {
    ASSERT_TRUE(IsHeaptrackFile(path)) << path;
    Recorded r;
    EXPECT_EQ(ReadHeaptrackFile(path, r).status, ReadResult::kComplete) << path;
    EXPECT_EQ(r.events.size(), 7u) << path;
  }
  EXPECT_FALSE(IsHeaptrackFile(Write("heaptrack.app.1.zst", "hello\n")));
  EXPECT_FALSE(IsHeaptrackFile(Write("empty", "")));
  EXPECT_FALSE(IsHeaptrackFile(::testing::TempDir() + "/does-not-exist"));
}

TEST(HeaptrackReaderTest, AttachedAndUnfinished) {
  const std::string path = Write("attached",
                                 "v 10400 3\nX ./app\nA\ns 3 app\ni 1 1\nt 1 0\n"
                                 "a 8 1\n+ 0\nR 10\n");
  Recorded r;
  HeaptrackFacts facts;
  const ReadResult result = ReadHeaptrackFile(path, r, &facts);
  EXPECT_EQ(result.status, ReadResult::kTruncated);
  EXPECT_NE(result.message.find(path + ": truncated"), std::string::npos) << result.message;
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_FALSE(r.processes[0].from_start);
  EXPECT_EQ(r.events.size(), 1u);
  // Without an `I` line the pages have no size: a fact, not a sample.
  EXPECT_EQ(facts.peak_rss_pages, 0x10u);
  EXPECT_TRUE(r.rss.empty());
}

// heaptrack writes the command line as it is: an argument with a newline
// runs over the next lines, up to the first record.
TEST(HeaptrackReaderTest, CommandLineOverSeveralLines) {
  const std::string path = Write("multiline",
                                 "v 10400 3\nX python3 -c import os\ndef f():\n  pass\nI 1000 1\n"
                                 "s 3 app\n# strings: 1\n# ips: 0\n");
  Recorded r;
  ASSERT_EQ(ReadHeaptrackFile(path, r).status, ReadResult::kComplete);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].args,
            (std::vector<std::string>{"python3", "-c", "import", "os", "def", "f():", "pass"}));
}

// What HeaptrackWriter writes, ReadHeaptrackFile reads back; infos are
// numbered from 0 in the order first seen, as heaptrack numbers them.
TEST(HeaptrackReaderTest, WriterRoundTrip) {
  HeaptrackWriter w;
  const uint64_t info = w.InfoOf(32, 2);
  EXPECT_EQ(info, 0u);
  EXPECT_EQ(w.InfoOf(32, 2), info);
  w.Allocate(info);
  w.Time(25);
  w.Rss(0x300);
  w.Allocate(w.InfoOf(7, 1));
  w.Free(info);
  const uint64_t app = w.AddString("/opt/app");
  const uint64_t ip = w.AddIp(0x4010, app,
                              {{w.AddString("inner"), w.AddString("a.c"), 5},
                               {w.AddString("outer"), w.AddString("a.c"), 9}});
  EXPECT_EQ(w.AddTrace(ip, 0), 1u);
  EXPECT_EQ(w.AddTrace(w.AddIp(0x4020, app, {}), 1), 2u);
  w.SetProcess("/opt/app -v", 4096, false);
  const std::string path = ::testing::TempDir() + "/written.zst";
  std::string error;
  ASSERT_TRUE(w.WriteFile(path, &error)) << error;
  ASSERT_TRUE(IsHeaptrackFile(path));
  Recorded r;
  HeaptrackFacts facts;
  ASSERT_EQ(ReadHeaptrackFile(path, r, &facts).status, ReadResult::kComplete);
  EXPECT_EQ(facts.Describe(), "heaptrack 1.4.0 (file format 3)");
  EXPECT_EQ(r.processes[0].args, (std::vector<std::string>{"/opt/app", "-v"}));
  EXPECT_EQ(r.nodes, (std::vector<StackNode>{{1, 0, 0x4010}, {2, 1, 0x4020}}));
  ASSERT_EQ(r.symbols.size(), 2u);
  EXPECT_EQ(r.symbols[0].frames,
            (std::vector<SourceFrame>{{"inner", "a.c", 5, 0}, {"outer", "a.c", 9, 0}}));
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].stack, 2u);
  EXPECT_EQ(r.events[0].size, 32u);
  EXPECT_EQ(r.events[1].stack, 1u);
  EXPECT_EQ(r.events[1].time_ns, 25'000'000u);
  EXPECT_EQ(r.events[2].block, r.events[0].block);
  EXPECT_EQ(facts.heaptrack_print_temporaries, 0u);
  EXPECT_EQ(
      r.rss,
      (std::vector<RssSample>{{.seq = 2, .time_ns = 25'000'000, .unsplit_bytes = 0x300 * 4096}}));
}

}  // namespace
}  // namespace heaprec::format
