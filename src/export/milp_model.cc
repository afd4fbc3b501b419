// BuildMilp: the MILP of section IV, column for column the model the engine solves.
#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "ckptdp/graph.h"
#include "export/internal/grid_contract_milp.h"
#include "export/internal/model_builder.h"
#include "export/internal/restart_graph.h"
#include "export/internal/state_graph.h"

namespace ckptdp {
namespace export_internal {

GraphOptions GraphOptionsOf(Scenario scenario) {
  const ScenarioTraits traits = TraitsOf(scenario);
  GraphOptions options;
  options.allow_wait = traits.waiting;
  options.baseline_only = !traits.variable_modes;
  return options;
}

bool UsesGraph(Scenario scenario) { return scenario != Scenario::kS3; }

int AddColumn(MilpModel& model, std::string name, double lower, double upper, bool integer,
              double objective, const ColumnRole& role) {
  model.columns.push_back({std::move(name), lower, upper, integer, objective, role});
  return static_cast<int>(model.columns.size()) - 1;
}

int AddRow(MilpModel& model, std::string name, RowSense sense, double rhs,
           std::vector<std::pair<int, double>> terms) {
  std::sort(terms.begin(), terms.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  MilpRow row{std::move(name), sense, rhs, {}, {}};
  for (size_t i = 0; i < terms.size();) {
    double sum = 0;
    size_t j = i;
    for (; j < terms.size() && terms[j].first == terms[i].first; ++j) sum += terms[j].second;
    if (sum != 0) {
      row.columns.push_back(terms[i].first);
      row.values.push_back(sum);
    }
    i = j;
  }
  model.rows.push_back(std::move(row));
  return static_cast<int>(model.rows.size()) - 1;
}

std::unordered_map<std::string_view, int> ColumnIndex(const MilpModel& model) {
  std::unordered_map<std::string_view, int> index;
  index.reserve(model.columns.size());
  for (size_t c = 0; c < model.columns.size(); ++c) {
    index.emplace(model.columns[c].name, static_cast<int>(c));
  }
  return index;
}

void AddCoverage(const Instance& instance, const Mode& mode, int column, int from, int to,
                 SlotTerms& slots) {
  for (int t = from; t < to; ++t) {
    slots.gpus[t].push_back({column, static_cast<double>(mode.gpus)});
    slots.it_power[t].push_back({column, -instance.site.pue * mode.it_power_kw});
  }
}

// Per slot: AIDC load (eq. 26, 28b as its bound), GPU limit (28a), bus (29), battery (30),
// and the cost (31) on the power columns.
void AddPowerSide(const Instance& instance, bool battery, SlotTerms& slots, MilpModel& model) {
  const int slots_n = instance.time.slots;
  const double dt = instance.time.StepHours();
  const double usd_per_kw = dt / 1000.0;  // a kW held for one slot, priced in USD/MWh
  const Battery& b = instance.battery;
  const auto role = [](ColumnKind kind, int t) {
    ColumnRole r;
    r.kind = kind;
    r.slot = t;
    return r;
  };
  std::vector<int> aidc(slots_n), grid(slots_n), cur(slots_n), ch(slots_n), dis(slots_n),
      soc(slots_n), uch(slots_n), udis(slots_n);
  for (int t = 0; t < slots_n; ++t) {
    aidc[t] = AddColumn(model, absl::StrCat("aidc_t", t), 0, instance.site.site_power_cap_kw, false,
                        0, role(ColumnKind::kAidc, t));
  }
  for (int t = 0; t < slots_n; ++t) {
    grid[t] =
        AddColumn(model, absl::StrCat("grid_t", t), 0, kMilpInfinity, false,
                  instance.series.price_usd_per_mwh[t] * usd_per_kw, role(ColumnKind::kGrid, t));
  }
  for (int t = 0; t < slots_n; ++t) {
    cur[t] = AddColumn(model, absl::StrCat("cur_t", t), 0, instance.RenewableKw(t), false,
                       instance.costs.curtailment_usd_per_mwh * usd_per_kw,
                       role(ColumnKind::kCurtailment, t));
  }
  if (battery) {
    const double wear = instance.costs.battery_wear_usd_per_mwh * usd_per_kw;
    for (int t = 0; t < slots_n; ++t) {
      ch[t] = AddColumn(model, absl::StrCat("ch_t", t), 0, b.power_kw, false, wear,
                        role(ColumnKind::kCharge, t));
    }
    for (int t = 0; t < slots_n; ++t) {
      dis[t] = AddColumn(model, absl::StrCat("dis_t", t), 0, b.power_kw, false, wear,
                         role(ColumnKind::kDischarge, t));
    }
    for (int t = 0; t < slots_n; ++t) {
      // E_T = E_0: the last state is fixed at the initial one.
      const bool last = t == slots_n - 1;
      soc[t] =
          AddColumn(model, absl::StrCat("soc_t", t), last ? b.soc_initial_kwh : b.soc_min_kwh,
                    last ? b.soc_initial_kwh : b.soc_max_kwh, false, 0, role(ColumnKind::kSoc, t));
    }
    for (int t = 0; t < slots_n; ++t) {
      uch[t] =
          AddColumn(model, absl::StrCat("uch_t", t), 0, 1, true, 0, role(ColumnKind::kChargeOn, t));
    }
    for (int t = 0; t < slots_n; ++t) {
      udis[t] = AddColumn(model, absl::StrCat("udis_t", t), 0, 1, true, 0,
                          role(ColumnKind::kDischargeOn, t));
    }
  }

  for (int t = 0; t < slots_n; ++t) {
    if (!slots.gpus[t].empty()) {
      AddRow(model, absl::StrCat("gpu_t", t), RowSense::kLessEqual, instance.site.gpu_capacity,
             std::move(slots.gpus[t]));
    }
    Terms load = std::move(slots.it_power[t]);
    load.push_back({aidc[t], 1.0});
    AddRow(model, absl::StrCat("load_t", t), RowSense::kEqual, instance.site.base_load_kw,
           std::move(load));
    // ren - cur + grid + dis - ch = AIDC, with the constant ren on the right.
    Terms bus = {{cur[t], -1.0}, {grid[t], 1.0}, {aidc[t], -1.0}};
    if (battery) {
      bus.push_back({dis[t], 1.0});
      bus.push_back({ch[t], -1.0});
    }
    AddRow(model, absl::StrCat("bal_t", t), RowSense::kEqual, -instance.RenewableKw(t),
           std::move(bus));
  }
  if (!battery) return;
  for (int t = 0; t < slots_n; ++t) {
    // E_t - E_{t-1} - eta_ch dt ch_t + dt / eta_dis dis_t = 0, E_{-1} = soc_initial.
    Terms energy = {
        {soc[t], 1.0}, {ch[t], -b.charge_efficiency * dt}, {dis[t], dt / b.discharge_efficiency}};
    if (t > 0) energy.push_back({soc[t - 1], -1.0});
    AddRow(model, absl::StrCat("socbal_t", t), RowSense::kEqual, t == 0 ? b.soc_initial_kwh : 0.0,
           std::move(energy));
    AddRow(model, absl::StrCat("chon_t", t), RowSense::kLessEqual, 0.0,
           {{ch[t], 1.0}, {uch[t], -b.power_kw}});
    AddRow(model, absl::StrCat("dison_t", t), RowSense::kLessEqual, 0.0,
           {{dis[t], 1.0}, {udis[t], -b.power_kw}});
    AddRow(model, absl::StrCat("excl_t", t), RowSense::kLessEqual, 1.0,
           {{uch[t], 1.0}, {udis[t], 1.0}});
  }
}

// LP and MPS names allow few characters; the model name is informational.
std::string SafeName(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    out.push_back(ok ? c : '_');
  }
  return out.empty() ? "ckptdp" : out;
}

}  // namespace export_internal

namespace {

using export_internal::AddColumn;
using export_internal::AddCoverage;
using export_internal::AddPowerSide;
using export_internal::AddRow;
using export_internal::SafeName;
using export_internal::SlotTerms;
using export_internal::Terms;

// Eq. (25) on the explicit state graph of job j; train columns feed the slot rows.
absl::Status AddGraphJob(const Instance& instance, Scenario scenario, const JobModes& modes, int j,
                         MilpModel& model, SlotTerms& slots) {
  using export_internal::BuildJobStateGraph;
  using export_internal::FlowRowName;
  using export_internal::GraphEdge;
  using export_internal::GraphOptionsOf;
  using export_internal::GraphState;
  using export_internal::HubArcName;
  using export_internal::HubRowName;
  using export_internal::JobStateGraph;
  using export_internal::RunState;
  using export_internal::TrainName;
  using export_internal::WaitName;
  const Job& job = instance.jobs[j];
  const CheckpointGraph graph(instance, j, modes, GraphOptionsOf(scenario));
  const JobStateGraph sg = graph.has_restarts() ? export_internal::BuildRestartStateGraph(graph)
                                                : BuildJobStateGraph(graph);
  if (sg.source < 0) {
    const std::string why =
        graph.Reachable()
            ? absl::StrCat("in scenario ", std::string(ScenarioName(scenario)),
                           " its wait and boundary rules leave no path from (", job.release_slot,
                           ", 0) to (", job.deadline_slot, ", ", job.segments, ")")
            : graph.UnreachableReason();
    return absl::InvalidArgumentError(absl::StrCat("export: job ", job.name,
                                                   " has no feasible path, so the MILP would be ",
                                                   "infeasible: ", why));
  }
  std::vector<Terms> flow(sg.states.size());
  // (hub state, feasible mode) -> the arcs into the hub from that layout and the hub's train
  // edges in that mode: at most one of them is used (restart_graph.h).
  std::map<std::pair<int, int>, Terms> hub_terms;
  for (const GraphEdge& e : sg.edges) {
    const GraphState& s = sg.states[e.from];
    ColumnRole role;
    role.job = j;
    role.slot = s.slot;
    role.segment = s.segment;
    role.run_slots = s.run_slots;
    role.pauses = s.pauses;
    int column;
    if (e.into_hub) {
      role.kind = ColumnKind::kLayoutChange;
      role.end_slot = s.slot;
      role.mode = s.layout;
      // Continuous: flow conservation at its integer-fed tail makes it integer anyway.
      column = AddColumn(model, HubArcName(j, s), 0, 1, false, 0, role);
      hub_terms[{e.to, s.layout}].push_back({column, 1.0});
    } else if (e.graph_mode < 0) {
      role.kind = ColumnKind::kWait;
      role.end_slot = s.slot + 1;
      column = AddColumn(model, WaitName(j, sg.resources, s), 0, 1, true, 0, role);
    } else {
      role.kind = ColumnKind::kTrain;
      role.mode = graph.feasible_index(e.graph_mode);
      role.segments_covered = e.dk;
      role.end_slot =
          s.slot + (e.continues_initial ? graph.initial_duration(e.dk)
                                        : graph.duration(e.graph_mode, e.dk, e.overhead));
      role.overhead_minutes = graph.OverheadMinutes(e.overhead);
      role.continues_initial = e.continues_initial;
      column =
          AddColumn(model, TrainName(j, role.mode, sg.resources, s, e.dk), 0, 1, true, 0, role);
      AddCoverage(instance, modes.feasible[role.mode], column, role.slot, role.end_slot, slots);
      if (s.run == RunState::kChange) hub_terms[{e.from, role.mode}].push_back({column, 1.0});
    }
    flow[e.from].push_back({column, 1.0});
    flow[e.to].push_back({column, -1.0});
  }
  // out - in = 1 at the source, 0 elsewhere; the end states together receive the unit.
  Terms into_sinks;
  for (size_t i = 0; i < sg.states.size(); ++i) {
    const bool sink =
        std::find(sg.sinks.begin(), sg.sinks.end(), static_cast<int>(i)) != sg.sinks.end();
    if (sink) {
      for (const auto& [column, coefficient] : flow[i])
        into_sinks.push_back({column, -coefficient});
      continue;
    }
    AddRow(model, FlowRowName(j, sg.resources, sg.states[i]), RowSense::kEqual,
           static_cast<int>(i) == sg.source ? 1.0 : 0.0, std::move(flow[i]));
  }
  const std::string sink_name = sg.resources || sg.sinks.size() != 1
                                    ? absl::StrCat("sink_j", j)
                                    : FlowRowName(j, false, sg.states[sg.sinks.front()]);
  AddRow(model, sink_name, RowSense::kEqual, 1.0, std::move(into_sinks));
  for (auto& [key, terms] : hub_terms) {
    const auto& [hub, mode] = key;
    const auto is_arc = [&](const auto& term) {
      return model.columns[term.first].role.kind == ColumnKind::kLayoutChange;
    };
    const bool arcs = std::any_of(terms.begin(), terms.end(), is_arc);
    if (!arcs || std::all_of(terms.begin(), terms.end(), is_arc)) continue;  // nothing to forbid
    AddRow(model, HubRowName(j, sg.states[hub], mode), RowSense::kLessEqual, 1.0, std::move(terms));
  }
  return absl::OkStatus();
}

// S3: one effective (or the baseline) mode or none per slot, and the window's work covers C_j. Work
// is counted in units of C_j so that the row's coefficients are of order 1.
void AddIdealJob(const Instance& instance, const JobModes& modes, int j, MilpModel& model,
                 SlotTerms& slots) {
  const Job& job = instance.jobs[j];
  const double step_s = instance.time.StepHours() * 3600.0;
  // The engine's mode set (graph.h): the effective modes plus the baseline, so that every
  // schedule the engine can return, S4's warm start included, is a point of this model.
  std::vector<int> slot_modes = modes.effective;
  if (!modes.feasible[modes.baseline].effective) slot_modes.push_back(modes.baseline);
  Terms work;
  for (int t = job.release_slot; t < job.deadline_slot; ++t) {
    Terms one;
    for (int m : slot_modes) {
      const Mode& mode = modes.feasible[m];
      ColumnRole role;
      role.kind = ColumnKind::kSlotMode;
      role.job = j;
      role.mode = m;
      role.slot = t;
      role.end_slot = t + 1;
      const int column =
          AddColumn(model, absl::StrCat("y_j", j, "_m", m, "_t", t), 0, 1, true, 0, role);
      AddCoverage(instance, mode, column, t, t + 1, slots);
      one.push_back({column, 1.0});
      work.push_back({column, mode.throughput_flops * step_s / modes.workload.compute_flops});
    }
    AddRow(model, absl::StrCat("one_j", j, "_t", t), RowSense::kLessEqual, 1.0, std::move(one));
  }
  AddRow(model, absl::StrCat("work_j", j), RowSense::kGreaterEqual, 1.0, std::move(work));
}

}  // namespace

int MilpModel::NumIntegers() const {
  return static_cast<int>(
      std::count_if(columns.begin(), columns.end(), [](const MilpColumn& c) { return c.integer; }));
}

long long MilpModel::NumNonzeros() const {
  long long n = 0;
  for (const MilpRow& row : rows) n += static_cast<long long>(row.columns.size());
  return n;
}

int MilpModel::FindColumn(std::string_view name) const {
  for (size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].name == name) return static_cast<int>(c);
  }
  return -1;
}

absl::StatusOr<MilpModel> BuildMilp(const Instance& instance, Scenario scenario,
                                    const std::vector<JobModes>& modes) {
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(instance));
  if (modes.size() != instance.jobs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("export: ", modes.size(), " mode sets for ", instance.jobs.size(), " jobs"));
  }
  const ScenarioTraits traits = TraitsOf(scenario);
  MilpModel model;
  model.name = SafeName(absl::StrCat(instance.name, "_", std::string(ScenarioName(scenario))));
  model.scenario = scenario;
  const int slots_n = instance.time.slots;
  SlotTerms slots{std::vector<Terms>(slots_n), std::vector<Terms>(slots_n)};
  for (int j = 0; j < static_cast<int>(instance.jobs.size()); ++j) {
    if (export_internal::UsesGraph(scenario)) {
      CKPTDP_RETURN_IF_ERROR(AddGraphJob(instance, scenario, modes[j], j, model, slots));
    } else {
      AddIdealJob(instance, modes[j], j, model, slots);
    }
  }
  AddPowerSide(instance, traits.battery, slots, model);
  if (HasGridContract(instance)) export_internal::AddGridContract(instance, traits.battery, model);
  return model;
}

}  // namespace ckptdp
