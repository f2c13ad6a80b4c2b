// `run --json` and the human summary of one RunResult.
#include "scenarios/cli/output/result_format.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/hw/prices.hpp"
#include "models/run/cost.hpp"

#include "scenarios/cli/output/goodput_format.hpp"
#include "scenarios/cli/output/jobs_format.hpp"
#include "scenarios/cli/output/rank_rows.hpp"
#include "viz/format.hpp"

namespace scenarios {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::fabs(s);
  if (a >= 3600)
    return fmt::format("{} h {:02} min", static_cast<long long>(s / 3600),
                       static_cast<long long>(std::fmod(s, 3600) / 60));
  if (a >= 60)
    return fmt::format("{} min {:02} s", static_cast<long long>(s / 60), static_cast<long long>(std::fmod(s, 60)));
  if (a >= 1 || a == 0) return fmt::format("{:.3f} s", s);
  if (a >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3f} us", s * 1e6);
  return fmt::format("{:.1f} ns", s * 1e9);
}

std::string format_bytes(double b) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int i = 0;
  while (std::fabs(b) >= 1000 && i < 5) b /= 1000, ++i;
  return i == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.2f} {}", b, units[i]);
}

std::vector<std::pair<const char*, double>> breakdown_labels(const models::RankBreakdown& b) {
  return {{"compute", b.compute_s},
          {"interference", b.interference_s},
          {"exposed comm", b.exposed_comm_s},
          {"host (CPU/offload)", b.host_s},
          {"pipeline bubble", b.bubble_s},
          {"barrier wait", b.barrier_wait_s},
          {"other", b.other_s}};
}

double simulated_fraction(const models::RunResult& r) {
  if (!r.partial) return 1.0;
  const auto it = r.breakdown.find("simulated_fraction");
  return it == r.breakdown.end() ? 0.0 : it->second;
}

RankExtremes rank_extremes(const models::RunResult& r) {
  RankExtremes e;
  for (const auto& k : r.ranks) {
    e.max_compute_s = std::max(e.max_compute_s, k.compute_s);
    e.max_comm_s = std::max(e.max_comm_s, k.comm_s);
    e.max_exposed_comm_s = std::max(e.max_exposed_comm_s, k.exposed_comm_s);
    e.max_barrier_wait_s = std::max(e.max_barrier_wait_s, k.barrier_wait_s);
    e.max_offload_s = std::max(e.max_offload_s, k.offload_s);
  }
  return e;
}

Json memory_json(const models::MemoryResult& m) {
  if (!m.estimated) return nullptr;
  Json terms = Json::object();
  for (const auto& t : m.terms) terms[t.name] = integer_json(t.bytes);  // biggest first
  return {{"gpu", m.gpu},
          {"capacity_bytes", integer_json(m.capacity_bytes)},
          {"peak_bytes", integer_json(m.peak_bytes)},
          {"peak_rank", m.peak_rank},
          {"phase", m.phase},
          {"recompute", m.recompute},
          {"fits", m.fits},
          {"terms", std::move(terms)}};
}

Json throughput_json(const models::ThroughputResult& t) {
  if (!t.estimated) return nullptr;
  return {{"tokens_per_step", t.tokens_per_step},
          {"samples_per_step", t.samples_per_step},
          {"tokens_per_s", t.tokens_per_s},
          {"samples_per_s", t.samples_per_s},
          {"model_flops_per_step", t.model_flops_per_step},
          {"hardware_flops_per_step", t.hardware_flops_per_step},
          {"model_tflops_per_gpu", t.model_tflops_per_gpu},
          {"hardware_tflops_per_gpu", t.hardware_tflops_per_gpu},
          {"peak_tflops_per_gpu", t.peak_tflops_per_gpu},
          {"mfu", t.mfu},
          {"hfu", t.hfu},
          {"flops_formula",
           "Megatron-LM num_floating_point_operations (full attention, no recompute); hardware "
           "adds the recompute's forward"}};
}

std::string throughput_line(const models::ThroughputResult& t) {
  if (!t.estimated) return "";
  std::string s = fmt::format(
      "{:.0f} tokens/s, {} samples/s, {:.0f} TFLOP/s per GPU (MFU {:.1f} %", t.tokens_per_s,
      // "1830", not "1.83e+03": three digits, whole numbers from 100 on.
      t.samples_per_s >= 100 ? fmt::format("{:.0f}", t.samples_per_s) : fmt::format("{:.3g}", t.samples_per_s),
      t.model_tflops_per_gpu, 100 * t.mfu);
  if (t.hardware_flops_per_step > t.model_flops_per_step)
    s += fmt::format("; {:.0f} with the recompute, HFU {:.1f} %", t.hardware_tflops_per_gpu, 100 * t.hfu);
  return s + ")";
}

std::string format_usd(double usd) { return viz::fmt::usd(usd); }  // one rule for the text and the pages

std::string within_model_error_note(const models::RunResult& base, const models::RunResult& r, size_t index) {
  const auto& a = base.throughput;
  const auto& b = r.throughput;
  if (!a.estimated || !b.estimated || base.step_time_s <= 0 || a.tokens_per_step <= 0 ||
      std::abs(b.tokens_per_step - a.tokens_per_step) > 1e-9 * a.tokens_per_step)
    return "";
  const double ratio = r.step_time_s / base.step_time_s;
  if (std::abs(ratio - 1) < 5e-4 || std::max(ratio, 1 / ratio) > 1 + kStepModelError) return "";
  return fmt::format(
      "[{}]'s step is within {:.1f} % of [1]'s (x{:.2f}), commsim's median error on measured training steps "
      "(README, docs/accuracy.md): the model does not order them",
      index, 100 * kStepModelError, ratio);
}

std::string billed_window_text(const models::RunResult& r) {
  const models::CostResult& c = r.cost;
  if (!c.known || !(c.billed_s > r.run_time_s * (1 + 1e-9))) return "";  // a Capacity Block: its whole window
  // The block's own windows (a mixed cluster's billed_s blends them with its on-demand nodes).
  const double days =
      models::billed_seconds(models::hw::pricing_model_name(models::hw::PricingModel::CapacityBlock), r.run_time_s) /
      86400;
  return fmt::format("{}Capacity Block windows of {:.0f} day{} in all, paid whole, for a {} run",
                     c.pricing == "mixed" ? "its " : "", days, days > 1 ? "s" : "", goodput_duration(r.run_time_s));
}

std::string cost_line(const models::RunResult& r) {
  const models::CostResult& c = r.cost;
  const size_t gpus = r.ranks.size();
  if (!c.known)
    return fmt::format("unknown on {} GPUs: no price for {} (give [cluster] price_per_hour or --prices FILE)", gpus,
                       c.missing.empty() ? std::string("this cluster") : c.missing);
  std::string s = fmt::format("{} per step, {} per run", format_usd(c.usd_per_step), format_usd(c.usd_per_run));
  if (const std::string window = billed_window_text(r); !window.empty()) s += " (" + window + ")";
  if (c.usd_per_million_tokens > 0) s += fmt::format(", {} per million tokens", format_usd(c.usd_per_million_tokens));
  // The price bills every node of the cluster, whether the placement uses their GPUs or not.
  const std::string billed = c.gpus > 0 ? fmt::format("{} node{}, {} GPUs", c.nodes, c.nodes == 1 ? "" : "s", c.gpus)
                                        : fmt::format("{} node{}", c.nodes, c.nodes == 1 ? "" : "s");
  return s + fmt::format(" ({} at {}/h: {})", billed, format_usd(c.usd_per_hour), c.source);
}

std::string memory_line(const models::MemoryResult& m, size_t max_terms) {
  if (!m.estimated) return "";
  std::string s = fmt::format("{} peak of {} ({}, rank {}, {})", format_bytes(m.peak_bytes),
                              format_bytes(m.capacity_bytes), m.gpu, m.peak_rank, m.phase);
  for (size_t i = 0; i < std::min(max_terms, m.terms.size()); ++i)
    s += fmt::format("{} {} {}", i == 0 ? ":" : ",", m.terms[i].name, format_bytes(m.terms[i].bytes));
  return s;
}

std::string memory_warning(const models::MemoryResult& m) {
  if (!m.estimated || m.fits || m.terms.empty()) return "";
  return fmt::format(
      "DOES NOT FIT: rank {} needs {} at its {} peak, over the {}'s {}; biggest term {} ({}). Its times "
      "are what this layout would take if it fitted.",
      m.peak_rank, format_bytes(m.peak_bytes), m.phase, m.gpu, format_bytes(m.capacity_bytes), m.terms.front().name,
      format_bytes(m.terms.front().bytes));
}

std::string memory_margin_note(const models::MemoryResult& m) {
  // Under 5 % of the GPU's memory left: the allocator's fragmentation, which the estimate leaves
  // out, took 0.4-17 GB above the allocated peak on one H200 (docs/limitations.md).
  const double headroom = m.capacity_bytes - m.peak_bytes;
  if (!m.estimated || !m.fits || !(headroom < kTightMemoryShare * m.capacity_bytes)) return "";
  return fmt::format(
      "TIGHT: rank {}'s peak leaves {} of the {}'s {} (under 5 %); the caching allocator's fragmentation, not "
      "estimated, took 0.4-17 GB above the allocated peak on one H200, so it may not fit (a smaller micro-batch or "
      "recompute leaves more)",
      m.peak_rank, format_bytes(headroom), m.gpu, format_bytes(m.capacity_bytes));
}

std::string result_json(const models::RunResult& r, const CommandInputs& inputs) {
  Json j = json_header("run", inputs);
  add_run_summary(j, r);
  add_layout(j, &r);
  // The per-rank rows are written as text (rank_rows.hpp: the same bytes, without 17 JSON values
  // per rank), spliced in where this placeholder prints.
  constexpr const char* kRanksPlaceholder = "(ranks)";
  j["ranks"] = kRanksPlaceholder;
  Json links = Json::array();
  for (const auto& l : r.links) links.push_back(link_json(l));
  j["links"] = std::move(links);
  Json classes = Json::array();
  for (const auto& c : r.link_classes)
    classes.push_back({{"kind", c.kind},
                       {"links", c.links},
                       {"bytes", integer_json(c.bytes)},
                       {"mean_utilization", c.mean_utilization},
                       {"max_utilization", c.max_utilization}});
  j["link_classes"] = std::move(classes);
  Json transports = Json::array();
  for (const auto& t : r.transports) {
    Json o{{"label", t.label}, {"pairs", t.pairs}};
    if (!t.link_class.empty()) o["link_class"] = t.link_class;
    transports.push_back(std::move(o));
  }
  j["transports"] = std::move(transports);
  Json breakdown = Json::object();
  for (const auto& [k, v] : r.breakdown)  // std::map: sorted, deterministic; a count as an integer
    breakdown[k] = k == "collectives" ? Json(static_cast<int64_t>(std::llround(v))) : Json(v);
  j["breakdown"] = std::move(breakdown);
  j["notes"] = r.notes;
  j["caveats"] = r.caveats;
  j["events"] = r.events;
  j["fits"] = r.fits();
  j["memory"] = memory_json(r.memory);
  j["throughput"] = throughput_json(r.throughput);
  if (!r.scale_mode.empty()) {  // --explain-mode
    Json mode = Json::array();
    for (const auto& m : r.scale_mode) mode.push_back(Json{{"mechanism", m.mechanism}, {"applied", m.applied}, {"why", m.why}});
    j["scale_mode"] = std::move(mode);
  }
  add_cost_summary(j, r);
  if (r.straggler_free_step_s) j["straggler_free_step_s"] = *r.straggler_free_step_s;
  if (!r.straggler_stages.empty()) j["straggler_pipeline_stages"] = r.straggler_stages;
  j["variability"] = variability_json(r.variability);  // null unless --samples
  j["goodput"] = goodput_json(r.goodput);              // null for a bare collective
  if (!r.jobs.empty()) j["jobs"] = jobs_json(r);  // several jobs on one fabric
  if (r.partial) {
    j["simulated_fraction"] = simulated_fraction(r);
    j["simulated_s"] = r.step_time_s;
  }
  std::string text = dump_json(std::move(j));
  const std::string placeholder = std::string("\n  \"ranks\": \"") + kRanksPlaceholder + "\"";
  const std::size_t at = text.find(placeholder);
  if (at == std::string::npos) throw std::logic_error("run --json: the ranks' place was not found");
  text.replace(at, placeholder.size(), "\n  \"ranks\": " + rank_rows_json(r, 2));
  return text;
}

namespace {
// Where each [[stragglers]] entry sits in a Megatron pipeline, since its cost depends on the stage:
// "; it slows pipeline stage 7 of 0-7 (...)", "; entry 1 slows pipeline stage 0, entry 2 slows stage 7
// (of 0-7; ...)"; "" without a pipeline.
std::string straggler_stages_text(const models::RunResult& r) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < r.straggler_stages.size(); ++i) {
    const auto& stages = r.straggler_stages[i];
    if (stages.empty()) continue;
    std::string list;
    for (int st : stages) list += (list.empty() ? "" : ", ") + std::to_string(st);
    parts.push_back(fmt::format("{}stage{} {}", parts.empty() ? "pipeline " : "", stages.size() == 1 ? "" : "s", list));
    if (r.straggler_stages.size() > 1) parts.back() = fmt::format("entry {} slows {}", i + 1, parts.back());
  }
  if (parts.empty()) return "";
  const std::string why = "a straggler's cost depends on its stage";
  if (r.straggler_stages.size() == 1)
    return fmt::format("; it slows {} of 0-{} ({})", parts.front(), r.pipeline_stages - 1, why);
  std::string all;
  for (const auto& p : parts) all += (all.empty() ? "" : ", ") + p;
  return fmt::format("; {} (of 0-{}; {})", all, r.pipeline_stages - 1, why);
}
}  // namespace

std::string result_summary(const models::RunResult& r, const CommandInputs& inputs) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line(fmt::format("scenario   {}", r.scenario));
  if (!r.layout.empty()) line(fmt::format("layout     {}", r.layout));
  line(fmt::format("inputs     {}", inputs_text(inputs)));
  if (r.partial) {
    line(fmt::format("PARTIAL    stopped by --time-limit: simulated {:.1f} % of one step ({} of simulated time)",
                     100 * simulated_fraction(r), format_seconds(r.step_time_s)));
    line("           no step or run time; the figures below cover only what was simulated");
  } else {
    line(fmt::format("step time  {}", format_seconds(r.step_time_s)));
    // From 2 days on, in the days the goodput line's wall time is in ("139 d 06 h for 138 d 22 h
    // of steps"), so the two read alike; the hours too.
    line(fmt::format("run time   {}{}  ({} steps)",
                     r.run_time_s >= 2 * 86400 ? goodput_duration(r.run_time_s) + " = " : std::string(),
                     format_seconds(r.run_time_s), r.steps));
    if (r.straggler_free_step_s)
      line(fmt::format("stragglers cost {} per step ({:+.1f} %): {} without [[stragglers]]{}",
                       format_seconds(r.step_time_s - *r.straggler_free_step_s),
                       *r.straggler_free_step_s > 0
                           ? 100 * (r.step_time_s - *r.straggler_free_step_s) / *r.straggler_free_step_s
                           : 0.0,
                       format_seconds(*r.straggler_free_step_s), straggler_stages_text(r)));
    for (const auto& l : variability_lines(r.variability)) line(l);
  }
  if (!r.partial) line("cost       " + cost_line(r));
  if (r.throughput.estimated) line("throughput " + throughput_line(r.throughput));
  if (r.partial) line("throughput none for a partial step (a rate of unfinished work would mislead)");
  if (r.memory.estimated) line("memory     " + memory_line(r.memory, 3));
  if (!r.fits()) line("WARNING    " + memory_warning(r.memory));
  if (const std::string tight = memory_margin_note(r.memory); !tight.empty()) line("WARNING    " + tight);
  for (const auto& l : goodput_lines(r)) line(l);
  if (!r.jobs.empty()) {
    line("");
    out += jobs_summary(r);
    line("");
    line("the shared run (every job's ranks, over the longest job's step)");
  }
  const RankExtremes e = rank_extremes(r);
  line(fmt::format("per-rank maxima (each over all ranks): compute busy {}, comm {}, exposed comm {}, barrier wait {}",
                   format_seconds(e.max_compute_s), format_seconds(e.max_comm_s), format_seconds(e.max_exposed_comm_s),
                   format_seconds(e.max_barrier_wait_s)) +
       (e.max_offload_s > 0 ? fmt::format(", offload {}", format_seconds(e.max_offload_s)) : ""));
  line("");
  line("where the step goes (mean over ranks; every rank's terms add up to the step time)");
  for (const auto& [label, v] : breakdown_labels(r.step_breakdown))
    line(fmt::format("  {:<20} {:>12} {:>6.1f}%", label, format_seconds(v),
                     r.step_time_s > 0 ? 100 * v / r.step_time_s : 0.0));
  line("");
  line(fmt::format("{:>5} {:>4} {:>4} {:>4}  {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  {:>11}", "rank", "node",
                   "pod", "gpu", "compute", "interfere", "exposed", "host", "bubble", "barrier", "other", "comm"));
  // Large jobs: the first 16 ranks, then the rest as one line of maxima.
  const size_t shown = std::min<size_t>(r.ranks.size(), r.ranks.size() > 20 ? 16 : 20);
  for (size_t i = 0; i < shown; ++i) {
    const auto& k = r.ranks[i];
    const auto& b = k.breakdown;
    line(fmt::format("{:>5} {:>4} {:>4} {:>4}  {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  {:>11}", k.rank,
                     k.node, k.pod, k.gpu, format_seconds(b.compute_s), format_seconds(b.interference_s),
                     format_seconds(b.exposed_comm_s), format_seconds(b.host_s), format_seconds(b.bubble_s),
                     format_seconds(b.barrier_wait_s), format_seconds(b.other_s), format_seconds(k.comm_s)));
  }
  if (shown < r.ranks.size())
    line(fmt::format("  ... {} more ranks; maxima over all ranks are on the 'per-rank maxima' line",
                     r.ranks.size() - shown));
  if (!r.links.empty()) {
    line("");
    line(fmt::format("{:<32} {:<8} {:>12} {:>12} {:>8}", "busiest links", "kind", "bytes", "busy", "util"));
    for (size_t i = 0; i < std::min<size_t>(r.links.size(), 8); ++i) {
      const auto& l = r.links[i];
      line(fmt::format("{:<32} {:<8} {:>12} {:>12} {:>7.1f}%", l.name, l.kind, format_bytes(l.bytes),
                       format_seconds(l.busy_s), 100 * l.utilization));
    }
  }
  if (!r.transports.empty()) {
    line("");
    line("transports (rank pairs, as NCCL would log them)");
    for (const auto& t : r.transports) line(fmt::format("  {:<30} {} pairs", t.label, t.pairs));
  }
  if (!r.notes.empty()) {
    line("");
    line("notes");
    for (const auto& n : r.notes) line("  - " + n);
  }
  if (!r.scale_mode.empty()) {  // --explain-mode: every mechanism of models/scale/README.md, in order
    line("");
    line("scale mode ([x] applied, [ ] not, and why)");
    for (const auto& m : r.scale_mode) line(fmt::format("  [{}] {}: {}", m.applied ? 'x' : ' ', m.mechanism, m.why));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> group_caveats(const LabelledCaveats& labelled,
                                                               const std::string& all) {
  std::vector<std::pair<std::string, std::vector<std::string>>> seen;  // caveat -> its labels, first seen first
  for (const auto& [label, caveats] : labelled)
    for (const auto& c : *caveats) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == c; });
      if (it == seen.end()) it = seen.insert(seen.end(), {c, {}});
      it->second.push_back(label);
    }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [caveat, labels] : seen) {
    std::string who;
    if (labels.size() == labelled.size() && labelled.size() > 1)
      who = all;
    else
      for (size_t i = 0; i < labels.size(); ++i) who += (i ? " " : "") + labels[i];
    out.emplace_back(std::move(who), caveat);
  }
  return out;
}

std::string caveat_lines(const LabelledCaveats& labelled, const std::string& all) {
  std::string out;
  for (const auto& [who, caveat] : group_caveats(labelled, all)) out += wrap_words("  " + who + ":", caveat, "   ");
  return out;
}

std::string wrap_words(std::string head, const std::string& text, const std::string& indent) {
  std::string out, line = std::move(head);
  for (size_t from = 0; from < text.size();) {
    const size_t to = std::min(text.find(' ', from), text.size());
    const std::string word = text.substr(from, to - from);
    // An empty line or a bare indent has nothing to break after.
    if (!line.empty() && line != indent && line.size() + 1 + word.size() > 100) {
      out += line + "\n";
      line = indent;
    }
    line += (line.empty() ? "" : " ") + word;
    from = to + 1;
  }
  return out + line + "\n";
}

}  // namespace scenarios
