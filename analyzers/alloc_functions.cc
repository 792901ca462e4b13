// What counts as the allocator in a site's stack (alloc_functions.h).
#include "analyzers/alloc_functions.h"

namespace heaprec::analyzers {
namespace {

// The built-in list, in Canonical() form. Entry points first (a stack starts
// at their caller when the recorder caught the call itself, but not when a
// library's internal call reached the allocator another way), then the
// runtimes' wrappers whose frames come before the caller that asked.
constexpr const char* kBuiltIn[] = {
    // C
    "malloc", "calloc", "realloc", "reallocarray", "memalign", "aligned_alloc", "posix_memalign",
    "valloc", "pvalloc", "__libc_malloc", "__libc_calloc", "__libc_realloc", "__libc_memalign",
    "strdup", "strndup", "__strdup", "__strndup", "wcsdup",
    // C++ operator new, every form (the parameters are dropped)
    "operator new", "operator new[]",
    // libstdc++'s allocators and the containers' allocation helpers
    "__gnu_cxx::new_allocator::allocate", "std::__new_allocator::allocate",
    "std::allocator::allocate", "std::allocator_traits::allocate", "std::__allocate_guarded",
    "std::_Vector_base::_M_allocate", "std::__cxx11::basic_string::_M_create",
    "std::basic_string::_M_create", "std::_Rb_tree::_M_get_node", "std::_Rb_tree::_M_create_node",
    "std::_List_base::_M_get_node", "std::__cxx11::_List_base::_M_get_node",
    "std::_Deque_base::_M_allocate_node", "std::_Deque_base::_M_allocate_map",
    "std::__detail::_Hashtable_alloc::_M_allocate_node",
    "std::__detail::_Hashtable_alloc::_M_allocate_buckets",
    // libc++
    "std::__1::allocator::allocate", "std::__1::allocator_traits::allocate",
    "std::__1::__libcpp_allocate"};

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

AllocFunctions::AllocFunctions() {
  for (const char* name : kBuiltIn) names_.insert(name);
}

std::string AllocFunctions::Canonical(std::string_view f) {
  std::string out;
  out.reserve(f.size());
  int angle = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const char c = f[i];
    // "operator<", "operator<<", "operator<=": the '<' is the name, not a template.
    const bool op = angle == 0 && (EndsWith(out, "operator") || EndsWith(out, "operator<"));
    if (c == '<' && !op) {
      ++angle;
      continue;
    }
    if (c == '>' && angle > 0) {
      --angle;
      continue;
    }
    if (angle > 0) continue;
    if (c == '(' && !EndsWith(out, "operator")) break;  // the parameters (not "operator()")
    if (c == '[' && f.substr(i, 5) == "[abi:") {
      const size_t end = f.find(']', i);
      if (end == std::string_view::npos) break;
      i = end;
      continue;
    }
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (EndsWith(out, " const")) out.resize(out.size() - 6);
  return out;
}

bool AllocFunctions::Add(std::string_view name) {
  std::string c = Canonical(name);
  if (c.empty()) return false;
  names_.insert(std::move(c));
  return true;
}

bool AllocFunctions::AddList(std::string_view list, std::string* error) {
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    const std::string_view name = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!Add(name)) {
      *error = "--alloc-fn: empty function name in \"" + std::string(list) + "\"";
      return false;
    }
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

bool AllocFunctions::Contains(std::string_view function) const {
  if (function.empty() || function == "??") return false;
  return names_.count(Canonical(function)) != 0;
}

}  // namespace heaprec::analyzers
