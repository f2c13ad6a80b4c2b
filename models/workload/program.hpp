#pragma once
// models::workload::Program: what one rank does in a training step, as CUDA-like streams of ops.
// Ops on one stream run in order; streams synchronise through events (Record/Wait), as
// cudaEventRecord/cudaStreamWaitEvent do. A collective op blocks its stream until every member
// of its group has reached it (the NCCL kernel starts when the last rank arrives) and the
// collective engine has moved the data. Programs are shared by ranks that do the same thing
// (every DP rank of ZeRO-3, every rank of one pipeline stage): a rank resolves the program's
// group and peer *slots* (dp, tp, next stage...) to its own groups and peers.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "sim/time.hpp"

namespace models::workload {

enum class OpKind : uint8_t { Compute, Collective, Send, Recv, Copy, Record, Wait };
// What a Compute op keeps busy: the GPU's math units, its memory (memory-bound kernels), or the
// host CPU (CPU-Adam under ZeRO-Offload).
enum class Work : uint8_t { Math, Memory, Host };
enum class CopyDir : uint8_t { HostToGpu, GpuToHost };

struct Op {
  OpKind kind = OpKind::Compute;
  uint8_t slot = 0;  // Compute: Work; Collective: group slot; Send/Recv: peer slot; Copy: CopyDir
  nccl::CollOp coll = nccl::CollOp::AllReduce;
  uint32_t arg = 0;       // Record/Wait: event; others: index into Program::names
  int64_t bytes = 0;      // Collective (nccl-tests size convention), Send/Recv, Copy
  sim::Time duration;     // Compute
  bool in_place = false;  // Collective: the send buffer is the rank's slice of the receive buffer
};

struct Program {
  std::vector<std::string> stream_names;  // "compute" first
  std::vector<std::vector<Op>> ops;       // per stream
  std::vector<std::string> names;
  uint32_t events = 0;

  explicit Program(std::vector<std::string> streams = {"compute", "comm"})
      : stream_names(std::move(streams)), ops(stream_names.size()) {}
  int streams() const { return int(ops.size()); }
  int add_stream(std::string n) {  // its index
    stream_names.push_back(std::move(n));
    ops.emplace_back();
    return streams() - 1;
  }

  uint32_t new_event() { return events++; }
  uint32_t name(std::string n) {
    names.push_back(std::move(n));
    return uint32_t(names.size() - 1);
  }
  void compute(int s, sim::Time d, Work w, std::string n) {
    Op op{OpKind::Compute, uint8_t(w), {}, name(std::move(n)), 0, d};
    ops[s].push_back(op);
  }
  void collective(int s, int group_slot, nccl::CollOp c, int64_t bytes, std::string n, bool in_place = false) {
    ops[s].push_back(Op{OpKind::Collective, uint8_t(group_slot), c, name(std::move(n)), bytes, {}, in_place});
  }
  void send(int s, int peer_slot, int64_t bytes, std::string n) {
    ops[s].push_back(Op{OpKind::Send, uint8_t(peer_slot), {}, name(std::move(n)), bytes, {}});
  }
  void recv(int s, int peer_slot, int64_t bytes, std::string n) {
    ops[s].push_back(Op{OpKind::Recv, uint8_t(peer_slot), {}, name(std::move(n)), bytes, {}});
  }
  void copy(int s, CopyDir dir, int64_t bytes, std::string n) {
    ops[s].push_back(Op{OpKind::Copy, uint8_t(dir), {}, name(std::move(n)), bytes, {}});
  }
  void record(int s, uint32_t event) { ops[s].push_back(Op{OpKind::Record, 0, {}, event, 0, {}}); }
  void wait(int s, uint32_t event) { ops[s].push_back(Op{OpKind::Wait, 0, {}, event, 0, {}}); }
  // Makes stream `to` wait for everything issued so far on stream `from`.
  void join(int from, int to) {
    const uint32_t e = new_event();
    record(from, e);
    wait(to, e);
  }
};

// One rank's view: which program it runs and what its slots mean.
inline constexpr int kMaxSlots = 6;
struct RankSetup {
  int program = 0;
  int group[kMaxSlots] = {-1, -1, -1, -1, -1, -1};  // index into the executor's groups
  int peer[kMaxSlots] = {-1, -1, -1, -1, -1, -1};   // World rank
  // The communicator a send/recv on peer slot i runs in, as an index into the executor's groups
  // (NCCL sizes a peer's p2p channels by the communicator's ranks, p2p_channels.hpp); -1: a
  // communicator of the pair alone.
  int peer_comm[kMaxSlots] = {-1, -1, -1, -1, -1, -1};
  double compute_scale = 1.0;                       // > 1: this GPU is slower (what-if, tests)
};

}  // namespace models::workload
