/* heaprec's C API for traced programs (C and C++).
 *
 *   #include "heaprec.h"
 *   heaprec_mark("after-load");   // a marker in the trace at this moment
 *
 * Safe to call when the program is not run under heaprec: the function is a
 * weak reference and the inline wrapper does nothing when it is absent. Two
 * markers let `heapreplay --diff --from A --to B` compare two moments.
 * Thread-safe; may be called from any thread; not async-signal-safe (send the
 * marker signal, SIGUSR2 by default, instead). */
#ifndef HEAPREC_H_
#define HEAPREC_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libheaprec.so. Labels longer than 119 bytes are cut. */
void heaprec_mark_label(const char* label) __attribute__((weak));

static inline void heaprec_mark(const char* label) {
  if (heaprec_mark_label) heaprec_mark_label(label);
}

#ifdef __cplusplus
}
#endif

#endif /* HEAPREC_H_ */
