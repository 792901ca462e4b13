// heapreplay --bench: compile the trace once, replay it in a fresh worker
// process per allocator and run (replay/bench_runner.h), interleaving allocators so
// that a slow moment of the machine is spread over all of them, plus a null
// replay for the replayer's own cost; print the comparison (replay/bench_report.h).
// RSS over the ops is sampled in each allocator's first run only, when a plot,
// JSON or a page will show it (the sampler reads /proc once a millisecond).
// Returns the exit status: 0, or 1 with one line on stderr (a missing
// allocator library names its Debian package). Allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_BENCH_COMMAND_H_
#define HEAPREC_HEAPREPLAY_BENCH_COMMAND_H_

#include <nlohmann/json.hpp>
#include <string>

#include "heapreplay/options.h"

namespace heaprec::heapreplay {

int RunBench(const Options& options);

// The same comparison for a page (--html --bench): prints nothing but
// errors; the text table goes to *text and the "bench" JSON object, with the
// RSS curves, to *json.
int CollectBench(const Options& options, std::string* text, nlohmann::json* json);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_BENCH_COMMAND_H_
