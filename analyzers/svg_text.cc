// XmlEscape, FitLabel (svg_text.h).
#include "analyzers/svg_text.h"

#include <cstdint>

namespace heaprec::analyzers {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at text[i] (1 to 4), or 0.
size_t SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

// U+FFFE and U+FFFF are not XML characters.
bool IsNonCharacter(std::string_view seq) { return seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF"; }

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = SequenceLength(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (length > 1) {
      const std::string_view seq = text.substr(i, length);
      if (IsNonCharacter(seq)) {
        out += kReplacement;
      } else {
        out += seq;
      }
      i += length;
      continue;
    }
    const char c = text[i++];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += c;
        break;
      default:
        if (static_cast<uint8_t>(c) < 0x20) {
          out += kReplacement;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string FitLabel(std::string_view text, size_t max_chars) {
  if (max_chars < 3) return "";
  // Byte offset where the (max_chars - 2)th character ends, and the count.
  size_t chars = 0, cut = 0, i = 0;
  while (i < text.size()) {
    const size_t length = SequenceLength(text, i);
    i += length == 0 ? 1 : length;  // a stray byte counts as one character
    ++chars;
    if (chars == max_chars - 2) cut = i;
    if (chars > max_chars) return std::string(text.substr(0, cut)) + "..";
  }
  return std::string(text);
}

}  // namespace heaprec::analyzers
