// ModuleScan: finds the modules (executable, shared objects) mapped in this
// process with dl_iterate_phdr and logs loads and unloads into the region's
// module log, with path, load bias, PT_LOAD ranges and GNU build-id read from
// memory (no file access).
//
// Called at start, after each dlopen and after each dlclose, and in a fork
// child for its new region. Serialized by a spinlock (scans are rare); the
// fork handlers hold it across fork so a child never inherits it locked.
// Never allocates; not async-signal-safe (dl_iterate_phdr takes a loader lock).
#ifndef HEAPREC_RECORDER_PRELOAD_MODULE_SCAN_H_
#define HEAPREC_RECORDER_PRELOAD_MODULE_SCAN_H_

#include "recorder/shared/region_layout.h"

namespace heaprec::recorder::preload {

// Logs what changed since the last scan into region.
void ScanModules(const RegionView& region);

// Scans only if objects were loaded or unloaded since the last scan (cheap:
// reads the loader's counters). Called when a new stack is seen, so every
// module a stack passes through is logged before the event that names it.
void ScanModulesIfChanged(const RegionView& region);

// Forgets every known module (a fork child starts a new region and logs all
// modules again). Call with the scan lock held (between LockModuleScan and
// UnlockModuleScan).
void ForgetModules();
void LockModuleScan();
void UnlockModuleScan();

// Bounds of libheaprec.so's own code, so stacks can drop the recorder's frames.
void OwnTextRange(uintptr_t* start, uintptr_t* end);

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_MODULE_SCAN_H_
