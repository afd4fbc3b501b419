// Decoding a MILP solution into a Result that `ckptdp check` can validate.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "ckptdp/engine.h"
#include "ckptdp/export.h"

namespace ckptdp {
namespace {

// Integrality is read with a generous threshold: solvers return 0.9999999 for 1.
bool Chosen(double value) { return value > 0.5; }

absl::StatusOr<Schedule> DecodeRuns(const Instance& instance, const std::vector<JobModes>& modes,
                                    const MilpModel& model, const MilpSolution& solution) {
  const int jobs = static_cast<int>(instance.jobs.size());
  const double step_s = instance.time.StepHours() * 3600.0;
  Schedule schedule;
  schedule.jobs.assign(jobs, {});
  // S3: the mode chosen in each slot of each job.
  std::vector<std::map<int, int>> slot_mode(jobs);
  for (size_t c = 0; c < model.columns.size(); ++c) {
    const ColumnRole& role = model.columns[c].role;
    if (!Chosen(solution.values[c])) continue;
    if (role.kind == ColumnKind::kTrain) {
      Run run;
      run.start_slot = role.slot;
      run.end_slot = role.end_slot;
      run.from_segment = role.segment;
      run.to_segment = role.segment + role.segments_covered;
      run.mode = role.mode;
      // The initial run's first segment was partly done before slot 0.
      const double done =
          role.continues_initial ? instance.jobs[role.job].initial->segment_fraction : 0.0;
      run.work_flops = (role.segments_covered - done) * modes[role.job].workload.segment_flops;
      run.overhead_minutes = role.overhead_minutes;
      run.continues_initial = role.continues_initial;
      schedule.jobs[role.job].push_back(run);
    } else if (role.kind == ColumnKind::kPlan) {
      if (role.job >= static_cast<int>(model.plans.size()) ||
          role.plan >= static_cast<int>(model.plans[role.job].size()) ||
          !schedule.jobs[role.job].empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "solution picks plan ", role.plan, " of job ", instance.jobs[role.job].name,
            ", which the model does not hold or picks after another plan of the job"));
      }
      schedule.jobs[role.job] = model.plans[role.job][role.plan];
    } else if (role.kind == ColumnKind::kSlotMode) {
      if (!slot_mode[role.job].emplace(role.slot, role.mode).second) {
        return absl::InvalidArgumentError(absl::StrCat("solution runs job ",
                                                       instance.jobs[role.job].name,
                                                       " in two modes in slot ", role.slot));
      }
    }
  }
  for (int j = 0; j < jobs; ++j) {
    std::vector<Run>& runs = schedule.jobs[j];
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
      return a.start_slot != b.start_slot ? a.start_slot < b.start_slot
                                          : a.from_segment < b.from_segment;
    });
    // S3: consecutive slots in one mode are one run.
    for (auto it = slot_mode[j].begin(); it != slot_mode[j].end(); ++it) {
      const Mode& mode = modes[j].feasible[it->second];
      const double work = mode.throughput_flops * step_s;
      if (!runs.empty() && runs.back().end_slot == it->first && runs.back().mode == it->second) {
        ++runs.back().end_slot;
        runs.back().work_flops = (runs.back().end_slot - runs.back().start_slot) * work;
        continue;
      }
      runs.push_back({it->first, it->first + 1, -1, -1, it->second, work});
    }
  }
  return schedule;
}

}  // namespace

absl::StatusOr<Result> SolutionToResult(const Instance& instance, Scenario scenario,
                                        const std::vector<JobModes>& modes, const MilpModel& model,
                                        const MilpSolution& solution) {
  if (solution.values.size() != model.columns.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "solution has ", solution.values.size(), " values for ", model.columns.size(), " columns"));
  }
  if (model.scenario != scenario &&
      !(scenario == Scenario::kS1 && model.scenario == Scenario::kS2)) {
    return absl::InvalidArgumentError(absl::StrCat("the model is for scenario ",
                                                   std::string(ScenarioName(model.scenario)),
                                                   ", not ", std::string(ScenarioName(scenario))));
  }
  if (!solution.feasible) {
    return absl::FailedPreconditionError(
        absl::StrCat("the solver reports no feasible solution: \"", solution.status_line, "\""));
  }
  const int slots = instance.time.slots;
  Result r;
  r.scenario = scenario;
  CKPTDP_ASSIGN_OR_RETURN(r.schedule, DecodeRuns(instance, modes, model, solution));
  r.load = AggregateLoad(instance, modes, r.schedule);

  // The power side exactly as the solver set it.
  const bool battery = TraitsOf(scenario).battery;
  r.power.slots.assign(slots, PowerSlot{});
  for (int t = 0; t < slots; ++t) {
    r.power.slots[t].aidc_kw = r.load.aidc_kw[t];
    r.power.slots[t].soc_kwh = 0;  // as the engine reports an unused battery
  }
  for (size_t c = 0; c < model.columns.size(); ++c) {
    const ColumnRole& role = model.columns[c].role;
    const double v = solution.values[c];
    if (role.slot < 0 || role.slot >= slots) continue;
    PowerSlot& s = r.power.slots[role.slot];
    switch (role.kind) {
      case ColumnKind::kGrid:
        s.grid_kw = v;
        break;
      case ColumnKind::kCurtailment:
        s.curtailment_kw = v;
        break;
      case ColumnKind::kCharge:
        s.charge_kw = v;
        break;
      case ColumnKind::kDischarge:
        s.discharge_kw = v;
        break;
      case ColumnKind::kSoc:
        s.soc_kwh = v;
        break;
      case ColumnKind::kExport:
        s.export_kw = v;
        break;
      default:
        break;
    }
  }
  const double usd_per_kw = instance.time.StepHours() / 1000.0;
  for (int t = 0; t < slots; ++t) {
    PowerSlot& s = r.power.slots[t];
    s.renewable_used_kw = instance.RenewableKw(t) - s.curtailment_kw - s.export_kw;
    r.power.grid_cost_usd += instance.series.price_usd_per_mwh[t] * s.grid_kw * usd_per_kw;
    r.power.curtailment_cost_usd +=
        instance.costs.curtailment_usd_per_mwh * s.curtailment_kw * usd_per_kw;
    if (battery) {
      r.power.battery_cost_usd +=
          instance.costs.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw) * usd_per_kw;
    }
  }

  // cost_reduction_pct is against the fixed baseline, as every result reports it.
  SolveOptions s1_options;
  s1_options.threads = 1;
  absl::StatusOr<Result> s1 = SolveScenario(instance, Scenario::kS1, s1_options);
  const double reference =
      s1.ok() && s1->status != SolveStatus::kInfeasible ? s1->objective_usd : 0.0;
  r.metrics = ComputeMetrics(instance, r.power, r.load, reference);
  r.objective_usd = r.metrics.cost_usd;
  if (solution.optimal) {
    r.status = SolveStatus::kOptimal;
    r.lower_bound_usd = r.objective_usd;
  } else {
    // The solution file does not carry the solver's bound.
    r.status = solution.time_limit ? SolveStatus::kTimeLimit : SolveStatus::kFeasible;
    r.lower_bound_usd = std::numeric_limits<double>::quiet_NaN();
  }
  r.gap = RelativeGap(r.objective_usd, r.lower_bound_usd);
  r.solver.threads = 1;
  return r;
}

}  // namespace ckptdp
