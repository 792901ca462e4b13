/* libplugin.so: a shared library that dlopen_host loads, calls and unloads
 * (tests/dlopen_test.cc). plugin_alloc(n) returns malloc(n). */
#include <stdlib.h>

__attribute__((noinline, visibility("default"))) void* plugin_alloc(size_t n) { return malloc(n); }
