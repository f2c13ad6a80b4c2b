// Text wrapped at a terminal's 100 columns (scenarios/cli/output/result_format.hpp wrap_words), as
// compare's "why [N] is slower" line and every command's caveat lines print it: no line past 100
// columns unless one word is longer, continuation lines start with their indent, no word lost.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "scenarios/cli/output/result_format.hpp"

namespace {
std::vector<std::string> wrapped_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
std::string words_in(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) {
    std::istringstream in(l);
    for (std::string w; in >> w;) all += (all.empty() ? "" : " ") + w;
  }
  return all;
}
const std::string kText =
    "why [2] is slower than [1]: step 1.23 s against 1.01 s (x1.22); the mean rank's terms that moved most: "
    "exposed comm +19.666 s, compute +1.2 s; [2]'s NCCL transports differ from [1]'s (the legend) and "
    "one more clause to make it run over three lines of a terminal that is a hundred columns wide";
}  // namespace

TEST_CASE("wrap_words: no line past 100 columns, continuations indented, every word kept") {
  const std::string out = scenarios::wrap_words("", kText, " ");
  REQUIRE(out.back() == '\n');
  const auto lines = wrapped_lines(out);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("why [2] is slower", 0) == 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].size() <= 100);
    if (i > 0) CHECK((lines[i].rfind("  ", 0) == 0 && lines[i][2] != ' '));
  }
  CHECK(words_in(lines) == kText);
  // Each line is as full as it can be: the next line's first word would not have fitted.
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string next = lines[i + 1].substr(2, lines[i + 1].find(' ', 2) - 2);
    CHECK(lines[i].size() + 1 + next.size() > 100);
  }
}

TEST_CASE("wrap_words: a head is kept on the first line, and one too long stands alone") {
  const auto short_head = wrapped_lines(scenarios::wrap_words("  [1]:", "a b c", "   "));
  REQUIRE(short_head.size() == 1);
  CHECK(short_head[0] == "  [1]: a b c");
  const std::string long_head = "  " + std::string(98, '#') + ":";
  const auto lines = wrapped_lines(scenarios::wrap_words(long_head, "word", "   "));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == long_head);
  CHECK(lines[1] == "    word");
  // A word longer than a line is printed whole on a line of its own.
  const std::string giant(150, 'x');
  const auto wide = wrapped_lines(scenarios::wrap_words("", "a " + giant + " b", " "));
  REQUIRE(wide.size() == 3);
  CHECK(wide[1] == "  " + giant);
}

TEST_CASE("caveat_lines: each caveat once with its labels, wrapped under them") {
  const std::vector<std::string> a{"one short caveat", kText}, b{"one short caveat"};
  const scenarios::LabelledCaveats labelled{{"[1]", &a}, {"[2]", &b}};
  const auto lines = wrapped_lines(scenarios::caveat_lines(labelled, "every column"));
  REQUIRE(lines.size() >= 4);
  CHECK(lines[0] == "  every column: one short caveat");
  CHECK(lines[1].rfind("  [1]: why [2] is slower", 0) == 0);
  for (size_t i = 2; i < lines.size(); ++i) CHECK((lines[i].rfind("    ", 0) == 0 && lines[i][4] != ' '));
  for (const auto& l : lines) CHECK(l.size() <= 100);
  CHECK(words_in({lines.begin() + 1, lines.end()}) == "[1]: " + kText);
}
