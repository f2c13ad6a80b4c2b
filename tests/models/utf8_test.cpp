// Bytes to UTF-8 text (models/utf8.hpp): RFC 3629's well-formed sequences pass unchanged, every
// other byte is found at its offset and read as Latin-1 (byte b is U+00bb, two bytes in UTF-8:
// 0xC0 | b >> 6, 0x80 | b & 0x3F).
#include <catch2/catch.hpp>

#include <string>

#include "models/utf8.hpp"

using models::first_invalid_utf8;
using models::kValidUtf8;
using models::utf8_text;

TEST_CASE("utf8: well-formed text is found valid and returned unchanged", "[utf8]") {
  for (const std::string& s :
       {std::string(""), std::string("ascii"), std::string("caf\xc3\xa9"), std::string("\xe2\x82\xac 1"),
        std::string("\xf0\x9f\x98\x80"), std::string("\xf4\x8f\xbf\xbf")}) {
    CHECK(first_invalid_utf8(s) == kValidUtf8);
    CHECK(utf8_text(s) == s);
  }
}

TEST_CASE("utf8: each ill-formed sequence is found at its first byte", "[utf8]") {
  CHECK(first_invalid_utf8("caf\xe9") == 3);              // Latin-1 e-acute
  CHECK(first_invalid_utf8("a\x80") == 1);                // a stray continuation byte
  CHECK(first_invalid_utf8("ab\xc3") == 2);               // cut short
  CHECK(first_invalid_utf8("\xc0\xaf") == 0);             // overlong '/'
  CHECK(first_invalid_utf8("\xe0\x80\xaf") == 0);         // overlong, three bytes
  CHECK(first_invalid_utf8("\xed\xa0\x80") == 0);         // a surrogate (U+D800)
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0);     // above U+10FFFF
  CHECK(first_invalid_utf8("ok\xff") == 2);
}

TEST_CASE("utf8: invalid bytes are read as Latin-1, valid sequences around them kept", "[utf8]") {
  CHECK(utf8_text("caf\xe9") == "caf\xc3\xa9");                 // 0xE9 -> U+00E9
  CHECK(utf8_text("\xff") == "\xc3\xbf");                       // 0xFF -> U+00FF
  CHECK(utf8_text("\x80") == "\xc2\x80");                       // 0x80 -> U+0080
  CHECK(utf8_text("\xe9 \xc3\xa9") == "\xc3\xa9 \xc3\xa9");     // mixed: the valid one kept
  CHECK(utf8_text("\xc3") == "\xc3\x83");                       // a cut sequence: its byte as Latin-1
  // The result is always valid, and decoding twice changes nothing more.
  const std::string once = utf8_text("\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf");
  CHECK(first_invalid_utf8(once) == kValidUtf8);
  CHECK(utf8_text(once) == once);
}
