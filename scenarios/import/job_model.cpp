// Which model a job trains (see job_model.hpp).
#include "scenarios/import/job_model.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/model/model_shape.hpp"
#include "scenarios/load/loader.hpp"

namespace fs = std::filesystem;

namespace scenarios {
namespace {

// config.json as Hugging Face writes it for a decoder: the six numbers of a [model] shape.
std::vector<std::pair<std::string, long long>> shape_from_config(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto j = nlohmann::json::parse(text.str(), nullptr, false);
  const std::string file = path.string();
  if (j.is_discarded() || !j.is_object()) throw UserError({file, 1, 1}, "not a JSON object (expected a model's config.json)");
  std::vector<std::pair<std::string, long long>> shape;
  const std::pair<const char*, const char*> keys[] = {{"layers", "num_hidden_layers"},
                                                      {"hidden", "hidden_size"},
                                                      {"heads", "num_attention_heads"},
                                                      {"kv_heads", "num_key_value_heads"},
                                                      {"ffn", "intermediate_size"},
                                                      {"vocab", "vocab_size"}};
  for (const auto& [key, hf] : keys) {
    if (!j.contains(hf)) {
      if (std::string(key) == "kv_heads") continue;  // absent: as many KV heads as heads
      throw UserError({file, 1, 1}, std::string("no ") + hf +
                                        " (expected a decoder's config.json with num_hidden_layers, hidden_size, "
                                        "num_attention_heads, intermediate_size, vocab_size)");
    }
    if (!j[hf].is_number_integer() || j[hf].get<long long>() < 1)
      throw UserError({file, 1, 1}, std::string(hf) + " is not a positive integer");
    shape.emplace_back(key, j[hf].get<long long>());
  }
  return shape;
}

}  // namespace

JobModel find_job_model(const K8sJob& job, const JobCommand& command, const ImportOptions& opt,
                        const std::string& trainer_model_id, const std::string& trainer_file) {
  JobModel m;
  if (!opt.model.empty()) {
    m.preset = opt.model;
    m.from = "given with --model";
    return m;
  }
  if (!trainer_model_id.empty()) {
    if (const std::string p = preset_for_model_id(trainer_model_id); !p.empty()) {
      m.preset = p;
      m.from = trainer_file + ": model_name_or_path " + trainer_model_id + " has the shape of preset " + p;
      return m;
    }
  }
  if (!command.model_id.empty()) {
    if (const std::string p = preset_for_model_id(command.model_id); !p.empty()) {
      m.preset = p;
      m.from = "the job's command: " + command.model_id + " has the shape of preset " + p;
      return m;
    }
  }
  const fs::path beside = fs::path(job.source).parent_path() / "config.json";
  if (fs::is_regular_file(beside)) {
    m.shape = shape_from_config(beside);
    m.from = "config.json beside the job (" + beside.string() + ")";
    m.config = beside.string();
    return m;
  }
  // A preset's name anywhere in the command or the job's name (the longest that matches).
  const std::string hay = job.command + " " + job.name;
  for (const auto& p : models::model::preset_names())
    if (hay.find(p) != std::string::npos && p.size() > m.preset.size()) m.preset = p;
  if (!m.preset.empty()) m.from = "named in the job's command or name";
  return m;
}

}  // namespace scenarios
