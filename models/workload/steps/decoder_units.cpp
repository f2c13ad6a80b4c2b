// The units of a decoder step and their compute (decoder_units.hpp); seconds from compute.hpp.
#include "models/workload/steps/decoder_units.hpp"

#include "models/workload/steps/data_parallel.hpp"

namespace models::workload {

std::vector<Unit> decoder_units(const model::ModelShape& m, int64_t tokens, const ComputeRates& rates,
                                Checkpointing checkpointing, double persistence_threshold, int tp,
                                double max_reuse_distance) {
  using sim::Time;
  auto secs = [](double s) { return Time::from_seconds(s); };
  std::vector<Unit> units;
  // Embedding: a lookup (no FLOPs); its backward is a scatter-add of the same size (negligible).
  // A tensor persists (is never gathered) at or below the threshold (data_parallel.hpp
  // zero3_persists): the norms, the biases (model/model_shape.hpp block_tensors); anything with a
  // threshold as large as the tensor.
  auto gathered_of = [&](int64_t numel) { return zero3_persists(numel, persistence_threshold) ? 0 : numel; };
  Unit emb{"embed",
           m.embedding_params(),
           gathered_of(int64_t(m.vocab) * m.hidden) + (m.position_params() > 0 ? gathered_of(m.position_params()) : 0),
           {},
           {},
           {},
           false};
  units.push_back(emb);
  const int64_t h = m.hidden;
  int64_t gathered = 0;
  for (int64_t p : m.block_tensors()) gathered += gathered_of(p);
  const bool recomputes = checkpointing.rerun != Checkpointing::Rerun::Nothing;
  const int64_t regathered =
      recomputes ? zero3_regathered_params(m, persistence_threshold, max_reuse_distance) / tp : 0;
  const BlockSeconds block = block_seconds(m, tokens, tp, rates);  // models/workload/compute.hpp
  for (int l = 0; l < m.layers; ++l) {
    Unit u{"L" + std::to_string(l),
           m.block_params(),
           gathered,
           secs(block.fwd()),
           secs(block.bwd()),
           !checkpointing.checkpoints(l) ? Time::zero()
           : checkpointing.rerun == Checkpointing::Rerun::PerOp
               ? secs(block.fwd_op_rerun)
               : secs(block.recompute(checkpointing.rerun == Checkpointing::Rerun::UntilLastSaved)),
           true,
           checkpointing.checkpoints(l) ? regathered : 0};
    units.push_back(u);
  }
  // Final norm + head + loss (replicated on every TP rank; the loss split evenly between the
  // forward and the backward: compute.hpp head_seconds).
  const HeadSeconds head = head_seconds(m, tokens, 1, rates);
  const int64_t head_params = m.head_params() + m.final_norm_params();
  Unit hd{"head",
          head_params,
          (m.head_params() > 0 ? gathered_of(m.head_params()) : 0) + (gathered_of(h) > 0 ? m.final_norm_params() : 0),
          secs(head.fwd.total()),
          secs(head.bwd.total()),
          Time::zero(),
          false};
  units.push_back(hd);
  return units;
}

std::vector<int64_t> unit_gradient_tensors(const model::ModelShape& m, const Unit& u) {
  std::vector<int64_t> t;
  if (u.block) {
    const std::vector<int64_t> fwd = m.block_tensors();  // forward order; the backward reverses it
    t.assign(fwd.rbegin(), fwd.rend());
  } else if (u.name == "head") {
    t = {m.head_params(), m.final_norm_params()};
  } else {
    t = {u.params};
  }
  int64_t sum = 0;
  for (int64_t x : t) sum += x;
  if (sum != u.params) return {u.params};  // a shape these tensors do not describe: one tensor
  return t;
}

}  // namespace models::workload
