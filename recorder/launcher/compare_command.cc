// heaprec --compare-allocators (compare_command.h).
#include "recorder/launcher/compare_command.h"

#include <cstdio>
#include <string>
#include <vector>

#include "replay/allocators.h"
#include "replay/program_compare.h"

namespace heaprec::recorder::launcher {

int RunCompareAllocators(const Options& o) {
  replay::CompareOptions compare;
  std::string error;
  if (!replay::ParseAllocators(o.allocators, &compare.allocators, &error)) {
    std::fprintf(stderr, "heaprec: %s\n", error.c_str());
    return 2;
  }
  for (const replay::AllocatorSpec& spec : compare.allocators) {
    if (const std::string missing = replay::MissingLibrary(spec); !missing.empty()) {
      std::fprintf(stderr, "heaprec: %s; nothing was run\n", missing.c_str());
      return 2;
    }
  }
  compare.command = o.command;
  compare.rounds = static_cast<int>(o.rounds);
  compare.output = !o.keep_output ? replay::ProgramOutput::kDiscard
                   : o.json       ? replay::ProgramOutput::kToStderr
                                  : replay::ProgramOutput::kKeep;
  replay::CompareResult result;
  const auto progress = [&](int round) {
    if (o.quiet) return;
    std::fprintf(stderr, "heaprec: --compare-allocators: round %d of %d\n", round + 1,
                 compare.rounds);
  };
  if (!replay::CompareAllocators(compare, &result, &error, progress)) {
    std::fprintf(stderr, "heaprec: %s\n", error.c_str());
    return 127;
  }
  if (o.json) {
    const nlohmann::json j = {{"compare_allocators", replay::CompareJson(result)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(replay::CompareText(result).c_str(), stdout);
  }
  return result.AnyFailed() ? 1 : 0;
}

}  // namespace heaprec::recorder::launcher
