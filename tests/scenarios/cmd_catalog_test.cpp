// `commsim presets` and `commsim instances`: every catalog name on its own row, with the shape or
// hardware a scenario gets from it.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "command_runner.hpp"
#include "models/hw/instance.hpp"
#include "models/workload/model_shape.hpp"

using scenarios_test::run_commsim;

namespace {
std::string row_of(const std::string& out, const std::string& name) {
  const auto at = out.find("\n" + name + " ");
  if (at == std::string::npos) return "";
  return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}
}  // namespace

TEST_CASE("scenarios: presets lists every model preset with its shape", "[scenarios]") {
  const auto r = run_commsim({"presets"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const std::string& name : models::workload::preset_names()) {
    INFO(name);
    CHECK_FALSE(row_of(r.out, name).empty());
  }
  // GPT-3 175B (Brown et al. 2020 Table 2.1): 96 layers of 12,288, 96 heads, ffn 4h, GELU, tied.
  std::istringstream row(row_of(r.out, "gpt3-175b"));
  std::string name, layers, hidden, heads, kv, ffn, vocab, mlp, emb, params;
  row >> name >> layers >> hidden >> heads >> kv >> ffn >> vocab >> mlp >> emb >> params;
  CHECK(layers == "96");
  CHECK(hidden == "12288");
  CHECK(heads == "96");
  CHECK(ffn == "49152");
  CHECK(mlp == "gelu");
  CHECK(emb == "tied");
  CHECK(params == "174.57B");
}

TEST_CASE("scenarios: instances lists every catalog node with its GPUs and NICs", "[scenarios]") {
  const auto r = run_commsim({"instances"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const std::string& name : models::hw::instance_names()) {
    INFO(name);
    CHECK_FALSE(row_of(r.out, name).empty());
  }
  // DGX A100 (DU-09821-001): 8 x A100 80 GB on NVSwitch, 8 x HDR 200 Gb/s InfiniBand.
  const std::string dgx = row_of(r.out, "dgx-a100-80gb");
  CHECK(dgx.find("A100-80GB") != std::string::npos);
  CHECK(dgx.find("NVSwitch") != std::string::npos);
  CHECK(dgx.find("8 x 200 Gb/s ib") != std::string::npos);
}
