// How a process image ended, as every report says it: in words ("exited
// 11", "killed by SIGSEGV", "exec'd" for an image that replaced itself,
// "unknown") and as the JSON fields exit_code and signal (docs/DESIGN.md),
// from the End record's wait status (format::ExitCodeOf and TermSignalOf
// decode it). Never the raw wait status.
// Pure functions; allocate.
#ifndef HEAPREC_ANALYZERS_PROCESS_END_H_
#define HEAPREC_ANALYZERS_PROCESS_END_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace heaprec::analyzers {

// wait_status: as EndRecord::exit_status (-1 unknown).
std::string ExitWords(int32_t wait_status, bool replaced_by_exec);
// "SIGSEGV" for 11; "signal 99" for a number without a name.
std::string SignalName(int sig);
// Sets (*object)["exit_code"] (int, or null if the process did not exit)
// and (*object)["signal"] (the signal's name, "SIGSEGV", or null if no
// signal ended it).
void AddExitJson(int32_t wait_status, nlohmann::json* object);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_PROCESS_END_H_
