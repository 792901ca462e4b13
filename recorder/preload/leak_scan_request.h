// Leak scans from the traced process's side (format/FORMAT.md, "Leak
// scans"): the process asks the launcher for a scan with a kLeakScanRequest
// record and the asking thread waits until the launcher has done it (the
// launcher holds every thread still while it reads the process's memory).
// Asked for at the process's end (the last atexit handler, after every other
// handler and static destructor; or in _exit), by heaprec_leak_check(), and
// by the leak-check signal (heaprec --scan-signal).
//
// Not async-signal-safe in general (it waits); the signal handler and
// _exit call it only where the recorder allows (outside its guard). Never
// allocates. Errno preserved.
#ifndef HEAPREC_RECORDER_PRELOAD_LEAK_SCAN_REQUEST_H_
#define HEAPREC_RECORDER_PRELOAD_LEAK_SCAN_REQUEST_H_

#include <cstdint>

namespace heaprec::recorder::preload {

// format::LeakScan::Reason's values.
enum class ScanReason : uint64_t { kExit = 1, kRequest = 2, kSignal = 3 };

// Asks for a scan and waits for it (or until the launcher is gone). label:
// the marker label of the scan (nullptr: "leak-check-N" for a request or a
// signal, none at the end). fatal_signal: the signal the process is ending
// on (fatal_signal_scan.h), 0 for none. Does nothing with scans off (heaprec
// --no-leak-scan), while the recorder is off, or in a vfork child (which
// shares its parent's memory). context: a fatal signal handler's ucontext_t
// (nullptr: none): the launcher then takes the asking thread's registers,
// and where its stack begins, from the interrupted code rather than from the
// handler (memcheck's view: the handler's own frames are not the program's).
void RequestLeakScan(ScanReason reason, const char* label, int fatal_signal = 0,
                     const void* context = nullptr);

// The scan at the process's end, once per process image (the last atexit
// handler, _exit / _Exit, a fatal signal). A second thread that gets here
// while the first one's scan runs waits for it to finish (its exit would
// end the process under the scan), unless the launcher is gone.
// guard_held: called by a fatal signal's handler on a thread inside a hook
// whose ring is consistent (fatal_signal_scan.h says when): the request is
// written under the hook's guard. context: as for RequestLeakScan.
void FinalLeakScan(int fatal_signal = 0, bool guard_held = false, const void* context = nullptr);

// Registers the last atexit handler and the leak-check signal's handler
// (unless the program has its own), and finds the real exit and
// __libc_start_main for the hooks below. Called once by Initialize().
void InstallLeakScans();

// Whether leak scans are on (heaprec --no-leak-scan turns them off).
bool LeakScansOn();

// The real exit() and __libc_start_main (nullptr if not found), for the
// hooks that scrub dead stack (stack_scrub.h) before calling them; found on
// first use in an image that does not record.
using ExitFn = void (*)(int);
using StartMainFn = int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(),
                            void (*)(), void*);
ExitFn RealExit();
StartMainFn RealStartMain();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_LEAK_SCAN_REQUEST_H_
