// heaprec on tests/programs/rss.c: the launcher samples the process's RSS
// every ~10 ms (format 3.4), and heapreplay shows it: RSS rises by at least
// the 64 MiB the program wrote and falls once it is freed; the peak RSS is
// the kernel's own peak (VmHWM, printed by the program) within a margin; the
// RSS at the heap's peak covers the heap. A trace of format 3.3 (recorded
// before RSS samples existed) still reads and says it holds no RSS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMs = 1000 * 1000;

nlohmann::json HeapreplayJson(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Runfile("replay/heapreplay")};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = RunProgram(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

TEST(RssTest, SamplesFollowTheTouchedMemory) {
  const Recording rec = Record("rss", {Runfile("tests/rss")});
  ASSERT_EQ(rec.run.exit_code, 0) << rec.run.err;
  ASSERT_EQ(rec.traces.size(), 1u);
  long long vmhwm = -1;
  ASSERT_EQ(std::sscanf(rec.run.out.c_str(), "vmhwm %lld", &vmhwm), 1) << rec.run.out;
  ASSERT_GT(vmhwm, 0);

  const nlohmann::json j = HeapreplayJson({"--json", "--timeline", rec.traces[0]});
  ASSERT_FALSE(j.is_discarded());
  const nlohmann::json& rss = j["rss"];
  const nlohmann::json& points = rss["points"];
  // ~550 ms of run: a sample every ~10 ms (the launcher's loop may be late
  // on a loaded machine, never early on average).
  const uint64_t duration = j["summary"]["duration_ns"];
  ASSERT_GE(points.size(), 20u) << rss.dump();
  EXPECT_EQ(points.size(), rss["samples"].get<uint64_t>());
  EXPECT_GE(rss["mean_interval_ns"].get<uint64_t>(), 8 * kMs);
  EXPECT_LE(rss["mean_interval_ns"].get<uint64_t>(), 30 * kMs);
  EXPECT_GE(points.size() * 30 * kMs, duration);

  // Times and seqs never go back; the heap's 64 MiB block is live between
  // its malloc and free, and the samples around it show it resident.
  uint64_t before = UINT64_MAX, top = 0, after = UINT64_MAX;
  uint64_t last_time = 0, last_seq = 0;
  bool seen_block = false, freed = false;
  for (const nlohmann::json& p : points) {
    EXPECT_GE(p["time_ns"].get<uint64_t>(), last_time);
    EXPECT_GE(p["seq"].get<uint64_t>(), last_seq);
    last_time = p["time_ns"];
    last_seq = p["seq"];
    const uint64_t anon = p["anon_bytes"];
    EXPECT_EQ(p["rss_bytes"].get<uint64_t>(),
              anon + p["file_bytes"].get<uint64_t>() + p["shmem_bytes"].get<uint64_t>());
    const uint64_t live = p["live_bytes"];
    if (live >= 64 * kMiB) seen_block = true;
    if (seen_block && live < 64 * kMiB) freed = true;
    if (!seen_block) before = std::min(before, anon);
    if (seen_block && !freed) top = std::max(top, anon);
    if (freed) after = std::min(after, anon);
  }
  ASSERT_TRUE(seen_block && freed) << rss.dump();
  ASSERT_NE(before, UINT64_MAX);
  ASSERT_NE(after, UINT64_MAX);
  EXPECT_GE(top, before + 64 * kMiB) << before << " " << top;
  EXPECT_LE(after + 60 * kMiB, top) << after << " " << top;

  // The summary: the peak RSS is the kernel's within 4 MiB (the samples
  // see the 200 ms plateau; the kernel's count may lag a little), never more.
  const nlohmann::json& s = j["summary"];
  const uint64_t peak_rss = s["peak_rss_bytes"];
  EXPECT_LE(peak_rss, static_cast<uint64_t>(vmhwm) + 4 * kMiB);
  EXPECT_GE(peak_rss + 4 * kMiB, static_cast<uint64_t>(vmhwm));
  EXPECT_EQ(rss["peak_rss_bytes"], s["peak_rss_bytes"]);
  // At the heap's peak (the 64 MiB block), RSS holds it and less than 64
  // MiB more (the rest of a small C program).
  EXPECT_EQ(s["peak_bytes"].get<uint64_t>(), 64 * kMiB);
  const uint64_t at_peak = s["rss_at_peak_bytes"];
  EXPECT_GE(at_peak, 64 * kMiB);
  EXPECT_EQ(s["rss_gap_at_peak_bytes"].get<int64_t>(),
            static_cast<int64_t>(at_peak) - static_cast<int64_t>(64 * kMiB));
  EXPECT_LT(s["rss_gap_at_peak_bytes"].get<int64_t>(), static_cast<int64_t>(64 * kMiB));

  // The text says the same, and the CSV timeline has the RSS columns.
  const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), rec.traces[0]});
  EXPECT_NE(text.out.find("rss: peak "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" above the live heap"), std::string::npos) << text.out;
  const ProcessResult csv = RunProgram({Runfile("replay/heapreplay"), "--timeline", rec.traces[0]});
  EXPECT_EQ(csv.out.rfind("time_s,seq,live_bytes,max_live_bytes,rss_bytes,max_rss_bytes\n", 0), 0u)
      << csv.out;
}

TEST(RssTest, OldTraceReadsAndHasNoRss) {
  const std::string old = Runfile("format/testdata/trace_v3_3.zst");
  const nlohmann::json j = HeapreplayJson({"--json", old});
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["summary"]["peak_rss_bytes"].is_null());
  EXPECT_TRUE(j["summary"]["rss_gap_at_peak_bytes"].is_null());
  EXPECT_EQ(j["rss"]["samples"], 0);
  EXPECT_EQ(j["rss"]["note"],
            "no RSS recorded: the trace is format 3.3 (heaprec records RSS from format 3.4 on)");
  EXPECT_GT(j["summary"]["allocations"].get<uint64_t>(), 0u);
  const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), old});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("rss: no RSS recorded: the trace is format 3.3"), std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace heaprec::tests
