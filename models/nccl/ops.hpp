#pragma once
// The collective operations and NCCL's algorithms and protocols: the vocabulary shared by NCCL's
// tuner (models/nccl/tuning.hpp), the collective engine (models/collectives/) and the workloads.
#include <string>

namespace models::nccl {

enum class CollOp { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv };
const char* coll_op_name(CollOp op);  // "all_reduce", ... (nccl-tests names)
// "AllReduce", ... as NCCL names its functions (src/init.cc ncclFuncStr: its logs, its errors and
// the FUNC: prefixes of NCCL_ALGO / NCCL_PROTO); "" for all-to-all and send/recv (p2p, no function).
const char* nccl_func_name(CollOp op);
bool parse_coll_op(const std::string& s, CollOp& out);

enum class Algo { Tree, Ring, PAT, CollNetDirect, CollNetChain, NVLS, NVLSTree };
enum class Proto { LL, LL128, Simple };
const char* algo_name(Algo a);
const char* proto_name(Proto p);

}  // namespace models::nccl
