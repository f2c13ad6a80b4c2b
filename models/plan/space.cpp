// The planner's space (space.hpp).
#include "models/plan/space.hpp"

#include <algorithm>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/run/layout_line.hpp"
#include "models/run/throughput.hpp"
#include "models/workload/layout.hpp"

namespace models::plan {

std::pair<int, int> uneven_split(int layers, int pp) {
  if (pp < 2 || layers % pp == 0) return {0, 0};
  const int middle = (layers + pp - 1) / pp;
  const int ends = layers - (pp - 2) * middle;
  if (ends < 2) return {0, 0};
  return {ends - ends / 2, ends / 2};
}

namespace {

std::vector<int> divisors_up_to(int n, int max) {
  std::vector<int> d;
  for (int i = 1; i <= std::min(n, max); ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

class Enumerator {
 public:
  Enumerator(const ScenarioSpec& base, const model::ModelShape& m, const SpaceOptions& o, SpaceStats& st,
             std::vector<Candidate>& out)
      : base_(base), m_(m), o_(o), st_(st), out_(out) {}

  void node(const std::string& instance, int node_gpus, int gpus_per_node, int nodes) {
    std::vector<int> pod_counts = o_.pods_per_node;
    if (pod_counts.empty()) {
      pod_counts.push_back(1);
      const int own = base_.placement.gpus_per_pod;
      if (base_.placement.pods_per_node > 1 && own > 0 && gpus_per_node % own == 0 && gpus_per_node / own > 1)
        pod_counts.push_back(gpus_per_node / own);
    }
    for (int pods : pod_counts) {
      ++st_.considered;
      if (pods < 1 || gpus_per_node % pods != 0) {
        drop("pods_per_node does not divide the node's GPUs");
        continue;
      }
      st_.gpus.insert(nodes * gpus_per_node);
      st_.pods_per_node.insert(pods);
      Candidate c;
      c.instance = instance;
      c.nodes = nodes;
      c.node_gpus = node_gpus;
      c.gpus_per_node = gpus_per_node;
      c.pods_per_node = pods;
      for (const auto& s : o_.strategies) {
        if (s == "megatron")
          megatron(c);
        else
          data_parallel(c, s);
      }
    }
  }

 private:
  void drop(const std::string& why) { ++st_.dropped[why]; }

  // m = global_batch / (dp mb) when it divides.
  bool batch_divides(int dp, int mb) {
    const int gb = base_.training.global_batch;
    if (gb % (dp * mb) != 0) {
      drop("dp x micro_batch does not divide training.global_batch");
      return false;
    }
    return true;
  }

  void finish(Candidate c) {
    for (const auto& r : o_.recompute) {
      c.recompute = r;
      out_.push_back(c);
    }
  }

  void data_parallel(Candidate c, const std::string& s) {
    if (m_.is_moe()) {  // workload::make_layout refuses them: MoE layers are modelled under Megatron only
      ++st_.considered;
      drop("mixture-of-experts models are modelled under megatron only");
      return;
    }
    c.strategy = s == "zero3+offload" ? "zero3" : s;
    c.offload = s == "zero3+offload";
    if (c.strategy == "hsdp" && c.nodes < 2) {
      ++st_.considered;
      drop("hsdp needs two nodes or more");
      return;
    }
    for (int mb : o_.micro_batches) {
      ++st_.considered;
      c.micro_batch = mb;
      if (batch_divides(c.gpus(), mb)) finish(c);
    }
  }

  void megatron(Candidate c) {
    c.strategy = "megatron";
    c.distributed_optimizer = true;
    const int pod_gpus = c.gpus_per_node / c.pods_per_node;
    for (int tp = 1; tp <= pod_gpus; tp *= 2) {
      if (pod_gpus % tp != 0 || m_.heads % tp != 0 || m_.kv_heads % tp != 0 || m_.ffn % tp != 0) continue;
      c.tp = tp;
      c.sequence_parallel = tp > 1;
      for (int pp : pipeline_degrees()) {
        c.pp = pp;
        c.first_stage_layers = c.last_stage_layers = 0;
        // The scenario's own uneven split at its own pp, else the planner's where pp does not
        // divide the layers.
        const ParallelSpec& own = base_.parallel;
        const bool own_split = own.strategy == "megatron" && pp == own.pp &&
                               (own.decoder_first_pipeline_num_layers > 0 || own.decoder_last_pipeline_num_layers > 0);
        if (own_split) {
          c.first_stage_layers = own.decoder_first_pipeline_num_layers;
          c.last_stage_layers = own.decoder_last_pipeline_num_layers;
        } else if (m_.layers % pp != 0) {
          const auto [first, last] = uneven_split(m_.layers, pp);
          if (first == 0 && last == 0) {
            ++st_.considered;
            drop("pp leaves a first or last pipeline stage no layer");
            continue;
          }
          c.first_stage_layers = first, c.last_stage_layers = last;
        }
        for (int cp : o_.cp) {
          ++st_.considered;
          c.cp = cp;
          // Load-balanced ring attention's 2 cp chunks of the sequence (cp > 1 only, as run checks).
          if (cp < 1 || (cp > 1 && m_.seq % (2 * cp) != 0)) {
            drop("2 cp does not divide model.seq");
            continue;
          }
          if (c.gpus() % c.model_parallel() != 0) {
            drop("tp x pp x cp does not divide the GPUs");
            continue;
          }
          const int dp = c.dp();
          // Experts split over TP as the attention is (etp = tp, Megatron-Core's default: ep
          // divides dp x cp), or whole on each rank (etp = 1, the usual choice for small experts:
          // ep divides the stage's tp x dp x cp ranks, no TP collectives in the experts).
          for (const int etp : expert_tp_degrees(tp)) {
            c.etp = etp;
            for (int ep : experts_degrees(etp == 1 ? tp * dp * cp : dp * cp)) {
              c.ep = ep;
              for (int mb : o_.micro_batches) {
                ++st_.considered;
                c.micro_batch = mb;
                if (!batch_divides(dp, mb)) continue;
                const int m = base_.training.global_batch / (dp * mb);
                schedules(c, m);
              }
            }
          }
        }
      }
    }
  }

  // The pipeline degrees up to max_pp: every divisor of the layers, the powers of two that do not
  // divide them (split unevenly: uneven_split), and the scenario's own pp.
  std::vector<int> pipeline_degrees() const {
    std::vector<int> out = divisors_up_to(m_.layers, o_.max_pp);
    for (int pp = 2; pp <= std::min(o_.max_pp, m_.layers); pp *= 2) out.push_back(pp);
    if (base_.parallel.strategy == "megatron" && base_.parallel.pp > 1 && base_.parallel.pp <= m_.layers &&
        base_.parallel.pp <= o_.max_pp)
      out.push_back(base_.parallel.pp);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // 0: etp = tp. MoE models with tp > 1 also try 1 where the expert ffn allows any etp.
  std::vector<int> expert_tp_degrees(int tp) const {
    if (!m_.is_moe() || tp == 1) return {0};
    return {0, 1};
  }

  std::vector<int> experts_degrees(int dp_cp) {
    if (!m_.is_moe()) return {1};
    std::vector<int> out;
    const int max_ep = o_.max_ep > 0 ? std::min(o_.max_ep, m_.moe.experts) : m_.moe.experts;
    for (int ep = 1; ep <= max_ep; ep *= 2)
      if (m_.moe.experts % ep == 0 && dp_cp % ep == 0) out.push_back(ep);
    return out;
  }

  void schedules(Candidate c, int m) {
    const int stage_layers = m_.layers / c.pp;
    c.vp = 1;
    c.schedule = "1f1b";
    finish(c);
    if (c.pp == 1) return;
    if (o_.zero_bubble) {
      c.schedule = "zb_h1";
      finish(c);
      c.schedule = "1f1b";
    }
    if (c.first_stage_layers > 0 || c.last_stage_layers > 0) return;  // interleaving: even splits only
    for (int vp = 2; vp <= o_.max_vp; ++vp) {
      ++st_.considered;
      if (stage_layers % vp != 0) {
        drop("vp does not divide a stage's layers");
        continue;
      }
      if (m % c.pp != 0) {
        drop("interleaving needs the micro-batches to be a multiple of pp");
        continue;
      }
      c.vp = vp;
      finish(c);
    }
  }

  const ScenarioSpec& base_;
  const model::ModelShape& m_;
  const SpaceOptions& o_;
  SpaceStats& st_;
  std::vector<Candidate>& out_;
};

}  // namespace

std::vector<int> node_counts(int gpus_per_node, int min_gpus, int max_gpus) {
  std::vector<int> out;
  for (int n = std::max(1, (min_gpus + gpus_per_node - 1) / gpus_per_node); n * gpus_per_node <= max_gpus; ++n)
    out.push_back(n);
  return out;
}

std::vector<int> part_of_one_node(const hw::NodeSpec& node) {
  std::vector<int> out;
  if (node.hosts() > 1) return out;  // a multi-host domain gives whole hosts (used_gpus_per_node)
  for (int g = node.gpus / 2; g >= 1; g /= 2)
    if (node.gpus % g == 0) out.push_back(g);
  return out;
}

std::vector<int> used_gpus_per_node(const hw::NodeSpec& node, const std::vector<int>& domain_hosts) {
  const int hosts = node.hosts();
  if (hosts <= 1) return {node.gpus};
  std::vector<int> h = domain_hosts;
  if (h.empty()) {
    h.push_back(hosts);
    int p = 1;
    while (2 * p < hosts) p *= 2;
    if (p < hosts && p > 1) h.push_back(p);
  }
  std::vector<int> out;
  for (int k : h) {
    if (k < 1 || k > hosts)
      throw SpecError("cluster.instance", node.name + " is one NVLink domain of " + std::to_string(hosts) +
                                              " hosts, not " + std::to_string(k) +
                                              " (expected --hosts-per-domain from 1 to " + std::to_string(hosts) + ")");
    const int g = std::min(node.gpus, k * node.host_gpus);
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

ImpliedBatch implied_global_batch(const ScenarioSpec& base, const model::ModelShape& model) {
  const workload::ParallelLayout l = workload::make_layout(base, model, describe_layout(base).gpus);
  ImpliedBatch b;
  b.dp = l.dp;
  b.micro_batch = std::max(1, base.training.micro_batch);
  b.micro_batches = l.strategy == workload::Strategy::Megatron ? l.pipeline_micro_batches : l.grad_accum;
  b.global_batch = static_cast<int>(samples_per_step(base, b.dp, b.micro_batches));  // as throughput counts a step
  return b;
}

std::vector<Candidate> enumerate_space(const ScenarioSpec& base, const model::ModelShape& model,
                                       const SpaceOptions& options, SpaceStats* stats) {
  SpaceStats local;
  SpaceStats& st = stats ? *stats : local;
  std::vector<Candidate> out;
  if (base.training.global_batch <= 0)
    throw SpecError("training.global_batch",
                    "the planner needs training.global_batch (expected the sequences per step it keeps fixed while "
                    "the layout changes)");
  std::vector<std::string> instances = options.instances;
  if (instances.empty()) {
    if (base.cluster.instance.empty())
      throw SpecError("cluster.instance", "the planner needs a catalog instance (expected cluster.instance, or --instances)");
    instances.push_back(base.cluster.instance);
  }
  if (!options.domain_hosts.empty() && std::none_of(instances.begin(), instances.end(), [](const std::string& n) {
        return hw::find_instance(n).hosts() > 1;
      }))
    throw SpecError("cluster.instance", "--hosts-per-domain applies to multi-host NVLink domains (NVL72 racks), and " +
                                            instances.front() +
                                            (instances.size() > 1 ? " and the other instances are" : " is") +
                                            " one host per node (expected an instance such as gb200-nvl72)");
  // A scenario on part of a node (the seeds' pod of 4 of a p4d's 8 GPUs) plans from its own GPU
  // count up to its whole nodes by default.
  const int own_gpus = describe_layout(base).gpus;
  Enumerator e(base, model, options, st, out);
  for (const auto& name : instances) {
    const hw::NodeSpec& node = hw::find_instance(name);
    const size_t before = out.size();
    for (int used : used_gpus_per_node(node, options.domain_hosts)) {
      const int base_gpus = base.cluster.nodes * used;
      const int lo = options.min_gpus > 0 ? options.min_gpus : std::min(base_gpus, own_gpus);
      const int hi = options.max_gpus > 0 ? options.max_gpus : std::max(lo, base_gpus);
      for (int n : node_counts(used, lo, hi)) e.node(name, node.gpus, used, n);
      if (used != node.gpus) continue;
      for (int part : part_of_one_node(node)) {
        if (part >= lo && part <= hi) e.node(name, node.gpus, part, 1);
      }
    }
    st.per_instance[name] += int64_t(out.size() - before);
  }
  // Every combination became a candidate or was dropped for one reason.
  st.considered = int64_t(out.size());
  for (const auto& [why, n] : st.dropped) st.considered += n;
  return out;
}

}  // namespace models::plan
