// commsim presets [--json]: the models model.preset can name (models/workload), with their shape,
// parameter count and source.
#include <cstdio>
#include <map>
#include <string>

#include <fmt/format.h>

#include "models/model/model_shape.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {

// Where each preset's shape comes from (the comment above the table in
// models/model/model_shape.cpp; a test checks every preset has one).
const std::map<std::string, std::string>& preset_sources() {
  static const std::map<std::string, std::string> sources = {
      {"llama-3-8b", "meta-llama/Meta-Llama-3-8B config.json (Hugging Face hub)"},
      {"llama-3-70b", "meta-llama/Meta-Llama-3-70B config.json (Hugging Face hub)"},
      {"llama-2-7b", "meta-llama/Llama-2-7b-hf config.json (Hugging Face hub)"},
      {"llama-3.1-8b", "meta-llama/Llama-3.1-8B config.json (Hugging Face hub)"},
      {"llama-3.1-70b", "meta-llama/Llama-3.1-70B config.json (Hugging Face hub)"},
      {"llama-3.1-405b", "meta-llama/Llama-3.1-405B config.json (Hugging Face hub)"},
      {"gpt3-175b", "Brown et al. 2020 (GPT-3) Table 2.1; GPT-2 BPE vocabulary"},
      {"megatron-22b", "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/megatron-22B.json"},
      {"mt-nlg-530b", "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/turing-530B.json"},
      {"megatron-1t", "Korthikanti et al. 2022 Table 3; calculon-ai/calculon models/megatron-1T.json"},
      {"sc21-1.7b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-3.6b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-7.5b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-18b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-39b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-76b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-145b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"sc21-310b", "Narayanan et al. SC'21 Table 1; NVIDIA/Megatron-LM examples/sc21/run_table_1.sh"},
      {"h200x4-decoder", "the calibration decoder, scenarios/validation/h200x4/measured/README.md"},
      {"mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1 config.json (Hugging Face hub); 8 experts, top 2"},
      {"deepseek-v3", "deepseek-ai/DeepSeek-V3 config.json (Hugging Face hub); 256 experts, top 8, MLA as MHA"},
  };
  return sources;
}

int cmd_presets(int argc, char** argv) {
  CLI::App app{"List the models model.preset can name: shape, parameters, source.", "commsim presets"};
  bool json = false;
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return guarded([&] {
    Json list = Json::array();
    std::string out = fmt::format("{:<16} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7} {:>10}  {}\n", "preset", "layers",
                                  "hidden", "heads", "kv_heads", "ffn", "vocab", "parameters", "source");
    for (const auto& name : models::model::preset_names()) {
      models::ModelSpec spec;
      spec.preset = name;
      const auto shape = models::model::resolve_model(spec);
      const auto it = preset_sources().find(name);
      const std::string source = it == preset_sources().end() ? "models/model/model_shape.cpp" : it->second;
      list.push_back({{"name", name},
                      {"layers", shape.layers},
                      {"hidden", shape.hidden},
                      {"heads", shape.heads},
                      {"kv_heads", shape.kv_heads},
                      {"ffn", shape.ffn},
                      {"vocab", shape.vocab},
                      {"tied_embeddings", shape.tied_embeddings},
                      {"parameters", shape.total_params()},
                      {"source", source}});
      out += fmt::format("{:<16} {:>6} {:>6} {:>5} {:>8} {:>6} {:>7} {:>8.2f} B  {}\n", name, shape.layers,
                         shape.hidden, shape.heads, shape.kv_heads, shape.ffn, shape.vocab,
                         static_cast<double>(shape.total_params()) / 1e9, source);
    }
    if (json) {
      Json j = json_header("presets", {});
      j["presets"] = std::move(list);
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    out += "\nUse one with [model] preset = \"NAME\"; or give layers, hidden, heads, kv_heads, ffn, vocab.\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
