// JsonText (json_text.h): nlohmann::json's dump(2), written in pieces.
#include "analyzers/json_text.h"

namespace heaprec::analyzers {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

// The length of the valid UTF-8 sequence at s[i] (a byte >= 0x80), or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[k]); };
  const unsigned c = at(i);
  size_t n;
  unsigned low = 0x80, high = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || at(i + 1) < low || at(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

nlohmann::json JsonText::Later(size_t n) { return nlohmann::json::binary({}, n); }

void JsonText::Line(int indent) {
  if (file_ != nullptr && text_.size() >= kFlushBytes) Flush();
  text_.push_back('\n');
  text_.append(static_cast<size_t>(indent), ' ');
}

void JsonText::Key(int indent, std::string_view key) {
  Line(indent);
  String(key);
  text_.append(": ");
}

void JsonText::Array(size_t n, int indent,
                     const std::function<void(size_t i, int indent)>& element) {
  if (n == 0) {
    text_.append("[]");
    return;
  }
  text_.push_back('[');
  for (size_t i = 0; i < n; ++i) {
    if (i != 0) text_.push_back(',');
    Line(indent + 2);
    element(i, indent + 2);
  }
  Line(indent);
  text_.push_back(']');
}

void JsonText::Value(const nlohmann::json& v, int indent, const Fills& fills) {
  using Type = nlohmann::json::value_t;
  switch (v.type()) {
    case Type::object: {
      if (v.empty()) {
        text_.append("{}");
        return;
      }
      text_.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) text_.push_back(',');
        first = false;
        Key(indent + 2, it.key());
        Value(it.value(), indent + 2, fills);
      }
      Line(indent);
      text_.push_back('}');
      return;
    }
    case Type::array:
      Array(v.size(), indent, [&](size_t i, int in) { Value(v[i], in, fills); });
      return;
    case Type::string:
      String(v.get_ref<const std::string&>());
      return;
    case Type::binary:
      fills.at(v.get_binary().subtype())(*this, indent);
      return;
    default:  // numbers, booleans, null: as dump writes them
      text_.append(v.dump());
      return;
  }
}

void JsonText::String(std::string_view s) {
  text_.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size()) {
      const unsigned char c = s[j];
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++j;
    }
    text_.append(s.data() + i, j - i);
    if (j == s.size()) break;
    const unsigned char c = s[j];
    i = j + 1;
    switch (c) {
      case '"':
        text_.append("\\\"");
        break;
      case '\\':
        text_.append("\\\\");
        break;
      case '\b':
        text_.append("\\b");
        break;
      case '\f':
        text_.append("\\f");
        break;
      case '\n':
        text_.append("\\n");
        break;
      case '\r':
        text_.append("\\r");
        break;
      case '\t':
        text_.append("\\t");
        break;
      default:
        if (c < 0x20) {
          char u[8];
          std::snprintf(u, sizeof u, "\\u%04x", c);
          text_.append(u);
        } else if (const size_t n = Utf8Length(s, j); n != 0) {
          text_.append(s.data() + j, n);
          i = j + n;
        } else {
          text_.append("\xEF\xBF\xBD");  // U+FFFD
        }
    }
  }
  text_.push_back('"');
}

void JsonText::Flush() {
  if (file_ == nullptr || text_.empty()) return;
  std::fwrite(text_.data(), 1, text_.size(), file_);
  text_.clear();
}

}  // namespace heaprec::analyzers
