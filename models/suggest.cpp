// Edit distance and "did you mean" lists for catalog look-ups.
#include "models/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace models {

namespace {
char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

// Lower case without '-', '.', '_' and spaces: "Llama3-70B" and "llama-3-70b" are one name.
std::string normalized(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '.' && c != '_' && c != ' ') out += lower(c);
  return out;
}

// The words of `s` (split at '-', '.', '_', '/') of 3 characters or more that hold a digit:
// "gb200-nvl72" -> {"gb200", "nvl72"}, "llama3-70b" -> {"llama3", "70b"}.
std::vector<std::string> numbered_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 3 && std::any_of(cur.begin(), cur.end(), [](char c) { return c >= '0' && c <= '9'; }))
      out.push_back(cur);
    cur.clear();
  };
  for (char c : s) {
    if (c == '-' || c == '.' || c == '_' || c == '/')
      flush();
    else
      cur += lower(c);
  }
  flush();
  return out;
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && lower(a[n]) == lower(b[n])) ++n;
  return n;
}
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b, bool swaps) {
  // Three rows: two back for a swap of neighbours (optimal string alignment), one for the others.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (swaps && i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::vector<std::string> closest_names(std::string_view word, const std::vector<std::string>& candidates,
                                       std::size_t count) {
  // What people type is often a family ("p5", "p4d": the name before its size), the start of a
  // name ("gb200"), or the name without its separators ("llama3-70b"): such candidates come first
  // (tier 0: the same name without separators or the same family; 1: a name it starts; 2: a name
  // holding one of its numbered words, "70b" or "gb200"), then by edit distance.
  const std::string w = normalized(word);
  const std::vector<std::string> tokens = numbered_words(word);
  struct Scored {
    int tier;
    std::size_t score;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    // A long shared prefix is strong evidence ("p4d.24xl" -> "p4d.24xlarge"): discount it.
    std::size_t prefix = common_prefix(word, c);
    std::size_t score = d > prefix / 2 ? d - prefix / 2 : 0;
    const std::string lc = lowered(c);
    int tier = 3;
    if (!w.empty() && (normalized(c) == w || lowered(c.substr(0, c.find('.'))) == lowered(word)))
      tier = 0;
    else if (word.size() >= 2 && lc.rfind(lowered(word), 0) == 0)
      tier = 1;
    else if (std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) { return lc.find(t) != std::string::npos; }))
      tier = 2;
    scored.push_back({tier, score, c});
  }
  std::sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) {
    if (x.tier != y.tier) return x.tier < y.tier;
    return x.score != y.score ? x.score < y.score : x.name < y.name;
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].name);
  return out;
}

std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t count) {
  const std::size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  const std::string w = lowered(word);
  std::vector<std::string> out;
  for (auto& name : closest_names(word, candidates, candidates.size())) {
    const std::size_t prefix = common_prefix(word, name);
    const bool near = edit_distance(word, name, /*swaps=*/true) <= limit || normalized(name) == normalized(word) ||
                      (w.size() >= 3 && lowered(name).find(w) != std::string::npos) ||
                      (prefix >= 4 && 3 * prefix >= 2 * word.size());
    if (near && out.size() < count) out.push_back(std::move(name));
  }
  return out;
}

std::string unknown_name_message(std::string_view what, std::string_view word,
                                 const std::vector<std::string>& candidates) {
  std::string msg = "unknown " + std::string(what) + " '" + std::string(word) + "'";
  auto close = closest_names(word, candidates);
  if (!close.empty()) {
    msg += " (did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "") + close[i];
    msg += "?)";
  }
  return msg;
}

}  // namespace models
