// `run --json`'s per-rank rows as text (rank_rows.hpp).
#include "scenarios/cli/output/rank_rows.hpp"

#include <array>
#include <string>
#include <utility>
#include <cstring>
#include <unordered_map>

#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

namespace {

constexpr std::size_t kRowNumbers = 13;  // five accounts, seven breakdown terms, the memory peak
using RowKey = std::array<uint64_t, kRowNumbers>;

struct RowKeyHash {
  std::size_t operator()(const RowKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t w : k) h = (h ^ w) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

uint64_t bits(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// A number as dump_json prints it: rounded to kSignificantDigits, then nlohmann's own format.
std::string number(double v) { return Json(round_significant(v)).dump(); }

// The part of a row after its four integers, as printed at `indent` (the row's keys'), from
// `"compute_s"` to the end of the row's last value.
std::string row_tail(const models::RankResult& k, bool memory, const std::string& pad) {
  std::string s;
  auto key = [&](const char* name) {
    s += ",\n";
    s += pad;
    s += '"';
    s += name;
    s += "\": ";
  };
  key("compute_s"), s += number(k.compute_s);
  key("comm_s"), s += number(k.comm_s);
  key("exposed_comm_s"), s += number(k.exposed_comm_s);
  key("barrier_wait_s"), s += number(k.barrier_wait_s);
  key("offload_s"), s += number(k.offload_s);
  key("breakdown"), s += "{";
  bool first = true;
  for (const auto& [name, v] : breakdown_terms(k.breakdown)) {
    s += first ? "\n" : ",\n";
    first = false;
    s += pad + "  \"";
    s += name;
    s += "\": " + number(v);
  }
  s += "\n" + pad + "}";
  if (memory) key("memory_peak_bytes"), s += integer_json(k.memory_peak_bytes).dump();
  return s;
}

}  // namespace

std::string rank_rows_json(const models::RunResult& r, int indent) {
  if (r.ranks.empty()) return "[]";
  const std::string row_pad(indent + 2, ' '), key_pad(indent + 4, ' ');
  const bool memory = r.memory.estimated;
  std::unordered_map<RowKey, std::string, RowKeyHash> tails;
  std::string out = "[";
  out.reserve(r.ranks.size() * 400);
  bool first = true;
  for (const auto& k : r.ranks) {
    const auto& b = k.breakdown;
    const RowKey key{bits(k.compute_s),      bits(k.comm_s),      bits(k.exposed_comm_s), bits(k.barrier_wait_s),
                     bits(k.offload_s),      bits(b.compute_s),   bits(b.interference_s), bits(b.exposed_comm_s),
                     bits(b.host_s),         bits(b.bubble_s),    bits(b.barrier_wait_s), bits(b.other_s),
                     bits(memory ? k.memory_peak_bytes : 0.0)};
    auto it = tails.find(key);
    if (it == tails.end()) it = tails.emplace(key, row_tail(k, memory, key_pad)).first;
    out += first ? "\n" : ",\n";
    first = false;
    out += row_pad + "{\n";
    const std::pair<const char*, int> ints[] = {{"rank", k.rank}, {"node", k.node}, {"pod", k.pod}, {"gpu", k.gpu}};
    for (const auto& [name, v] : ints) {
      if (name != ints[0].first) out += ",\n";
      out += key_pad;
      out += '"';
      out += name;
      out += "\": ";
      out += std::to_string(v);
    }
    out += it->second;
    out += "\n" + row_pad + "}";
  }
  out += '\n';
  out.append(static_cast<std::size_t>(indent), ' ');  // (not "\n" + string: GCC 12's -Wrestrict false positive)
  out += ']';
  return out;
}

std::string rank_rows_json_reference(const models::RunResult& r, int indent) {
  Json ranks = Json::array();
  for (const auto& k : r.ranks) {
    Json o{{"rank", k.rank},
           {"node", k.node},
           {"pod", k.pod},
           {"gpu", k.gpu},
           {"compute_s", k.compute_s},
           {"comm_s", k.comm_s},
           {"exposed_comm_s", k.exposed_comm_s},
           {"barrier_wait_s", k.barrier_wait_s},
           {"offload_s", k.offload_s},
           {"breakdown", breakdown_json(k.breakdown)}};
    if (r.memory.estimated) o["memory_peak_bytes"] = integer_json(k.memory_peak_bytes);
    ranks.push_back(std::move(o));
  }
  round_numbers(ranks);
  // Printed as the value of a key at `indent`: nlohmann indents nested lines by the depth.
  std::string text = ranks.dump(2);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<std::size_t>(indent), ' ');
  }
  return out;
}

}  // namespace scenarios
