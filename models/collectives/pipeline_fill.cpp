// The fill of a store-and-forward chain (pipeline_fill.hpp).
#include "models/collectives/pipeline_fill.hpp"

#include <algorithm>

namespace models::collectives {

double chain_fill_s(Proto proto, int64_t buffsize, double bytes_per_channel, double sum_time_s, double max_time_s) {
  if (proto != Proto::Simple) return 0;
  return loop_fill_s(simple_chain_slice_bytes(buffsize), bytes_per_channel, sum_time_s, max_time_s);
}

int64_t nvls_tree_chunk_bytes(int64_t bytes, int channels, int heads, int nodes, int64_t nvls_chunk,
                              int64_t max_chunk) {
  const int64_t ops = static_cast<int64_t>(std::max(1, channels)) * std::max(1, heads);
  int64_t chunk = nvls_chunk;
  if (max_chunk == -2) max_chunk = nodes >= 4 ? int64_t{64} << 10 : chunk;  // NCCL's default
  if (max_chunk > 0) chunk = std::min(chunk, max_chunk);
  if (bytes < 32 * ops * chunk && chunk > (int64_t{256} << 10)) chunk = int64_t{256} << 10;
  if (bytes < 16 * ops * chunk && chunk > (int64_t{128} << 10)) chunk = int64_t{128} << 10;
  if (bytes < 4 * ops * chunk && chunk > (int64_t{64} << 10)) chunk = int64_t{64} << 10;
  if (bytes < ops * chunk && chunk > (int64_t{32} << 10)) chunk = int64_t{32} << 10;
  return chunk;
}

int64_t nvls_chunk_bytes(int64_t bytes, int channels, int heads, int64_t nvls_chunk) {
  const int64_t ops = static_cast<int64_t>(std::max(1, channels)) * std::max(1, heads);
  int64_t chunk = nvls_chunk;
  if (bytes < 64 * ops * chunk && chunk > (int64_t{64} << 10)) chunk = int64_t{64} << 10;
  if (bytes < 8 * ops * chunk && chunk > (int64_t{32} << 10)) chunk = int64_t{32} << 10;
  if (bytes < 2 * ops * chunk && chunk > (int64_t{16} << 10)) chunk = int64_t{16} << 10;
  return chunk;
}

NvlsWarps nvls_one_node_warps(CollOp op, int nranks) {
  constexpr int kTotalWarps = 640 / 32;  // NCCL_MAX_NTHREADS / WARP_SIZE
  if (op == CollOp::ReduceScatter) return {8, kTotalWarps - 8, 0};
  if (op == CollOp::AllGather) return {0, kTotalWarps - 8, 8};
  const int reduce = nranks <= 6 ? 7 : 5;
  return {(kTotalWarps - reduce + 1) >> 1, reduce, (kTotalWarps - reduce) >> 1};
}

double nvls_chunk_stage_rate(int warps, double chunk_bytes, double warp_rate, double chunk_latency_s) {
  if (warps <= 0 || chunk_bytes <= 0 || warp_rate <= 0) return 0;
  return chunk_bytes / (chunk_bytes / (warps * warp_rate) + chunk_latency_s);
}

double loop_fill_s(double loop_bytes, double bytes_per_channel, double sum_time_s, double max_time_s) {
  if (loop_bytes <= 0 || bytes_per_channel <= 0 || sum_time_s <= max_time_s) return 0;
  return std::min(1.0, loop_bytes / bytes_per_channel) * (sum_time_s - max_time_s);
}

int64_t tree_ll128_chunk_bytes(int64_t bytes, int channels, int nranks, int nnodes) {
  const int64_t nc = std::max(1, channels);
  const int nodes = std::max(1, nnodes);
  int log2_nodes = 0;  // NCCL's log2i: floor
  while ((2 << log2_nodes) <= nodes) ++log2_nodes;
  const double ppn = static_cast<double>(nranks) / nodes;
  const double steps = 1 + log2_nodes + 0.1 * ppn;
  int64_t chunk = kLl128ChunkBytes;
  while (static_cast<double>(bytes / (nc * chunk)) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (static_cast<double>(bytes / (nc * chunk)) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  return chunk / kLl128WarpBytes * kLl128WarpBytes;
}

TreeSplitThreads tree_split_threads(Proto proto) {
  constexpr int kTreeThreads = 640, kWarp = 32;  // NCCL_MAX_NTHREADS, WARP_SIZE
  const int up = proto == Proto::Simple ? kTreeThreads / 2 + 64 : kTreeThreads * 7 / (10 * kWarp) * kWarp;
  const int ring = proto == Proto::LL128 ? kLl128MaxThreads : proto == Proto::LL ? kLlMaxThreads : 512;
  return {up, kTreeThreads - up, ring};
}

ChainUnits line_chain_units(Proto proto, bool tree_split, double chunk_bytes) {
  if (proto == Proto::Simple) return {};
  const int threads = proto == Proto::LL ? kLlMaxThreads : kLl128MaxThreads;
  const TreeSplitThreads split = tree_split_threads(proto);
  const int up = tree_split ? split.up : threads;
  const int down = tree_split ? split.down : threads;
  const auto unit = [&](int t) {
    const double b = proto == Proto::LL ? t * 8.0 : (t / 32) * static_cast<double>(kLl128WarpBytes);
    return std::min(b, chunk_bytes);
  };
  return {unit(up), unit(down), chunk_bytes};
}

double staged_chain_fill_s(std::span<const ChainStage> stages, double bytes_per_channel) {
  if (bytes_per_channel <= 0) return 0;
  double sum = 0, largest = 0, count = 0;
  for (const ChainStage& s : stages) {
    if (s.edges <= 0 || s.time_s <= 0) continue;
    const double tau = std::min(1.0, s.unit_bytes / bytes_per_channel) * s.time_s;
    sum += s.edges * tau;
    largest = std::max(largest, tau);
    count += s.edges;
  }
  return count > 1 ? std::max(0.0, sum - largest) : 0;
}

}  // namespace models::collectives
