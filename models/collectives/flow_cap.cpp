#include "models/collectives/flow_cap.hpp"

#include <algorithm>

namespace models::collectives {

double flow_rate_cap(const LinkParams& params, const FlowCapInputs& in) {
  const ClassParams& cp = params.of(in.link_class);
  const int pi = static_cast<int>(in.proto);
  // P2P read mode moves only Simple's buffer to the sender (NCCL src/transport/p2p.cc
  // p2pSendConnect: `if (info->read && p == NCCL_PROTO_SIMPLE)` the SIMPLE buffer is the sender's
  // local ncclSendMem; LL and LL128 stay in the receiver's memory, written as in write mode): the
  // factor applies to Simple only.
  const double read = in.p2p_read && in.duplex && in.proto == Proto::Simple ? params.p2p_read_bandwidth_factor : 1.0;
  // Over NVLink the CTAs' loads and stores are the limit (copy_work.hpp): per channel, and in
  // total where a collective does more of them than all-reduce (a link never runs above its
  // efficiency, hence min(1, 1/work) on the link side). 2 x H200: 1 GiB all-gather and
  // reduce-scatter at 0.82 and 0.84 of all-reduce's rate, against 0.83 from the count.
  const bool sm_bound = in.link_class == LinkClass::NVLink;
  const double link_work = sm_bound ? std::min(1.0, 1.0 / in.work) : 1.0;
  const double channel_work = sm_bound ? in.channel_gain / in.work : 1.0;
  // SHM: the fitted efficiency is all-reduce's (every GPU sends and receives); a one-way edge
  // runs twice as fast (2 x H200, NCCL_P2P_DISABLE=1, 1 GiB: all-reduce 27.7 GB/s per direction,
  // broadcast 49.8; scenarios/validation/h200x2/n2_shm_gather.json), never above the raw path.
  const double simplex = in.link_class == LinkClass::SHM && !in.duplex ? 2.0 : 1.0;
  const double eta = std::min(1.0, cp.efficiency[pi] * simplex) * read * link_work;
  const double raw = in.raw_bandwidth * (in.proto == Proto::Simple ? in.simple_raw_factor : 1.0);
  const double link_cap = eta * raw * in.link_fraction;
  if (in.port_bound) return link_cap;
  const bool window = in.proto == Proto::Simple && cp.flow_control_rtt_s > 0;
  if (cp.channel_bandwidth <= 0) {
    const double cap = link_cap * in.coll_share;
    return window ? std::min(cap, in.channels * static_cast<double>(in.buffsize) / cp.flow_control_rtt_s) : cap;
  }
  if (in.point_to_point && in.proto == Proto::LL && cp.channel_bandwidth_ll > 0)
    return std::min(link_cap, in.channels * cp.channel_bandwidth_ll * channel_work * in.thread_share);
  double per_channel = cp.channel_bandwidth * read * channel_work * in.thread_share;
  if (window) per_channel = 1.0 / (1.0 / per_channel + cp.flow_control_rtt_s / static_cast<double>(in.buffsize));
  return std::min(link_cap, in.channels * per_channel * cp.efficiency[pi] / cp.efficiency[2]);
}

}  // namespace models::collectives
