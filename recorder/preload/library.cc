// libheaprec.so's entry points that are not allocation hooks: the constructor
// that sets the recorder up as early as possible, and the heaprec_* C API.
#include <cstdint>

#include "recorder/preload/export.h"
#include "recorder/preload/heaprec.h"
#include "recorder/preload/leak_scan_request.h"
#include "recorder/preload/recorder.h"
#include "recorder/preload/stack_scrub.h"

namespace pre = heaprec::recorder::preload;

// Priority 101: before other constructors of libraries loaded after us, so
// their allocations are recorded and our fork handlers are registered first.
__attribute__((constructor(101))) static void HeaprecInit() { pre::Initialize(); }

HEAPREC_EXPORT_C void heaprec_mark_label(const char* label) {
  pre::Marker(label == nullptr ? "" : label);
}

// The program's earlier calls (into the hooks too) left pointers in the
// dead stack below its frame, where this call's own frames go: memcheck
// never sees them (popped memory is undefined to it), but a scan would read
// them inside the request's frames as roots. So this frame starts with
// zeros over its slots, and the stack below it is cleared before the
// request builds its frames there.
HEAPREC_EXPORT_C __attribute__((noinline)) void heaprec_leak_check_label(const char* label) {
  volatile uint64_t cover[16] = {};
  if (pre::LeakScansOn()) pre::ScrubStackBelowHere();
  pre::RequestLeakScan(pre::ScanReason::kRequest, label);
  cover[0] = 0;
}
