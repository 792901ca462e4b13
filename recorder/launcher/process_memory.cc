// /proc/PID/maps and process_vm_readv (process_memory.h).
#include "recorder/launcher/process_memory.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace heaprec::recorder::launcher {

std::vector<Mapping> ParseMappings(const std::string& text) {
  std::vector<Mapping> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    Mapping m;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms, &offset,
                    &inode, &path_at) < 5) {
      continue;
    }
    m.start = start;
    m.end = end;
    m.readable = perms[0] == 'r';
    m.writable = perms[1] == 'w';
    m.executable = perms[2] == 'x';
    m.shared = perms[3] == 's';
    m.offset = offset;
    m.inode = inode;
    if (path_at > 0 && static_cast<size_t>(path_at) <= line.size()) m.path = line.substr(path_at);
    constexpr char kDeleted[] = " (deleted)";
    if (m.path.size() > sizeof(kDeleted) - 1 &&
        m.path.compare(m.path.size() - (sizeof(kDeleted) - 1), std::string::npos, kDeleted) == 0) {
      m.path.resize(m.path.size() - (sizeof(kDeleted) - 1));
      m.deleted = true;
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Mapping> ReadMappings(pid_t pid, std::string* error) {
  const std::string path = "/proc/" + std::to_string(pid) + "/maps";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    *error = path + ": " + std::strerror(errno);
    return {};
  }
  return ParseMappings(text.str());
}

void ProcessMemory::Read(std::span<const leakscan::ReadRequest> requests, std::span<bool> ok) {
  // One call for all; on a short read, the requests it did not finish one
  // by one (one of them crosses into unreadable memory).
  std::vector<iovec> local(requests.size()), remote(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    local[i] = {requests[i].destination, requests[i].length};
    remote[i] = {reinterpret_cast<void*>(requests[i].address), requests[i].length};
  }
  const ssize_t got =
      process_vm_readv(pid_, local.data(), local.size(), remote.data(), remote.size(), 0);
  size_t done = got > 0 ? static_cast<size_t>(got) : 0;
  bytes_read_ += done;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (done >= requests[i].length) {
      ok[i] = true;
      done -= requests[i].length;
      continue;
    }
    done = 0;  // requests from here on: one call each
    const ssize_t one = process_vm_readv(pid_, &local[i], 1, &remote[i], 1, 0);
    ok[i] = one == static_cast<ssize_t>(requests[i].length);
    if (one > 0) bytes_read_ += static_cast<uint64_t>(one);
  }
}

}  // namespace heaprec::recorder::launcher
