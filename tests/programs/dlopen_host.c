/* dlopen_host: dlopens the library named by argv[1] (libplugin.so), calls its
 * plugin_alloc(777) 3 times, frees the first block, dlcloses the library and
 * exits 0 (tests/dlopen_test.cc). So plugin_alloc: 3 allocations, 2 blocks and
 * 1554 bytes leaked, allocated from a library that is gone at the end. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef void* (*PluginAlloc)(size_t);

static void* g_kept[3];

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dlopen_host LIBRARY\n");
    return 2;
  }
  void* handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  PluginAlloc plugin_alloc = (PluginAlloc)dlsym(handle, "plugin_alloc");
  if (plugin_alloc == NULL) {
    fprintf(stderr, "dlsym: %s\n", dlerror());
    return 1;
  }
  for (int i = 0; i < 3; ++i) g_kept[i] = plugin_alloc(777);
  free(g_kept[0]);
  g_kept[0] = NULL;
  if (dlclose(handle) != 0) {
    fprintf(stderr, "dlclose: %s\n", dlerror());
    return 1;
  }
  printf("dlopen_host: ok\n");
  return 0;
}
