// Errors stay on one line (models/one_line.hpp): whatever a message quotes, SpecError and
// ParseError print `FILE:LINE:COL: message` without a line break, control characters escaped
// as C writes them, ordinary text (UTF-8 included) unchanged, and escaping twice is escaping once.
#include <catch2/catch.hpp>

#include <string>

#include "models/error.hpp"
#include "models/one_line.hpp"
#include "models/parse_error.hpp"

using models::one_line;

TEST_CASE("one_line: line breaks and control characters become escapes", "[errors]") {
  CHECK(one_line("all_re\nduce") == "all_re\\nduce");
  CHECK(one_line("a\r\nb\tc") == "a\\r\\nb\\tc");
  CHECK(one_line(std::string("\x1b[31mred\x7f", 9)) == "\\x1b[31mred\\x7f");
  CHECK(one_line(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(one_line("a\xe2\x80\xa8"
                 "b\xe2\x80\xa9"
                 "c\xc2\x85"
                 "d") == "a\\u2028b\\u2029c\\u0085d");
  CHECK(one_line("caf\xc3\xa9 \xe2\x82\xac 1 \\n") == "caf\xc3\xa9 \xe2\x82\xac 1 \\n");  // unchanged
  const std::string once = one_line("x\ny\x01");
  CHECK(one_line(once) == once);
}

TEST_CASE("one_line: every error type prints one line whatever it quotes", "[errors]") {
  const models::SpecError spec("nccl.env.NCCL_ALGO", "unknown algorithm 'Ri\nng'");
  CHECK(std::string(spec.what()) == "unknown algorithm 'Ri\\nng'");

  const models::ParseError parse("a\rb.txt", 3, 1, "'0\n0' is not a time");
  CHECK(std::string(parse.what()) == "a\\rb.txt:3:1: '0\\n0' is not a time");
  CHECK(parse.message() == "'0\\n0' is not a time");
}
