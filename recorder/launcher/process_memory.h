// Another process's memory, for the leak scan: its map (/proc/PID/maps) and
// reads of it with process_vm_readv, many ranges to a call
// (leakscan::MemorySource). Reading needs ptrace's permission over the
// process (the launcher holds it stopped: process_stop.h).
//
// Not thread-safe; allocates (the map). Used by the leak scanner.
#ifndef HEAPREC_RECORDER_LAUNCHER_PROCESS_MEMORY_H_
#define HEAPREC_RECORDER_LAUNCHER_PROCESS_MEMORY_H_

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "recorder/leakscan/memory_source.h"

namespace heaprec::recorder::launcher {

// One line of /proc/PID/maps.
struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  bool readable = false, writable = false, executable = false, shared = false;
  uint64_t offset = 0;
  uint64_t inode = 0;
  std::string path;      // "" for anonymous memory, "[stack]", "[heap]", a file
  bool deleted = false;  // the file was unlinked (" (deleted)" cut from path)
  bool file_backed() const { return inode != 0; }
};

// The mappings of pid, ascending; empty (with *error) if unreadable.
std::vector<Mapping> ReadMappings(pid_t pid, std::string* error);
// The same from the text of a maps file (for tests).
std::vector<Mapping> ParseMappings(const std::string& text);

class ProcessMemory : public leakscan::MemorySource {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}
  void Read(std::span<const leakscan::ReadRequest> requests, std::span<bool> ok) override;
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  pid_t pid_;
  uint64_t bytes_read_ = 0;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_PROCESS_MEMORY_H_
