#pragma once
// Text from users' files and command lines as UTF-8: the one place where bytes become text.
// Every string that reaches an output (JSON, a written scenario, an HTML page) is valid UTF-8,
// because JSON and TOML require it (nlohmann's dump throws on anything else, toml++ refuses it).
//   - first_invalid_utf8: where a text first breaks RFC 3629 (a stray continuation byte, a
//     truncated sequence, an overlong form, a surrogate, a code point above U+10FFFF);
//   - utf8_text: files written by other programs (a job YAML saved in Latin-1, an NCCL log whose
//     host name is not UTF-8, a file name): well-formed sequences are kept and every other byte is
//     read as ISO 8859-1 (Latin-1: byte b is U+00bb), so "caf\xe9" becomes "café" and nothing is
//     dropped or refused. Text that is valid UTF-8 is returned unchanged.
// Scenario text (TOML files, --set and --vary values) is not decoded: TOML is UTF-8 by
// definition, so bytes that are not are an error at their place (toml++ for files, the loader for
// --set).
#include <cstddef>
#include <string>
#include <string_view>

namespace models {

inline constexpr size_t kValidUtf8 = static_cast<size_t>(-1);

// Byte offset of the first byte not part of a well-formed UTF-8 sequence, or kValidUtf8.
size_t first_invalid_utf8(std::string_view s);

// `s` as UTF-8, invalid bytes read as Latin-1 (see above).
std::string utf8_text(std::string_view s);

}  // namespace models
