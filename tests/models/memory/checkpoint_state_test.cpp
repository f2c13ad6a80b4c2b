// What a checkpoint saves per parameter (models/memory/checkpoint_state.hpp): each strategy's
// weights, master copy and Adam moments in their dtypes, and the same states the memory model holds.
#include "models/memory/checkpoint_state.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "models/memory/memory_peak.hpp"

using namespace models::memory;
using models::workload::Strategy;

namespace {
MemoryInputs checkpoint_inputs(Strategy s, int compute_bytes = 2) {
  MemoryInputs in;
  models::ModelSpec spec;
  spec.preset = "llama-3-8b";
  in.model = models::model::resolve_model(spec);
  in.strategy = s;
  in.compute_bytes = in.param_bytes = compute_bytes;
  return in;
}

double optimizer_term(const MemoryInputs& in, const char* name) {
  for (const Phase& p : estimate_rank(in).phases)
    if (std::string(p.name) == "optimizer")
      for (const Term& t : p.terms)
        if (std::string(t.name) == name) return t.bytes;
  return 0;
}
}  // namespace

TEST_CASE("checkpoint: torch AdamW strategies save the parameters and m, v in their dtype", "[models]") {
  for (Strategy s : {Strategy::Fsdp, Strategy::Hsdp, Strategy::Ddp}) {
    MemoryInputs in = checkpoint_inputs(s);
    CHECK(checkpoint_state_bytes(in).total() == 6);  // bf16: 2 + 2 + 2
    CHECK(checkpoint_state_bytes(in).master == 0);
    in.param_bytes = 4;  // fp32 parameters, bf16 compute: 4 + 4 + 4
    CHECK(checkpoint_state_bytes(in).total() == 12);
    in.param_bytes = 2;
    in.optimizer_bytes = 4;  // training.optimizer_dtype = fp32: 2 + 4 + 4
    CHECK(checkpoint_state_bytes(in).total() == 10);
  }
}

TEST_CASE("checkpoint: DeepSpeed saves its weights, fp32 master, m and v (ZeRO's 2 + 12, 4 + 12 in fp32)", "[models]") {
  for (Strategy s : {Strategy::Zero1, Strategy::Zero2, Strategy::Zero3}) {
    CHECK(checkpoint_state_bytes(checkpoint_inputs(s)).total() == 14);
    CHECK(checkpoint_state_bytes(checkpoint_inputs(s, 4)).total() == 16);  // the master is cloned in fp32 too
    MemoryInputs bf16_moments = checkpoint_inputs(s);
    bf16_moments.optimizer_bytes = 2;
    CHECK(checkpoint_state_bytes(bf16_moments).total() == 2 + 4 + 4);
  }
}

TEST_CASE("checkpoint: Megatron-LM saves 14 B under bf16 and fp16, 12 in fp32, no master with param_dtype",
          "[models]") {
  MemoryInputs in = checkpoint_inputs(Strategy::Megatron);
  CHECK(checkpoint_state_bytes(in).total() == 14);
  in.fp16 = true;  // the fp32 main gradient copy is not saved
  CHECK(checkpoint_state_bytes(in).total() == 14);
  CHECK(checkpoint_state_bytes(checkpoint_inputs(Strategy::Megatron, 4)).total() == 12);
  in = checkpoint_inputs(Strategy::Megatron);
  in.optimizer_bytes = 2;  // precision-aware optimizer, bf16 m and v: 2 + 4 + 2 + 2
  CHECK(checkpoint_state_bytes(in).total() == 10);
  in = checkpoint_inputs(Strategy::Megatron);
  in.megatron_without_master = true;  // training.param_dtype = bf16: 2 + 2 + 2
  CHECK(checkpoint_state_bytes(in).total() == 6);
}

TEST_CASE("checkpoint: the bytes saved are the states the memory model holds, unsharded", "[models]") {
  // One rank of DDP, and the non-distributed Megatron optimizer on one stage, hold every parameter:
  // their weights and optimizer states per parameter are what a checkpoint saves.
  MemoryInputs ddp = checkpoint_inputs(Strategy::Ddp);
  const double p = rank_params(ddp);
  CHECK((optimizer_term(ddp, "weights") + optimizer_term(ddp, "optimizer_states")) / p ==
        Approx(checkpoint_state_bytes(ddp).total()));
  ddp.optimizer_bytes = 4;
  CHECK((optimizer_term(ddp, "weights") + optimizer_term(ddp, "optimizer_states")) / p ==
        Approx(checkpoint_state_bytes(ddp).total()));
  MemoryInputs megatron = checkpoint_inputs(Strategy::Megatron);
  CHECK((optimizer_term(megatron, "weights") + optimizer_term(megatron, "optimizer_states")) / rank_params(megatron) ==
        Approx(checkpoint_state_bytes(megatron).total()));
}
