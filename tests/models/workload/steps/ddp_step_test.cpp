// DDP (ddp_step.cpp): gradients all-reduced in the Reducer's rebuilt buckets (whole tensors in
// backward order, closed at 1 MiB for the first, 25 MiB after) during the last micro-batch's
// backward only (no_sync before it), then AdamW.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/hw/gpu.hpp"
#include "models/workload/steps/data_parallel.hpp"

using namespace models::workload;
using models::nccl::CollOp;

namespace {
// The calibration decoder, data-parallel over 4 H200s, `accum` micro-batches per step.
DataParallelConfig decoder_on_four(int accum) {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  DataParallelConfig c;
  c.model = models::model::resolve_model(s);
  c.training.grad_accum = accum;
  c.dp = 4;
  c.rates = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  return c;
}
}  // namespace

TEST_CASE("ddp: all gradients all-reduced once per step in the Reducer's buckets, during the last backward",
          "[workload]") {
  const DataParallelConfig c = decoder_on_four(3);
  const Program p = build_ddp_program(c);
  std::vector<int64_t> sizes;
  for (const Op& o : p.ops[1])
    if (o.kind == OpKind::Collective) {
      CHECK(o.coll == CollOp::AllReduce);
      sizes.push_back(o.bytes);
    }
  REQUIRE(sizes.size() > 1);
  int64_t total = 0;
  for (int64_t b : sizes) total += b;
  CHECK(total == 2 * c.model.total_params());  // bf16 gradients, once per step
  // Each bucket holds whole tensors and closes at its limit: at least the limit, less than the
  // limit plus the largest tensor; the last (the flush after the first unit) may be smaller.
  int64_t largest = 0;
  for (const Unit& u : decoder_units(c.model, 4096, c.rates, Checkpointing{}, 0))
    for (int64_t t : unit_gradient_tensors(c.model, u)) largest = std::max(largest, 2 * t);
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    const int64_t limit = i == 0 ? int64_t{1} << 20 : int64_t{25} << 20;
    CHECK(sizes[i] >= limit);
    CHECK(sizes[i] < limit + largest);
  }
  CHECK(sizes.back() < (int64_t{25} << 20) + largest);
  // The head's matrix is the first gradient the backward produces, and alone it fills the first bucket.
  REQUIRE(2 * c.model.head_params() >= int64_t{1} << 20);
  CHECK(sizes[0] == 2 * c.model.head_params());
  // Micro-batches 0 and 1 run without synchronisation: the compute stream's first hand-off to
  // the communication stream comes after every one of their ops.
  size_t last_early = 0, first_join = p.ops[0].size();
  for (size_t i = 0; i < p.ops[0].size(); ++i) {
    const Op& o = p.ops[0][i];
    if (o.kind == OpKind::Record && first_join == p.ops[0].size()) first_join = i;
    if (o.kind == OpKind::Compute && (p.names[o.arg].rfind("mb0 ", 0) == 0 || p.names[o.arg].rfind("mb1 ", 0) == 0))
      last_early = i;
  }
  CHECK(last_early < first_join);
}

TEST_CASE("ddp: the gradient all-reduce moves the parameters' dtype: fp32 gradients of fp32 parameters under autocast",
          "[workload]") {
  DataParallelConfig c = decoder_on_four(1);
  auto all_reduced = [&] {
    int64_t total = 0;
    const auto program = build_ddp_program(c);  // kept: a range over a temporary's member would dangle
    for (const Op& o : program.ops[1])
      if (o.kind == OpKind::Collective) total += o.bytes;
    return total;
  };
  CHECK(all_reduced() == 2 * c.model.total_params());  // bf16 parameters, bf16 gradients
  c.training.param_dtype = "fp32";                     // bf16 compute, fp32 .grad (the Reducer's dtype)
  CHECK(all_reduced() == 4 * c.model.total_params());
  c.training.param_dtype = "bf16";
  CHECK(all_reduced() == 2 * c.model.total_params());
}

TEST_CASE(
    "ddp: the Reducer's copies into the buckets and back cost 2 x the gradients' bytes and a launch gap per further "
    "tensor each, in the last micro-batch only",
    "[workload]") {
  const DataParallelConfig c = decoder_on_four(2);
  const Program p = build_ddp_program(c);
  const auto copy = [&](int64_t params, int tensors) {
    return sim::Time::from_seconds(memory_seconds(c.rates, models::compute::MemKernel::Elementwise, 2.0 * params * 2) +
                                   (tensors - 1) * c.rates.gpu.launch_gap_s);
  };
  int tensors = 0;
  for (const Unit& u : decoder_units(c.model, 4096, c.rates, Checkpointing{}, 0))
    tensors += int(unit_gradient_tensors(c.model, u).size());
  int into = 0, back = 0;
  for (const Op& o : p.ops[0]) {
    if (o.kind != OpKind::Compute) continue;
    const std::string& name = p.names[o.arg];
    if (name.rfind("mb1 bucket copy ", 0) == 0) {
      ++into;
      const std::string unit = name.substr(std::string("mb1 bucket copy ").size());
      for (const Unit& u : decoder_units(c.model, 4096, c.rates, Checkpointing{}, 0))
        if (u.name == unit) CHECK(o.duration == copy(u.params, int(unit_gradient_tensors(c.model, u).size())));
    }
    CHECK(name.rfind("mb0 bucket copy", 0) != 0);  // no_sync: no bucket on the first micro-batch
    if (name == "buckets copied to grads") {
      ++back;
      CHECK(o.duration == copy(c.model.total_params(), tensors));
    }
  }
  CHECK(into == int(decoder_units(c.model, 4096, c.rates, Checkpointing{}, 0).size()));
  CHECK(back == 1);
}

TEST_CASE("ddp: one rank is the plain step, without the Reducer's buckets, copies or all-reduces", "[workload]") {
  DataParallelConfig c = decoder_on_four(2);
  c.dp = 1;
  const Program p = build_ddp_program(c);
  for (const Op& o : p.ops[1]) CHECK(o.kind != OpKind::Collective);
  for (const Op& o : p.ops[0])
    if (o.kind == OpKind::Compute) CHECK(p.names[o.arg].find("bucket") == std::string::npos);
}
