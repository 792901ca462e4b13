// AllocFunctions: the names people and the demanglers write reduce to one,
// the built-in wrappers are in, --alloc-fn lists add to them, and ViaIndex
// picks the first frame outside.
#include "analyzers/alloc_functions.h"

#include <gtest/gtest.h>

#include "analyzers/symbol_table.h"

namespace heaprec::analyzers {
namespace {

TEST(AllocFunctionsTest, CanonicalDropsTemplatesParametersAndTags) {
  EXPECT_EQ(AllocFunctions::Canonical(
                "std::vector<int, std::allocator<int> >::_M_allocate(unsigned long) const"),
            "std::vector::_M_allocate");
  EXPECT_EQ(AllocFunctions::Canonical("operator new[](unsigned long, std::nothrow_t const&)"),
            "operator new[]");
  EXPECT_EQ(AllocFunctions::Canonical("operator<<(std::ostream&, int)"), "operator<<");
  EXPECT_EQ(AllocFunctions::Canonical("Widget::operator()(int)"), "Widget::operator()");
  EXPECT_EQ(
      AllocFunctions::Canonical(
          "std::__cxx11::basic_string<char>::_M_create[abi:cxx11](unsigned long&, unsigned long)"),
      "std::__cxx11::basic_string::_M_create");
  EXPECT_EQ(AllocFunctions::Canonical("my_xmalloc"), "my_xmalloc");
}

TEST(AllocFunctionsTest, BuiltInListHoldsTheRuntimesWrappers) {
  const AllocFunctions a;
  EXPECT_TRUE(a.Contains("malloc"));
  EXPECT_TRUE(a.Contains("operator new(unsigned long)"));
  EXPECT_TRUE(a.Contains("__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*)"));
  EXPECT_TRUE(a.Contains("std::_Vector_base<int, std::allocator<int> >::_M_allocate"));
  EXPECT_FALSE(a.Contains("my_xmalloc"));
  EXPECT_FALSE(a.Contains("??"));
  EXPECT_FALSE(a.Contains("std::vector<int, std::allocator<int> >::push_back(int const&)"));
}

TEST(AllocFunctionsTest, AddListAddsEachNameAndRejectsEmptyOnes) {
  AllocFunctions a;
  std::string error;
  ASSERT_TRUE(a.AddList("my_xmalloc,ns::Pool<int>::Get", &error)) << error;
  EXPECT_TRUE(a.Contains("my_xmalloc"));
  EXPECT_TRUE(a.Contains("ns::Pool<char>::Get(unsigned long)"));
  EXPECT_FALSE(a.AddList("xmalloc,,g_malloc", &error));
  EXPECT_NE(error.find("empty function name"), std::string::npos) << error;
}

TEST(AllocFunctionsTest, ViaIndexIsTheFirstFrameOutside) {
  std::vector<Frame> frames(3);
  EXPECT_EQ(ViaIndex(frames), 0u);
  frames[0].allocator = true;
  EXPECT_EQ(ViaIndex(frames), 1u);
  frames[1].allocator = true;
  EXPECT_EQ(ViaIndex(frames), 2u);
  frames[2].allocator = true;
  EXPECT_EQ(ViaIndex(frames), 0u);  // every frame inside: the innermost
  EXPECT_EQ(ViaIndex(std::vector<Frame>{}), 0u);
  // The same rule for frames as the table keeps them (pointers).
  const std::vector<const Frame*> kept = {&frames[0], &frames[1], &frames[2]};
  EXPECT_EQ(ViaIndex(kept), 0u);
  frames[1].allocator = false;
  EXPECT_EQ(ViaIndex(kept), 1u);
  EXPECT_EQ(ViaIndex(std::vector<const Frame*>{}), 0u);
}

}  // namespace
}  // namespace heaprec::analyzers
