// RemoteThread and RemoteSymbol (remote_call.h).
#include "recorder/launcher/remote_call.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "recorder/launcher/process_memory.h"

namespace heaprec::recorder::launcher {
namespace {

constexpr size_t kXstateBytes = 16384;
// Stack a thread other than the main one must have below its stack pointer.
constexpr uint64_t kStackRoom = 256 * 1024;

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// Code where a thread may hold the locks a call needs: the C library (safe
// only while waiting in a system call that is not malloc's) and, never safe,
// the loader and heaprec's own library and unwinder.
int CodeKind(const std::string& path) {
  const std::string base = BaseName(path);
  if (StartsWith(base, "ld-linux") || StartsWith(base, "ld-2.") || StartsWith(base, "ld64.so") ||
      StartsWith(base, "libheaprec") || StartsWith(base, "libunwind")) {
    return 2;
  }
  if (StartsWith(base, "libc.so") || StartsWith(base, "libc-2.") ||
      StartsWith(base, "libpthread") || StartsWith(base, "libdl.so")) {
    return 1;
  }
  return 0;
}

uint64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

void SleepUs(long us) {
  const timespec t = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&t, nullptr);
}

// Waits for tid to change state; false on timeout.
bool WaitFor(pid_t tid, int* status, int timeout_ms) {
  const uint64_t deadline = NowMs() + static_cast<uint64_t>(timeout_ms);
  for (;;) {
    const pid_t r = waitpid(tid, status, __WALL | WNOHANG);
    if (r == tid) return true;
    if (r < 0 && errno != EINTR) return false;
    if (NowMs() > deadline) return false;
    SleepUs(100);
  }
}

std::vector<pid_t> Threads(pid_t pid) {
  std::vector<pid_t> tids = {pid};  // the main thread first: the most stack
  if (DIR* d = opendir(("/proc/" + std::to_string(pid) + "/task").c_str())) {
    while (const dirent* e = readdir(d)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (tid > 0 && tid != pid) tids.push_back(tid);
    }
    closedir(d);
  }
  return tids;
}

bool MallocSyscall(uint64_t nr) {
  return nr == SYS_brk || nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect ||
         nr == SYS_madvise || nr == SYS_mremap;
}

}  // namespace

bool RemoteThread::SafeHere(const user_regs_struct& regs) const {
  const bool in_syscall = static_cast<int64_t>(regs.orig_rax) >= 0;
  for (const Range& r : unsafe_) {
    if (regs.rip < r.start || regs.rip >= r.end) continue;
    if (r.loader || !in_syscall) return false;
    return !MallocSyscall(regs.orig_rax);
  }
  return true;
}

bool RemoteThread::Hold(pid_t pid, int timeout_ms, std::string* error) {
  Release();
  pid_ = pid;
  std::string err;
  const std::vector<Mapping> maps = ReadMappings(pid, &err);
  if (maps.empty()) {
    *error = "cannot read the memory map of process " + std::to_string(pid) + ": " + err;
    return false;
  }
  unsafe_.clear();
  for (const Mapping& m : maps) {
    if (!m.executable || m.path.empty()) continue;
    const int kind = CodeKind(m.path);
    if (kind != 0) unsafe_.push_back({m.start, m.end, kind == 2});
  }
  const uint64_t deadline = NowMs() + static_cast<uint64_t>(timeout_ms);
  int looks = 0;
  for (int round = 0;; ++round) {
    for (const pid_t tid : Threads(pid)) {
      if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
        if (errno == ESRCH) continue;  // the thread ended meanwhile
        *error = "cannot ptrace process " + std::to_string(pid) + ": " + std::strerror(errno);
        return false;
      }
      int status = 0;
      if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 || !WaitFor(tid, &status, 2000) ||
          !WIFSTOPPED(status)) {
        ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
        continue;
      }
      ++looks;
      // A signal-delivery stop (not our interrupt): the signal is held back.
      const int sig = WSTOPSIG(status);
      const bool signal_stop = (status >> 16) == 0 && sig != SIGTRAP;
      user_regs_struct regs = {};
      bool ok = ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0 && SafeHere(regs);
      uint64_t floor = 0;
      if (ok) {
        const auto in = std::find_if(maps.begin(), maps.end(), [&](const Mapping& m) {
          return regs.rsp >= m.start && regs.rsp < m.end;
        });
        ok = in != maps.end() && (in->path == "[stack]" || regs.rsp - in->start >= kStackRoom);
        if (ok) floor = in->path == "[stack]" ? 0 : in->start;
      }
      if (!ok) {
        ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(signal_stop ? sig : 0));
        continue;
      }
      if (signal_stop) signals_.push_back(sig);
      xstate_.assign(kXstateBytes, 0);
      iovec iov = {xstate_.data(), xstate_.size()};
      if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_X86_XSTATE), &iov) == 0) {
        xstate_.resize(iov.iov_len);
      } else {
        xstate_.clear();
      }
      tid_ = tid;
      saved_ = regs;
      held_ = true;
      faulted_ = false;
      // Below the red zone (128 bytes) and a margin.
      stack_top_ = (regs.rsp - 512) & ~uint64_t{15};
      stack_floor_ = floor;
      return true;
    }
    if (NowMs() > deadline) break;
    SleepUs(500 + (round % 7) * 400);  // another moment, not in step with the program
  }
  *error = "no thread of process " + std::to_string(pid) + " came to a point where a call is " +
           "safe (outside the C library's locks and the loader) in " + std::to_string(timeout_ms) +
           " ms (" + std::to_string(looks) + " looks)";
  return false;
}

uint64_t RemoteThread::Push(const void* bytes, size_t size, std::string* error) {
  if (!held_) return 0;
  const uint64_t at = (stack_top_ - size) & ~uint64_t{15};
  if (stack_floor_ != 0 && at - 4096 < stack_floor_) {
    *error = "no room on the thread's stack";
    return 0;
  }
  iovec local = {const_cast<void*>(bytes), size};
  iovec remote = {reinterpret_cast<void*>(at), size};
  if (process_vm_writev(pid_, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(size)) {
    *error = std::string("cannot write into the process: ") + std::strerror(errno);
    return 0;
  }
  stack_top_ = at;
  return at;
}

std::string RemoteThread::ReadString(uint64_t address, size_t max) const {
  std::string s(max, '\0');
  iovec local = {s.data(), max};
  iovec remote = {reinterpret_cast<void*>(address), max};
  const ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
  if (n <= 0) return "";
  s.resize(static_cast<size_t>(n));
  const size_t nul = s.find('\0');
  if (nul != std::string::npos) s.resize(nul);
  return s;
}

bool RemoteThread::Call(uint64_t fn, std::initializer_list<uint64_t> args, int timeout_ms,
                        uint64_t* result, std::string* error) {
  if (!held_) {
    *error = "no thread held";
    return false;
  }
  if (args.size() > 6) {
    *error = "too many arguments";
    return false;
  }
  const uint64_t zero = 0;
  // fn's frame: 16-byte aligned before the return address is pushed.
  uint64_t sp = (stack_top_ - 256) & ~uint64_t{15};
  sp -= 8;
  iovec local = {const_cast<uint64_t*>(&zero), sizeof(zero)};
  iovec remote = {reinterpret_cast<void*>(sp), sizeof(zero)};
  if (process_vm_writev(pid_, &local, 1, &remote, 1, 0) != sizeof(zero)) {
    *error = std::string("cannot write into the process: ") + std::strerror(errno);
    return false;
  }
  user_regs_struct regs = saved_;
  regs.rsp = sp;
  regs.rip = fn;
  regs.rax = 0;
  regs.orig_rax = static_cast<uint64_t>(-1);  // no system call restart on the way in
  regs.eflags &= ~uint64_t{0x400};            // the direction flag clear, as calls expect
  unsigned long long* slots[] = {&regs.rdi, &regs.rsi, &regs.rdx, &regs.rcx, &regs.r8, &regs.r9};
  size_t i = 0;
  for (const uint64_t a : args) *slots[i++] = a;
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &regs) != 0 ||
      ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) {
    *error = std::string("cannot start the call: ") + std::strerror(errno);
    return false;
  }
  const uint64_t deadline = NowMs() + static_cast<uint64_t>(timeout_ms);
  for (;;) {
    int status = 0;
    const int left = static_cast<int>(
        std::max<int64_t>(1, static_cast<int64_t>(deadline) - static_cast<int64_t>(NowMs())));
    if (!WaitFor(tid_, &status, left)) {
      *error = "the call into process " + std::to_string(pid_) + " did not return in " +
               std::to_string(timeout_ms) + " ms";
      return false;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      held_ = false;
      *error = "process " + std::to_string(pid_) + " ended during the call";
      return false;
    }
    const int sig = WSTOPSIG(status);
    if ((status >> 16) != 0) {  // a ptrace event stop (interrupt, group stop)
      ptrace(PTRACE_CONT, tid_, nullptr, nullptr);
      continue;
    }
    if (sig == SIGSEGV) {
      user_regs_struct after = {};
      ptrace(PTRACE_GETREGS, tid_, nullptr, &after);
      faulted_ = true;
      ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_);
      if (after.rip != 0) {
        *error = "the call faulted inside process " + std::to_string(pid_);
        return false;
      }
      *result = after.rax;
      return true;
    }
    signals_.push_back(sig);  // delivered on Release
    ptrace(PTRACE_CONT, tid_, nullptr, nullptr);
  }
}

void RemoteThread::Release() {
  if (!held_) return;
  ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_);
  if (!xstate_.empty()) {
    iovec iov = {xstate_.data(), xstate_.size()};
    ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &iov);
  }
  ptrace(PTRACE_DETACH, tid_, nullptr, nullptr);
  for (const int sig : signals_) syscall(SYS_tgkill, pid_, tid_, sig);
  signals_.clear();
  held_ = false;
}

uint64_t RemoteSymbol(pid_t pid, const std::string& module_prefix, const std::string& symbol,
                      std::string* error) {
  std::string err;
  const std::vector<Mapping> maps = ReadMappings(pid, &err);
  const Mapping* module = nullptr;
  for (const Mapping& m : maps) {
    if (m.offset != 0 || m.path.empty()) continue;
    const bool match = module_prefix[0] == '/'
                           ? m.path == module_prefix
                           : StartsWith(BaseName(m.path), module_prefix.c_str());
    if (match) {
      module = &m;
      break;
    }
  }
  if (module == nullptr) {
    *error = module_prefix + " is not loaded in process " + std::to_string(pid);
    return 0;
  }
  // The file as the process sees it (its mount namespace).
  std::string file = "/proc/" + std::to_string(pid) + "/root" + module->path;
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fd = open(module->path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + module->path + ": " + std::strerror(errno);
    return 0;
  }
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  uint64_t address = 0;
  if (elf != nullptr) {
    uint64_t first_load = 0;
    size_t phnum = 0;
    elf_getphdrnum(elf, &phnum);
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_LOAD) {
        first_load = ph.p_vaddr & ~(ph.p_align > 0 ? ph.p_align - 1 : 0);
        break;
      }
    }
    const uint64_t bias = module->start - first_load;
    Elf_Scn* scn = nullptr;
    while (address == 0 && (scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_DYNSYM) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      const size_t count = sh.sh_entsize != 0 ? sh.sh_size / sh.sh_entsize : 0;
      for (size_t i = 0; data != nullptr && i < count; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (name != nullptr && symbol == name) {
          address = bias + sym.st_value;
          break;
        }
      }
    }
    elf_end(elf);
  }
  close(fd);
  if (address == 0) *error = module->path + " has no symbol " + symbol;
  return address;
}

}  // namespace heaprec::recorder::launcher
