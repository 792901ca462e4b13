// heapreplay end to end: the README's example (leak_demo recorded by heaprec)
// reports exactly its leak, as text and as docs/DESIGN.md's JSON; bad input gets
// one line naming the file and a non-zero exit; a truncated trace is analysed
// up to the cut with a warning.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

std::string Heapreplay() { return Runfile("replay/heapreplay"); }

std::string RecordLeakDemo() {
  const std::string dir = MakeTempDir("heapreplay");
  const std::string trace = dir + "/leak_demo.zst";
  const ProcessResult run = RunHeaprec(trace, {Runfile("tests/leak_demo")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return trace;
}

size_t Lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(HeapreplayTest, LeakReportOfTheReadmeExample) {
  const std::string trace = RecordLeakDemo();
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // A list of 10 sessions whose head is lost: memcheck's kinds and numbers.
  for (const char* line :
       {"not freed at the end: 640 B in 10 blocks", "   definitely lost: 64 bytes in 1 blocks\n",
        "   indirectly lost: 576 bytes in 9 blocks\n", "     possibly lost: 0 bytes in 0 blocks\n",
        "   still reachable: 0 bytes in 0 blocks\n",
        "640 B (64 B direct, 576 B indirect) in 1 blocks, definitely lost"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("make_session  tests/programs/leak_demo.c:"), std::string::npos) << r.out;
}

// On a terminal, a line saying how far the read has got, erased at the end
// (heapreplay/progress_meter.h); never into a pipe or a file.
TEST(HeapreplayTest, ProgressOnATerminalOnly) {
  const std::string trace = RecordLeakDemo();
  const ProcessResult piped = RunProgram(
      {"/usr/bin/env", "HEAPREPLAY_PROGRESS_AFTER_MS=0", Heapreplay(), "--leaks", trace});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  // util-linux's script gives heapreplay a pseudo-terminal and copies what
  // it draws to stdout.
  const ProcessResult tty = RunProgram({"/usr/bin/script", "-qec",
                                        "env HEAPREPLAY_PROGRESS_AFTER_MS=0 '" + Heapreplay() +
                                            "' --leaks '" + trace + "' >/dev/null",
                                        "/dev/null"});
  ASSERT_EQ(tty.exit_code, 0) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("heapreplay: reading "), std::string::npos) << tty.out;
  // "2.0 KiB of 2.0 KiB (99%), ...": how much is read depends on when the
  // first line is drawn (the read-ahead thread may have read the whole
  // file by then), so only the shape is checked.
  EXPECT_NE(tty.out.find(" of "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("%)"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.rfind("\r\033[K"), std::string::npos) << tty.out;  // erased at the end
}

TEST(HeapreplayTest, JsonFollowsTheContract) {
  const std::string trace = RecordLeakDemo();
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace"]["path"], trace);
  EXPECT_EQ(j["trace"]["truncated"], false);
  EXPECT_GE(j["trace"]["format_version"].get<int>(), 1);
  EXPECT_GT(j["trace"]["pid"].get<int>(), 0);
  const auto& s = j["summary"];
  // leak_demo.c: 10 sessions + 100 requests + calloc, realloc in place or moved.
  EXPECT_GE(s["allocations"].get<int>(), 111);
  EXPECT_EQ(s["leaked_bytes"], 640);
  EXPECT_EQ(s["leaked_blocks"], 10);
  EXPECT_GE(s["temporaries"].get<int>(), 100);
  EXPECT_GE(s["peak_bytes"].get<int>(), 640 + 256);
  for (const char* key : {"frees", "bytes_allocated", "duration_ns"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  const auto& leaks = j["leaks"];
  EXPECT_EQ(leaks["bytes"], 640);
  EXPECT_EQ(leaks["blocks"], 10);
  EXPECT_EQ(leaks["kinds"]["definitely_lost"], nlohmann::json({{"bytes", 64}, {"blocks", 1}}));
  EXPECT_EQ(leaks["kinds"]["indirectly_lost"], nlohmann::json({{"bytes", 576}, {"blocks", 9}}));
  EXPECT_EQ(leaks["scan"]["reason"], "exit");
  EXPECT_EQ(leaks["scan"]["status"], "done");
  // The sites of the default kinds (definite, possible): the head.
  ASSERT_EQ(leaks["sites"].size(), 1u);
  const auto& site = leaks["sites"][0];
  EXPECT_EQ(site["bytes"], 64);
  EXPECT_EQ(site["count"], 1);
  EXPECT_EQ(site["kind"], "definitely_lost");
  EXPECT_EQ(site["indirect_bytes"], 576);
  const auto& frame = site["stack"][0];
  EXPECT_EQ(frame["function"], "make_session");
  EXPECT_EQ(frame["file"], "tests/programs/leak_demo.c");
  EXPECT_TRUE(frame["line"].is_number());
  EXPECT_EQ(frame["module"], "leak_demo");
  EXPECT_EQ(frame["address"].get<std::string>().rfind("0x", 0), 0u);
  EXPECT_EQ(frame["inlined"], false);
  EXPECT_EQ(site["stack"][1]["function"], "main");
}

TEST(HeapreplayTest, BadInputIsOneLineNamingTheFile) {
  const std::string dir = MakeTempDir("bad");
  const std::string garbage = dir + "/garbage.zst";
  std::ofstream(garbage) << "this is not a trace at all";
  const std::string empty = dir + "/empty.zst";
  std::ofstream(empty).flush();
  const struct {
    std::string path, says;
  } cases[] = {
      {dir + "/missing.zst", "cannot open: No such file or directory"},
      {dir, "cannot open: is a directory"},
      {garbage, "not a heaprec trace"},
      {empty, "empty file"},
  };
  for (const auto& c : cases) {
    const ProcessResult r = RunProgram({Heapreplay(), "--leaks", c.path});
    EXPECT_EQ(r.exit_code, 1) << c.path;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("heapreplay: " + c.path + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  const ProcessResult usage = RunProgram({Heapreplay(), "--bogus"});
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(Lines(usage.err), 1u);
}

TEST(HeapreplayTest, TruncatedTraceWarnsAndExitsZero) {
  const std::string trace = RecordLeakDemo();
  std::ifstream in(trace, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = trace + ".cut.zst";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 10);
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--json", cut});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(cut), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["trace"]["truncated"], true);
}

// phases.c recorded once per test binary run (its numbers in the program's
// header comment).
std::string RecordPhases() {
  static const std::string trace = [] {
    const std::string t = MakeTempDir("phases") + "/phases.zst";
    const ProcessResult run = RunHeaprec(t, {Runfile("tests/phases")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "phases: ok\n");
    return t;
  }();
  return trace;
}

nlohmann::json Json(const std::vector<std::string>& args) {
  std::vector<std::string> command = {Heapreplay(), "--json"};
  command.insert(command.end(), args.begin(), args.end());
  const ProcessResult r = RunProgram(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

// The site whose innermost frame is `function`, or null.
nlohmann::json SiteOf(const nlohmann::json& sites, const std::string& function) {
  for (const auto& s : sites) {
    if (!s["stack"].empty() && s["stack"][0]["function"] == function) return s;
  }
  return nullptr;
}

TEST(HeapreplayTest, EveryAnalysisOfPhasesPerCallSite) {
  const nlohmann::json j = Json({"--leaks", "--leak-kinds=all", "--peak", "--temporaries", "--hot",
                                 "--histogram", "--top", "0", RecordPhases()});
  EXPECT_EQ(j["summary"]["allocations"], 113);
  EXPECT_EQ(j["summary"]["frees"], 108);
  EXPECT_EQ(j["summary"]["bytes_allocated"], 8000 + 3200 + 20480);
  EXPECT_EQ(j["summary"]["peak_bytes"], 28480);
  EXPECT_EQ(j["summary"]["temporaries"], 100);

  // grow()'s blocks stay in the global g_grown: still reachable, held by it.
  const auto& leaks = j["leaks"];
  EXPECT_EQ(leaks["bytes"], 20480);
  EXPECT_EQ(leaks["blocks"], 5);
  EXPECT_EQ(leaks["kinds"]["still_reachable"], nlohmann::json({{"bytes", 20480}, {"blocks", 5}}));
  ASSERT_EQ(leaks["sites"].size(), 1u);
  EXPECT_EQ(leaks["sites"][0]["kind"], "still_reachable");
  EXPECT_EQ(leaks["sites"][0]["held_by"],
            nlohmann::json::array({{{"root", "g_grown [phases]"}, {"bytes", 20480}}}));
  EXPECT_EQ(leaks["sites"][0]["stack"][0]["function"], "grow");
  EXPECT_EQ(leaks["sites"][0]["stack"][1]["function"], "main");

  const auto& peak = j["peak"];
  EXPECT_EQ(peak["bytes"], 28480);
  ASSERT_EQ(peak["sites"].size(), 2u);
  EXPECT_EQ(peak["sites"][0]["stack"][0]["function"], "grow");
  EXPECT_EQ(peak["sites"][0]["bytes"], 20480);
  EXPECT_EQ(peak["sites"][0]["count"], 5);
  EXPECT_EQ(peak["sites"][1]["stack"][0]["function"], "load_table");
  EXPECT_EQ(peak["sites"][1]["bytes"], 8000);
  EXPECT_EQ(peak["sites"][1]["count"], 8);

  const auto& temps = j["temporaries"];
  EXPECT_EQ(temps["count"], 100);
  ASSERT_EQ(temps["sites"].size(), 1u);
  EXPECT_EQ(temps["sites"][0]["stack"][0]["function"], "churn");
  EXPECT_EQ(temps["sites"][0]["count"], 100);
  EXPECT_EQ(temps["sites"][0]["bytes"], 3200);

  const auto& hot = j["hot"]["sites"];
  ASSERT_EQ(hot.size(), 3u);
  EXPECT_EQ(hot[0]["stack"][0]["function"], "churn");
  EXPECT_EQ(hot[0]["count"], 100);
  EXPECT_EQ(SiteOf(hot, "load_table")["count"], 8);
  EXPECT_EQ(SiteOf(hot, "grow")["bytes"], 20480);

  const auto& buckets = j["histogram"]["buckets"];
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0]["low"], 32);
  EXPECT_EQ(buckets[0]["count"], 100);
  EXPECT_EQ(buckets[1]["low"], 512);
  EXPECT_EQ(buckets[1]["count"], 8);
  EXPECT_EQ(buckets[2]["low"], 4096);
  EXPECT_EQ(buckets[2]["bytes"], 20480);
}

TEST(HeapreplayTest, AtAMarker) {
  const nlohmann::json j = Json({"--leaks", "--at", "loaded", RecordPhases()});
  EXPECT_EQ(j["at"]["reached"], true);
  EXPECT_EQ(j["leaks"]["bytes"], 8000);
  ASSERT_EQ(j["leaks"]["sites"].size(), 1u);
  EXPECT_EQ(j["leaks"]["sites"][0]["stack"][0]["function"], "load_table");
  EXPECT_EQ(j["summary"]["allocations"], 8);

  const ProcessResult r = RunProgram({Heapreplay(), "--at", "nosuch", RecordPhases()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no marker 'nosuch' (markers: loaded, worked)"), std::string::npos) << r.err;
}

TEST(HeapreplayTest, DiffBetweenMarkersAndAgainstABaseTrace) {
  const nlohmann::json j = Json({"--diff", "--from", "loaded", "--to", "worked", RecordPhases()});
  EXPECT_EQ(j["diff"]["bytes"], 20480);
  ASSERT_EQ(j["diff"]["sites"].size(), 1u);
  EXPECT_EQ(j["diff"]["sites"][0]["stack"][0]["function"], "grow");
  EXPECT_EQ(j["diff"]["sites"][0]["count"], 5);
  EXPECT_EQ(j["diff"]["sites"][0]["before_bytes"], 0);

  // Another run of the same program: other addresses, the same stacks.
  const std::string other = MakeTempDir("phases2") + "/phases.zst";
  ASSERT_EQ(RunHeaprec(other, {Runfile("tests/phases")}).exit_code, 0);
  const nlohmann::json same = Json({"--base", other, RecordPhases()});
  EXPECT_EQ(same["diff"]["base"], other);
  EXPECT_EQ(same["diff"]["bytes"], 0);
  EXPECT_TRUE(same["diff"]["sites"].empty()) << same["diff"].dump(1);
  // Against leak_demo: its leak went away, phases' appeared.
  const nlohmann::json d = Json({"--base", RecordLeakDemo(), RecordPhases()});
  EXPECT_EQ(d["diff"]["bytes"], 20480 - 640);
  EXPECT_EQ(SiteOf(d["diff"]["sites"], "grow")["bytes"], 20480);
  EXPECT_EQ(SiteOf(d["diff"]["sites"], "make_session")["bytes"], -640);
}

TEST(HeapreplayTest, TextTablesTimelineAndFolded) {
  const std::string trace = RecordPhases();
  const ProcessResult text = RunProgram({Heapreplay(), "--peak", trace});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("peak 27.8 KiB in 13 blocks at"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("flat   flat%    sum%        cum    cum%  function"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("20.0 KiB  71.91%  71.91%   20.0 KiB  71.91%  grow"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("grow  tests/programs/phases.c:"), std::string::npos) << text.out;

  const ProcessResult overview = RunProgram({Heapreplay(), trace});
  ASSERT_EQ(overview.exit_code, 0);
  for (const char* line : {"113 allocation calls", "100 temporaries", "peak 27.8 KiB",
                           "not freed 20.0 KiB in 5 blocks"}) {
    EXPECT_NE(overview.out.find(line), std::string::npos) << line << "\n" << overview.out;
  }

  const ProcessResult csv = RunProgram({Heapreplay(), "--timeline", trace});
  ASSERT_EQ(csv.exit_code, 0);
  // (then rss_bytes,max_rss_bytes: the trace has RSS samples, tests/rss_test)
  EXPECT_EQ(csv.out.rfind("time_s,seq,live_bytes,max_live_bytes", 0), 0u);
  EXPECT_NE(csv.out.find(",28480,"), std::string::npos) << csv.out;  // the peak
  EXPECT_EQ(Lines(csv.out), 1 + 113 + 108u);                         // a point per event

  const ProcessResult folded =
      RunProgram({Heapreplay(), "--leaks", "--leak-kinds=all", "--folded", trace});
  ASSERT_EQ(folded.exit_code, 0);
  EXPECT_EQ(Lines(folded.out), 1u) << folded.out;
  EXPECT_NE(folded.out.find(";main;grow 20480\n"), std::string::npos) << folded.out;
  const ProcessResult calls =
      RunProgram({Heapreplay(), "--hot", "--folded", "--metric", "count", trace});
  EXPECT_NE(calls.out.find(";main;churn 100\n"), std::string::npos) << calls.out;
}

TEST(HeapreplayTest, FlameGraphAndPprofFiles) {
  const std::string dir = MakeTempDir("files");
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--leak-kinds=all", "--flamegraph",
                                      dir + "/f.svg", "--pprof", dir + "/p.pb.gz", RecordPhases()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream svg(dir + "/f.svg");
  const std::string s((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(s.find("<svg"), std::string::npos);
  EXPECT_NE(s.find("grow"), std::string::npos);
  std::ifstream pb(dir + "/p.pb.gz", std::ios::binary);
  char magic[2] = {};
  pb.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);

  const ProcessResult bad =
      RunProgram({Heapreplay(), "--flamegraph", dir + "/no/such/dir/f.svg", RecordPhases()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(Lines(bad.err), 1u) << bad.err;
  EXPECT_NE(bad.err.find(dir + "/no/such/dir/f.svg"), std::string::npos) << bad.err;
}

TEST(HeapreplayTest, MismatchesWithBothStacks) {
  const std::string trace = MakeTempDir("mismatch") + "/mismatch.zst";
  const ProcessResult run = RunProgram({Runfile("recorder/heaprec"), "-q", "--free-stacks", "-o",
                                        trace, "--", Runfile("tests/mismatch")});
  EXPECT_EQ(run.exit_code, 128 + 6) << run.err;  // glibc aborts on the double free
  const nlohmann::json j = Json({"--mismatches", trace});
  const auto& items = j["mismatches"]["items"];
  EXPECT_EQ(j["mismatches"]["count"], 5);
  ASSERT_EQ(items.size(), 5u) << items.dump(1);
  auto item = [&](const std::string& alloc_fn) -> nlohmann::json {
    for (const auto& i : items) {
      if (i.contains("alloc_stack") && !i["alloc_stack"].empty() &&
          i["alloc_stack"][0]["function"] == alloc_fn) {
        return i;
      }
    }
    ADD_FAILURE() << "no mismatch allocated in " << alloc_fn;
    return nlohmann::json::object();
  };
  const nlohmann::json a = item("array_then_delete()");
  EXPECT_EQ(a["kind"], "family");
  EXPECT_EQ(a["alloc_function"], "operator new[]");
  EXPECT_EQ(a["free_function"], "operator delete(size_t)");  // C++14 sized delete
  EXPECT_EQ(a["free_stack"][0]["function"], "array_then_delete()");
  const nlohmann::json n = item("new_then_free()");
  EXPECT_EQ(n["free_function"], "free");
  EXPECT_EQ(n["free_stack"][0]["function"], "new_then_free()");
  const nlohmann::json m = item("malloc_then_delete()");
  EXPECT_EQ(m["alloc_function"], "malloc");
  const nlohmann::json s = item("wrong_sized_delete()");
  EXPECT_EQ(s["kind"], "size");
  EXPECT_EQ(s["freed_size"], 8);
  const nlohmann::json d = item("double_free()");
  EXPECT_EQ(d["kind"], "double_free");
  EXPECT_EQ(d["first_free_stack"][0]["function"], "first_free(void*)");
  EXPECT_EQ(d["free_stack"][0]["function"], "second_free(void*)");
  EXPECT_EQ(d["bytes"], 48);

  const ProcessResult text = RunProgram({Heapreplay(), "--mismatches", trace});
  EXPECT_NE(text.out.find("1x memory from operator new[] released by operator delete"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("first freed at:"), std::string::npos) << text.out;
}

TEST(HeapreplayTest, SymbolsFromTheBinariesWhenTheTraceHasNone) {
  // A trace cut before its end has no symbols (the launcher appends them
  // last): heapreplay reads them from the binaries, by build-id.
  const std::string trace = RecordPhases();
  std::ifstream in(trace, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = MakeTempDir("nosym") + "/cut.zst";
  size_t keep = bytes.size();
  nlohmann::json j;
  // Cut further and further back until the symbols are gone but events stay.
  for (keep = bytes.size() - 1; keep > 100; keep -= 16) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc) << bytes.substr(0, keep);
    const ProcessResult r = RunProgram({Heapreplay(), "--json", "--hot", cut});
    if (r.exit_code != 0) continue;
    j = nlohmann::json::parse(r.out);
    if (j.contains("notes") && j["summary"]["allocations"].get<int>() > 0) break;
  }
  ASSERT_TRUE(j.contains("notes")) << "no cut point without symbols";
  EXPECT_NE(j["notes"][0].get<std::string>().find("named from the binaries on disk"),
            std::string::npos)
      << j["notes"];
  EXPECT_TRUE(SiteOf(j["hot"]["sites"], "load_table") != nullptr) << j["hot"].dump(1);
}

TEST(HeapreplayTest, AFinishedTraceIsNotSymbolizedAgainFromDisk) {
  // A stripped copy of the program: its functions have no names, so the
  // launcher writes no Symbol for their addresses and says in the End that
  // the symbols are complete. With the copy gone, heapreplay must not look
  // for it on disk (it would note a module it cannot find).
  const std::string dir = MakeTempDir("stripped");
  const std::string program = dir + "/phases";
  ASSERT_EQ(RunProgram({"/bin/cp", Runfile("tests/phases"), program}).exit_code, 0);
  ASSERT_EQ(RunProgram({"/usr/bin/strip", "--strip-all", program}).exit_code, 0);
  const std::string trace = dir + "/stripped.zst";
  const ProcessResult run = RunHeaprec(trace, {program});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(unlink(program.c_str()), 0);
  const nlohmann::json j = Json({"--leaks", "--leak-kinds=all", trace});
  EXPECT_FALSE(j.contains("notes")) << j["notes"];
  EXPECT_EQ(j["leaks"]["bytes"], 20480);
  ASSERT_EQ(j["leaks"]["sites"].size(), 1u);
  // The stripped program's frames are unnamed, with their module.
  const nlohmann::json& frame = j["leaks"]["sites"][0]["stack"][0];
  EXPECT_EQ(frame["function"], "??") << frame;
  EXPECT_EQ(frame["module"], "phases") << frame;
}

}  // namespace
}  // namespace heaprec::tests
