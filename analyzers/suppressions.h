// Leak suppression files, read and matched as valgrind's memcheck and
// LeakSanitizer do, for heaprec's valgrind-compatible leak check
// (`heaprec --suppressions FILE`, `heapreplay --leaks --suppressions FILE`).
// The rules are valgrind 3.19's (coregrind/m_errormgr.c, memcheck/
// mc_errors.c) and compiler-rt's (sanitizer_suppressions.cpp, lsan_common.cpp).
//
// Two formats, told apart per file by its first line that is not blank or a
// comment ("#..."): LeakSanitizer's if it starts with "leak:", else valgrind's.
//  - valgrind: "{" blocks of a name line, a "Tool[,Tool...]:Kind" line, for
//    Memcheck:Leak an optional "match-leak-kinds: SET" line, then frame lines
//    innermost first ("fun:PAT", "obj:PAT", "src:FILE[:LINE]", "..."), "}".
//    Only Memcheck:Leak entries are kept; other Memcheck kinds are checked as
//    valgrind checks them and dropped, other tools' entries are skipped.
//  - LeakSanitizer: "leak:PATTERN" lines. An LSan entry suppresses a leak of
//    any kind: LSan reports only unreachable blocks and has no kinds to
//    choose from, so an entry written for it means "never report this".
//
// Thread-safety: Match and the accessors are const and may run concurrently;
// AddFile/AddText must not run concurrently with anything. Allocates (tools
// only, never the recorder). Used by the leak check of heaprec and heapreplay.
#ifndef HEAPREC_ANALYZERS_SUPPRESSIONS_H_
#define HEAPREC_ANALYZERS_SUPPRESSIONS_H_

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"

namespace heaprec::analyzers {

// Memcheck's four leak states ("definitely lost", ... "still reachable").
// The kinds of the trace's leak scans (format/records.h): kDefinite,
// kIndirect, kPossible, kReachable (kUnknown is in no set).
using LeakKind = format::LeakKind;

// "definite", "indirect", "possible", "reachable".
std::string_view LeakKindName(LeakKind kind);

// A set of leak kinds, in valgrind's syntax for match-leak-kinds:,
// --show-leak-kinds=, --errors-for-leak-kinds= and --leak-kinds=.
class LeakKindSet {
 public:
  constexpr LeakKindSet() = default;                               // empty ("none")
  static constexpr LeakKindSet All() { return LeakKindSet(0xf); }  // the four kinds

  // Valgrind's VG_(parse_enum_set): a comma list of definite, indirect,
  // possible, reachable (empty items are skipped), or "all", or "none"; no
  // spaces; case matters. Mixing all/none with each other or with names, an
  // unknown word and a list of no words are errors. On error returns false
  // and sets *error to one line (without a file or option name).
  static bool Parse(std::string_view text, LeakKindSet* set, std::string* error);

  bool Contains(LeakKind kind) const {
    return kind != LeakKind::kUnknown && ((bits_ >> Bit(kind)) & 1) != 0;
  }
  void Add(LeakKind kind) { bits_ |= uint8_t(1u << Bit(kind)); }
  void Remove(LeakKind kind) { bits_ &= uint8_t(~(1u << Bit(kind))); }
  bool empty() const { return bits_ == 0; }

  // "all", "none", or the names in the order of LeakKind, comma-separated.
  std::string ToString() const;

  friend bool operator==(LeakKindSet, LeakKindSet) = default;

 private:
  constexpr explicit LeakKindSet(uint8_t bits) : bits_(bits) {}
  static constexpr unsigned Bit(LeakKind kind) { return static_cast<unsigned>(kind) - 1; }
  uint8_t bits_ = 0;
};

// One frame of an allocation stack, as heaprec's symbolizer names it. An
// address with inlined calls is several frames, innermost first, each with
// the address's module (valgrind's --read-inline-info=yes does the same).
struct LeakFrame {
  std::string function;  // demangled ("foo::bar(int)", "leaker()"); "" unknown
  std::string linkage;   // mangled/linkage name ("_ZN3foo3barEi"); "" unknown
  std::string file;      // source file path as the debug info gives it; "" unknown
  uint32_t line = 0;     // 0 unknown
  std::string module;    // full path of the object file; "" unknown
};

// One frame line of a valgrind entry.
struct FramePattern {
  enum class Type : uint8_t { kFun, kObj, kSrc, kAnyFrames /* "..." */ };
  Type type = Type::kAnyFrames;
  std::string pattern;  // after "fun:"/"obj:"/"src:"; for src: the file part
  uint32_t line = 0;    // src:FILE:LINE's line; 0 = any line

  // Derived by the parser, for matching without work per frame:
  bool wildcard = false;  // pattern has '*' or '?'
  // Written in a form valgrind never matches, so that heaprec reads it for
  // what it evidently means (Match says how): a fun: pattern holding a
  // character no linkage name has, one of "():<>,&~[] "; a src: pattern
  // holding a '/'.
  bool extended = false;
  std::string demangled;  // fun: plain "_Z..." pattern, demangled; "" otherwise
};

enum class SuppressionFormat : uint8_t { kValgrind, kLeakSanitizer };

struct Suppression {
  SuppressionFormat format = SuppressionFormat::kValgrind;
  std::string name;   // valgrind: the name line; LSan: the pattern after "leak:"
  std::string file;   // the path given to AddFile (or AddText's name)
  uint32_t line = 0;  // valgrind: the name line, as valgrind's -v output; LSan: the line
  LeakKindSet kinds = LeakKindSet::All();  // LSan: always all
  std::vector<FramePattern> frames;        // valgrind only
};

struct SuppressionOptions {
  // Valgrind's --num-callers (1..500): frame lines of an entry past this many
  // are ignored when the file is read, as valgrind ignores them. Pass the
  // value being emulated, and cut the stacks given to Match to it too.
  uint32_t num_callers = 12;
  // Match only what valgrind 3.19 matches: no meaning for the patterns
  // FramePattern::extended marks (see Match).
  bool strict = false;
};

class Suppressions {
 public:
  explicit Suppressions(SuppressionOptions options = {}) : options_(options) {}

  // Reads one file, valgrind or LSan format (detected from the file). On any
  // error adds nothing, returns false and sets *error to one line,
  // "PATH:LINE: what is wrong" (or "PATH: why it cannot be read").
  bool AddFile(const std::string& path, std::string* error);
  // The same for text already in memory; `name` stands for the path.
  bool AddText(std::string_view text, const std::string& name, std::string* error);

  // The suppression that suppresses a leak of `kind` allocated at `stack`
  // (innermost first, frame 0 being the allocation function as valgrind
  // shows it: {"malloc", "malloc"}, {"operator new(unsigned long)", "_Znwm"},
  // ...; give frame 0 the module valgrind shows, e.g. vgpreload_memcheck's
  // path, for obj: patterns on it to match as they do under valgrind), or
  // nullptr. Valgrind entries are tried first, in the order they were read
  // (valgrind's own order changes as it runs); then LSan entries, credited
  // as LSan credits them: the innermost frame with a match decides, and for a
  // frame the module, then the function, then the file.
  //
  // Valgrind entries: the frame lines must match a prefix of the stack
  // ("..." = zero or more frames; trailing frames are ignored), each pattern
  // the whole name with * and ? wildcards, and `kind` must be in the entry's
  // match-leak-kinds. An unknown function or module is "???", as valgrind
  // writes it.
  //  - fun: valgrind compares the mangled name. Against a frame with a
  //    linkage name, the pattern is matched against it, exactly as valgrind
  //    does. Without one (e.g. an inlined frame), against the function name,
  //    and a plain mangled pattern also matches when it demangles to exactly
  //    that name (fun:_ZL6leakerv and "leaker()"). (Valgrind names an
  //    inlined frame by its bare DWARF name, "push_back"; heaprec's
  //    symbolizer qualifies it, "std::vector<int>::push_back", so an entry
  //    naming an inlined function needs a wildcard here: fun:*push_back.)
  //    Unless strict, an extended pattern (fun:operator new(unsigned long),
  //    fun:foo::bar*) is matched against the demangled function name as
  //    well. Valgrind 3.19 never matches such a pattern on a frame with a
  //    linkage name, so this changes nothing for entries that work under
  //    valgrind; it makes the common mistake of copying names from
  //    valgrind's (demangled) report work. Wildcard patterns in mangled or C
  //    form are not matched against demangled names: fun:*allocator* must
  //    not start matching every std::vector<int> ("...std::allocator<int>").
  //  - obj: the module's full path.
  //  - src:FILE[:LINE]: valgrind keeps a file's directory apart from its
  //    name and compares the name alone: src:a.cc matches /p/src/a.cc, and
  //    src:src/a.cc or src:/p/src/a.cc match nothing, however the unit was
  //    compiled (checked with valgrind 3.19 on this machine). So FILE is
  //    matched against the frame's file name after its last '/'. Unless
  //    strict, an extended pattern (one with a '/') is matched against the
  //    full path and each tail of it after a '/' ("/p/src/a.cc",
  //    "p/src/a.cc", "src/a.cc"). LINE, when given, must equal the frame's.
  // LSan entries (every kind): the pattern is matched against each frame's
  // module path ("<unknown module>" if unknown), function name and file, by
  // LSan's TemplateMatch: a substring, "^" anchoring the start, "$" the end,
  // "*" any run of characters; an empty name never matches. As in LSan, "$"
  // is checked after the leftmost occurrence only: leak:o$ misses "foo".
  // "leak:" alone matches every stack.
  const Suppression* Match(LeakKind kind, std::span<const LeakFrame> stack) const;

  // Every suppression kept, in the order read (Memcheck:Leak entries and LSan
  // lines only). Pointers stay valid while this object lives.
  const std::deque<Suppression>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  bool MatchesValgrind(const Suppression& s, std::span<const LeakFrame> stack) const;
  const Suppression* MatchLeakSanitizer(std::span<const LeakFrame> stack) const;

  SuppressionOptions options_;
  std::deque<Suppression> entries_;
  size_t lsan_count_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_SUPPRESSIONS_H_
