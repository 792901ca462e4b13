// AttachPreflight (attach_preflight.h).
#include "recorder/launcher/attach_preflight.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "recorder/launcher/proc_files.h"
#include "recorder/launcher/process_memory.h"

namespace heaprec::recorder::launcher {
namespace {

// The value after "Key:" in a /proc status text, or "".
std::string StatusField(const std::string& status, const std::string& key) {
  std::istringstream in(status);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      const size_t start = line.find_first_not_of(" \t", key.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadProcFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(stat.substr(close + 2));
  std::string state;
  pid_t ppid = 0;
  in >> state >> ppid;
  return ppid;
}

std::string Who(const AttachFacts& f) {
  std::string who = "process " + std::to_string(f.pid);
  if (!f.comm.empty()) who += " (" + f.comm + ")";
  return who;
}

}  // namespace

AttachFacts ReadAttachFacts(pid_t pid) {
  AttachFacts f;
  f.pid = pid;
  f.our_uid = geteuid();
  const std::string dir = "/proc/" + std::to_string(pid);
  const std::string status = ReadProcFile(dir + "/status");
  f.exists = pid > 0 && !status.empty();
  f.is_self = pid == getpid();
  if (!f.exists) return f;
  f.comm = StatusField(status, "Name");
  f.zombie = StatusField(status, "State").compare(0, 1, "Z") == 0;
  f.tracer = static_cast<pid_t>(std::atoi(StatusField(status, "TracerPid").c_str()));
  f.uid = static_cast<uid_t>(std::strtoul(StatusField(status, "Uid").c_str(), nullptr, 10));
  if (const passwd* pw = getpwuid(f.uid)) {
    f.user = pw->pw_name;
  } else {
    f.user = std::to_string(f.uid);
  }
  const std::string self = ReadProcFile("/proc/self/status");
  const uint64_t caps = std::strtoull(StatusField(self, "CapEff").c_str(), nullptr, 16);
  f.cap_sys_ptrace = (caps >> 19) & 1;  // CAP_SYS_PTRACE
  const std::string scope = ReadProcFile("/proc/sys/kernel/yama/ptrace_scope");
  if (!scope.empty()) f.ptrace_scope = std::atoi(scope.c_str());
  for (pid_t p = ParentOf(pid); p > 1; p = ParentOf(p)) {
    if (p == getpid()) f.descendant = true;
  }
  std::string error;
  const std::vector<Mapping> maps = ReadMappings(pid, &error);
  f.dynamic = maps.empty();  // another user's map is unreadable: judged by the rest then
  for (const Mapping& m : maps) {
    const size_t slash = m.path.rfind('/');
    const std::string base = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
    if (base.rfind("ld-linux", 0) == 0 || base.rfind("ld-2.", 0) == 0 ||
        base.rfind("ld64.so", 0) == 0) {
      f.dynamic = true;
    }
  }
  return f;
}

std::string WhyCannotAttach(const AttachFacts& f) {
  const std::string pid = std::to_string(f.pid);
  if (!f.exists) return "no process " + pid;
  if (f.is_self) return "process " + pid + " is heaprec itself";
  if (f.zombie) return Who(f) + " has exited (a zombie waiting for its parent)";
  if (f.tracer != 0) {
    return Who(f) + " is already traced by process " + std::to_string(f.tracer) +
           " (a debugger or strace): a process has one tracer at a time";
  }
  if (f.ptrace_scope == 3) {
    return "kernel.yama.ptrace_scope is 3: the kernel lets no process attach to another "
           "(it stays so until reboot)";
  }
  if (f.uid != f.our_uid && !f.cap_sys_ptrace) {
    return Who(f) + " runs as user " + f.user + " (uid " + std::to_string(f.uid) +
           ") and heaprec as uid " + std::to_string(f.our_uid) +
           " without CAP_SYS_PTRACE: run heaprec as that user, or as root";
  }
  if (f.ptrace_scope == 2 && !f.cap_sys_ptrace) {
    return "kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may attach; run "
           "heaprec as root (sudo heaprec -p " +
           pid + ")";
  }
  if (!f.dynamic) {
    return Who(f) +
           " is statically linked: it has no loader to load the recorder with; run it "
           "under heaprec instead";
  }
  return "";
}

std::string WhyPtraceRefused(const AttachFacts& f) {
  if (f.ptrace_scope == 1 && !f.cap_sys_ptrace && !f.descendant) {
    return "kernel.yama.ptrace_scope is 1: only a process's ancestors may attach to it; run "
           "heaprec as root (sudo heaprec -p " +
           std::to_string(f.pid) +
           "), or allow attaching with: sudo sysctl kernel.yama.ptrace_scope=0";
  }
  if (f.uid != f.our_uid && !f.cap_sys_ptrace) return WhyCannotAttach(f);
  return "the kernel refused to let heaprec ptrace " + Who(f) +
         " (a security module, or the process made itself undumpable: prctl PR_SET_DUMPABLE 0)";
}

}  // namespace heaprec::recorder::launcher
