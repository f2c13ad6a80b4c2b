// The rotary embedding and the key/value heads' copies on one H100, out of sample: the kernels
// torchtitan and Hugging Face transformers run for them at Llama 3.1 8B's attention (32 query and 8
// key/value heads of 128, 8,192 tokens; scenarios/validation/h100x1/measured/rope_gqa.jsonl,
// bench/device/compute/rope_gqa.py) against models/workload/model_code.hpp's prices: bytes read
// from the code at the kinds' rates measured on an H200 (models/compute/kernels.hpp) and carried to
// the H100 by the transfer rule. Nothing was fitted on these rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "models/hw/gpu.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/model_code.hpp"
#include "tests/validation/jsonl_rows.hpp"

using namespace models::workload;

namespace {
const std::string kRows = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h100x1/measured/rope_gqa.jsonl";

models::model::ModelShape llama_8b() {
  models::ModelSpec s;
  s.preset = "llama-3.1-8b";
  return models::model::resolve_model(s);
}

// The tokens of a row's shape ("1x8192": one sequence of 8,192).
int64_t tokens_of(const std::string& shape) {
  const size_t x = shape.find('x');
  return std::stoll(shape.substr(0, x)) * std::stoll(shape.substr(x + 1));
}
}  // namespace

TEST_CASE("h100x1 rope and repeat_kv: each forward and backward within 25 %, their sum within 10 %", "[validation]") {
  const models::model::ModelShape m = llama_8b();
  const std::pair<const char*, RopeKernels> ropes[] = {{"rope_complex", RopeKernels::Complex},
                                                       {"rope_rotate_half", RopeKernels::RotateHalf}};
  int checked = 0;
  for (const auto& j : validation::jsonl_rows(kRows, "rope_gqa")) {
    const std::string op = j["op"];
    ComputeRates r = make_rates(models::hw::find_gpu("H100"), models::compute::Precision::Bf16, 300e9, 0, {});
    r.gpu.launch_gap_s = 0;  // the microbenchmark queues its kernels back to back: no host gaps between them
    double fwd = 0, bwd = 0;
    if (op == "repeat_kv_bshd") {
      r.code = {RopeKernels::Fused, true};
      const RopeSeconds s = rope_seconds(m, tokens_of(j["shape"]), 1, r);
      fwd = s.kv_copy_fwd, bwd = s.kv_copy_bwd;
    } else {
      bool known = false;
      for (const auto& [name, kernels] : ropes)
        if (op == name) {
          r.code = {kernels, false};
          const RopeSeconds s = rope_seconds(m, tokens_of(j["shape"]), 1, r);
          fwd = s.rope_fwd, bwd = s.rope_bwd, known = true;
        }
      if (!known) continue;  // the other copies and the attention rows (README.md there)
    }
    const double mf = j["fwd_s"], mb = j["bwd_s"];
    INFO(op << " " << j["shape"].get<std::string>() << ": forward " << fwd * 1e6 << " us against " << mf * 1e6
            << ", backward " << bwd * 1e6 << " us against " << mb * 1e6);
    // Apart, the copies miss most (forward +22 %, backward -22 %): a copy out of a broadcast view
    // runs faster than the strided-copy rate, and the sum over each group slower than elementwise.
    CHECK(std::abs(fwd / mf - 1) < 0.25);
    CHECK(std::abs(bwd / mb - 1) < 0.25);
    CHECK(std::abs((fwd + bwd) / (mf + mb) - 1) < 0.10);
    WARN(op << " " << j["shape"].get<std::string>() << ": fwd+bwd " << (fwd + bwd) * 1e6 << " us modelled, "
            << (mf + mb) * 1e6 << " measured (" << 100 * ((fwd + bwd) / (mf + mb) - 1) << " %)");
    ++checked;
  }
  CHECK(checked == 6);
}
