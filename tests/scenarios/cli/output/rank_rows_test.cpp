// run --json's per-rank rows written as text (scenarios/cli/output/rank_rows.hpp) are byte for
// byte what the same rows built as JSON objects print through dump_json's rules: random rows
// (numbers of every magnitude, zeros, repeats, negative zero), with and without a memory peak,
// at two indents; and the whole run --json keeps its shape (the rows where "ranks" was).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "scenarios/cli/output/rank_rows.hpp"
#include "scenarios/cli/output/result_format.hpp"

namespace {
models::RunResult random_rows(uint64_t seed, int n, bool memory) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  auto value = [&]() -> double {
    switch (rng() % 6) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return unit(rng) * 1e-7;
      case 3: return unit(rng) * 3.0;
      case 4: return static_cast<double>(rng() % 1000) / 8;  // exact binary fractions
      default: return unit(rng) * 1e12;
    }
  };
  models::RunResult r;
  r.memory.estimated = memory;
  models::RankResult previous;
  for (int i = 0; i < n; ++i) {
    models::RankResult k;
    if (i > 0 && rng() % 3 == 0) {
      k = previous;  // a class's rows repeat their numbers
    } else {
      k.compute_s = value(), k.comm_s = value(), k.exposed_comm_s = value(), k.barrier_wait_s = value();
      k.offload_s = value();
      auto& b = k.breakdown;
      b.compute_s = value(), b.interference_s = value(), b.exposed_comm_s = value(), b.host_s = value();
      b.bubble_s = value(), b.barrier_wait_s = value(), b.other_s = value();
      k.memory_peak_bytes = std::floor(value());
    }
    k.rank = i, k.node = i / 8, k.pod = i / 8, k.gpu = i % 8;
    previous = k;
    r.ranks.push_back(k);
  }
  return r;
}
}  // namespace

TEST_CASE("run --json: the ranks written as text equal the ranks built as JSON, byte for byte", "[scenarios]") {
  for (uint64_t seed = 1; seed <= 20; ++seed)
    for (bool memory : {false, true})
      for (int indent : {0, 2}) {
        INFO("seed " << seed << ", memory " << memory << ", indent " << indent);
        const auto r = random_rows(seed, static_cast<int>(seed * 7 % 50), memory);
        CHECK(scenarios::rank_rows_json(r, indent) == scenarios::rank_rows_json_reference(r, indent));
      }
}

TEST_CASE("run --json: the rows sit under \"ranks\", between the summary and the links", "[scenarios]") {
  auto r = random_rows(3, 5, true);
  r.scenario = "rows";
  const std::string text = scenarios::result_json(r, {});
  const auto j = nlohmann::ordered_json::parse(text);
  REQUIRE(j["ranks"].size() == 5);
  CHECK(j["ranks"][4]["rank"] == 4);
  CHECK(text.find("\"ranks\": " + scenarios::rank_rows_json(r, 2) + ",\n  \"links\"") != std::string::npos);
}
