#pragma once
// The points of a sweep: `--vary K=v1,v2,...` options multiplied out (the first --vary varies
// slowest, like the outer loop), and the contiguous slice of them that `--shard i/N` runs, so the
// shards' rows concatenated in shard order are exactly the rows of the unsharded sweep.
#include <cstddef>
#include <string>
#include <vector>

#include "scenarios/load/loader.hpp"

namespace scenarios {

struct VaryAxis {
  std::string key;
  std::vector<std::string> values;  // as typed, each parsed later like a --set value
  std::vector<int> value_columns;   // 1-based column of each value in the --vary text
};

// Parses one `--vary` (the `ordinal`-th, for messages: "--vary:ORDINAL:COL: ..."). Commas inside
// quotes or brackets do not split ("[1,2]", "\"a,b\"").
VaryAxis parse_vary(const std::string& text, int ordinal);

// Throws UserError at the later --vary when two vary the same key (spaces around it and
// DeepSpeed's stage3_ aliases count as the same key): the last would win while the rows showed
// both values; and at a --set (KEY=VALUE) of a varied key, which every point would override.
void refuse_repeated_vary_keys(const std::vector<VaryAxis>& axes, const std::vector<std::string>& sets);

struct SweepPoint {
  size_t index = 0;                 // position in the full (unsharded) sweep
  std::vector<std::string> values;  // one per axis
};

// Total number of points; throws UserError past 10 million (a sweep that would never finish).
size_t sweep_size(const std::vector<VaryAxis>& axes);
// Point `index` of the cartesian product (first axis slowest).
SweepPoint sweep_point(const std::vector<VaryAxis>& axes, size_t index);

struct Shard {
  size_t index = 0, count = 1;
};
// "i/N" with 0 <= i < N. Throws UserError ("--shard:1:COL: ...").
Shard parse_shard(const std::string& text);
// [begin, end) of the points shard `s` runs: contiguous, sizes differing by at most one.
std::pair<size_t, size_t> shard_range(size_t total, const Shard& s);

}  // namespace scenarios
