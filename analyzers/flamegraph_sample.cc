// Writes a flame graph whose names try hard to break XML (templates,
// operators, quotes, control characters, bytes that are not UTF-8, an
// inlined chain) to stdout, for flamegraph_xml_test to hand to xmllint and
// for people to open in a browser:
//   bazel run //analyzers:flamegraph_sample > /tmp/sample.svg
#include <cstdio>
#include <string>

#include "analyzers/flamegraph.h"
#include "analyzers/test_symbols.h"

int main() {
  using heaprec::analyzers::Site;
  heaprec::analyzers::TestSymbols s;
  s.AddModule(1, "/opt/app/bin/app<1>", 0x400000, 0x500000);
  s.AddSymbol(0x400010, 1, {{"main", "app.cc", 5}});
  s.AddSymbol(0x400020, 1, {{"std::map<K&, V>::operator[](K const&) \"x\" 'y'", "map.h", 9}});
  s.AddSymbol(0x400030, 1, {{"operator<<=(int)>; ]]> <!-- --> &amp;", "ops.cc", 1}});
  s.AddSymbol(0x400040, 1, {{std::string("ctl\x01\x1f\x7f bad\xff\xc3 utf8 caf\xc3\xa9", 23)}});
  s.AddSymbol(0x400050, 1,
              {{"inner<T>", "in.h", 3}, {"middle<&>", "mid.h", 4}, {"outer", "out.cc", 7}});
  const std::vector<Site> sites = {
      {s.Stack({0x400010, 0x400020}), 3 << 20, 3},
      {s.Stack({0x400010, 0x400020, 0x400030}), 1 << 20, 1},
      {s.Stack({0x400010, 0x400040}), 512 << 10, 2},
      {s.Stack({0x400010, 0x400050}), 2 << 20, 4},
      {s.Stack({0x400010, 0x400060}), 100 << 10, 5},  // unknown function in app<1>
      {s.Stack({0x9999}), 40 << 10, 1},               // no module at all
      {0, 64 << 10, 6},
  };
  heaprec::analyzers::FlameGraphOptions options;
  options.title = "Sample <flame> & graph";
  options.subtitle = "names that try to break XML";
  const std::string svg =
      FlameGraphSvg(sites, heaprec::analyzers::Metric::kBytes, s.table(), options);
  std::fwrite(svg.data(), 1, svg.size(), stdout);
  return 0;
}
