// [[jobs]] and the tables every job has (at the top level for a single job): [placement],
// [model], [training], [parallel], [zero], [collective].
#include "scenarios/load/table_loader.hpp"
#include "scenarios/load/units.hpp"

namespace scenarios::detail {

// [[jobs]]: several jobs on one cluster (models/run/jobs.hpp). Each holds the tables a
// single-job scenario has at its top level, read by the same functions into the job's own spec
// (cur_), with keys and positions under "jobs.<i>.".
void Loader::jobs(const toml::node& n, const std::string& key) {
  const toml::array* arr = n.as_array();
  if (!arr || arr->empty())
    r_.fail(n, key + ": got " + detail::article_type(n) + " (expected [[jobs]] tables, one per job)");
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string k = key + "." + std::to_string(i);
    const toml::node& t = *arr->get(i);
    if (!t.is_table()) r_.fail(t, k + ": got " + detail::article_type(t) + " (expected a [[jobs]] table)");
    models::ScenarioSpec own;
    models::JobSpec job;
    job.name = "job" + std::to_string(i);
    cur_ = &own;
    prefix_ = k + ".";
    ZeroEntries top_zero = std::move(zero_toml_);
    zero_toml_.clear();
    r_.table(t, k,
             {
                 {"name", [&](auto& v, auto& kk) { job.name = r_.string(v, kk); }},
                 {"nodes", [&](auto& v, auto& kk) { job_nodes(v, kk, job); }},
                 {"placement", [&](auto& v, auto& kk) { placement(v, kk); }},
                 {"model", [&](auto& v, auto& kk) { model(v, kk); }},
                 {"training", [&](auto& v, auto& kk) { training(v, kk); }},
                 {"parallel", [&](auto& v, auto& kk) { parallel(v, kk); }},
                 {"zero", [&](auto& v, auto& kk) { zero(v, kk); }},
                 {"collective", [&](auto& v, auto& kk) { collective(v, kk); }},
             });
    refuse_model_and_collective(prefix_);
    if (job.nodes == 0)
      r_.fail(t, k + ": nodes is missing (expected nodes = [first, last], a range of the cluster's nodes, or "
                     "nodes = N, placed first-fit)");
    if (!own.model && !own.collective)
      r_.fail(t, k + ": nothing to simulate (expected a [" + k.substr(0, 4) + ".model] or [" + k.substr(0, 4) +
                     ".collective] table in this job)");
    if (own.collective && own.collective->bytes == 0)
      throw UserError(out_.position_of(k + ".collective"),
                      k + ".collective.bytes is missing (expected a size such as \"1 GiB\")");
    // The job's [zero] and DeepSpeed's rules, as for a single job, its positions under jobs.<i>.
    DeepSpeedSettings ds;
    for (auto& [name, e] : zero_toml_) ds.zero[canonical_zero_key(name)] = e;
    std::map<std::string, SourcePos> own_positions;
    // The keys under "jobs.<i>." sit together in the sorted map: visit them alone (all keys for
    // each job made 100,000 jobs quadratic).
    for (auto it = out_.positions.lower_bound(prefix_);
         it != out_.positions.end() && it->first.compare(0, prefix_.size(), prefix_) == 0; ++it)
      own_positions[it->first.substr(prefix_.size())] = it->second;
    apply_deepspeed(ds, own, own_positions);
    for (const auto& [dotted, pos] : own_positions) out_.positions.emplace(prefix_ + dotted, pos);
    zero_toml_ = std::move(top_zero);
    cur_ = &out_.spec;
    prefix_.clear();
    job.placement = own.placement;
    job.model = own.model;
    job.training = own.training;
    job.parallel = own.parallel;
    job.zero = own.zero;
    job.collective = own.collective;
    out_.spec.jobs.push_back(std::move(job));
  }
}

// jobs.<i>.nodes: [first, last] (inclusive, the cluster's node numbers) or a count.
void Loader::job_nodes(const toml::node& v, const std::string& k, models::JobSpec& job) {
  if (v.is_integer()) {
    job.nodes = static_cast<int>(r_.integer(v, k, 1, kMaxCount));
    return;
  }
  const toml::array* range = v.as_array();
  if (!range || range->size() != 2)
    r_.fail(v, k + ": got " + detail::article_type(v) +
                   (range ? " of " + std::to_string(range->size()) + " items" : std::string()) +
                   " (expected [first, last], a range of the cluster's nodes, or a node count)");
  const int a = static_cast<int>(r_.integer(*range->get(0), k + ".0", 0, kMaxCount));
  const int b = static_cast<int>(r_.integer(*range->get(1), k + ".1", 0, kMaxCount));
  if (b < a)
    r_.fail(v, k + ": [" + std::to_string(a) + ", " + std::to_string(b) +
                   "] ends before it starts (expected [first, last] with first <= last)");
  job.first_node = a;
  job.nodes = b - a + 1;
}

void Loader::placement(const toml::node& n, const std::string& key) {
  models::PlacementSpec& p = cur_->placement;
  r_.table(n, key,
           {
               {"pods_per_node",
                [&](auto& v, auto& k) { p.pods_per_node = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"gpus_per_pod",
                [&](auto& v, auto& k) { p.gpus_per_pod = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
               {"host_ipc", [&](auto& v, auto& k) { p.host_ipc = r_.boolean(v, k); }},
               {"host_network", [&](auto& v, auto& k) { p.host_network = r_.boolean(v, k); }},
               {"efa_plugin_ok", [&](auto& v, auto& k) { p.efa_plugin_ok = r_.boolean(v, k); }},
               {"single_process", [&](auto& v, auto& k) { p.single_process = r_.boolean(v, k); }},
               {"nics_per_pod",
                [&](auto& v, auto& k) { p.nics_per_pod = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
           });
}

void Loader::model(const toml::node& n, const std::string& key) {
  models::ModelSpec& m = cur_->model.emplace();
  auto dim = [&](int& field) {
    return [&](const toml::node& v, const std::string& k) { field = static_cast<int>(r_.integer(v, k, 1, 1 << 24)); };
  };
  auto rank = [&](std::optional<int>& field, int low) {
    return [&, low](const toml::node& v, const std::string& k) { field = int(r_.integer(v, k, low, 1 << 20)); };
  };
  r_.table(n, key,
           {
               {"preset", [&](auto& v, auto& k) { m.preset = r_.string(v, k); }},
               {"layers", dim(m.layers)},
               {"hidden", dim(m.hidden)},
               {"heads", dim(m.heads)},
               {"kv_heads", dim(m.kv_heads)},
               {"ffn", dim(m.ffn)},
               {"vocab", dim(m.vocab)},
               {"seq", dim(m.seq)},
               {"tied_embeddings", [&](auto& v, auto& k) { m.tied_embeddings = r_.boolean(v, k); }},
               {"mlp",
                [&](auto& v, auto& k) {
                  m.mlp = r_.one_of(v, k, {"swiglu", "gelu"});
                }},
               // Decoders that are not Llama-shaped (models/model/model_shape.hpp, docs/models.md).
               {"head_dim", dim(m.head_dim)},
               {"norm",
                [&](auto& v, auto& k) {
                  m.norm = r_.one_of(v, k, {"rmsnorm", "layernorm"});
                }},
               {"biases", [&](auto& v, auto& k) { m.biases = r_.boolean(v, k); }},
               {"positions",
                [&](auto& v, auto& k) {
                  m.positions = r_.one_of(v, k, {"rotary", "learned", "none"});
                }},
               {"max_positions", dim(m.max_positions)},
               // Multi-head latent attention (models/model/attention.hpp).
               {"q_lora_rank", rank(m.q_lora_rank, 0)},
               {"kv_lora_rank", rank(m.kv_lora_rank, 0)},
               {"qk_nope_head_dim", rank(m.qk_nope_head_dim, 1)},
               {"qk_rope_head_dim", rank(m.qk_rope_head_dim, 1)},
               {"v_head_dim", rank(m.v_head_dim, 1)},
               // Mixture of experts (models/model/moe.hpp).
               {"experts", [&](auto& v, auto& k) { m.experts = int(r_.integer(v, k, 0, 1 << 16)); }},
               {"top_k", [&](auto& v, auto& k) { m.top_k = int(r_.integer(v, k, 1, 1 << 16)); }},
               {"moe_ffn", [&](auto& v, auto& k) { m.moe_ffn = int(r_.integer(v, k, 1, 1 << 24)); }},
               {"shared_experts", [&](auto& v, auto& k) { m.shared_experts = int(r_.integer(v, k, 0, 1 << 16)); }},
               {"moe_first_dense", [&](auto& v, auto& k) { m.moe_first_dense = int(r_.integer(v, k, 0, 1 << 16)); }},
               {"moe_layers",
                [&](auto& v, auto& k) {
                  if (v.is_string()) {
                    r_.one_of(v, k, {"every"});
                    m.moe_stride = 1;
                  } else if (v.is_integer()) {
                    m.moe_stride = int(r_.integer(v, k, 1, 1 << 16));
                  } else {
                    r_.fail(v, k + ": got " + detail::article_type(v) +
                                   " (expected \"every\" or a stride: every n-th layer is MoE)");
                  }
                }},
               {"capacity_factor",
                [&](auto& v, auto& k) {
                  m.capacity_factor = r_.number(v, k);
                  if (!(*m.capacity_factor > 0))
                    r_.fail(v, k + " = " + detail::shortest(*m.capacity_factor) +
                                   " (expected a capacity above 0: each expert keeps at most that many times its "
                                   "average tokens; leave it unset for dropless routing)");
                }},
               {"pad_expert_input_to_capacity",
                [&](auto& v, auto& k) { m.pad_expert_input_to_capacity = r_.boolean(v, k); }},
               {"token_skew",
                [&](auto& v, auto& k) {
                  m.token_skew = r_.number(v, k);
                  if (*m.token_skew < 1)
                    r_.fail(v, k + " = " + detail::shortest(*m.token_skew) +
                                   " (expected >= 1: the busiest expert rank's tokens over the average)");
                }},
           });
}

void Loader::training(const toml::node& n, const std::string& key) {
  models::TrainingSpec& t = cur_->training;
  r_.table(
      n, key,
      {
          {"micro_batch", [&](auto& v, auto& k) { t.micro_batch = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
          {"grad_accum", [&](auto& v, auto& k) { t.grad_accum = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
          {"steps", [&](auto& v, auto& k) { t.steps = static_cast<int>(r_.integer(v, k, 1, kMaxSteps)); }},
          // A training target in tokens (models/run/cost.hpp): the run is ceil(tokens / tokens per step) steps.
          {"tokens",
           [&](auto& v, auto& k) {
             t.tokens = r_.number(v, k);
             if (!(t.tokens >= 1)) r_.fail(v, k + ": below 1 (expected the tokens to train on, e.g. 15e12)");
           }},
          {"grad_checkpointing", [&](auto& v, auto& k) { t.grad_checkpointing = r_.boolean(v, k); }},
          {"dtype",
           [&](auto& v, auto& k) {
             t.dtype = r_.one_of(v, k, {"bf16", "fp16", "fp32"});
           }},
          {"param_dtype",
           [&](auto& v, auto& k) {
             t.param_dtype = r_.one_of(v, k, {"bf16", "fp16", "fp32"});
           }},
          {"reduce_dtype",
           [&](auto& v, auto& k) {
             t.reduce_dtype = r_.one_of(v, k, {"bf16", "fp16", "fp32"});
           }},
          // The GEMMs' format; the older training.dtype says the same for bf16/fp16 (activations
          // and collectives): both may be written only where they agree. fp8 keeps bf16 (or
          // fp16) activations (models/compute/precision.hpp).
          {"precision",
           [&](auto& v, auto& k) {
             t.precision = r_.one_of(v, k, {"bf16", "fp16", "fp8", "mxfp8", "nvfp4"});
             const bool fp8 = t.precision == "fp8" || t.precision == "mxfp8" || t.precision == "nvfp4";
             if (out_.positions.count(prefix_ + "training.dtype")) {
               if (fp8 ? t.dtype == "fp32" : t.dtype != t.precision)
                 r_.fail(v, k + ": \"" + t.precision + "\" conflicts with training.dtype = \"" + t.dtype +
                                (fp8 ? "\" (expected dtype bf16 or fp16 beside " + t.precision + " GEMMs, or only one of the two keys)"
                                     : "\" (expected the same format in both keys, or only one of them)"));
             } else {
               t.dtype = fp8 ? "bf16" : t.precision;
               out_.positions[prefix_ + "training.dtype"] = r_.pos(v);  // DeepSpeed's bf16/fp16 must agree
             }
           }},
          {"optimizer", [&](auto& v, auto& k) { t.optimizer = r_.one_of(v, k, {"adamw"}); }},
          {"optimizer_dtype",
           [&](auto& v, auto& k) {
             t.optimizer_dtype = r_.one_of(v, k, {"fp32", "bf16", "fp16"});
           }},
          {"optimizer_impl",
           [&](auto& v, auto& k) {
             t.optimizer_impl = r_.one_of(v, k, {"foreach", "fused", "for_loop"});
           }},
          {"cpu_threads", [&](auto& v, auto& k) { t.cpu_threads = static_cast<int>(r_.integer(v, k, 1, 4096)); }},
          {"global_batch",
           [&](auto& v, auto& k) { t.global_batch = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
          {"recompute",
           [&](auto& v, auto& k) {
             t.recompute = r_.one_of(v, k, {"full", "selective", "selective_op", "none"});
           }},
          {"checkpoint_every",
           [&](auto& v, auto& k) { t.checkpoint_every = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); }},
          {"checkpoint_impl",
           [&](auto& v, auto& k) {
             t.checkpoint_impl = r_.one_of(v, k, {"reentrant", "non_reentrant"});
           }},
          {"attention_backend",
           [&](auto& v, auto& k) {
             t.attention_backend = r_.one_of(v, k, {"flash", "unfused"});
           }},
          {"rope",
           [&](auto& v, auto& k) {
             t.rope = r_.one_of(v, k, {"fused", "complex", "rotate_half"});
           }},
          {"repeat_kv", [&](auto& v, auto& k) { t.repeat_kv = r_.boolean(v, k); }},
          {"keep_logits", [&](auto& v, auto& k) { t.keep_logits = r_.boolean(v, k); }},
          {"loss_impl",
           [&](auto& v, auto& k) {
             t.loss_impl = r_.one_of(v, k, {"pytorch", "megatron"});
           }},
          {"compute_efficiency",
           [&](auto& v, auto& k) {
             t.compute_efficiency = r_.number(v, k);
             if (t.compute_efficiency <= 0 || t.compute_efficiency > 1)
               r_.fail(v, k + ": " + detail::shortest(t.compute_efficiency) +
                              " is out of range (expected a fraction of peak in (0, 1])");
           }},
      });
}

void Loader::parallel(const toml::node& n, const std::string& key) {
  models::ParallelSpec& p = cur_->parallel;
  auto degree = [&](int& field) {
    return [&](const toml::node& v, const std::string& k) { field = static_cast<int>(r_.integer(v, k, 1, kMaxCount)); };
  };
  auto flag = [&](bool& field) { return [&](const toml::node& v, const std::string& k) { field = r_.boolean(v, k); }; };
  r_.table(n, key,
           {
               {"strategy",
                [&](auto& v, auto& k) {
                  p.strategy = r_.one_of(v, k, {"zero3", "zero2", "zero1", "fsdp", "hsdp", "ddp", "megatron"});
                }},
               {"tp", degree(p.tp)},
               {"pp", degree(p.pp)},
               {"dp", degree(p.dp)},
               {"dp_shard", degree(p.dp_shard)},
               {"micro_batches", degree(p.micro_batches)},
               {"cp", degree(p.cp)},
               {"ep", degree(p.ep)},
               {"etp", degree(p.etp)},
               {"vp", degree(p.vp)},
               {"decoder_first_pipeline_num_layers", degree(p.decoder_first_pipeline_num_layers)},
               {"decoder_last_pipeline_num_layers", degree(p.decoder_last_pipeline_num_layers)},
               {"account_for_embedding_in_pipeline_split", flag(p.account_for_embedding_in_pipeline_split)},
               {"account_for_loss_in_pipeline_split", flag(p.account_for_loss_in_pipeline_split)},
               {"use_tp_pp_dp_mapping", flag(p.use_tp_pp_dp_mapping)},
               {"sequence_parallel", flag(p.sequence_parallel)},
               {"distributed_optimizer", flag(p.distributed_optimizer)},
               {"overlap_grad_reduce", flag(p.overlap_grad_reduce)},
               {"overlap_param_gather", flag(p.overlap_param_gather)},
               {"tp_comm_overlap", flag(p.tp_comm_overlap)},
               {"scatter_gather_tensors_in_pipeline", flag(p.scatter_gather_tensors_in_pipeline)},
               {"overlap_p2p_comm", [&](auto& v, auto& k) { p.overlap_p2p_comm = r_.boolean(v, k); }},
               {"pipeline_schedule",
                [&](auto& v, auto& k) {
                  p.pipeline_schedule = r_.one_of(v, k, {"1f1b", "zb_h1"});
                }},
               {"vocab_parallel", flag(p.vocab_parallel)},
               {"make_vocab_size_divisible_by", degree(p.make_vocab_size_divisible_by)},
               {"async_tensor_model_parallel_allreduce", flag(p.async_tensor_model_parallel_allreduce)},
           });
}

// [zero] takes DeepSpeed's zero_optimization keys verbatim (values as in the JSON, "auto"
// included); they are applied after the DeepSpeed JSON, so the scenario's own keys win.
void Loader::zero(const toml::node& n, const std::string& key) {
  Fields fields{{"deepspeed_config", [&](auto& v, auto& k) { set_deepspeed_path(v, k); }}};
  for (const std::string& name : zero_keys())
    fields.push_back(
        {name, [&, name](const toml::node& v, const std::string& k) { zero_toml_[name] = zero_entry(name, v, k); }});
  r_.table(n, key, fields);
}

ZeroEntry Loader::zero_entry(const std::string& name, const toml::node& v, const std::string& k) {
  ZeroEntry e;
  e.pos = r_.pos(v);
  const bool offload = name == "offload_optimizer" || name == "offload_param";
  if (TomlReader::is_auto(v))
    e.is_auto = true;
  else if (v.is_boolean())
    e.flag = v.as_boolean()->get();
  else if (offload && v.is_string())
    e.text = v.as_string()->get();
  else if (offload && v.is_table()) {
    e.text = "none";
    Fields fields;
    for (const std::string& o : offload_keys())
      fields.push_back({o, [&, o](const toml::node& ov, const std::string& ok) {
                          if (o == "device") e.text = r_.string(ov, ok);
                        }});
    r_.table(v, k, fields);
  } else if (v.is_integer() || v.is_floating_point() || v.is_string()) {
    e.number = r_.count(v, k);
  } else {
    r_.fail(v, k + ": got " + detail::article_type(v) + " (expected a number, a boolean or \"auto\")");
  }
  return e;
}

void Loader::collective(const toml::node& n, const std::string& key) {
  models::CollectiveSpec& c = cur_->collective.emplace();
  r_.table(
      n, key,
      {
          {"op",
           [&](auto& v, auto& k) {
             c.op = r_.one_of(
                 v, k, {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv"});
           }},
          {"bytes", [&](auto& v, auto& k) { c.bytes = r_.size(v, k); }},
          {"iterations", [&](auto& v, auto& k) { c.iterations = static_cast<int>(r_.integer(v, k, 1, kMaxSteps)); }},
      });
}

}  // namespace scenarios::detail
