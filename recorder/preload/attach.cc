// heaprec_attach / heaprec_detach (attach.h): the recorder started and
// stopped inside a running process.
#include "recorder/preload/attach.h"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <cerrno>

#include "recorder/preload/got_patch.h"
#include "recorder/preload/module_scan.h"
#include "recorder/preload/process_region.h"
#include "recorder/preload/real_allocator.h"
#include "recorder/preload/recorder_state.h"
#include "recorder/preload/recording_switch.h"
#include "recorder/preload/sampler.h"
#include "recorder/preload/seq_counter.h"

namespace heaprec::recorder::preload {
namespace {

// heaprec_attach's answers besides 0.
enum : int {
  kAttachBusy = -1,       // recording already (preloaded by heaprec, or attached)
  kAttachNoSession = -2,  // the settings name no session folder
  kAttachNoRegion = -3,   // the region file could not be made there
  kAttachNoSelf = -4,     // the library could not find its own hooks
  kAttachNoPatches = -5,  // no GOT entry of the process names an allocation function
};

// Every name the hooks define that a running process may call through its
// GOT (exports.lds, but for __libc_start_main, called once at start, and
// sigprocmask, which only matters to libunwind's calls from inside us).
constexpr const char* kRouted[] = {"malloc",
                                   "free",
                                   "calloc",
                                   "realloc",
                                   "reallocarray",
                                   "posix_memalign",
                                   "aligned_alloc",
                                   "memalign",
                                   "valloc",
                                   "pvalloc",
                                   "dlclose",
                                   "pthread_setname_np",
                                   "exit",
                                   "_exit",
                                   "_Exit",
                                   "_Znwm",
                                   "_Znam",
                                   "_ZnwmRKSt9nothrow_t",
                                   "_ZnamRKSt9nothrow_t",
                                   "_ZnwmSt11align_val_t",
                                   "_ZnamSt11align_val_t",
                                   "_ZnwmSt11align_val_tRKSt9nothrow_t",
                                   "_ZnamSt11align_val_tRKSt9nothrow_t",
                                   "_ZdlPv",
                                   "_ZdaPv",
                                   "_ZdlPvm",
                                   "_ZdaPvm",
                                   "_ZdlPvRKSt9nothrow_t",
                                   "_ZdaPvRKSt9nothrow_t",
                                   "_ZdlPvSt11align_val_t",
                                   "_ZdaPvSt11align_val_t",
                                   "_ZdlPvmSt11align_val_t",
                                   "_ZdaPvmSt11align_val_t",
                                   "_ZdlPvSt11align_val_tRKSt9nothrow_t",
                                   "_ZdaPvSt11align_val_tRKSt9nothrow_t"};
constexpr size_t kRoutedCount = sizeof(kRouted) / sizeof(kRouted[0]);

GotHook g_hooks[kRoutedCount];
size_t g_hook_count = 0;

// The settings text, kept: Config points into it.
constexpr size_t kSettingsBytes = 8192;
char g_settings[kSettingsBytes];

std::atomic<bool> g_patching{false};  // one thread patches at a time
bool g_once = false;                  // exit key and fork handlers made
RegionView g_previous;                // the last attach's region, unmapped at the next

// The settings text, cut into NUL-terminated NAME=VALUE entries in place
// (one per line), an empty entry after the last.
void KeepSettings(const char* settings) {
  size_t n = 0;
  for (; settings[n] != '\0' && n < kSettingsBytes - 2; ++n) {
    g_settings[n] = settings[n] == '\n' ? '\0' : settings[n];
  }
  g_settings[n] = '\0';
  g_settings[n + 1] = '\0';
}

// getenv over g_settings.
const char* SettingsGet(const char* name) {
  for (const char* entry = g_settings; *entry != '\0';) {
    size_t i = 0;
    while (name[i] != '\0' && entry[i] == name[i]) ++i;
    if (name[i] == '\0' && entry[i] == '=') return entry + i + 1;
    while (*entry != '\0') ++entry;
    ++entry;
  }
  return nullptr;
}

// This library's own definitions of the routed names.
bool FindHooks() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&heaprec_attach), &info) == 0 || info.dli_fname == nullptr) {
    return false;
  }
  void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (self == nullptr) return false;
  g_hook_count = 0;
  for (const char* name : kRouted) {
    void* p = dlsym(self, name);
    const auto at = reinterpret_cast<uintptr_t>(p);
    if (p == nullptr || at < g_recorder.own_start || at >= g_recorder.own_end) continue;
    g_hooks[g_hook_count++] = {name, at};
  }
  return g_hook_count > 0;
}

// An earlier heaprec -p that ended without detaching (killed): its launcher
// is gone, or its clock has stood still for 50 ms (it moves every 0.2 ms).
bool EarlierLauncherGone() {
  RegionHeader& h = Header();
  if (h.launcher_gone.load(std::memory_order_relaxed) != 0) return true;
  const int32_t pid = g_recorder.config.launcher_pid;
  if (pid > 0) return kill(pid, 0) != 0 && errno == ESRCH;
  const uint64_t before = h.launcher_clock_ns.load(std::memory_order_relaxed);
  const timespec wait = {0, 50 * 1000 * 1000};
  nanosleep(&wait, nullptr);
  return h.launcher_clock_ns.load(std::memory_order_relaxed) == before;
}

void ReleasePatching() { g_patching.store(false, std::memory_order_release); }
void AcquirePatching() {
  while (g_patching.exchange(true, std::memory_order_acquire)) sched_yield();
}

}  // namespace

void AttachTick(uint32_t& countdown) {
  if (countdown-- != 0) return;
  countdown = kAttachTickCalls;
  if (g_patching.exchange(true, std::memory_order_acquire)) return;  // another thread does it
  if (g_recorder.attached.load(std::memory_order_acquire)) PatchNewModules();
  ReleasePatching();
}

}  // namespace heaprec::recorder::preload

HEAPREC_EXPORT_C int heaprec_attach(const char* settings) {
  using namespace heaprec::recorder;
  using namespace heaprec::recorder::preload;
  if (g_recorder.attached.load(std::memory_order_acquire) != 0 &&
      g_recorder.mode.load(std::memory_order_acquire) == kOn && EarlierLauncherGone()) {
    heaprec_detach();  // what the killed launcher left routed
  }
  int expected = kOff;
  if (!g_recorder.mode.compare_exchange_strong(expected, kInitializing,
                                               std::memory_order_acq_rel)) {
    return kAttachBusy;
  }
  ThreadState& ts = t_thread_state;
  ts.guard++;
  const auto fail = [&ts](int code) {
    g_recorder.mode.store(kOff, std::memory_order_release);
    ts.guard--;
    return code;
  };
  KeepSettings(settings != nullptr ? settings : "");
  Config c = ReadConfigWith(SettingsGet);
  if (c.session == nullptr || c.session[0] == '\0') return fail(kAttachNoSession);
  c.follow = false;  // fork children are not recorded (attach.h)
  c.follow_only = c.follow_skip = nullptr;
  g_recorder.config = c;
  ResolveRealAllocatorGlobally();
  OwnTextRange(&g_recorder.own_start, &g_recorder.own_end);
  if (!FindHooks()) return fail(kAttachNoSelf);
  if (g_previous.base != nullptr) {
    munmap(g_previous.base, kRegionBytes);
    g_previous = {};
  }
  StartSampling(&c);
  g_recorder.config.sample_rate = c.sample_rate;
  // Shared seq counting from the start: the launcher's last drain after
  // heaprec_detach waits for every seq the header has handed out.
  const RegionView region =
      CreateRegion({c.session, c.launcher_pid, c.max_depth, 0, /*solo_seq=*/false,
                    /*parent_start_ns=*/0, c.sample_rate, /*start_paused=*/false,
                    /*attached=*/true, c.precise_times});
  if (region.base == nullptr) return fail(kAttachNoRegion);
  g_recorder.region = region;
  UseSwitch(*region.header());  // heaprec --stop/--start PID pause and resume it
  g_recorder.generation.fetch_add(1, std::memory_order_acq_rel);  // rings of a region before
  ForgetModules();
  AnnounceOwnMemory();
  if (!g_once) {
    g_once = true;
    InstallThreadExit();
    InstallForkHandlers();
  }
  ScanModules(g_recorder.region);
  SetSampleRate(c.sample_rate, c.sample_seed);
  g_recorder.attached.store(1, std::memory_order_release);
  g_recorder.mode.store(kOn, std::memory_order_release);
  ts.guard--;
  Marker(kAttachMarker);  // before any call is routed: the recording's first record
  ts.guard++;
  AcquirePatching();
  const int written = PatchAllModules(g_hooks, g_hook_count, g_recorder.own_start);
  ReleasePatching();
  if (written <= 0) {
    AcquirePatching();
    RestoreAllModules();
    g_recorder.attached.store(0, std::memory_order_release);
    ReleasePatching();
    g_previous = g_recorder.region;
    return fail(kAttachNoPatches);
  }
  ts.guard--;
  return 0;
}

HEAPREC_EXPORT_C int heaprec_detach(void) {
  using namespace heaprec::recorder;
  using namespace heaprec::recorder::preload;
  if (!g_recorder.attached.load(std::memory_order_acquire)) return -1;
  Marker(kDetachMarker);  // the last record of this recording
  ThreadState& ts = t_thread_state;
  ts.guard++;
  // Off first: calls still on their way through an entry pass unrecorded.
  g_recorder.mode.store(kOff, std::memory_order_release);
  AcquirePatching();
  const int restored = RestoreAllModules();
  SetSampleRate(0, 0);
  g_recorder.attached.store(0, std::memory_order_release);
  ReleasePatching();
  ForgetSwitch();  // its region stays mapped (g_previous) for calls on their way
  g_previous = g_recorder.region;
  ts.guard--;
  return restored;
}
