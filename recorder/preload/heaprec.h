/* heaprec's C API for traced programs (C and C++).
 *
 *   #include "heaprec.h"
 *   heaprec_mark("after-load");   // a marker in the trace at this moment
 *   heaprec_leak_check();         // a leak scan now (and a marker)
 *
 * Safe to call when the program is not run under heaprec: the functions are
 * weak references and the inline wrappers do nothing when they are absent.
 * Two markers let `heapreplay --diff --from A --to B` compare two moments;
 * `heapreplay --leaks --at leak-check-1` shows the leak kinds (definitely,
 * indirectly, possibly lost, still reachable) as the first scan found them.
 * Thread-safe; may be called from any thread; not async-signal-safe (send the
 * marker signal, SIGUSR2 by default, or heaprec --scan-signal's instead). */
#ifndef HEAPREC_H_
#define HEAPREC_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by libheaprec.so. Labels longer than 119 bytes are cut. */
void heaprec_mark_label(const char* label) __attribute__((weak));
/* The scan pauses the whole process while heaprec reads its memory, and
 * returns when it is done. label: the marker label (NULL: "leak-check-N"). */
void heaprec_leak_check_label(const char* label) __attribute__((weak));

static inline void heaprec_mark(const char* label) {
  if (heaprec_mark_label) heaprec_mark_label(label);
}

static inline void heaprec_leak_check(void) {
  if (heaprec_leak_check_label) heaprec_leak_check_label(0);
}

#ifdef __cplusplus
}
#endif

#endif /* HEAPREC_H_ */
