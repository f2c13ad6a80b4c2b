// The Trainer's fsdp argument -> a strategy (see fsdp_option.hpp). The options and their checks
// follow transformers' TrainingArguments.__post_init__ (FSDPOption; "offload" alone and
// full_shard with shard_grad_op are refused there too).
#include "scenarios/import/fsdp_option.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace scenarios {

FsdpChoice fsdp_choice(const std::string& value) {
  FsdpChoice out;
  std::string text = value;
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text.empty() || text == "false" || text == "0") return out;
  if (text == "true" || text == "1") text = "full_shard";  // TrainingArguments: fsdp=True is full_shard
  static const std::vector<std::string> kOptions = {"full_shard",         "shard_grad_op", "no_shard", "hybrid_shard",
                                                    "hybrid_shard_zero2", "offload",       "auto_wrap"};
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    if (std::find(kOptions.begin(), kOptions.end(), w) == kOptions.end()) {
      out.error = "'" + w +
                  "' is not an FSDP option (expected full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, "
                  "no_shard, offload or auto_wrap, as the Trainer takes them)";
      return out;
    }
    words.push_back(w);
  }
  auto has = [&](const char* w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  const int sharding =
      has("full_shard") + has("shard_grad_op") + has("no_shard") + has("hybrid_shard") + has("hybrid_shard_zero2");
  if (sharding > 1) {
    out.error = "'" + value + "' names more than one sharding (expected one of full_shard, shard_grad_op, " +
                "hybrid_shard, hybrid_shard_zero2, no_shard, as the Trainer requires)";
    return out;
  }
  if (sharding == 0) {
    out.error = "'" + value + "' names no sharding (expected full_shard, shard_grad_op, hybrid_shard, " +
                "hybrid_shard_zero2 or no_shard: the Trainer refuses offload or auto_wrap alone)";
    return out;
  }
  const bool offload = has("offload");
  if (has("full_shard")) {
    out.strategy = "fsdp";
    out.why = "full_shard: FSDP, every parameter sharded";
  } else if (has("shard_grad_op")) {
    out.strategy = "zero2";
    out.offload_optimizer = offload;
    out.why =
        "shard_grad_op: parameters kept gathered through backward, gradients and optimizer state sharded, "
        "simulated as ZeRO-2's collectives";
  } else if (has("hybrid_shard") || has("hybrid_shard_zero2")) {
    out.strategy = "hsdp";
    out.why = std::string(has("hybrid_shard") ? "hybrid_shard" : "hybrid_shard_zero2") +
              ": sharded within a node, replicated across nodes";
    if (has("hybrid_shard_zero2"))
      out.notes.push_back("fsdp hybrid_shard_zero2: simulated as hsdp, its parameters resharded after forward");
  } else {
    out.strategy = "ddp";
    out.why = "no_shard: every rank holds the whole model, gradients all-reduced";
  }
  if (offload && !out.offload_optimizer)
    out.notes.push_back("fsdp offload: FSDP's CPU offload is not modelled for " + out.strategy +
                        "; the step is simulated without it");
  if (offload && out.offload_optimizer) out.why += ", optimizer offloaded to the CPU (offload)";
  return out;
}

}  // namespace scenarios
