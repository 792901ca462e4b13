// AllocFunctions: the one list of what counts as "the allocator" when a
// report names a site: the allocation entry points (malloc & co, operator
// new), the C and C++ runtimes' allocation wrappers that can appear as the
// innermost frames of a recorded stack (strdup, std::allocator<T>::allocate,
// std::vector's _M_allocate, ... often inlined), and the functions a user
// names with heapreplay --alloc-fn (as valgrind massif's --alloc-fn).
// SymbolTable marks each Frame it hands out (Frame::allocator) from this list;
// a site's "via" frame (ViaIndex) is its first frame outside it, and the top
// table counts a site's flat value there (pprof's -hide/-trim, massif's
// --alloc-fn).
// Names match after Canonical(): template arguments, parameter lists, ABI tags
// and "const" are dropped, so `std::allocator<int>::allocate(unsigned long)`,
// `std::allocator<char>::allocate` and `std::allocator::allocate` are one name.
// Not thread-safe to change; const methods are. Allocates.
#ifndef HEAPREC_ANALYZERS_ALLOC_FUNCTIONS_H_
#define HEAPREC_ANALYZERS_ALLOC_FUNCTIONS_H_

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace heaprec::analyzers {

class AllocFunctions {
 public:
  AllocFunctions();  // the built-in list

  // Adds a function by name (any spelling Canonical() reduces to the same).
  // Returns false (and adds nothing) for an empty name.
  bool Add(std::string_view name);
  // Adds a comma-separated list (--alloc-fn xmalloc,g_malloc); false and
  // *error naming the bad entry for an empty one.
  bool AddList(std::string_view list, std::string* error);

  // Whether a demangled function name is in the list.
  bool Contains(std::string_view function) const;

  // The name without template arguments, parameters, ABI tags or a trailing
  // qualifier: "std::vector<int, std::allocator<int> >::_M_allocate(unsigned
  // long) const" -> "std::vector::_M_allocate"; "operator new[](unsigned
  // long)" -> "operator new[]".
  static std::string Canonical(std::string_view function);

 private:
  std::unordered_set<std::string> names_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_ALLOC_FUNCTIONS_H_
