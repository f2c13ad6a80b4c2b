// The memory estimate of a mixture-of-experts model (models/memory/memory_peak.hpp, strategy megatron)
// against torch.cuda.max_memory_allocated of small MoE decoders trained on one H100 with Megatron's
// model states (bench/device/memory/moe_memory_peaks.py; scenarios/validation/h100x1/measured/
// moe_memory.jsonl, README.md there): 11 runs, 5 shapes (8 or 16 experts, top 2 or 4, every layer
// or every second layer MoE, hidden 2048 or 4096), micro-batch 1-4, with and without full
// recompute. Each run is the shipped scenario scenarios/validation/h100x1/moe_<shape>.toml with
// training.micro_batch and training.recompute set as measured, through the loader and run_scenario.
// Nothing is fitted: the terms are memory_terms.hpp's closed forms. The measured peak is the caching
// allocator's allocated bytes, so the estimate's framework_overhead (CUDA context, libraries) and
// nccl_buffers (none on one GPU) are left out of the comparison.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/run/run.hpp"
#include "models/model/model_shape.hpp"
#include "scenarios/load/loader.hpp"

namespace {

double term(const models::MemoryResult& m, const char* name) {
  for (const auto& t : m.terms)
    if (t.name == name) return t.bytes;
  return 0;
}

}  // namespace

TEST_CASE("h100x1 moe: memory peaks of 11 MoE runs on one H100 within the stated tolerance", "[validation]") {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/";
  std::ifstream f(dir + "measured/moe_memory.jsonl");
  REQUIRE(f);
  std::string line;
  int runs = 0;
  double worst = 0;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    if (j.value("kind", "") != "moe_memory" || j.value("oom", false)) continue;
    const bool ckpt = j["ckpt"].get<bool>();
    const auto loaded = scenarios::load_scenario(dir + "moe_" + j["shape"].get<std::string>() + ".toml",
                                                 {"training.micro_batch=" + std::to_string(j["micro_batch"].get<int>()),
                                                  std::string("training.recompute=") + (ckpt ? "full" : "none")});
    // The scenario is the measured model: the same parameter count, to the parameter.
    CHECK(models::model::resolve_model(*loaded.spec.model).total_params() == j["params_count"].get<int64_t>());
    const models::RunResult res = models::run_scenario(loaded.spec);
    REQUIRE(res.memory.estimated);
    const models::MemoryResult& m = res.memory;
    const double estimate = m.peak_bytes - term(m, "framework_overhead") - term(m, "nccl_buffers");
    const double measured = j["peak"].get<double>();
    const double err = estimate / measured - 1;
    INFO(j["shape"].get<std::string>() << " micro-batch " << j["micro_batch"] << (ckpt ? " full recompute" : "")
                                       << ": estimate " << estimate / 1e9 << " GB (" << m.phase << "), measured "
                                       << measured / 1e9 << " GB, " << 100 * err << " %");
    CHECK(m.phase == "forward_backward");
    // Model states: 18 B per parameter (Megatron's bf16 weights, fp32 main gradients, fp32 master
    // and Adam moments); measured as memory_allocated at the step's start.
    CHECK(term(m, "weights") + term(m, "gradients") + term(m, "optimizer_states") ==
          Approx(j["step3"]["m0"].get<double>()).epsilon(0.003));
    // Activations after forward and loss: the blocks' and final norm's, and 6 of the logits' 14 B
    // per entry (bf16 logits, fp32 log-softmax).
    CHECK(term(m, "activations") + term(m, "logits") * 6 / 14 ==
          Approx(j["step3"]["act_fwd"].get<double>()).epsilon(0.012));
    // Full recompute too: the recomputed block counts only beyond the logits (memory_peak.hpp).
    CHECK(std::abs(err) < 0.005);
    worst = std::max(worst, std::abs(err));
    ++runs;
  }
  CHECK(runs == 11);
  WARN("h100x1 moe memory: " << runs << " runs, worst peak error " << 100 * worst << " %");
}
