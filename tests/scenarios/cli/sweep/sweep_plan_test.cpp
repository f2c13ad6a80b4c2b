// Sweep points and shards: order independent of threads, shards that concatenate to the whole.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "scenarios/cli/sweep/sweep_plan.hpp"

TEST_CASE("scenarios: --vary splits on commas outside quotes and brackets", "[scenarios]") {
  const auto a = scenarios::parse_vary("placement.gpus_per_pod=1,2,4", 1);
  CHECK(a.key == "placement.gpus_per_pod");
  CHECK(a.values == std::vector<std::string>{"1", "2", "4"});
  CHECK(a.value_columns == std::vector<int>{24, 26, 28});
  const auto b = scenarios::parse_vary("name=\"a,b\",[1,2],c", 1);
  CHECK(b.values == std::vector<std::string>{"\"a,b\"", "[1,2]", "c"});
  CHECK_THROWS_WITH(scenarios::parse_vary("placement.gpus_per_pod", 2), Catch::StartsWith("--vary:2:1: "));
  CHECK_THROWS_WITH(scenarios::parse_vary("k=1,,2", 1), Catch::StartsWith("--vary:1:5: empty value"));
  CHECK_THROWS_WITH(scenarios::parse_vary("k=\"open", 1), Catch::Contains("unclosed quote"));
  // A quote inside a bare word is a letter, as --set takes it (TOML opens a string only at a value's start).
  CHECK(scenarios::parse_vary("name=it's,b", 1).values == std::vector<std::string>{"it's", "b"});
  CHECK(scenarios::parse_vary("name=5'11\",'a,b', \"c\"", 1).values ==
        std::vector<std::string>{"5'11\"", "'a,b'", " \"c\""});
  // TOML's \" inside a basic string is a quote of the value, not its end (json.dumps writes it);
  // a literal string has no escapes, so its backslash ends nothing.
  CHECK(scenarios::parse_vary(R"(name="say \"hi\", world","b")", 1).values ==
        std::vector<std::string>{R"("say \"hi\", world")", R"("b")"});
  CHECK(scenarios::parse_vary(R"(name='a\',"b")", 1).values == std::vector<std::string>{R"('a\')", R"("b")"});
  CHECK_THROWS_WITH(scenarios::parse_vary(R"(k="a\)", 1), Catch::Contains("unclosed quote"));
}

TEST_CASE("scenarios: sweep points are the cartesian product, first axis slowest", "[scenarios]") {
  const std::vector<scenarios::VaryAxis> axes = {scenarios::parse_vary("a=1,2", 1),
                                                 scenarios::parse_vary("b=x,y,z", 2)};
  // Size = product of the axis lengths: 2 * 3.
  REQUIRE(scenarios::sweep_size(axes) == 6);
  const std::vector<std::vector<std::string>> expected = {{"1", "x"}, {"1", "y"}, {"1", "z"},
                                                          {"2", "x"}, {"2", "y"}, {"2", "z"}};
  for (size_t i = 0; i < 6; ++i) CHECK(scenarios::sweep_point(axes, i).values == expected[i]);
}

TEST_CASE("scenarios: shards are contiguous, balanced and cover every point once", "[scenarios]") {
  for (size_t total : {0u, 1u, 7u, 100u, 1001u}) {
    for (size_t n : {1u, 2u, 3u, 8u, 16u}) {
      size_t next = 0;
      for (size_t i = 0; i < n; ++i) {
        const auto [begin, end] = scenarios::shard_range(total, {i, n});
        CHECK(begin == next);  // shard i starts where shard i-1 ended: concatenation = the whole
        // Balanced: floor(total/n) or ceil(total/n) points each.
        CHECK(end - begin >= total / n);
        CHECK(end - begin <= (total + n - 1) / n);
        next = end;
      }
      CHECK(next == total);
    }
  }
  CHECK(scenarios::parse_shard("2/4").index == 2);
  CHECK_THROWS_WITH(scenarios::parse_shard("4/4"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(scenarios::parse_shard("1-4"), Catch::Contains("not a shard"));
  CHECK_THROWS_WITH(scenarios::parse_shard("0/0"), Catch::Contains("not a shard"));
}

TEST_CASE("scenarios: a key varied by two --vary is refused at the second", "[scenarios]") {
  using scenarios::parse_vary;
  CHECK_NOTHROW(scenarios::refuse_repeated_vary_keys({parse_vary("a.b=1,2", 1), parse_vary("a.c=1", 2)}, {"a.d=3"}));
  CHECK_THROWS_WITH(scenarios::refuse_repeated_vary_keys(
                        {parse_vary("a.b=1", 1), parse_vary("x.y=1", 2), parse_vary(" a.b =2", 3)}, {}),
                    "--vary:3:1: 'a.b' is varied twice, first at --vary:1:1 (expected each key in one --vary, with "
                    "all its values)");
  // A part quoted as a file may write it is the same key.
  CHECK_THROWS_WITH(scenarios::refuse_repeated_vary_keys(
                        {parse_vary("cluster.nodes=1,2", 1), parse_vary("cluster.\"nodes\"=4,8", 2)}, {}),
                    Catch::StartsWith("--vary:2:1: 'cluster.nodes' is varied twice"));
  // DeepSpeed's field name and its stage3_ alias are one key.
  CHECK_THROWS_WITH(
      scenarios::refuse_repeated_vary_keys(
          {parse_vary("zero.max_reuse_distance=1", 1), parse_vary("zero.stage3_max_reuse_distance=2", 2)}, {}),
      Catch::StartsWith("--vary:2:1: 'zero.stage3_max_reuse_distance' is varied twice"));
  // A --set of a varied key: every point would take the varied value while its row listed the set.
  CHECK_THROWS_WITH(
      scenarios::refuse_repeated_vary_keys({parse_vary("x.y=1", 1), parse_vary("cluster.nodes=1,2", 2)},
                                           {"model.seq=4096", "cluster.nodes=8"}),
      "--set:2:1: 'cluster.nodes' is both set and varied (--vary:2:1), and every point would take the varied "
      "value (expected one of the two)");
}
