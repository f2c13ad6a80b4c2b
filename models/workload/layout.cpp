// The parallel layout's checks, all in one place (see layout.hpp).
#include "models/workload/layout.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "models/error.hpp"

namespace models::workload {

namespace {
constexpr std::array kStrategies = {Strategy::Zero3, Strategy::Fsdp, Strategy::Ddp, Strategy::Megatron};

std::string str(int v) { return std::to_string(v); }
}  // namespace

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::Zero3: return "zero3";
    case Strategy::Fsdp: return "fsdp";
    case Strategy::Ddp: return "ddp";
    case Strategy::Megatron: return "megatron";
  }
  return "?";
}

std::optional<Strategy> parse_strategy(std::string_view name) {
  for (Strategy s : kStrategies)
    if (name == strategy_name(s)) return s;
  return std::nullopt;
}

ParallelLayout make_layout(const ScenarioSpec& spec, const ModelShape& model, int world_size) {
  const ParallelSpec& par = spec.parallel;
  const int n = world_size;
  ParallelLayout l;
  const auto strategy = parse_strategy(par.strategy);
  if (!strategy)
    throw SpecError("parallel.strategy",
                    "unknown strategy '" + par.strategy + "' (expected zero3, fsdp, ddp or megatron)");
  l.strategy = *strategy;
  if (l.strategy == Strategy::Megatron) {
    l.tp = std::max(1, par.tp);
    l.pp = std::max(1, par.pp);
    if (n % (l.tp * l.pp) != 0)
      throw SpecError("parallel.tp", "tp x pp = " + str(l.tp * l.pp) + " does not divide the " + str(n) +
                                         " GPUs (expected tp x pp to divide the GPU count)");
    l.dp = n / (l.tp * l.pp);
    if (par.dp != 0 && par.dp != l.dp)
      throw SpecError("parallel.dp", "tp x pp x dp = " + str(l.tp * l.pp * par.dp) + " but there are " + str(n) +
                                         " GPUs (expected dp = " + str(l.dp) + ", or 0 to derive it)");
    l.pipeline_micro_batches = par.micro_batches > 0 ? par.micro_batches : std::max(1, spec.training.grad_accum);
    if (model.layers % l.pp != 0)
      throw SpecError("parallel.pp", str(model.layers) + " layers do not split evenly into " + str(l.pp) +
                                         " pipeline stages (expected pp to divide the layer count)");
    if (model.heads % l.tp != 0)
      throw SpecError("parallel.tp", "tp = " + str(l.tp) + " does not divide the " + str(model.heads) +
                                         " attention heads (expected tp to divide the head count)");
    return l;
  }
  // Pure data parallelism over every rank.
  if (par.tp > 1 || par.pp > 1)
    throw SpecError("parallel.tp", "tp and pp need strategy = \"megatron\": " + par.strategy +
                                       " is pure data parallelism (expected strategy = \"megatron\", or tp = pp = 1)");
  if (par.dp != 0 && par.dp != n)
    throw SpecError("parallel.dp", "dp = " + str(par.dp) + " but there are " + str(n) +
                                       " GPUs (expected dp = " + str(n) + ", or 0 to derive it)");
  if (l.strategy == Strategy::Zero3 && spec.zero.stage != 3)
    throw SpecError("zero.stage",
                    "only ZeRO stage 3 is modelled (expected zero.stage = 3, or strategy ddp for plain data "
                    "parallelism)");
  l.dp = n;
  return l;
}

}  // namespace models::workload
