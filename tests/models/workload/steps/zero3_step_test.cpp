// DeepSpeed ZeRO-3 (zero3_step.cpp): the offloaded host step's thread model, the checkpointed
// re-gather rule (stage3_max_reuse_distance), prefetch depth, reduce buckets, parameter offload.
#include <catch2/catch.hpp>

#include "models/hw/gpu.hpp"
#include "models/params.hpp"
#include "models/workload/steps/data_parallel.hpp"

using namespace models::workload;

namespace {
models::model::ModelShape llama8b() {
  models::ModelSpec s;
  s.preset = "llama-3-8b";
  return models::model::resolve_model(s);
}
ComputeRates p4d_rates() {
  // p4d.24xlarge host: 2 sockets x 6 channels DDR4-2933 = 281.6 GB/s (models/hw/instance.cpp).
  return make_rates(models::hw::find_gpu("A100-40GB"), models::compute::Precision::Bf16, 281.6e9, 0, {});
}
}  // namespace

TEST_CASE("workload: offloaded ZeRO-3 step is one thread per rank under torchrun, host-bound alone", "[workload]") {
  const ComputeRates r = p4d_rates();
  const double shard = 8030261248.0 / 4;
  // torchrun with 4 processes (OMP_NUM_THREADS=1): t = shard x 42 B / min(core, host/4)
  //   = 2.0e9 x 42 / 12e9 = 7.03 s (one core, 12 GB/s, is below 281.6 x 0.4 / 4 = 28.2 GB/s).
  CHECK(zero3_host_step_seconds(shard, 4, 4, r) == Approx(shard * 42 / 12e9).epsilon(1e-9));
  // One process per pod, 4 pods on the host: every core, the host's bandwidth shared by 4:
  //   t = shard x 42 / (281.6e9 x 0.4 / 4) = 2.99 s.
  CHECK(zero3_host_step_seconds(shard, 1, 4, r) == Approx(shard * 42 / (281.6e9 * 0.4 / 4)).epsilon(1e-9));
  // A lone rank on its host (ZeRO-Offload's setting): 8e9 x 42 / 112.6e9 = 3.0 s for 8B params.
  CHECK(zero3_host_step_seconds(8e9, 1, 1, r) == Approx(8e9 * 42 / (281.6e9 * 0.4)).epsilon(1e-9));
  // training.cpu_threads (OMP_NUM_THREADS set by the user) overrides torchrun's rule:
  // 1 thread in a single-process pod = the torchrun case; 2 threads per rank under torchrun
  // = min(2 x 12 GB/s, 28.2 GB/s) = 24 GB/s.
  CHECK(zero3_host_step_seconds(shard, 1, 4, r, 1) == Approx(shard * 42 / 12e9).epsilon(1e-9));
  CHECK(zero3_host_step_seconds(shard, 4, 4, r, 2) == Approx(shard * 42 / 24e9).epsilon(1e-9));
  CHECK(zero3_host_step_seconds(shard, 4, 4, r, 64) == Approx(shard * 42 / (281.6e9 * 0.4 / 4)).epsilon(1e-9));
}

TEST_CASE("workload: checkpointed blocks re-gather what stage3_max_reuse_distance releases", "[workload]") {
  const models::model::ModelShape m = llama8b();
  const ComputeRates r = p4d_rates();
  const int64_t h = m.hidden, ffn = m.ffn;
  // 1e8: module i is released after its recompute when 2 x (params after it) >= 1e8. Only
  // down_proj (nothing after it) stays: q + k + v + o + gate + up come back for the backward.
  auto u8 = decoder_units(m, 2048, r, Checkpointing{Checkpointing::Rerun::WholeForward}, 40960, 1, 1e8);
  CHECK(u8[1].regathered == 2 * h * h + 2 * h * m.kv_dim() + 2 * h * ffn);
  // DeepSpeed's default 1e9 keeps every module (2 x 201M < 1e9): no second gather.
  auto u9 = decoder_units(m, 2048, r, Checkpointing{Checkpointing::Rerun::WholeForward}, 40960, 1, 1e9);
  CHECK(u9[1].regathered == 0);
  // Without checkpointing there is no recompute, so nothing is released in between.
  auto un = decoder_units(m, 2048, r, Checkpointing{}, 40960, 1, 1e8);
  CHECK(un[1].regathered == 0);
}

namespace {
models::model::ModelShape decoder_zero3_step() {
  models::ModelSpec s;
  s.preset = "h200x4-decoder";
  return models::model::resolve_model(s);
}
DataParallelConfig zero3(int dp) {
  DataParallelConfig c;
  c.model = decoder_zero3_step();
  c.training.micro_batch = 1;
  c.dp = dp;
  c.rates = make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
  return c;
}
// Collectives of a program (every stream), in stream then issue order.
std::vector<const Op*> collectives_zero3_step(const Program& p, models::nccl::CollOp op) {
  std::vector<const Op*> out;
  for (const auto& stream : p.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Collective && o.coll == op) out.push_back(&o);
  return out;
}
}  // namespace

TEST_CASE("zero3: prefetch depth is 1 + units in stage3_prefetch_bucket_size, capped by live parameters",
          "[workload]") {
  models::ZeroSpec z;
  z.stage3_prefetch_bucket_size = 5e7;
  z.stage3_max_live_parameters = 1e9;
  CHECK(zero3_prefetch_depth(z, 20'000'000) == 1 + 2);  // floor(5e7 / 2e7) = 2 whole units
  CHECK(zero3_prefetch_depth(z, 60'000'000) == 1);      // the next unit is always fetched
  z.stage3_max_live_parameters = 4e7;
  CHECK(zero3_prefetch_depth(z, 20'000'000) == 2);  // floor(4e7 / 2e7)
  z.stage3_max_live_parameters = 1e6;
  CHECK(zero3_prefetch_depth(z, 20'000'000) == 1);  // never below 1
  CHECK(zero3_prefetch_depth(z, 0) == 1);
}

TEST_CASE("zero3: every gradient is reduce-scattered once per micro-batch, bucket by bucket", "[workload]") {
  // reduce_bucket_size = one block's parameters: every unit (the head and embedding are larger)
  // fills the bucket by itself and is reduced at once: U reduce-scatters of params x 2 bytes.
  DataParallelConfig c = zero3(4);
  c.training.grad_accum = 2;
  c.zero.reduce_bucket_size = double(c.model.block_params());
  const Program p = build_zero3_program(c);
  const int units = c.model.layers + 2;
  const auto rs = collectives_zero3_step(p, models::nccl::CollOp::ReduceScatter);
  CHECK(rs.size() == 2u * units);
  int64_t bytes = 0;
  for (const Op* o : rs) bytes += o->bytes;
  CHECK(bytes == 2 * 2 * c.model.total_params());  // 2 micro-batches x bf16
}

TEST_CASE("zero3: a reduce bucket is flushed before a gradient would overflow it", "[workload]") {
  // stage3.py __add_grad_to_ipg_bucket reduces the bucket before a tensor that would take it past
  // reduce_bucket_size joins: at 1.5 blocks, no bucket holds more (whole blocks added until the
  // bucket is full would make 2-block buckets), unless one tensor alone is larger (a head or
  // embedding matrix).
  DataParallelConfig c = zero3(4);
  const double limit = 1.5 * double(c.model.block_params());
  c.zero.reduce_bucket_size = limit;
  const Program p = build_zero3_program(c);
  int64_t bytes = 0;
  const int64_t largest_tensor = std::max(c.model.head_params(), c.model.embedding_params());
  for (const Op* o : collectives_zero3_step(p, models::nccl::CollOp::ReduceScatter)) {
    const double params = double(o->bytes) / 2;
    CHECK((params <= limit || params == double(largest_tensor)));
    bytes += o->bytes;
  }
  CHECK(bytes == 2 * c.model.total_params());  // every gradient once, bf16
  // A gradient larger than the bucket is reduced where it is, not copied into the bucket first
  // (stage3.py copies only one that fits): with a bucket below every matrix, the embedding unit
  // (one matrix) has no copy at all.
  c.zero.reduce_bucket_size = 1e6;
  const Program small = build_zero3_program(c);
  int embed_copies = 0, copies = 0;
  for (const auto& stream : small.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Compute && small.names[o.arg].rfind("ipg copy", 0) == 0) {
        ++copies;
        embed_copies += small.names[o.arg] == "ipg copy embed";
      }
  CHECK(copies > 0);  // the blocks' norms fit
  CHECK(embed_copies == 0);
}

TEST_CASE("zero3: offload_param copies each rank's shard host->GPU before every all-gather", "[workload]") {
  DataParallelConfig c = zero3(4);
  c.zero.offload_param = "cpu";
  const Program p = build_zero3_program(c);
  const auto ag = collectives_zero3_step(p, models::nccl::CollOp::AllGather);
  int64_t gathered = 0, copied = 0, copies = 0;
  for (const Op* o : ag) gathered += o->bytes;
  for (const auto& stream : p.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Copy && o.slot == uint8_t(CopyDir::HostToGpu) &&
          p.names[o.arg].rfind("h2d params", 0) == 0) {
        copied += o.bytes;
        ++copies;
      }
  // One shard (1/dp of the gathered bytes) per all-gather; whole bytes per copy.
  CHECK(copies == int64_t(ag.size()));
  CHECK(std::abs(double(copied) - double(gathered) / 4) <= copies);
}
