// libheaprec.so's entry points that are not allocation hooks: the constructor
// that sets the recorder up as early as possible, and the heaprec_* C API.
#include "recorder/preload/export.h"
#include "recorder/preload/heaprec.h"
#include "recorder/preload/leak_scan_request.h"
#include "recorder/preload/recorder.h"

namespace pre = heaprec::recorder::preload;

// Priority 101: before other constructors of libraries loaded after us, so
// their allocations are recorded and our fork handlers are registered first.
__attribute__((constructor(101))) static void HeaprecInit() { pre::Initialize(); }

HEAPREC_EXPORT_C void heaprec_mark_label(const char* label) {
  pre::Marker(label == nullptr ? "" : label);
}

HEAPREC_EXPORT_C void heaprec_leak_check_label(const char* label) {
  pre::RequestLeakScan(pre::ScanReason::kRequest, label);
}
