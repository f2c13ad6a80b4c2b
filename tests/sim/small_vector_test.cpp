// sim::SmallVector: inline up to N, heap beyond, contents kept across growth and moves.
#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/small_vector.hpp"

TEST_CASE("small vector: keeps its elements inline, then on the heap, in order", "[sim]") {
  sim::SmallVector<uint32_t, 4> v;
  CHECK(v.empty());
  std::vector<uint32_t> want;
  for (uint32_t i = 0; i < 100; ++i) {
    v.push_back(i * 3);
    want.push_back(i * 3);
    REQUIRE(v.size() == want.size());
    CHECK(std::vector<uint32_t>(v.begin(), v.end()) == want);
  }
  v.pop_back();
  CHECK(v.back() == 98 * 3);
  v.clear();
  CHECK(v.empty());
  v.push_back(7);  // the heap block is kept: no reallocation needed
  CHECK(v[0] == 7);
}

TEST_CASE("small vector: moves keep the contents and leave the source empty", "[sim]") {
  for (uint32_t n : {0u, 3u, 4u, 5u, 40u}) {
    sim::SmallVector<uint64_t, 4> a;
    for (uint32_t i = 0; i < n; ++i) a.push_back(i + 1);
    sim::SmallVector<uint64_t, 4> b(std::move(a));
    CHECK(a.size() == 0);
    REQUIRE(b.size() == n);
    for (uint32_t i = 0; i < n; ++i) CHECK(b[i] == i + 1);
    sim::SmallVector<uint64_t, 4> c;
    c.push_back(99);
    c = std::move(b);
    REQUIRE(c.size() == n);
    for (uint32_t i = 0; i < n; ++i) CHECK(c[i] == i + 1);
  }
}
