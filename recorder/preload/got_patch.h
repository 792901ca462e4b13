// GotPatch: routes a running process's calls of named functions to other
// definitions by rewriting the GOT entries (JUMP_SLOT and GLOB_DAT
// relocations) that name them in every loaded module, and puts each entry
// back on Restore. This is how heaprec -p (attach.cc) records a process it
// did not start, where LD_PRELOAD came too late: the program's, libc's and
// libstdc++'s calls of malloc, free, operator new... reach the hooks for the
// recording window only.
//
// Skipped: libheaprec.so itself, the dynamic loader and the vDSO. Entries in
// RELRO pages are written between mprotect(RW) and mprotect(R). Each entry is
// remembered (where, original value, hook) in an mmap'd table; Restore writes
// the original back only where the entry still holds the hook and its module
// is still loaded (a module unloaded meanwhile is not touched). Modules
// loaded later are patched by PatchNewModules, which returns at once unless
// the loader's count of loaded objects moved.
//
// Entry writes are single aligned 8-byte stores: a thread calling through an
// entry meanwhile sees the old or the new function, both valid. Not
// reentrant: the caller serializes Patch*/Restore (attach.cc holds a flag).
// Never allocates; no locks of its own (dl_iterate_phdr takes the loader's).
#ifndef HEAPREC_RECORDER_PRELOAD_GOT_PATCH_H_
#define HEAPREC_RECORDER_PRELOAD_GOT_PATCH_H_

#include <cstddef>
#include <cstdint>

namespace heaprec::recorder::preload {

struct GotHook {
  const char* name;  // the symbol, as the relocations name it ("malloc", "_Znwm")
  uintptr_t hook;    // where its entries should point
};

// Patches every loaded module (but the skipped ones) not patched yet.
// own: any address inside libheaprec.so. Returns the number of entries
// written, or -1 if the table could not be mapped.
int PatchAllModules(const GotHook* hooks, size_t count, uintptr_t own);

// Patches modules loaded since the last call, if the loader's count of loaded
// objects changed (one dl_iterate_phdr callback otherwise). Returns the
// number of entries written.
int PatchNewModules();

// Writes every remembered entry back and forgets them all. Returns the number
// restored.
int RestoreAllModules();

}  // namespace heaprec::recorder::preload

#endif  // HEAPREC_RECORDER_PRELOAD_GOT_PATCH_H_
