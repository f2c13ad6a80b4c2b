// Bytes to UTF-8 text (utf8.hpp).
#include "models/utf8.hpp"

namespace models {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629, table 3-7 of the Unicode
// standard), or 0 when the byte there does not start one.
size_t sequence_length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  const size_t left = s.size() - i;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return k < left && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;              // no overlong forms
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;        // no surrogates
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;  // no overlong forms
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;  // <= U+10FFFF
  return 0;
}

}  // namespace

size_t first_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return kValidUtf8;
}

std::string utf8_text(std::string_view s) {
  size_t bad = first_invalid_utf8(s);
  if (bad == kValidUtf8) return std::string(s);
  std::string out(s.substr(0, bad));
  out.reserve(s.size() + 16);
  for (size_t i = bad; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n > 0) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(s[i++]);  // Latin-1: byte c is U+00c (c >= 0x80)
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  return out;
}

}  // namespace models
