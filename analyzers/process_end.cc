// How a process ended, in words and JSON (process_end.h).
#include "analyzers/process_end.h"

#include <string.h>

#include "format/records.h"

namespace heaprec::analyzers {

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string ExitWords(int32_t wait_status, bool replaced_by_exec) {
  if (replaced_by_exec) return "exec'd";
  if (const int code = format::ExitCodeOf(wait_status); code >= 0) {
    return "exited " + std::to_string(code);
  }
  if (const int sig = format::TermSignalOf(wait_status); sig != 0) {
    return "killed by " + SignalName(sig);
  }
  return "unknown";
}

void AddExitJson(int32_t wait_status, nlohmann::json* object) {
  const int code = format::ExitCodeOf(wait_status);
  const int sig = format::TermSignalOf(wait_status);
  (*object)["exit_code"] = code >= 0 ? nlohmann::json(code) : nlohmann::json(nullptr);
  (*object)["signal"] = sig != 0 ? nlohmann::json(SignalName(sig)) : nlohmann::json(nullptr);
}

}  // namespace heaprec::analyzers
