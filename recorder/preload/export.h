// The names libheaprec.so exports: the libc and C++ functions it replaces and
// the heaprec_* C API. exports.lds lists them (everything else is local);
// these macros give them default visibility in a library compiled with
// -fvisibility=hidden. HEAPREC_EXPORT_C for C names, HEAPREC_EXPORT for the
// C++ operators (whose mangled names are what programs link against).
#ifndef HEAPREC_RECORDER_PRELOAD_EXPORT_H_
#define HEAPREC_RECORDER_PRELOAD_EXPORT_H_

#define HEAPREC_EXPORT __attribute__((visibility("default")))
#define HEAPREC_EXPORT_C extern "C" HEAPREC_EXPORT

#endif  // HEAPREC_RECORDER_PRELOAD_EXPORT_H_
