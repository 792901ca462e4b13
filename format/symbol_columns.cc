// Symbol columns, both directions (symbol_columns.h).
#include "format/symbol_columns.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "format/varint.h"
#include "format/varint_column.h"
#include "format/zigzag.h"

namespace heaprec::format {
namespace {

// One column's varints, or false with *error naming the column.
bool Column(const flatbuffers::Vector<uint8_t>* v, size_t count, const char* name, const char* per,
            std::vector<uint64_t>* out, std::string* error) {
  const bool ok = ReadVarintColumn(v, count, out);
  if (!ok) *error = std::string("symbols: column ") + name + " does not hold one varint a " + per;
  return ok;
}

// The count names of strings into *out, or false.
bool Strings(const flatbuffers::Vector<uint8_t>* v, size_t count, std::vector<std::string>* out,
             std::string* error) {
  const uint8_t* data = v == nullptr ? nullptr : v->data();
  const size_t size = v == nullptr ? 0 : v->size();
  out->clear();
  out->reserve(count < size ? count : size);
  size_t i = 0;
  for (size_t k = 0; k < count; ++k) {
    uint64_t length = 0;
    bool ended = false;
    for (int shift = 0; shift <= 63 && i < size; shift += 7) {
      const uint8_t b = data[i++];
      length |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        ended = true;
        break;
      }
    }
    if (!ended || length > size - i) {
      *error =
          "symbols: name " + std::to_string(k) + " of " + std::to_string(count) + " is cut short";
      return false;
    }
    out->emplace_back(reinterpret_cast<const char*>(data + i), static_cast<size_t>(length));
    i += static_cast<size_t>(length);
  }
  if (i != size) {
    *error = "symbols: bytes after the last name";
    return false;
  }
  return true;
}

}  // namespace

flatbuffers::Offset<fb::SymbolColumns> EncodeSymbolColumns(flatbuffers::FlatBufferBuilder& b,
                                                           const std::vector<Symbol>& symbols) {
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<uint8_t> strings, address, module, frames, function, file, line, column;
  auto name = [&](const std::string& s) {
    const auto [it, added] = index.emplace(s, static_cast<uint32_t>(index.size()));
    if (added) {
      PutVarint(&strings, s.size());
      strings.insert(strings.end(), s.begin(), s.end());
    }
    return it->second;
  };
  uint64_t prev = 0;
  uint32_t frame_count = 0;
  for (const Symbol& s : symbols) {
    PutVarint(&address, ZigzagDelta(prev, s.address));
    prev = s.address;
    PutVarint(&module, s.module);
    PutVarint(&frames, s.frames.size());
    frame_count += static_cast<uint32_t>(s.frames.size());
    for (const SourceFrame& f : s.frames) {
      PutVarint(&function, name(f.function));
      PutVarint(&file, name(f.file));
      PutVarint(&line, f.line);
      PutVarint(&column, f.column);
    }
  }
  const auto strings_v = b.CreateVector(strings);
  const auto address_v = b.CreateVector(address);
  const auto module_v = b.CreateVector(module);
  const auto frames_v = b.CreateVector(frames);
  const auto function_v = b.CreateVector(function);
  const auto file_v = b.CreateVector(file);
  const auto line_v = b.CreateVector(line);
  const auto column_v = b.CreateVector(column);
  return fb::CreateSymbolColumns(b, static_cast<uint32_t>(symbols.size()), frame_count,
                                 static_cast<uint32_t>(index.size()), strings_v, address_v,
                                 module_v, frames_v, function_v, file_v, line_v, column_v);
}

bool DecodeSymbolColumns(const fb::SymbolColumns& f, std::vector<Symbol>* out, std::string* error) {
  const size_t n = f.count(), nf = f.frame_count();
  std::vector<std::string> names;
  std::vector<uint64_t> address, module, frames, function, file, line, column;
  if (!Strings(f.strings(), f.string_count(), &names, error) ||
      !Column(f.address_v(), n, "address_v", "symbol", &address, error) ||
      !Column(f.module_v(), n, "module_v", "symbol", &module, error) ||
      !Column(f.frames_v(), n, "frames_v", "symbol", &frames, error) ||
      !Column(f.function_v(), nf, "function_v", "frame", &function, error) ||
      !Column(f.file_v(), nf, "file_v", "frame", &file, error) ||
      !Column(f.line_v(), nf, "line_v", "frame", &line, error) ||
      !Column(f.column_v(), nf, "column_v", "frame", &column, error)) {
    return false;
  }
  uint64_t total = 0;
  for (uint64_t c : frames) total += c <= nf ? c : nf + 1;  // no overflow
  if (total != nf) {
    *error =
        "symbols: frame counts add up to " + std::to_string(total) + ", not " + std::to_string(nf);
    return false;
  }
  for (size_t i = 0; i < nf; ++i) {
    if (function[i] >= names.size() || file[i] >= names.size()) {
      *error = "symbols: frame " + std::to_string(i) + " names string " +
               std::to_string(function[i] >= names.size() ? function[i] : file[i]) + " of " +
               std::to_string(names.size());
      return false;
    }
    if (line[i] > UINT32_MAX || column[i] > UINT32_MAX) {
      *error = "symbols: frame " + std::to_string(i) + " has a line or column over 32 bits";
      return false;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (module[i] > UINT32_MAX) {
      *error = "symbols: symbol " + std::to_string(i) + " has a module id over 32 bits";
      return false;
    }
  }
  out->reserve(out->size() + n);
  uint64_t a = 0;
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    Symbol s;
    a = ApplyZigzagDelta(a, address[i]);
    s.address = a;
    s.module = static_cast<uint32_t>(module[i]);
    s.frames.reserve(frames[i]);
    for (uint64_t j = 0; j < frames[i]; ++j, ++at) {
      s.frames.push_back({names[function[at]], names[file[at]], static_cast<uint32_t>(line[at]),
                          static_cast<uint32_t>(column[at])});
    }
    out->push_back(std::move(s));
  }
  return true;
}

}  // namespace heaprec::format
