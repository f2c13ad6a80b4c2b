#pragma once
// DeepSpeed's zero_optimization settings, from the user's real JSON file (`deepspeed_config =
// "ds.json"`) and from a scenario's [zero] table, which uses the same keys verbatim. Both feed
// ZeroEntries; apply_zero() validates them and resolves "auto" the way the Hugging Face Trainer
// does (from [training] and the model's hidden size), else DeepSpeed's defaults.
#include <map>
#include <optional>
#include <string>

#include "models/spec.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

// One key as written. Exactly one of number/flag/text is set, or is_auto.
struct ZeroEntry {
  std::optional<double> number;
  std::optional<bool> flag;
  std::optional<std::string> text;  // offload_*: the device ("cpu", "none", "nvme")
  bool is_auto = false;
  SourcePos pos;
};
using ZeroEntries = std::map<std::string, ZeroEntry>;

struct DeepSpeedSettings {
  ZeroEntries zero;  // zero_optimization.*, keyed by canonical_zero_key (stage3_ spelling)
  // Trainer-level keys that the scenario's [training] also sets: train_micro_batch_size_per_gpu,
  // gradient_accumulation_steps, bf16, fp16 (flag = enabled).
  ZeroEntries training;
};

// Every zero_optimization key DeepSpeed accepts (the closed schema of [zero]); the first ones
// change timing, the rest are accepted and do not.
const std::vector<std::string>& zero_keys();
// DeepSpeed accepts a field's name and its stage3_ alias alike (max_reuse_distance and
// stage3_max_reuse_distance): both map to the stage3_ spelling, so one overrides the other.
std::string canonical_zero_key(const std::string& key);
// Keys allowed inside offload_optimizer / offload_param tables.
const std::vector<std::string>& offload_keys();

// Reads `path`; `named_at` is where the scenario named it (for "cannot read"). JSON syntax
// errors, unknown zero_optimization keys and wrong types are UserErrors at the JSON's line:col.
DeepSpeedSettings read_deepspeed_json(const std::string& path, const std::string& shown_path,
                                      const SourcePos& named_at);

// Validates `zero` and applies it to spec.zero; applies `training` to spec.training where the
// scenario did not set the key (a different explicit value is an error). Records positions of
// the keys under "zero.<key>" and "training.<key>".
void apply_deepspeed(const DeepSpeedSettings& settings, models::ScenarioSpec& spec,
                     std::map<std::string, SourcePos>& positions);

}  // namespace scenarios
