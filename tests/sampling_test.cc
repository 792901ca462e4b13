// heaprec --sample-rate end to end on tests/programs/sampling.c, whose sites
// have exact known answers: with a 4 KiB rate, every site of 100 x the rate
// or more is within 10% of the exact value in heapreplay's leaks, peak and
// hot sites; sampled blocks' frees are recorded (a site that frees
// everything leaks 0, reallocs included); every output says it is sampled;
// a sample refuses --bench. Without --sample-rate, the exact numbers.
//
// Not flaky: the sampler's seed is fixed (HEAPREC_SAMPLE_SEED), so the
// sample is the same every run. For any seed, each check's margin is at
// least 7 standard errors of its estimate (a site of T bytes in blocks of s
// bytes has a relative standard error of sqrt(s (1 - p) / (p T)), p = 1 -
// exp(-s / rate): 1.3% for big_leak, 1.1% peak_hold, 1.3% churn_small, 0.9%
// realloc_churn), so a seed that fails any check has a probability below
// 1e-11.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

using nlohmann::json;

std::string Heaprec() { return Runfile("recorder/heaprec"); }
std::string Heapreplay() { return Runfile("replay/heapreplay"); }

constexpr uint64_t kRate = 4096;
constexpr char kNotice[] =
    "sampled: every 4 KiB on average (heaprec --sample-rate); "
    "numbers are estimates";

// Records tests/sampling; rate "" = exact. Returns the trace's path.
std::string RecordSampling(const std::string& rate) {
  setenv("HEAPREC_SAMPLE_SEED", "20261125", 1);
  const std::string trace = MakeTempDir("sampling") + "/trace.zst";
  std::vector<std::string> argv = {Heaprec(), "-q", "-o", trace};
  if (!rate.empty()) argv.insert(argv.end(), {"--sample-rate", rate});
  argv.insert(argv.end(), {"--", Runfile("tests/sampling")});
  const ProcessResult run = RunProgram(argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "sampling: done\n");
  return trace;
}

json Analyse(const std::string& trace) {
  const ProcessResult r = RunProgram({Heapreplay(), "--leaks", "--leak-kinds", "all", "--peak",
                                      "--hot", "--json", "--top", "0", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

// The site whose innermost frame is function (null if none).
json SiteOf(const json& sites, const std::string& function) {
  for (const json& s : sites) {
    if (!s["stack"].empty() && s["stack"][0]["function"] == function) return s;
  }
  return nullptr;
}

uint64_t BytesOf(const json& sites, const std::string& function) {
  const json s = SiteOf(sites, function);
  return s.is_null() ? 0 : s["bytes"].get<uint64_t>();
}

void ExpectWithin10Percent(uint64_t got, uint64_t want, const std::string& what) {
  EXPECT_LE(std::fabs(static_cast<double>(got) - static_cast<double>(want)), 0.1 * want)
      << what << ": " << got << ", exact " << want;
}

TEST(SamplingTest, EstimatesWithinTenPercentOfTheExactAnswers) {
  const std::string trace = RecordSampling("4K");
  const json j = Analyse(trace);
  ASSERT_TRUE(j.contains("sampling")) << j.dump();
  EXPECT_EQ(j["sampling"]["rate"], kRate);
  EXPECT_EQ(j["losses"]["unkept_samples"], 0);

  const json& leaks = j["leaks"]["sites"];
  ExpectWithin10Percent(BytesOf(leaks, "big_leak"), 20000000, "leaked by big_leak");
  ExpectWithin10Percent(SiteOf(leaks, "big_leak")["count"].get<uint64_t>(), 20000,
                        "blocks leaked by big_leak");
  // Every sampled block of these was freed, and its free recorded.
  EXPECT_TRUE(SiteOf(leaks, "churn_small").is_null()) << leaks.dump();
  EXPECT_TRUE(SiteOf(leaks, "peak_hold").is_null()) << leaks.dump();
  EXPECT_TRUE(SiteOf(leaks, "realloc_churn").is_null()) << leaks.dump();
  ExpectWithin10Percent(j["summary"]["leaked_bytes"].get<uint64_t>(), 20001000, "leaked");

  ExpectWithin10Percent(j["peak"]["bytes"].get<uint64_t>(), 40480000, "peak");
  const json& peak = j["peak"]["sites"];
  ExpectWithin10Percent(BytesOf(peak, "peak_hold"), 20480000, "peak_hold at the peak");
  ExpectWithin10Percent(BytesOf(peak, "big_leak"), 20000000, "big_leak at the peak");

  const json& hot = j["hot"]["sites"];
  ExpectWithin10Percent(BytesOf(hot, "big_leak"), 20000000, "allocated by big_leak");
  ExpectWithin10Percent(BytesOf(hot, "peak_hold"), 20480000, "allocated by peak_hold");
  ExpectWithin10Percent(BytesOf(hot, "churn_small"), 25600000, "allocated by churn_small");
  ExpectWithin10Percent(SiteOf(hot, "churn_small")["count"].get<uint64_t>(), 400000,
                        "calls of churn_small");
  ExpectWithin10Percent(BytesOf(hot, "realloc_churn"), 48000000, "allocated by realloc_churn");
  // 1,000 bytes, a quarter of the rate: most likely not in the sample at
  // all, and never more than a few samples' worth.
  EXPECT_LE(BytesOf(leaks, "few_small"), 4 * kRate);
}

// A fixed seed draws the same sample every run (the check above is
// deterministic, not lucky).
TEST(SamplingTest, SameSeedSameSample) {
  const json a = Analyse(RecordSampling("4K"));
  const json b = Analyse(RecordSampling("4K"));
  EXPECT_EQ(a["summary"]["bytes_allocated"], b["summary"]["bytes_allocated"]);
  EXPECT_EQ(a["summary"]["allocations"], b["summary"]["allocations"]);
  EXPECT_EQ(a["peak"]["bytes"], b["peak"]["bytes"]);
  EXPECT_EQ(a["summary"]["leaked_bytes"], b["summary"]["leaked_bytes"]);
}

TEST(SamplingTest, EveryOutputSaysItIsSampled) {
  const std::string trace = RecordSampling("4KiB");
  const ProcessResult text = RunProgram({Heapreplay(), trace});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(std::string(kNotice) + "\n"), std::string::npos) << text.out;

  const std::string dir = MakeTempDir("sampling_outputs");
  const ProcessResult files = RunProgram(
      {Heapreplay(), "--flamegraph", dir + "/f.svg", "--html", dir + "/r.html", "--folded", trace});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_NE(files.err.find(std::string("heapreplay: ") + kNotice), std::string::npos) << files.err;
  for (const char* file : {"/f.svg", "/r.html"}) {
    std::ifstream in(dir + file);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_NE(s.str().find("every 4 KiB on average (heaprec --sample-rate)"), std::string::npos)
        << file;
  }

  // The process table of several traces.
  const ProcessResult table = RunProgram({Heapreplay(), trace, trace});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(std::string(kNotice) + "\n"), std::string::npos) << table.out;
  // heaprec's closing lines.
  const ProcessResult closing = RunProgram(
      {Heaprec(), "--sample-rate", "4096", "-o", dir + "/closing.zst", Runfile("tests/sampling")});
  ASSERT_EQ(closing.exit_code, 0) << closing.err;
  EXPECT_NE(closing.err.find(std::string("heaprec: ") + kNotice), std::string::npos) << closing.err;

  // A sample cannot be replayed.
  const ProcessResult bench = RunProgram({Heapreplay(), "--bench", "--allocators", "glibc", trace});
  EXPECT_NE(bench.exit_code, 0);
  EXPECT_EQ(bench.err, "heapreplay: " + trace +
                           ": a sampled trace (heaprec --sample-rate) cannot be replayed: it "
                           "holds only some of the allocations; record it without "
                           "--sample-rate\n");

  // A difference with an exact trace: each side scaled, and said so.
  const std::string exact = RecordSampling("");
  const ProcessResult diff = RunProgram({Heapreplay(), "--diff", "--base", exact, trace});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find(std::string("(base exact; this trace ") + kNotice + ")"),
            std::string::npos)
      << diff.out;
}

TEST(SamplingTest, ExactByDefault) {
  const std::string trace = RecordSampling("");
  const json j = Analyse(trace);
  EXPECT_FALSE(j.contains("sampling"));
  EXPECT_FALSE(j["losses"].contains("unkept_samples"));
  const json& leaks = j["leaks"]["sites"];
  EXPECT_EQ(BytesOf(leaks, "big_leak"), 20000000u);
  EXPECT_EQ(SiteOf(leaks, "big_leak")["count"], 20000);
  EXPECT_EQ(BytesOf(leaks, "few_small"), 1000u);
  EXPECT_TRUE(SiteOf(leaks, "churn_small").is_null());
  const json& hot = j["hot"]["sites"];
  EXPECT_EQ(BytesOf(hot, "churn_small"), 25600000u);
  EXPECT_EQ(SiteOf(hot, "churn_small")["count"], 400000);
  EXPECT_EQ(BytesOf(hot, "realloc_churn"), 48000000u);
  EXPECT_EQ(BytesOf(j["peak"]["sites"], "peak_hold"), 20480000u);
  const ProcessResult text = RunProgram({Heapreplay(), trace});
  EXPECT_EQ(text.out.find("sampled"), std::string::npos) << text.out;
}

TEST(SamplingTest, RateSpellings) {
  for (const char* bad : {"4X", "K", "-1", "1.5M"}) {
    const ProcessResult r =
        RunProgram({Heaprec(), "--sample-rate", bad, "--", Runfile("tests/sampling")});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--sample-rate takes bytes"), std::string::npos) << r.err;
  }
  const ProcessResult leak_check = RunProgram(
      {Heaprec(), "--sample-rate", "1M", "--leak-check", "--", Runfile("tests/sampling")});
  EXPECT_EQ(leak_check.exit_code, 2);
  EXPECT_NE(leak_check.err.find("a sample (--sample-rate) cannot tell lost blocks"),
            std::string::npos)
      << leak_check.err;
}

}  // namespace
}  // namespace heaprec::tests
