// heapreplay: answers questions about a heaprec trace, offline, in one
// streaming pass (options.h lists them). Exit 0 on success (a truncated trace
// warns on stderr with the word "truncated"); 1 with one line naming the file
// for anything unreadable; 2 for usage errors.
// The steps: options (options.h), the analyzers they need (analysis_plan.h),
// the pass over the traces (run_analysis.h), the files and stdout
// (report_output.h); --bench alone is bench_command.h's; several traces or a
// folder, process_table_command.h's (with --html, process_pages.h's).
#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>

#include "analyzers/report.h"
#include "format/format_version.h"
#include "heapreplay/analysis_plan.h"
#include "heapreplay/bench_command.h"
#include "heapreplay/html_output.h"
#include "heapreplay/options.h"
#include "heapreplay/process_pages.h"
#include "heapreplay/process_table_command.h"
#include "heapreplay/report_output.h"
#include "heapreplay/run_analysis.h"
#include "replay/bench_worker.h"

namespace {

using namespace heaprec;

int Usage(const std::string& error) {
  std::fprintf(stderr, "heapreplay: %s (see heapreplay --help)\n", error.c_str());
  return 2;
}

int Fail(const std::string& error) {
  std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
  return 1;
}

// The allocator comparison for the page: run now, or saved earlier. Returns
// the exit status (errors printed).
int GatherBench(const heapreplay::Options& o, heapreplay::BenchShown* bench) {
  std::string error;
  if (o.bench) return heapreplay::CollectBench(o, &bench->text, &bench->json);
  if (!o.bench_json.empty() && !heapreplay::ReadBenchJson(o.bench_json, &bench->json, &error)) {
    return Fail(error);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == replay::kWorkerFlag) {
    return replay::RunBenchWorker(argc, argv);
  }
  // Not in a worker (above: it measures glibc's malloc as a program gets it).
  // The pass's buffers (decoded chunks, tables that grow by doubling) stay
  // in the heap instead of being unmapped when freed and faulted back in
  // when allocated again, as in the launcher (recorder/launcher/main.cc):
  // cppcheck's trace 0.301 -> 0.261 s, churn's 0.482 -> 0.442 s (medians of
  // 7 alternating runs).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  heapreplay::Options o;
  std::string error;
  if (!heapreplay::ParseOptions(argc, argv, &o, &error)) {
    std::fprintf(stderr, "heapreplay: %s\n", error.c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(heapreplay::UsageText().c_str(), stdout);
    return 0;
  }
  if (o.version) {
    std::printf("%s\n", format::VersionLine("heapreplay").c_str());
    return 0;
  }
  if (heapreplay::WantsProcessTable(o)) {
    return o.html.empty() ? heapreplay::RunProcessTable(o) : heapreplay::RunProcessPages(o);
  }
  if (o.bench && o.html.empty()) return heapreplay::RunBench(o);
  heapreplay::BenchShown bench;
  if (const int status = GatherBench(o, &bench); status != 0) return status;
  const std::unique_ptr<heapreplay::AnalysisPlan> plan = heapreplay::AnalysisPlan::Make(o, &error);
  if (!plan) return Usage(error);
  analyzers::Report report;
  if (!heapreplay::RunAnalysis(o, plan.get(), &report, &error)) return Fail(error);
  if (!heapreplay::WriteOutputs(o, report, *plan, bench, &error)) return Fail(error);
  if (o.error_exitcode != 0 && analyzers::LeakErrors(*report.leak_report, o.errors_for) != 0) {
    return o.error_exitcode;
  }
  return 0;
}
