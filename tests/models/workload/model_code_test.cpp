// The attention's work around its kernel by model code (models/workload/model_code.hpp): each
// rotary kernel's closed form, repeat_kv's copies, the strategies' defaults, and the block's sum.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/hw/gpu.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/model_code.hpp"

using namespace models::workload;
using models::compute::MemKernel;
using models::compute::Precision;

namespace {
models::model::ModelShape llama_8b(int seq = 8192) {
  models::ModelSpec s;
  s.preset = "llama-3.1-8b";
  s.seq = seq;
  return models::model::resolve_model(s);
}
ComputeRates h100_with(RopeKernels rope, bool repeat_kv) {
  ComputeRates r = make_rates(models::hw::find_gpu("H100"), Precision::Bf16, 300e9, 0, {});
  r.code = {rope, repeat_kv};
  return r;
}
}  // namespace

TEST_CASE("model code: each rotary kernel's bytes and launches at its kinds' rates", "[workload]") {
  const models::model::ModelShape m = llama_8b();
  const int64_t T = 8192;
  const double n = double(T) * (4096 + 1024), e = 2;  // 32 query and 8 key heads of 128, bf16
  auto mem = [](const ComputeRates& r, MemKernel k, double bytes, int launches) {
    return memory_seconds(r, k, bytes, launches);
  };
  SECTION("fused: read and write each element once per direction, one kernel per tensor") {
    const ComputeRates r = h100_with(RopeKernels::Fused, false);
    const RopeSeconds s = rope_seconds(m, T, 1, r);
    CHECK(s.rope_fwd == Approx(mem(r, MemKernel::Elementwise, 2 * e * n, 2)));
    CHECK(s.rope_bwd == Approx(s.rope_fwd));
    CHECK(s.kv_copy_fwd == 0);
  }
  SECTION("complex: a cast up, a complex multiply and a cast down per tensor") {
    const ComputeRates r = h100_with(RopeKernels::Complex, false);
    const RopeSeconds s = rope_seconds(m, T, 1, r);
    CHECK(s.rope_fwd == Approx(mem(r, MemKernel::CastUp, 6 * n, 2) + mem(r, MemKernel::Elementwise, 14 * n, 4)));
    CHECK(s.rope_bwd == Approx(s.rope_fwd));
  }
  SECTION("rotate_half: five kernels forward, nine backward, the layout-mixing ones strided") {
    const ComputeRates r = h100_with(RopeKernels::RotateHalf, false);
    const RopeSeconds s = rope_seconds(m, T, 1, r);
    CHECK(s.rope_fwd == Approx(mem(r, MemKernel::Elementwise, 10 * n, 6) + mem(r, MemKernel::StridedCopy, 10 * n, 4)));
    CHECK(s.rope_bwd == Approx(mem(r, MemKernel::Elementwise, 18 * n, 14) + mem(r, MemKernel::StridedCopy, 12 * n, 4)));
    // The eager kernels cost more than one fused pass.
    CHECK(s.rope_fwd > 3 * rope_seconds(m, T, 1, h100_with(RopeKernels::Fused, false)).rope_fwd);
  }
  SECTION("tensor parallelism splits the heads") {
    const ComputeRates r = h100_with(RopeKernels::Fused, false);
    CHECK(rope_seconds(m, T, 4, r).rope_fwd == Approx(mem(r, MemKernel::Elementwise, 2 * e * n / 4, 2)));
  }
}

TEST_CASE("model code: repeat_kv copies k and v to every query head, and only with grouped heads", "[workload]") {
  const int64_t T = 8192;
  const ComputeRates r = h100_with(RopeKernels::Fused, true);
  const RopeSeconds s = rope_seconds(llama_8b(), T, 1, r);
  const double bytes = 2 * 2.0 * T * (1024 + 4096);  // k and v: read 8 heads, write 32 (bf16)
  CHECK(s.kv_copy_fwd == Approx(memory_seconds(r, MemKernel::StridedCopy, bytes, 2)));
  CHECK(s.kv_copy_bwd == Approx(memory_seconds(r, MemKernel::Elementwise, bytes, 2)));
  models::ModelSpec mha;  // multi-head attention: nothing to copy
  mha.preset = "llama-2-7b";
  CHECK(rope_seconds(models::model::resolve_model(mha), T, 1, r).kv_copy_fwd == 0);
}

TEST_CASE("model code: no rotary embedding without rotary positions, and MLA rotates its rope dimensions",
          "[workload]") {
  const ComputeRates r = h100_with(RopeKernels::Fused, true);
  models::ModelSpec calib;  // the calibration decoder has no position encoding
  calib.preset = "h200x4-decoder";
  const RopeSeconds none = rope_seconds(models::model::resolve_model(calib), 4096, 1, r);
  CHECK(none.rope_fwd == 0);
  CHECK(none.rope_bwd == 0);
  models::ModelSpec gpt2;  // learned positions
  gpt2.preset = "gpt2";
  gpt2.seq = 1024;
  CHECK(rope_seconds(models::model::resolve_model(gpt2), 1024, 1, r).rope_fwd == 0);
  models::ModelSpec ds;
  ds.preset = "deepseek-v3";
  const models::model::ModelShape m = models::model::resolve_model(ds);
  const double n = 4096.0 * (128 * 64 / 8 + 64);  // 128 query heads' 64 rope dimensions over tp 8, one shared key head
  CHECK(rope_seconds(m, 4096, 8, r).rope_fwd == Approx(memory_seconds(r, MemKernel::Elementwise, 2 * 2 * n, 2)));
  CHECK(rope_seconds(m, 4096, 8, r).kv_copy_fwd == 0);  // MLA has no grouped heads to copy
}

TEST_CASE("model code: each strategy's framework by default, training.rope and repeat_kv when set", "[workload]") {
  models::TrainingSpec t;
  CHECK(attention_code(t, Strategy::Megatron).rope == RopeKernels::Fused);
  CHECK(attention_code(t, Strategy::Zero3).rope == RopeKernels::RotateHalf);
  CHECK(attention_code(t, Strategy::Zero1).rope == RopeKernels::RotateHalf);
  CHECK(attention_code(t, Strategy::Fsdp).rope == RopeKernels::Complex);
  CHECK(attention_code(t, Strategy::Ddp).rope == RopeKernels::Complex);
  CHECK_FALSE(attention_code(t, Strategy::Fsdp).repeat_kv);
  t.rope = "fused";
  t.repeat_kv = true;
  CHECK(attention_code(t, Strategy::Zero3).rope == RopeKernels::Fused);
  CHECK(attention_code(t, Strategy::Zero3).repeat_kv);
  t.rope = "sincos";
  CHECK_THROWS_AS(attention_code(t, Strategy::Fsdp), models::SpecError);
}

TEST_CASE("model code: the block adds the rotary embedding and copies to its attention half", "[workload]") {
  const models::model::ModelShape m = llama_8b(4096);
  const ComputeRates fused = h100_with(RopeKernels::Fused, false), eager = h100_with(RopeKernels::Complex, true);
  const BlockSeconds a = block_seconds(m, 4096, 1, fused), b = block_seconds(m, 4096, 1, eager);
  const RopeSeconds ra = rope_seconds(m, 4096, 1, fused), rb = rope_seconds(m, 4096, 1, eager);
  CHECK(b.attn_fwd.memory - a.attn_fwd.memory == Approx(rb.rope_fwd + rb.kv_copy_fwd - ra.rope_fwd));
  CHECK(b.attn_bwd.memory - a.attn_bwd.memory == Approx(rb.rope_bwd + rb.kv_copy_bwd - ra.rope_bwd));
  CHECK(b.mlp_fwd.total() == Approx(a.mlp_fwd.total()));
  CHECK(a.attn_fwd.gemm == Approx(b.attn_fwd.gemm));
}
