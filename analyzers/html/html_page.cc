// The report file (html_page.h).
#include "analyzers/html/html_page.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "analyzers/html/report_shell.h"

namespace heaprec::analyzers::html {
namespace {

// gzip (RFC 1952) of `text`, by zlib; "" if zlib fails.
std::string Gzip(const std::string& text) {
  z_stream z{};
  // 15 bits of window, +16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return "";
  }
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  // deflateBound leaves room: one call ends the stream.
  const bool done = deflate(&z, Z_FINISH) == Z_STREAM_END;
  out.resize(z.total_out);
  deflateEnd(&z);
  return done ? out : "";
}

std::string Base64(const std::string& bytes) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) {
      v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0);
    }
    for (size_t k = 0; k < 4; ++k) out += k <= n ? kDigits[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

}  // namespace

std::string ScriptSafeJson(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";  // '<' occurs only inside strings in JSON
    } else {
      out += c;
    }
  }
  return out;
}

std::string DataElementText(const nlohmann::json& data, size_t compress_above) {
  std::string text = ScriptSafeJson(data);
  if (text.size() <= compress_above) return text;
  const std::string gz = Gzip(text);
  return gz.empty() ? text : Base64(gz);  // the page reads either
}

std::string HtmlPage(const nlohmann::json& data) {
  static const std::string kMark = "/*@HEAPREC_DATA@*/";
  std::string page(kReportShell, kReportShellSize);
  const size_t at = page.find(kMark);
  page.replace(at, kMark.size(), DataElementText(data));
  return page;
}

}  // namespace heaprec::analyzers::html
