// Suppression files of both formats, read from disk and matched against
// stacks shaped as valgrind sees them. The valgrind cases are the spec's
// experiments (memcheck_leak_spec.md section 9, E13 and E13b: what valgrind
// 3.19 suppressed for each file on this machine); the LSan cases follow
// compiler-rt's TemplateMatch.
#include "analyzers/suppressions.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace heaprec::analyzers {
namespace {

using Stack = std::vector<LeakFrame>;

const std::string kPreload = "/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so";
const std::string kExe = "/work/notes/experiments/bin/e13_supp";
const std::string kSource = "/work/notes/experiments/e13_supp.c";

std::string WriteFile(const std::string& name, std::string_view text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Reads `text` as the file `name` into *s; the error, or "" on success.
std::string Load(Suppressions* s, const std::string& name, std::string_view text) {
  std::string error;
  const std::string path = WriteFile(name, text);
  if (!s->AddFile(path, &error)) return error.substr(::testing::TempDir().size() + 1);
  return "";
}

LeakFrame Malloc() { return {.function = "malloc", .linkage = "malloc", .module = kPreload}; }

// A C function of e13_supp.c: its symbol is its name.
LeakFrame C(const std::string& function, uint32_t line) {
  return {.function = function, .linkage = function, .file = kSource, .line = line, .module = kExe};
}

// e13_supp.c: a list whose head (definite) and 3 nodes (indirect) come from
// mk_node, and a block from other_leak.
Stack MkNode() { return {Malloc(), C("mk_node", 8), C("setup", 13), C("main", 16)}; }
Stack OtherLeak() { return {Malloc(), C("other_leak", 9), C("setup", 14), C("main", 16)}; }

// e13b_supp_cpp.cpp: operator new called from static leaker().
Stack Leaker(bool with_linkage) {
  Stack stack = {
      {.function = "operator new(unsigned long)", .linkage = "_Znwm", .module = kPreload},
      {.function = "leaker()", .linkage = "_ZL6leakerv", .file = "/x/e13b_supp_cpp.cpp", .line = 5},
      {.function = "main", .linkage = "main", .file = "/x/e13b_supp_cpp.cpp", .line = 7}};
  if (!with_linkage) {
    for (LeakFrame& f : stack) f.linkage.clear();
  }
  return stack;
}

// The name of the suppression matching, or "" for none.
std::string Matched(const Suppressions& s, LeakKind kind, const Stack& stack) {
  const Suppression* m = s.Match(kind, stack);
  return m == nullptr ? "" : m->name;
}

// One valgrind entry with the given body lines (kind line and frames).
std::string Entry(const std::string& name, const std::string& body) {
  return "{\n   " + name + "\n" + body + "}\n";
}

// --- LeakKindSet --------------------------------------------------------------

TEST(LeakKindSetTest, ParsesValgrindSetSyntax) {
  LeakKindSet set;
  std::string error;
  ASSERT_TRUE(LeakKindSet::Parse("definite,possible", &set, &error)) << error;
  EXPECT_TRUE(set.Contains(LeakKind::kDefinite));
  EXPECT_FALSE(set.Contains(LeakKind::kIndirect));
  EXPECT_TRUE(set.Contains(LeakKind::kPossible));
  EXPECT_FALSE(set.Contains(LeakKind::kReachable));
  EXPECT_EQ(set.ToString(), "definite,possible");

  ASSERT_TRUE(LeakKindSet::Parse("all", &set, &error));
  EXPECT_EQ(set, LeakKindSet::All());
  EXPECT_EQ(set.ToString(), "all");
  ASSERT_TRUE(LeakKindSet::Parse("none", &set, &error));
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.ToString(), "none");
  // strtok_r's way: empty items vanish; repeats are fine.
  ASSERT_TRUE(LeakKindSet::Parse(",reachable,,indirect,reachable,", &set, &error));
  EXPECT_EQ(set.ToString(), "indirect,reachable");
  ASSERT_TRUE(LeakKindSet::Parse("all,all", &set, &error));
  EXPECT_EQ(set, LeakKindSet::All());
  ASSERT_TRUE(LeakKindSet::Parse("definite,indirect,possible,reachable", &set, &error));
  EXPECT_EQ(set, LeakKindSet::All());
}

TEST(LeakKindSetTest, RejectsWhatValgrindRejects) {
  for (const char* bad : {"", ",", "all,definite", "possible,none", "all,none",
                          "definite, possible", "Definite", "lost", "definite;possible"}) {
    LeakKindSet set = LeakKindSet::All();
    std::string error;
    EXPECT_FALSE(LeakKindSet::Parse(bad, &set, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(set, LeakKindSet::All()) << "unchanged on error: " << bad;
  }
  std::string error;
  LeakKindSet set;
  LeakKindSet::Parse("all,definite", &set, &error);
  EXPECT_EQ(error,
            "\"all\" and \"none\" stand alone: they cannot be combined with each other or with "
            "leak kinds");
  LeakKindSet::Parse("lost", &set, &error);
  EXPECT_EQ(error.substr(0, 26), "unknown leak kind \"lost\" (");
  EXPECT_EQ(LeakKindName(LeakKind::kReachable), "reachable");
}

// --- The spec's experiments (E13, E13b) -----------------------------------------

TEST(ValgrindSuppressionsTest, E13s1MatchLeakKindsDefiniteOnly) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s1_definite_only.supp",
                 "{\n   s1_definite_only\n   Memcheck:Leak\n   match-leak-kinds: definite\n"
                 "   fun:malloc\n   fun:mk_node\n}\n"),
            "");
  ASSERT_EQ(s.size(), 1u);
  const Suppression& e = s.entries()[0];
  EXPECT_EQ(e.name, "s1_definite_only");
  EXPECT_EQ(e.line, 2u);  // valgrind: "used_suppression: ... s1_definite_only.supp:2"
  EXPECT_EQ(e.file, ::testing::TempDir() + "/s1_definite_only.supp");
  EXPECT_EQ(e.kinds.ToString(), "definite");
  ASSERT_EQ(e.frames.size(), 2u);
  EXPECT_EQ(e.frames[1].type, FramePattern::Type::kFun);
  EXPECT_EQ(e.frames[1].pattern, "mk_node");
  // The head is suppressed, its 3 indirect nodes are not; other_leak is not.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "s1_definite_only");
  EXPECT_EQ(Matched(s, LeakKind::kIndirect, MkNode()), "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "");
}

TEST(ValgrindSuppressionsTest, E13s2WithoutMatchLeakKindsEveryKind) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s2.supp",
                 Entry("s2_all_kinds", "   Memcheck:Leak\n   fun:malloc\n   fun:mk_node\n")),
            "");
  EXPECT_EQ(s.entries()[0].kinds, LeakKindSet::All());
  for (LeakKind kind :
       {LeakKind::kDefinite, LeakKind::kIndirect, LeakKind::kPossible, LeakKind::kReachable}) {
    EXPECT_EQ(Matched(s, kind, MkNode()), "s2_all_kinds");
    EXPECT_EQ(Matched(s, kind, OtherLeak()), "");
  }
}

TEST(ValgrindSuppressionsTest, E13s3DotDotDotInTheMiddle) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s3.supp",
                 Entry("s3_dotdotdot", "   Memcheck:Leak\n   fun:malloc\n   ...\n   fun:main\n")),
            "");
  EXPECT_EQ(s.entries()[0].frames[1].type, FramePattern::Type::kAnyFrames);
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "s3_dotdotdot");
  EXPECT_EQ(Matched(s, LeakKind::kIndirect, MkNode()), "s3_dotdotdot");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "s3_dotdotdot");
  // Zero frames between: malloc directly called from main.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), C("main", 3)}), "s3_dotdotdot");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), C("setup", 3)}), "");
}

TEST(ValgrindSuppressionsTest, E13s4ObjAndFunWildcards) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s4.supp",
                 Entry("s4_obj_star",
                       "   Memcheck:Leak\n   obj:*/vgpreload_memcheck-*.so\n   fun:mk_*\n")),
            "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "s4_obj_star");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "");
  Stack elsewhere = MkNode();
  elsewhere[0].module = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, elsewhere), "");
}

TEST(ValgrindSuppressionsTest, E13s5TheAllocatorFrameIsFrameZero) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s5.supp", Entry("s5_no_malloc_frame", "   Memcheck:Leak\n   fun:mk_node\n")),
            "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "");
  EXPECT_EQ(Matched(s, LeakKind::kIndirect, MkNode()), "");
}

TEST(ValgrindSuppressionsTest, E13s6QueryWildcard) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s6.supp",
                 Entry("s6_query", "   Memcheck:Leak\n   fun:mallo?\n   fun:other_lea?\n")),
            "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "s6_query");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "");
}

TEST(ValgrindSuppressionsTest, E13s7DotDotDotAtTheStart) {
  Suppressions s;
  ASSERT_EQ(
      Load(&s, "s7.supp", Entry("s7_leading_dots", "   Memcheck:Leak\n   ...\n   fun:setup\n")),
      "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "s7_leading_dots");
  EXPECT_EQ(Matched(s, LeakKind::kIndirect, MkNode()), "s7_leading_dots");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "s7_leading_dots");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), C("main", 1)}), "");
}

TEST(ValgrindSuppressionsTest, E13s10SrcAfterAFunLine) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s10.supp",
                 Entry("s10_src", "   Memcheck:Leak\n   fun:malloc\n   src:e13_supp.c:8\n")),
            "");
  const FramePattern& src = s.entries()[0].frames[1];
  EXPECT_EQ(src.type, FramePattern::Type::kSrc);
  EXPECT_EQ(src.pattern, "e13_supp.c");
  EXPECT_EQ(src.line, 8u);
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "s10_src");
  EXPECT_EQ(Matched(s, LeakKind::kIndirect, MkNode()), "s10_src");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "");  // line 9
}

TEST(ValgrindSuppressionsTest, E13s11SrcRightAfterTheKindLineIsFatal) {
  Suppressions s;
  EXPECT_EQ(Load(&s, "s11.supp",
                 Entry("s11_src_first",
                       "   Memcheck:Leak\n   src:vg_replace_malloc.c\n   src:e13_supp.c:8\n")),
            "s11.supp:4: expected \"match-leak-kinds:\" or a \"fun:\", \"obj:\" or \"...\" line "
            "after \"Memcheck:Leak\", got \"src:vg_replace_malloc.c\" (valgrind takes no \"src:\" "
            "line here: put a \"fun:\" or \"obj:\" line first)");
  EXPECT_EQ(s.size(), 0u);
}

TEST(ValgrindSuppressionsTest, E13s12ReachableOnlyNewArray) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s12.supp",
                 Entry("s12_newarray_block",
                       "   Memcheck:Leak\n   match-leak-kinds: reachable\n   fun:_Znam\n"
                       "   fun:_ZL5setupv\n")),
            "");
  const Stack stack = {{.function = "operator new[](unsigned long)", .linkage = "_Znam"},
                       {.function = "setup()", .linkage = "_ZL5setupv"}};
  EXPECT_EQ(Matched(s, LeakKind::kReachable, stack), "s12_newarray_block");
  EXPECT_EQ(Matched(s, LeakKind::kPossible, stack), "");
}

// E13b: valgrind compares mangled names: s9 suppressed the block, s8 did not.
constexpr char kS8Demangled[] =
    "{\n   s8_demangled\n   Memcheck:Leak\n   fun:operator new(unsigned long)\n"
    "   fun:leaker()\n}\n";
constexpr char kS9Mangled[] =
    "{\n   s9_mangled\n   Memcheck:Leak\n   fun:_Znwm\n   fun:_ZL6leakerv\n}\n";

TEST(ValgrindSuppressionsTest, E13bMangledPatternsMatchWithOrWithoutLinkageNames) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "s9.supp", kS9Mangled), "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, Leaker(/*with_linkage=*/true)), "s9_mangled");
  // Without linkage names, the patterns demangle to the frames' names.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, Leaker(/*with_linkage=*/false)), "s9_mangled");
  Stack other = Leaker(false);
  other[1].function = "leaker(int)";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, other), "");
}

TEST(ValgrindSuppressionsTest, E13bDemangledPatternsMatchUnlessStrict) {
  Suppressions friendly;
  ASSERT_EQ(Load(&friendly, "s8.supp", kS8Demangled), "");
  EXPECT_TRUE(friendly.entries()[0].frames[0].extended);
  EXPECT_EQ(Matched(friendly, LeakKind::kDefinite, Leaker(true)), "s8_demangled");
  EXPECT_EQ(Matched(friendly, LeakKind::kDefinite, Leaker(false)), "s8_demangled");

  // Valgrind 3.19's own behaviour: no match when linkage names are known.
  Suppressions strict({.strict = true});
  ASSERT_EQ(Load(&strict, "s8.supp", kS8Demangled), "");
  EXPECT_EQ(Matched(strict, LeakKind::kDefinite, Leaker(true)), "");
  // Without linkage names there is nothing else to compare with.
  EXPECT_EQ(Matched(strict, LeakKind::kDefinite, Leaker(false)), "s8_demangled");
}

// --- Frame and name matching ------------------------------------------------------

TEST(ValgrindSuppressionsTest, NamesMatchWholeWithStarAndQuery) {
  // m_seqmatch.c's own table, through obj: (frame 0's module).
  struct Case {
    const char* pattern;
    const char* name;
    bool match;
  };
  for (const Case& c : std::vector<Case>{{"a", "b", false},          {"a", "a", true},
                                         {"a", "aa", false},         {"*", "abc", true},
                                         {"*a", "abc", false},       {"*b", "abc", false},
                                         {"*bc", "abc", true},       {"a*b", "abc", false},
                                         {"a*c", "abc", true},       {"*c", "abc", true},
                                         {"c*c", "abc", false},      {"abc*", "abc", true},
                                         {"abc**", "abc", true},     {"**abc", "abc", true},
                                         {"**a*b*c**", "abc", true}, {"**a*b*d**", "abc", false},
                                         {"a?b", "abc", false},      {"a?c", "abc", true},
                                         {"?", "a", true},           {"?", "ab", false},
                                         {"abcd", "abc", false},     {"ab", "abc", false},
                                         {"a*b*c", "aXbYbZc", true}, {"*ab", "aab", true}}) {
    Suppressions s;
    ASSERT_EQ(Load(&s, "glob.supp",
                   Entry("glob", std::string("   Memcheck:Leak\n   obj:") + c.pattern + "\n")),
              "");
    LeakFrame frame = {.function = "f", .module = c.name};
    EXPECT_EQ(s.Match(LeakKind::kDefinite, Stack{frame}) != nullptr, c.match)
        << c.pattern << " vs " << c.name;
  }
}

TEST(ValgrindSuppressionsTest, PatternIsAPrefixOfTheStack) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "prefix.supp",
                 Entry("long",
                       "   Memcheck:Leak\n   fun:malloc\n   fun:mk_node\n   fun:setup\n"
                       "   fun:main\n   fun:__libc_start_call_main\n")),
            "");
  // Longer than the stack: no match, even though every frame agrees.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "");
  Stack deeper = MkNode();
  deeper.push_back({.function = "__libc_start_call_main", .linkage = "__libc_start_call_main"});
  deeper.push_back({.function = "__libc_start_main_impl", .linkage = "__libc_start_main_impl"});
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, deeper), "long");  // trailing frames ignored
}

TEST(ValgrindSuppressionsTest, DotDotDotAnywhere) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "dots.supp",
                 Entry("end", "   Memcheck:Leak\n   fun:malloc\n   fun:other_leak\n   ...\n") +
                     Entry("twice",
                           "   Memcheck:Leak\n   ...\n   fun:mk_node\n   ...\n"
                           "   fun:main\n")),
            "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "end");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), C("other_leak", 9)}), "end");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "twice");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), C("mk_node", 8), C("setup", 13)}), "");
}

TEST(ValgrindSuppressionsTest, FirstMatchInReadingOrderAcrossFiles) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "a.supp",
                 Entry("narrow", "   Memcheck:Leak\n   fun:malloc\n   fun:mk_node\n") +
                     Entry("broad", "   Memcheck:Leak\n   fun:malloc\n")),
            "");
  ASSERT_EQ(Load(&s, "b.supp", Entry("later", "   Memcheck:Leak\n   fun:*\n")), "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "narrow");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "broad");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {{.function = "g", .linkage = "g"}}), "later");
  EXPECT_EQ(s.entries()[2].file, ::testing::TempDir() + "/b.supp");
}

TEST(ValgrindSuppressionsTest, FunPatternsAgainstLinkageAndDemangledNames) {
  Suppressions s;
  ASSERT_EQ(
      Load(&s, "fun.supp",
           Entry("mangled_star", "   Memcheck:Leak\n   fun:malloc\n   fun:*allocator*\n") +
               Entry("demangled_star",
                     "   Memcheck:Leak\n   fun:malloc\n   fun:std::vector<*>::push_back*\n") +
               Entry("template", "   Memcheck:Leak\n   fun:malloc\n   fun:_Z3maxIiET_S0_S0_\n") +
               Entry("unknown", "   Memcheck:Leak\n   fun:malloc\n   fun:???\n")),
      "");
  // The mangled name has "SaIiE", not "allocator": a mangled-form wildcard is
  // not tried on the demangled name.
  const LeakFrame push_back = {
      .function = "std::vector<int, std::allocator<int> >::push_back(int const&)",
      .linkage = "_ZNSt6vectorIiSaIiEE9push_backERKi"};
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), push_back}), "demangled_star");
  // An inlined frame: DWARF's qualified name, no linkage name.
  EXPECT_EQ(
      Matched(s, LeakKind::kDefinite, {Malloc(), {.function = "std::vector<int>::push_back"}}),
      "demangled_star");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), {.function = "my_allocator_init"}}),
            "mangled_star");
  // A template's demangled name has its return type, as __cxa_demangle
  // (which the symbolizer uses too) writes it.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), {.function = "int max<int>(int, int)"}}),
            "template");
  // An unknown function is "???" to valgrind.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {Malloc(), {.module = kExe}}), "unknown");
}

// Valgrind compares a src: pattern with the file's name alone (tried with
// valgrind 3.19 here: src:e13_supp.c:8 matched whether the unit was compiled
// as sub/e13_supp.c or /tmp/vgx/sub/e13_supp.c; src:sub/e13_supp.c:8 and
// the absolute path matched neither).
TEST(ValgrindSuppressionsTest, SrcMatchesTheFileName) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "src.supp",
                 Entry("name", "   Memcheck:Leak\n   fun:malloc\n   src:e13_*.c:9\n") +
                     Entry("dir_star", "   Memcheck:Leak\n   fun:malloc\n   src:exp*\n")),
            "");
  EXPECT_FALSE(s.entries()[0].frames[1].extended);
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "name");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "");  // line 8
  Stack bare = OtherLeak();
  bare[1].file = "e13_supp.c";  // no directory at all
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, bare), "name");
  bare[1].file = "";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, bare), "");
  // "exp*" would match the tail "experiments/e13_supp.c", but a pattern
  // without '/' sees the name only, as in valgrind.
  Stack experiments = MkNode();
  experiments[1].file = "/work/notes/experiments/x.c";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, experiments), "");
}

TEST(ValgrindSuppressionsTest, SrcWithASlashMatchesPathTailsUnlessStrict) {
  const std::string text =
      Entry("relative", "   Memcheck:Leak\n   fun:malloc\n   src:experiments/e13_supp.c:8\n") +
      Entry("absolute", "   Memcheck:Leak\n   fun:malloc\n   src:/work/*/e13_*.c:9\n");
  Suppressions s;
  ASSERT_EQ(Load(&s, "src_path.supp", text), "");
  EXPECT_TRUE(s.entries()[0].frames[1].extended);
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "relative");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, OtherLeak()), "absolute");
  Stack moved = MkNode();
  moved[1].file = "/elsewhere/e13_supp.c";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, moved), "");
  moved[1].file = "/work/notes/myexperiments/e13_supp.c";  // not after a '/'
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, moved), "");

  Suppressions strict({.strict = true});
  ASSERT_EQ(Load(&strict, "src_path.supp", text), "");
  EXPECT_EQ(Matched(strict, LeakKind::kDefinite, MkNode()), "");
  EXPECT_EQ(Matched(strict, LeakKind::kDefinite, OtherLeak()), "");
}

TEST(ValgrindSuppressionsTest, FrameLinesPastNumCallersAreIgnoredUnread) {
  std::string body = "   Memcheck:Leak\n   fun:malloc\n";
  for (int i = 0; i < 11; ++i) body += "   fun:mk_node\n";
  body += "   this line is never read\n";  // the 13th
  Suppressions s;                          // --num-callers=12, valgrind's default
  ASSERT_EQ(Load(&s, "callers.supp", Entry("deep", body)), "");
  EXPECT_EQ(s.entries()[0].frames.size(), 12u);
  Suppressions deeper({.num_callers = 20});
  EXPECT_EQ(Load(&deeper, "callers.supp", Entry("deep", body)),
            "callers.supp:16: expected \"fun:\", \"obj:\", \"src:\", \"...\" or \"}\", got \"this "
            "line is never read\"");
}

// --- Which entries count ------------------------------------------------------------

TEST(ValgrindSuppressionsTest, KeepsLeakEntriesOnlyAndChecksOtherMemcheckKinds) {
  Suppressions s;
  ASSERT_EQ(
      Load(&s, "mixed.supp",
           "# a comment\n\n" + Entry("cond", "   Memcheck:Cond\n   fun:_dl_runtime_resolve\n") +
               Entry("addr8", "Memcheck:Addr8\n   obj:/lib/ld.so\n   ...\n") +
               Entry("param", "Memcheck:Param\n   write(buf)\n   fun:write\n") +
               Entry("fishy", "Memcheck:FishyValue\n   malloc(size)\n   fun:malloc\n") +
               Entry("race", "Helgrind:Race\n   anything at all {\n   no:checks\n") +
               Entry("both", "Memcheck,Helgrind:Leak\n   fun:malloc\n") +
               Entry("drd", "drd:ConflictingAccess\n   fun:x\n") +
               "  {\n  leak2\n  Memcheck:Leak\n  match-leak-kinds:possible\n  obj:*\n  }\n"),
      "");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.entries()[0].name, "both");
  EXPECT_EQ(s.entries()[1].name, "leak2");
  EXPECT_EQ(s.entries()[1].kinds.ToString(), "possible");
  EXPECT_EQ(s.entries()[1].line, 43u);
}

TEST(ValgrindSuppressionsTest, ReadsValgrindsDefaultSuppressions) {
  const std::string path = "/usr/libexec/valgrind/default.supp";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "valgrind is not installed";
  Suppressions s;
  std::string error;
  ASSERT_TRUE(s.AddFile(path, &error)) << error;
  ASSERT_EQ(s.size(), 3u);  // spec section 9: exactly 3 Memcheck:Leak entries
  EXPECT_EQ(s.entries()[0].name, "dtv-addr-tail");
  EXPECT_EQ(s.entries()[1].name, "dtv-addr-resize");
  EXPECT_EQ(s.entries()[2].name, "dtv-addr-init");
  for (const Suppression& e : s.entries()) EXPECT_EQ(e.kinds.ToString(), "possible,reachable");
  const Stack tls = {Malloc(),
                     {.function = "tls_get_addr_tail", .linkage = "tls_get_addr_tail"},
                     {.function = "__tls_get_addr", .linkage = "__tls_get_addr"},
                     {.function = "main", .linkage = "main"}};
  EXPECT_EQ(Matched(s, LeakKind::kPossible, tls), "dtv-addr-tail");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, tls), "");
}

// --- Errors ---------------------------------------------------------------------------

TEST(ValgrindSuppressionsTest, ErrorsNameTheFileAndLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"{\n  open\n  Memcheck:Leak\n  fun:malloc\n",
            "bad.supp:4: unexpected end of the file in suppression \"open\": missing \"}\""},
           {"{\n  x\n  Memcheck:Leak\n  fun:malloc\n}\n{\n  y\n  Helgrind:Race\n  fun:f\n",
            "bad.supp:9: unexpected end of the file in a suppression for another tool: missing "
            "\"}\""},
           {"{\n  nokind\n}\n",
            "bad.supp:3: expected \"Memcheck:Leak\" or another tool:kind line, got \"}\""},
           {"{\n  nokind\n  fun:malloc\n}\n",
            "bad.supp:3: missing the tool:kind line (e.g. \"Memcheck:Leak\") before the frame "
            "lines"},
           {"{\n}\n", "bad.supp:2: expected a suppression name after \"{\", got \"}\""},
           {"{\n  empty\n  Memcheck:Leak\n}\n",
            "bad.supp:4: suppression \"empty\" has no frame lines"},
           {"{\n  empty\n  Memcheck:Cond\n}\n",
            "bad.supp:4: suppression \"empty\" has no frame lines"},
           {"{\n  dots\n  Memcheck:Leak\n  ...\n  ...\n}\n",
            "bad.supp:6: suppression \"dots\" needs a frame line other than \"...\""},
           {"{\n  x\n  Memcheck:Leak\n  fun:malloc\n  func:f\n}\n",
            "bad.supp:5: expected \"fun:\", \"obj:\", \"src:\", \"...\" or \"}\", got \"func:f\""},
           {"{\n  x\n  Memcheck:Leak\n  match-leak-kinds: all,definite\n  fun:malloc\n}\n",
            "bad.supp:4: bad match-leak-kinds: \"all\" and \"none\" stand alone: they cannot be "
            "combined with each other or with leak kinds"},
           {"{\n  x\n  Memcheck:Leak\n  fun:malloc\n  match-leak-kinds: all\n}\n",
            "bad.supp:5: expected \"fun:\", \"obj:\", \"src:\", \"...\" or \"}\", got "
            "\"match-leak-kinds: all\""},
           {"{\n  x\n  Memcheck:Leek\n  fun:malloc\n}\n",
            "bad.supp:3: unknown Memcheck suppression kind \"Leek\""},
           {"{\n  x\n  core:Leak\n  fun:malloc\n}\n",
            "bad.supp:3: unknown core suppression kind \"Leak\""},
           {"{\n  x\n  Memcheck:Param\n  fun:write\n}\n",
            "bad.supp:4: expected a system call parameter line (e.g. \"write(buf)\") after "
            "\"Memcheck:Param\", got \"fun:write\""},
           {"{\n  x\n  Memcheck:Leak\n  fun:malloc\n}\n}\n",
            "bad.supp:6: expected \"{\" or the end of the file, got \"}\""},
           {"name\n{\n",
            "bad.supp:1: expected \"{\" (valgrind format) or \"leak:PATTERN\" "
            "(LeakSanitizer format), got \"name\""},
       }) {
    Suppressions s;
    EXPECT_EQ(Load(&s, "bad.supp", c.text), c.error) << c.text;
    EXPECT_EQ(s.size(), 0u) << "a file with an error adds nothing";
  }
}

TEST(SuppressionsTest, UnreadableFiles) {
  Suppressions s;
  std::string error;
  const std::string missing = ::testing::TempDir() + "/no/such.supp";
  EXPECT_FALSE(s.AddFile(missing, &error));
  EXPECT_EQ(error, missing + ": cannot open: No such file or directory");
  EXPECT_FALSE(s.AddFile(::testing::TempDir(), &error));
  EXPECT_EQ(error, ::testing::TempDir() + ": is a directory, not a suppression file");
  EXPECT_TRUE(s.AddFile(WriteFile("empty.supp", ""), &error));
  EXPECT_TRUE(s.AddFile(WriteFile("comments.supp", "# nothing\n\n   # here\n"), &error));
  EXPECT_EQ(s.size(), 0u);
}

// --- LeakSanitizer --------------------------------------------------------------------

TEST(LeakSanitizerSuppressionsTest, ParsesLeakLinesAndComments) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "lsan.supp",
                 "leak:mk_node\n# comment\n\n   leak:^setup$   \r\n\t# indented comment\n"
                 "leak:libfoo.so\n"),
            "");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.entries()[0].format, SuppressionFormat::kLeakSanitizer);
  EXPECT_EQ(s.entries()[1].name, "^setup$");
  EXPECT_EQ(s.entries()[1].line, 4u);
  EXPECT_EQ(s.entries()[2].line, 6u);
  EXPECT_EQ(s.entries()[2].kinds, LeakKindSet::All());
  EXPECT_EQ(Load(&s, "lsan_bad.supp", "leak:a\ninterceptor_via_fun:b\n"),
            "lsan_bad.supp:2: expected \"leak:PATTERN\", got \"interceptor_via_fun:b\" (a "
            "LeakSanitizer file has only leak: lines)");
  EXPECT_EQ(s.size(), 3u);
}

// The first of `lines` (one LSan file) that suppresses a definite leak at
// `stack`, or "".
std::string LsanMatch(const std::string& lines, const Stack& stack) {
  Suppressions s;
  const std::string error = Load(&s, "match.supp", lines);
  EXPECT_EQ(error, "");
  return Matched(s, LeakKind::kDefinite, stack);
}

TEST(LeakSanitizerSuppressionsTest, TemplateMatchSubstringsAnchorsAndStars) {
  const Stack stack = {{.function = "operator new(unsigned long)", .module = "/lib/libasan.so.8"},
                       {.function = "foo::bar(int)",
                        .file = "/src/proj/foo.cc",
                        .line = 12,
                        .module = "/usr/lib/libfoo.so.1"},
                       {.function = "main", .file = "/src/proj/main.cc", .module = "/bin/app"}};
  EXPECT_EQ(LsanMatch("leak:bar\n", stack), "bar");        // substring of a function
  EXPECT_EQ(LsanMatch("leak:^foo::\n", stack), "^foo::");  // start anchor
  EXPECT_EQ(LsanMatch("leak:^bar\n", stack), "");          // not at the start
  EXPECT_EQ(LsanMatch("leak:(int)$\n", stack), "(int)$");  // end anchor
  EXPECT_EQ(LsanMatch("leak:foo::$\n", stack), "");        // not at the end
  EXPECT_EQ(LsanMatch("leak:^main$\n", stack), "^main$");  // whole name
  EXPECT_EQ(LsanMatch("leak:^mai$\n", stack), "");
  EXPECT_EQ(LsanMatch("leak:foo*int\n", stack), "foo*int");            // star
  EXPECT_EQ(LsanMatch("leak:int*foo\n", stack), "");                   // runs in order
  EXPECT_EQ(LsanMatch("leak:^foo*$\n", stack), "^foo*$");              // star then end
  EXPECT_EQ(LsanMatch("leak:libfoo.so\n", stack), "libfoo.so");        // module
  EXPECT_EQ(LsanMatch("leak:proj/main.cc\n", stack), "proj/main.cc");  // file
  EXPECT_EQ(LsanMatch("leak:zzz\n", stack), "");
  // TemplateMatch's '$' looks only after the leftmost occurrence.
  EXPECT_EQ(LsanMatch("leak:o$\n", {{.function = "foo"}}), "");
  EXPECT_EQ(LsanMatch("leak:*o$\n", {{.function = "foo"}}), "");
  EXPECT_EQ(LsanMatch("leak:*oo$\n", {{.function = "foo"}}), "*oo$");
  // An unknown module is "<unknown module>"; an empty name never matches,
  // not even "$" (what is left of "" after "$" would be empty).
  EXPECT_EQ(LsanMatch("leak:unknown\n", {{.function = ""}}), "unknown");
  EXPECT_EQ(LsanMatch("leak:$\n", {{.function = "", .module = "/a"}}), "");
  EXPECT_EQ(LsanMatch("leak:^/a$\n", {{.function = "", .module = "/a"}}), "^/a$");
  // An empty pattern matches every name that is not empty, as in LSan, and
  // so every stack (the module is never empty).
  Suppressions s;
  ASSERT_EQ(Load(&s, "empty_pattern.supp", "leak:\n"), "");
  EXPECT_NE(s.Match(LeakKind::kDefinite, Stack{LeakFrame{}}), nullptr);
  EXPECT_EQ(s.Match(LeakKind::kDefinite, Stack{}), nullptr);
}

TEST(LeakSanitizerSuppressionsTest, InnermostFrameDecidesAndEveryKindIsSuppressed) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "order.supp", "leak:main\nleak:setup\nleak:bin/e13_supp\n"), "");
  // setup (frame 2) is inner to main (frame 3); the module ".../bin/e13_supp"
  // of frame 1 is innermost of all.
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "bin/e13_supp");
  Stack stack = MkNode();
  for (LeakFrame& f : stack) f.module = "/bin/app";
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, stack), "setup");
  for (LeakKind kind :
       {LeakKind::kDefinite, LeakKind::kIndirect, LeakKind::kPossible, LeakKind::kReachable}) {
    EXPECT_EQ(Matched(s, kind, stack), "setup");
  }
}

TEST(SuppressionsTest, ValgrindEntriesComeBeforeLsanEntries) {
  Suppressions s;
  ASSERT_EQ(Load(&s, "first.supp", "leak:mk_node\n"), "");
  ASSERT_EQ(Load(&s, "second.supp", Entry("vg", "   Memcheck:Leak\n   fun:malloc\n")), "");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, MkNode()), "vg");
  EXPECT_EQ(Matched(s, LeakKind::kDefinite, {C("mk_node", 8)}), "mk_node");
}

}  // namespace
}  // namespace heaprec::analyzers
