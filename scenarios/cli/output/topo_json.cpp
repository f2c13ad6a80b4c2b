// The topology and NCCL's transport per rank pair, as JSON (the data of models/world/topo_text).
#include "scenarios/cli/output/topo_json.hpp"

#include <map>

#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport.hpp"
#include "models/readers/smi_topo.hpp"
#include "models/topology/node_graph.hpp"
#include "models/world/node_kinds.hpp"

namespace scenarios {

Json topo_json(const models::World& world, const models::ScenarioSpec& spec, int max_ranks_listed,
               const CommandInputs& inputs, int per_peer_channels) {
  namespace topo = models::topology;
  // The World's machines, placement and NCCL rules, as run simulates them (models/world/topo_text).
  const models::NodeKinds& kinds = *world.node_kinds();
  const models::hw::NodeSpec& node = kinds.kind(0).node;
  const topo::NodeGraph& graph = kinds.kind(0).graph;
  const topo::Placement& layout = world.placement();
  const models::nccl::TransportModel& model = *kinds.kind(0).transports;
  auto rules = [&](const models::RankInfo& a) -> const models::nccl::TransportModel& {
    return *kinds.of_node(a.node).transports;
  };

  Json j = json_header("topo", inputs);
  j["machine"] = {{"instance", node.name},
                  {"nodes", spec.cluster.nodes},
                  {"gpus_per_node", node.gpus},
                  {"gpu", node.gpu.name},
                  {"citation", node.citation}};
  const int n = layout.size();
  j["placement"] = {{"pods_per_node", layout.pods_per_node},
                    {"gpus_per_pod", layout.gpus_per_pod},
                    {"ranks", n},
                    {"single_process", spec.placement.single_process},
                    {"nccl_nodes", model.nccl_nodes()}};
  const models::hw::SmiMatrix m = graph.smi_matrix();
  Json gpu_gpu = Json::array(), gpu_nic = Json::array(), numa = Json::array();
  for (int a = 0; a < m.gpus; ++a) {
    Json row = Json::array(), nics = Json::array();
    for (int b = 0; b < m.gpus; ++b)
      row.push_back(a == b ? std::string("X") : models::readers::smi_cell(m.gpu_gpu[a][b], m.nv_links[a][b]));
    for (int k = 0; k < m.nics; ++k) nics.push_back(models::readers::smi_cell(m.gpu_nic[a][k], 0));
    gpu_gpu.push_back(std::move(row));
    gpu_nic.push_back(std::move(nics));
    numa.push_back(m.gpu_numa[a]);
  }
  j["matrix"] = {{"gpus", m.gpus}, {"nics", m.nics}, {"gpu_gpu", gpu_gpu}, {"gpu_nic", gpu_nic}, {"gpu_numa", numa}};

  Json pairs = Json::array();
  auto pair = [&](int a, int b) {
    const models::RankInfo ra = layout.rank(a), rb = layout.rank(b);
    const models::Transport t = rules(ra).choose(ra, rb);
    pairs.push_back({{"from", a},
                     {"to", b},
                     {"from_device", ra.pod_rank},
                     {"to_device", rb.pod_rank},
                     {"transport", t.label},
                     {"path", models::path_type_name(t.path)},
                     {"channels", per_peer_channels > 0 ? per_peer_channels : rules(ra).p2p_channels(ra, rb)}});
  };
  if (n <= max_ranks_listed) {
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b) pair(a, b);
  } else {
    for (int b = 1; b < n && b <= max_ranks_listed; ++b) pair(0, b);
  }
  j["pairs"] = std::move(pairs);
  const bool all_pairs = n <= 256;
  std::map<std::string, int> counts;
  for (int a = 0; a < (all_pairs ? n : 1); ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) ++counts[rules(layout.rank(a)).choose(layout.rank(a), layout.rank(b)).label];
  j["pairs_counted"] = all_pairs ? "all" : "rank 0";
  j["pairs_per_transport"] = counts;
  return j;
}

}  // namespace scenarios
