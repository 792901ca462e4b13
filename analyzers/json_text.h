// JsonText: writes a nlohmann::json value as text, byte for byte what
// value.dump(2) writes, but in pieces: to a string, or to a FILE each time
// 1 MiB has gathered, so that a large report never exists whole in memory,
// neither as a tree of values nor as one string.
//
// A value may hold placeholders, Later(n), that the writer fills by calling
// fills[n] where the placeholder stands: the long lists of a report (sites
// and their stacks) are written one element at a time, each element built
// as a small value, written and dropped.
//
// Strings are written as dump(2) writes valid UTF-8 (ensure_ascii off); a
// byte that is not valid UTF-8 becomes U+FFFD, where dump would throw.
// Allocates; not thread-safe.
#ifndef HEAPREC_ANALYZERS_JSON_TEXT_H_
#define HEAPREC_ANALYZERS_JSON_TEXT_H_

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace heaprec::analyzers {

class JsonText {
 public:
  // Writes a value that starts on a line indented by `indent` spaces.
  using Fill = std::function<void(JsonText& out, int indent)>;
  using Fills = std::vector<Fill>;

  // file: where the text goes (nullptr: it stays in text()).
  explicit JsonText(std::FILE* file = nullptr) : file_(file) {}
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;
  ~JsonText() { Flush(); }

  // A placeholder for fills[n] (a binary value: a report holds none).
  static nlohmann::json Later(size_t n);

  void Value(const nlohmann::json& v, int indent, const Fills& fills = {});
  void String(std::string_view s);  // quoted, escaped
  void Raw(std::string_view s) { text_.append(s); }
  // A new line indented by `indent` (where the text may go to the file).
  void Line(int indent);
  // A new line indented by `indent`, then "KEY": (a member of an object).
  void Key(int indent, std::string_view key);
  // "[", then element(i, indent + 2) for each of n elements on lines of
  // their own, then "]"; "[]" when n is 0.
  void Array(size_t n, int indent, const std::function<void(size_t i, int indent)>& element);

  // Writes what has gathered to the file (nothing without one).
  void Flush();
  // Without a file: everything written.
  const std::string& text() const { return text_; }

 private:
  std::FILE* file_;
  std::string text_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_JSON_TEXT_H_
