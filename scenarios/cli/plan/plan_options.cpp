// `commsim plan` option parsing (plan_options.hpp).
#include "scenarios/cli/plan/plan_options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>

#include "models/hw/instance.hpp"
#include "models/suggest.hpp"
#include "scenarios/cli/sweep/sweep_plan.hpp"

namespace scenarios {

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// A number at the start of `s` (after trimming); `rest` gets what follows, trimmed.
std::optional<double> leading_number(const std::string& s, std::string& rest) {
  const std::string t = trim(s);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!std::isfinite(v)) return std::nullopt;
  rest = trim(t.substr(used));
  return v;
}

int to_int(const std::string& s, const std::string& option, int col) {
  size_t used = 0;
  long v = 0;
  try {
    v = std::stol(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || v < 1 || v > (1 << 24))
    throw UserError({option, 1, col}, "'" + s + "' is not a GPU count (expected a whole number >= 1)");
  return int(v);
}

}  // namespace

std::pair<int, int> parse_gpu_range(const std::string& text) {
  const std::string t = trim(text);
  // Columns count in the value as typed: `t` starts past its leading spaces.
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  const int lead = first == std::string::npos ? 0 : int(first);
  const size_t dots = t.find("..");
  if (dots == std::string::npos) {
    const int n = to_int(t, "--gpus", lead + 1);
    return {n, n};
  }
  const std::string hi_raw = t.substr(dots + 2);
  const std::string lo = trim(t.substr(0, dots)), hi = trim(hi_raw);
  const int a = lo.empty() ? 1 : to_int(lo, "--gpus", lead + 1);
  const int b = hi.empty() ? 0 : to_int(hi, "--gpus", lead + int(dots) + 3 + int(hi_raw.find_first_not_of(" \t")));
  if (b > 0 && b < a)
    throw UserError({"--gpus", 1, lead + 1}, "empty range " + t + ": " + std::to_string(a) +
                                                 " GPUs or more, but at most " + std::to_string(b) +
                                                 " (expected MIN..MAX with MIN <= MAX)");
  return {a, b};
}

std::vector<ListItem> parse_list_items(const std::string& text, const std::string& option) {
  std::vector<ListItem> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string raw = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string item = trim(raw);
    if (item.empty())
      throw UserError({option, 1, int(start) + 1}, "empty item in '" + text + "' (expected a,b,c)");
    // Its column: where its first character is, past the spaces before it.
    const int col = int(start + raw.find_first_not_of(" \t\n\r\f\v")) + 1;
    // "a,a" is "a": a repeat would search every candidate of it twice and rank each row twice.
    if (std::none_of(out.begin(), out.end(), [&](const ListItem& i) { return i.text == item; }))
      out.push_back({item, col});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> parse_name_list(const std::string& text, const std::string& option, const std::string& what,
                                         const std::vector<std::string>& known) {
  std::vector<std::string> out;
  for (auto& item : parse_list_items(text, option)) {
    if (std::find(known.begin(), known.end(), item.text) == known.end()) {
      std::string expected;
      for (size_t i = 0; i < known.size(); ++i)
        expected += (i == 0 ? "" : i + 1 == known.size() ? " or " : ", ") + known[i];
      std::string near;
      for (const auto& n : models::near_names(item.text, known)) near += (near.empty() ? "" : ", ") + n;
      throw UserError({option, 1, item.col}, "unknown " + what + " '" + item.text + "' (" +
                                                 (near.empty() ? "" : "did you mean " + near + "? ") + "expected " +
                                                 expected + ")");
    }
    out.push_back(std::move(item.text));
  }
  return out;
}

std::vector<int> parse_int_list(const std::string& text, const std::string& option, int min, int max) {
  std::vector<int> out;
  for (const auto& item : parse_list_items(text, option)) {
    size_t used = 0;
    long v = 0;
    try {
      v = std::stol(item.text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.text.size() || v < min || v > max)
      throw UserError({option, 1, item.col}, "'" + item.text + "' is not a whole number from " + std::to_string(min) +
                                                 " to " + std::to_string(max));
    if (std::find(out.begin(), out.end(), int(v)) == out.end()) out.push_back(int(v));  // "1,01" is "1"
  }
  return out;
}

double parse_usd(const std::string& text, const std::string& option) {
  std::string t = trim(text);
  if (!t.empty() && t[0] == '$') t = t.substr(1);
  std::string rest;
  const auto v = leading_number(t, rest);
  double scale = 1;
  if (rest == "k" || rest == "K") scale = 1e3;
  else if (rest == "M" || rest == "m") scale = 1e6;
  else if (rest == "B" || rest == "G") scale = 1e9;
  else if (!rest.empty()) scale = 0;
  if (!v || scale == 0 || !(*v > 0))
    throw UserError({option, 1, 1}, "'" + text + "' is not an amount of dollars (expected e.g. 2000000, 2e6, $2M, 750k)");
  return *v * scale;
}

double parse_duration(const std::string& text, const std::string& option) {
  std::string rest;
  const auto v = leading_number(text, rest);
  double scale = 0;
  if (rest.empty() || rest == "s") scale = 1;
  else if (rest == "min" || rest == "m") scale = 60;
  else if (rest == "h") scale = 3600;
  else if (rest == "d") scale = 86400;
  else if (rest == "w") scale = 7 * 86400;
  if (!v || scale == 0 || !(*v > 0))
    throw UserError({option, 1, 1}, "'" + text + "' is not a duration (expected seconds, or a number with s, min, h, d "
                                                 "or w, e.g. 30d)");
  return *v * scale;
}

models::plan::PlanOptions plan_options(const PlanArgs& a) {
  models::plan::PlanOptions o;
  models::plan::SpaceOptions& s = o.space;
  if (!a.instances.empty())
    for (auto& item : parse_list_items(a.instances, "--instances")) {
      try {  // a mistyped name is the option's error, at its item
        (void)models::hw::find_instance(item.text);
      } catch (const models::SpecError& e) {
        throw UserError({"--instances", 1, item.col}, e.what());
      }
      s.instances.push_back(std::move(item.text));
    }
  if (!a.gpus.empty()) std::tie(s.min_gpus, s.max_gpus) = parse_gpu_range(a.gpus);
  if (a.max_gpus > 0) {
    if (s.max_gpus > 0 && s.max_gpus != a.max_gpus)
      throw UserError({"--max-gpus", 1, 1}, "--max-gpus " + std::to_string(a.max_gpus) + " contradicts --gpus " +
                                                a.gpus + " (expected one upper bound)");
    if (s.min_gpus > a.max_gpus)
      throw UserError({"--max-gpus", 1, 1}, "--max-gpus " + std::to_string(a.max_gpus) + " is below --gpus " + a.gpus +
                                                "'s lower end (expected MIN <= MAX)");
    s.max_gpus = a.max_gpus;
    if (s.min_gpus == 0) s.min_gpus = 1;
  }
  if (s.min_gpus > 0 && s.max_gpus == 0) s.max_gpus = 1 << 24;  // "64..": no upper end but the space's
  if (!a.strategies.empty())
    s.strategies = parse_name_list(a.strategies, "--strategies", "strategy",
                                   {"megatron", "zero1", "zero2", "zero3", "zero3+offload", "fsdp", "hsdp", "ddp"});
  if (!a.micro_batches.empty()) s.micro_batches = parse_int_list(a.micro_batches, "--micro-batches", 1, 1024);
  if (!a.recompute.empty())
    s.recompute = parse_name_list(a.recompute, "--recompute", "recompute", {"none", "selective", "full"});
  if (!a.pods.empty()) s.pods_per_node = parse_int_list(a.pods, "--pods-per-node", 1, 64);
  if (!a.domain_hosts.empty()) s.domain_hosts = parse_int_list(a.domain_hosts, "--hosts-per-domain", 1, 1024);
  if (!a.cp.empty()) s.cp = parse_int_list(a.cp, "--cp", 1, 64);
  s.max_pp = a.max_pp;
  s.max_vp = a.max_vp;
  s.max_ep = a.max_ep;
  if (a.objective == "cost")
    o.objective = models::plan::Objective::Cost;
  else if (a.objective != "time")
    throw UserError({"--objective", 1, 1}, "unknown objective '" + a.objective + "' (expected time or cost)");
  if (!a.budget.empty()) o.budget_usd = parse_usd(a.budget, "--budget");
  if (!a.deadline.empty()) o.deadline_s = parse_duration(a.deadline, "--deadline");
  o.jobs = a.jobs;
  if (!a.shard.empty()) {
    const Shard sh = parse_shard(a.shard);
    o.shard_index = sh.index;
    o.shard_count = sh.count;
  }
  o.audit = a.audit;
  o.pareto_exact = a.pareto_exact;
  o.exhaustive = a.exhaustive;
  return o;
}

}  // namespace scenarios
