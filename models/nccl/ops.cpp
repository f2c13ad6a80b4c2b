// Printable names of the collective operations (nccl-tests' names), algorithms and protocols
// (NCCL's names), and the parser of an op name.
#include "models/nccl/ops.hpp"

namespace models::nccl {

const char* coll_op_name(CollOp op) {
  switch (op) {
    case CollOp::AllReduce: return "all_reduce";
    case CollOp::AllGather: return "all_gather";
    case CollOp::ReduceScatter: return "reduce_scatter";
    case CollOp::Broadcast: return "broadcast";
    case CollOp::Reduce: return "reduce";
    case CollOp::AllToAll: return "alltoall";
    case CollOp::SendRecv: return "sendrecv";
  }
  return "?";
}

const char* nccl_func_name(CollOp op) {
  switch (op) {
    case CollOp::AllReduce: return "AllReduce";
    case CollOp::AllGather: return "AllGather";
    case CollOp::ReduceScatter: return "ReduceScatter";
    case CollOp::Broadcast: return "Broadcast";
    case CollOp::Reduce: return "Reduce";
    case CollOp::AllToAll:
    case CollOp::SendRecv: return "";
  }
  return "";
}

bool parse_coll_op(const std::string& s, CollOp& out) {
  for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast, CollOp::Reduce,
                    CollOp::AllToAll, CollOp::SendRecv})
    if (s == coll_op_name(op)) {
      out = op;
      return true;
    }
  if (s == "all_to_all") {
    out = CollOp::AllToAll;
    return true;
  }
  if (s == "send_recv") {
    out = CollOp::SendRecv;
    return true;
  }
  return false;
}

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::Tree: return "Tree";
    case Algo::Ring: return "Ring";
    case Algo::PAT: return "PAT";
    case Algo::CollNetDirect: return "CollNetDirect";
    case Algo::CollNetChain: return "CollNetChain";
    case Algo::NVLS: return "NVLS";
    case Algo::NVLSTree: return "NVLSTree";
  }
  return "?";
}

const char* proto_name(Proto p) {
  switch (p) {
    case Proto::LL: return "LL";
    case Proto::LL128: return "LL128";
    case Proto::Simple: return "Simple";
  }
  return "?";
}

}  // namespace models::nccl
