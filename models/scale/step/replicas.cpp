// Data-parallel replicas (replicas.hpp, replica_fold): which replicas are alike, checked from
// the programs, groups, peers, placement, links and paths alone.
#include "models/scale/step/replicas.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

namespace models::scale {

using workload::kMaxSlots;
using workload::Op;
using workload::OpKind;
using workload::Program;
using workload::RankSetup;

std::string speed_text(double scale) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g x", scale);
  return buf;
}

namespace {

constexpr std::size_t kMaxReplicaClasses = 64;  // beyond this, little is saved: every replica is simulated

bool same_transport(const Transport& a, const Transport& b) {
  return a.kind == b.kind && a.link_class == b.link_class && a.label == b.label && a.p2p_read == b.p2p_read &&
         a.gdr == b.gdr && a.net_plugin == b.net_plugin && a.path == b.path;
}

class Analysis {
 public:
  Analysis(const World& world, const sim::FlowNetwork& net, const std::vector<collectives::Group>& groups,
           const std::vector<RankSetup>& ranks, const std::vector<int>& replica_of)
      : world_(world), net_(net), groups_(groups), ranks_(ranks), replica_of_(replica_of) {}

  StepFold run(const std::vector<Program>& programs) {
    StepFold q;
    const int n = static_cast<int>(ranks_.size());
    if (static_cast<int>(replica_of_.size()) != n || n == 0) return refuse(q, "no data-parallel replicas");
    for (const Program& p : programs)
      for (const auto& stream : p.ops)
        for (const Op& op : stream)
          if (op.kind == OpKind::Copy) return refuse(q, "offload copies share each node's host links");
    m_ = 1 + *std::max_element(replica_of_.begin(), replica_of_.end());
    q.replicas = m_;
    if (m_ < 2) return refuse(q, "a single one");
    members_.assign(m_, {});
    position_.assign(n, 0);
    for (int r = 0; r < n; ++r) {
      if (replica_of_[r] < 0) return refuse(q, "rank " + std::to_string(r) + " belongs to no replica");
      position_[r] = static_cast<int>(members_[replica_of_[r]].size());
      members_[replica_of_[r]].push_back(r);
    }
    for (const auto& mem : members_)
      if (mem.size() != members_[0].size()) return refuse(q, "replicas of unequal size");
    if (std::string why = place_nodes(); !why.empty()) return refuse(q, why);
    group_replica_.assign(groups_.size(), -1);
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const auto& mem = groups_[g].ranks;
      if (mem.empty()) continue;
      const int k = replica_of_[mem[0]];
      bool inside = true;
      for (int x : mem) inside &= replica_of_[x] == k;
      if (inside) group_replica_[g] = k;
    }
    image_of_.assign(groups_.size(), -1);

    // Classes: each replica joins the first class whose first replica it is alike to.
    std::vector<int> class_of(m_, -1);
    std::vector<int> firsts;
    for (int k = 0; k < m_; ++k) {
      std::string why;
      for (int j : firsts)
        if (alike(j, k, why)) {
          class_of[k] = j;
          break;
        }
      if (class_of[k] >= 0) continue;
      if (firsts.size() == kMaxReplicaClasses)
        return refuse(q, "more than " + std::to_string(kMaxReplicaClasses) + " kinds of replicas");
      if (!firsts.empty() && q.apart.empty()) q.apart = "replica " + std::to_string(k) + " apart: " + why;
      if (std::string own = own_pairs(k); !own.empty()) return refuse(q, own);
      class_of[k] = k;
      firsts.push_back(k);
    }
    q.simulated_replicas = static_cast<int>(firsts.size());
    if (q.simulated_replicas == m_) return refuse(q, "no two replicas alike (" + q.apart + ")");

    std::vector<std::vector<int>> class_members(m_);
    for (int k = 0; k < m_; ++k) class_members[class_of[k]].push_back(k);
    q.rep.resize(n);
    q.weight.assign(n, 0);
    q.images.assign(n, {});
    for (int r = 0; r < n; ++r) {
      const int j = class_of[replica_of_[r]];
      q.rep[r] = members_[j][position_[r]];
      ++q.weight[q.rep[r]];
      if (q.rep[r] == r)
        for (int k : class_members[j]) q.images[r].push_back(members_[k][position_[r]]);
    }
    for (int r = 0; r < n; ++r) q.simulated_ranks += q.weight[r] > 0;

    // Groups: a replica's own (launched once for its class, or an image never launched), or
    // spanning, launched over all its ranks: every member's representative must be a member too,
    // so that the representatives' weights add up to the group.
    q.folded_group.assign(groups_.size(), 0);
    q.launches.assign(groups_.size(), 1);
    std::vector<int> stamp(n, -1);
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const auto& mem = groups_[g].ranks;
      if (group_replica_[g] >= 0) {
        const int k = group_replica_[g];
        const int size = static_cast<int>(class_members[class_of[k]].size());
        q.launches[g] = class_of[k] == k ? size : 0;
        q.folded_group[g] = class_of[k] == k && size > 1;
        continue;
      }
      for (int x : mem) stamp[x] = static_cast<int>(g);
      std::size_t weights = 0;
      for (int x : mem) {
        if (stamp[q.rep[x]] != static_cast<int>(g))
          return refuse(q, "group " + groups_[g].name + " holds rank " + std::to_string(x) + " but not rank " +
                               std::to_string(q.rep[x]) + ", which would stand for it");
        weights += static_cast<std::size_t>(q.weight[x]);
      }
      if (weights != mem.size()) return refuse(q, "group " + groups_[g].name + " spans the replicas unevenly");
    }

    // Link classes: link o of node p of a simulated replica and of each of its images.
    q.class_of_link.assign(net_.link_count(), sim::FlowNetwork::kNoClass);
    for (int j : firsts) {
      if (class_members[j].size() < 2) continue;
      for (std::size_t p = 0; p < nodes_of_[j].size(); ++p) {
        const World::LinkRange range = world_.node_links(nodes_of_[j][p]);
        for (uint32_t o = 0; o < range.count; ++o) {
          const uint32_t c = static_cast<uint32_t>(q.model_of_class.size());
          q.model_of_class.push_back(sim::LinkId{range.first + o});
          for (int k : class_members[j]) q.class_of_link[world_.node_links(nodes_of_[k][p]).first + o] = c;
        }
      }
    }
    return q;
  }

 private:
  static StepFold refuse(StepFold& q, std::string why) {
    StepFold out;
    out.replicas = q.replicas;
    out.why_not = std::move(why);
    return out;
  }

  // Nodes: each holds ranks of one replica only; per replica its nodes in the order its ranks
  // first reach them; per link its node.
  std::string place_nodes() {
    const int nodes = world_.nodes();
    owner_.assign(nodes, -1);
    node_pos_.assign(nodes, -1);
    nodes_of_.assign(m_, {});
    for (int k = 0; k < m_; ++k)
      for (int r : members_[k]) {
        const int node = world_.rank(r).node;
        if (owner_[node] >= 0 && owner_[node] != k)
          return "replicas " + std::to_string(owner_[node]) + " and " + std::to_string(k) + " share node " +
                 std::to_string(node);
        if (owner_[node] < 0) {
          owner_[node] = k;
          node_pos_[node] = static_cast<int>(nodes_of_[k].size());
          nodes_of_[k].push_back(node);
        }
      }
    node_of_link_.assign(net_.link_count(), -1);
    for (int node = 0; node < nodes; ++node) {
      const World::LinkRange range = world_.node_links(node);
      if (range.count == 0) return "the World does not lay its links out per node";
      for (uint32_t o = 0; o < range.count; ++o) node_of_link_.at(range.first + o) = node;
    }
    return {};
  }

  // The link of replica k that link li of replica j's nodes corresponds to (UINT32_MAX: none).
  uint32_t image(uint32_t li, int j, int k) const {
    if (li >= node_of_link_.size() || node_of_link_[li] < 0 || owner_[node_of_link_[li]] != j) return UINT32_MAX;
    const int node = node_of_link_[li];
    return world_.node_links(nodes_of_[k][node_pos_[node]]).first + (li - world_.node_links(node).first);
  }

  // The pairs replica j's own groups and peers join, with their transports and paths; all on
  // replica j's own nodes.
  struct Pair {
    int from, to;  // positions
    Transport transport;
    std::vector<sim::LinkId> path;
  };
  std::string own_pairs(int j) {
    std::set<std::pair<int, int>> pairs;
    for (int a : members_[j]) {
      for (int s = 0; s < kMaxSlots; ++s) {
        const int g = ranks_[a].group[s];
        if (g >= 0 && group_replica_[g] == j)
          for (int b : groups_[g].ranks)
            if (b != a) pairs.insert({a, b}), pairs.insert({b, a});
        const int p = ranks_[a].peer[s];
        if (p >= 0 && p != a) pairs.insert({a, p}), pairs.insert({p, a});
      }
    }
    auto& out = own_[j];
    for (auto [a, b] : pairs) {
      if (replica_of_[a] != j || replica_of_[b] != j)
        return "rank " + std::to_string(a) + " has a peer in another replica (" + std::to_string(b) + ")";
      Pair p{position_[a], position_[b], world_.transport(a, b), {}};
      world_.path(a, b, p.path);
      for (sim::LinkId l : p.path)
        if (l.index >= node_of_link_.size() || node_of_link_[l.index] < 0 || owner_[node_of_link_[l.index]] != j)
          return "a replica's own traffic crosses shared links (" + std::string(net_.link_name(l)) + ")";
      out.push_back(std::move(p));
    }
    return {};
  }

  bool alike(int j, int k, std::string& why) {
    const auto &A = members_[j], &B = members_[k];
    if (nodes_of_[j].size() != nodes_of_[k].size()) return fail(why, "its ranks sit on another number of nodes");
    const int ppn = world_.placement().pods_per_node;
    for (std::size_t i = 0; i < A.size(); ++i) {
      const int a = A[i], b = B[i];
      auto rb = [b] { return "rank " + std::to_string(b); };  // built only for the reason of a refusal
      if (ranks_[a].program != ranks_[b].program) return fail(why, rb() + " runs another program");
      if (bits(ranks_[a].compute_scale) != bits(ranks_[b].compute_scale))
        return fail(why, rb() + " computes at " + speed_text(ranks_[b].compute_scale) + ", rank " + std::to_string(a) +
                             " of replica " + std::to_string(j) + " at " + speed_text(ranks_[a].compute_scale));
      const RankInfo &ia = world_.rank(a), &ib = world_.rank(b);
      if (ia.local_gpu != ib.local_gpu || ia.pod_rank != ib.pod_rank ||
          ia.pod - ia.node * ppn != ib.pod - ib.node * ppn || node_pos_[ia.node] != node_pos_[ib.node])
        return fail(why, rb() + " sits elsewhere");
      for (int s = 0; s < kMaxSlots; ++s) {
        const int ga = ranks_[a].group[s], gb = ranks_[b].group[s];
        if (ga != gb && !image_group(ga, gb, j, k)) return fail(why, rb() + " is in another kind of group");
        const int pa = ranks_[a].peer[s], pb = ranks_[b].peer[s];
        if (pa == pb && pa < 0) continue;
        if (pa < 0 || pb < 0 || replica_of_[pa] != j || replica_of_[pb] != k || position_[pa] != position_[pb])
          return fail(why, rb() + " has another peer");
      }
    }
    for (std::size_t p = 0; p < nodes_of_[j].size(); ++p) {
      const World::LinkRange x = world_.node_links(nodes_of_[j][p]), y = world_.node_links(nodes_of_[k][p]);
      if (x.count != y.count) return fail(why, "node " + std::to_string(nodes_of_[k][p]) + " is another kind");
      for (uint32_t o = 0; o < x.count; ++o) {
        const sim::LinkId lx{x.first + o}, ly{y.first + o};
        // (Kinds agree: nodes lay their links out alike, World::node_links.)
        if (net_.link_capacity(lx) != net_.link_capacity(ly) || net_.link_latency(lx) != net_.link_latency(ly) ||
            world_.raw_capacity(lx, net_) != world_.raw_capacity(ly, net_))
          return fail(why, std::string(net_.link_name(ly)) + " differs from " + std::string(net_.link_name(lx)));
      }
    }
    std::vector<sim::LinkId> path;
    for (const Pair& p : own_[j]) {
      const int a = B[p.from], b = B[p.to];
      if (!same_transport(p.transport, world_.transport(a, b)))
        return fail(why, "ranks " + std::to_string(a) + " and " + std::to_string(b) + " talk over another transport");
      path.clear();
      world_.path(a, b, path);
      bool same = path.size() == p.path.size();
      for (std::size_t h = 0; same && h < path.size(); ++h) same = path[h].index == image(p.path[h].index, j, k);
      if (!same) return fail(why, "ranks " + std::to_string(a) + " and " + std::to_string(b) + " take another path");
    }
    return true;
  }

  // gb (replica k's) is the image of ga (replica j's): member x of one is member x of the other's image.
  bool image_group(int ga, int gb, int j, int k) {
    if (ga < 0 || gb < 0 || group_replica_[ga] != j || group_replica_[gb] != k) return false;
    if (image_of_[gb] == ga) return true;
    const auto &x = groups_[ga].ranks, &y = groups_[gb].ranks;
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (position_[x[i]] != position_[y[i]]) return false;
    image_of_[gb] = ga;
    return true;
  }

  static bool fail(std::string& why, std::string what) {
    why = std::move(what);
    return false;
  }

  const World& world_;
  const sim::FlowNetwork& net_;
  const std::vector<collectives::Group>& groups_;
  const std::vector<RankSetup>& ranks_;
  const std::vector<int>& replica_of_;
  int m_ = 0;
  std::vector<std::vector<int>> members_;  // per replica, ranks in increasing order
  std::vector<int> position_;              // per rank, its index in its replica
  std::vector<int> owner_;                 // per node, its replica
  std::vector<int> node_pos_;              // per node, its index among its replica's nodes
  std::vector<std::vector<int>> nodes_of_;
  std::vector<int> node_of_link_;
  std::vector<int> group_replica_;  // per group: the replica holding all its members, or -1
  std::vector<int> image_of_;       // per group: the group it was found the image of
  std::map<int, std::vector<Pair>> own_;
};

}  // namespace

StepFold replica_fold(const World& world, const sim::FlowNetwork& net, const std::vector<Program>& programs,
                                 const std::vector<collectives::Group>& groups, const std::vector<RankSetup>& ranks,
                                 const std::vector<int>& replica_of_rank) {
  return Analysis(world, net, groups, ranks, replica_of_rank).run(programs);
}

}  // namespace models::scale
