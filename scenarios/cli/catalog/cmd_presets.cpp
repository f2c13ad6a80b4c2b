// commsim presets [--json]: the models model.preset can name (models/model/presets.cpp), with their
// shape, parameter counts and source.
#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "models/model/model_shape.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

namespace {
// "MHA", "GQA", "MLA" and the MoE routing "128e top 8 +1", for the table.
std::string attention_kind(const models::model::ModelShape& m) {
  if (m.attention().is_mla()) return "MLA";
  return m.kv_heads == m.heads ? "MHA" : "GQA";
}
std::string experts(const models::model::ModelShape& m) {
  if (!m.is_moe()) return "-";
  // "128e x768 top 8": the experts, their own ffn width (the ffn column is the dense layers'), top-k.
  std::string s =
      std::to_string(m.moe.experts) + "e x" + std::to_string(m.moe.moe_ffn) + " top " + std::to_string(m.moe.top_k);
  if (m.moe.shared_experts > 0) s += " +" + std::to_string(m.moe.shared_experts);
  return s;
}
}  // namespace

int cmd_presets(int argc, char** argv) {
  CLI::App app{"List the models model.preset can name: shape, parameters, source.", "commsim presets"};
  bool json = false;
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    Json list = Json::array();
    std::string out =
        fmt::format("{:<17} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7} {:>4} {:<21} {:>10} {:>10}  {}\n", "preset", "layers",
                    "hidden", "heads", "kv_heads", "ffn", "vocab", "attn", "experts", "parameters", "active", "source");
    for (const models::model::Preset& p : models::model::presets()) {
      models::ModelSpec spec;
      spec.preset = p.name;
      if (p.max_positions > 0) spec.seq = std::min(spec.seq, p.max_positions);  // a learned table's length
      const auto shape = models::model::resolve_model(spec);
      list.push_back({{"name", p.name},
                      {"layers", shape.layers},
                      {"hidden", shape.hidden},
                      {"heads", shape.heads},
                      {"kv_heads", shape.kv_heads},
                      {"head_dim", shape.attention().qk_head_dim()},
                      {"ffn", shape.ffn},
                      {"vocab", shape.vocab},
                      {"attention", attention_kind(shape)},
                      {"mlp", shape.gated_mlp ? "swiglu" : "gelu"},
                      {"norm", shape.norm == models::model::Norm::LayerNorm ? "layernorm" : "rmsnorm"},
                      {"biases", shape.biases},
                      {"positions", shape.positions == models::model::Positions::Learned ? "learned" : "rotary"},
                      {"tied_embeddings", shape.tied_embeddings},
                      {"experts", shape.moe.experts},
                      {"top_k", shape.is_moe() ? shape.moe.top_k : 0},
                      {"moe_ffn", shape.is_moe() ? shape.moe.moe_ffn : 0},
                      {"shared_experts", shape.moe.shared_experts},
                      {"moe_first_dense", shape.moe.first_dense},
                      {"moe_layers", shape.is_moe() ? shape.moe.stride : 0},
                      {"parameters", shape.total_params()},
                      {"active_parameters", shape.active_params()},
                      {"source", p.source}});
      out += fmt::format("{:<17} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7} {:>4} {:<21} {:>8.2f} B {:>8.2f} B  {}\n", p.name,
                         shape.layers, shape.hidden, shape.heads, shape.kv_heads, shape.ffn, shape.vocab,
                         attention_kind(shape), experts(shape), static_cast<double>(shape.total_params()) / 1e9,
                         static_cast<double>(shape.active_params()) / 1e9, p.source);
    }
    if (json) {
      Json j = json_header("presets", {});
      j["presets"] = std::move(list);
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    out += "\nUse one with [model] preset = \"NAME\"; or give layers, hidden, heads, kv_heads, ffn, vocab "
           "(docs/models.md: every model key).\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
