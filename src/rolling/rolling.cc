// The rolling loop: plan, execute a window against the actuals, re-plan from the state.
#include "ckptdp/rolling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ckptdp/power.h"
#include "rolling/internal/sub_problem.h"

namespace ckptdp {
namespace {

using rolling_internal::JobState;
using rolling_internal::SubProblem;

// The power side of slots [from, T) for the load of `plan`: the battery DP from the SoC
// reached to the original E_T, with the actual renewables in [from, actual_to) and the
// forecast after.
absl::StatusOr<PowerDispatch> DispatchRest(const Instance& forecast, const Series& actual,
                                           const std::vector<JobModes>& modes, const Schedule& plan,
                                           bool use_battery, int from, int actual_to,
                                           double soc_kwh) {
  const SlotLoad load = AggregateLoad(forecast, modes, plan);
  Instance rest = forecast;
  rest.time.slots = forecast.time.slots - from;
  Series& s = rest.series;
  for (std::vector<double>* v : {&s.pv_kw, &s.wind_kw, &s.price_usd_per_mwh}) {
    v->erase(v->begin(), v->begin() + from);
  }
  for (int t = from; t < actual_to; ++t) {
    s.pv_kw[t - from] = actual.pv_kw[t];
    s.wind_kw[t - from] = actual.wind_kw[t];
  }
  rest.battery.soc_initial_kwh = soc_kwh;
  rest.battery_soc_final_kwh =
      forecast.battery_soc_final_kwh.value_or(forecast.battery.soc_initial_kwh);
  const PowerInputs inputs = PowerInputs::FromInstance(rest, use_battery);
  const std::span<const double> aidc(load.aidc_kw.data() + from, load.aidc_kw.size() - from);
  return DispatchFixedLoad(inputs, aidc);
}

// Executes slots [from, to): the jobs follow `plan`; the power side is re-dispatched on the
// actual renewables of the window (known when it is dispatched: an intra-day forecast) with
// the forecast after it, and the window's slots are kept.
absl::Status ExecuteWindow(const Instance& forecast, const Series& actual,
                           const std::vector<JobModes>& modes, const Schedule& plan,
                           bool use_battery, int from, int to, double& soc_kwh,
                           PowerDispatch& executed) {
  CKPTDP_ASSIGN_OR_RETURN(const PowerDispatch d, DispatchRest(forecast, actual, modes, plan,
                                                              use_battery, from, to, soc_kwh));
  const double mwh_per_kw = forecast.time.StepHours() / 1000.0;
  const Costs& c = forecast.costs;
  for (int t = from; t < to; ++t) {
    const PowerSlot& p = d.slots[t - from];
    executed.slots.push_back(p);
    executed.grid_cost_usd += forecast.series.price_usd_per_mwh[t] * p.grid_kw * mwh_per_kw;
    executed.curtailment_cost_usd += c.curtailment_usd_per_mwh * p.curtailment_kw * mwh_per_kw;
    executed.battery_cost_usd +=
        c.battery_wear_usd_per_mwh * (p.charge_kw + p.discharge_kw) * mwh_per_kw;
    if (use_battery) soc_kwh = p.soc_kwh;
  }
  return absl::OkStatus();
}

// The day-ahead plan unchanged, its power side re-dispatched window by window.
absl::StatusOr<double> ExecuteUnchanged(const Instance& forecast, const Series& actual,
                                        const std::vector<JobModes>& modes, const Schedule& plan,
                                        bool use_battery, int every) {
  double soc = forecast.battery.soc_initial_kwh;
  PowerDispatch executed;
  for (int t = 0; t < forecast.time.slots; t += every) {
    const int to = std::min(forecast.time.slots, t + every);
    CKPTDP_RETURN_IF_ERROR(
        ExecuteWindow(forecast, actual, modes, plan, use_battery, t, to, soc, executed));
  }
  return executed.TotalCostUsd();
}

// The latest multipliers known per slot of the horizon (NaN: none), from the first plan and
// each re-solve: a re-solve starts from them, shifted to its slots, when all are known.
struct LatestMultipliers {
  std::vector<double> lambda, mu;

  explicit LatestMultipliers(int slots)
      : lambda(slots, std::numeric_limits<double>::quiet_NaN()),
        mu(slots, std::numeric_limits<double>::quiet_NaN()) {}

  void Record(const SolverStats& s, int origin) {
    if (s.lambda_usd_per_kw.size() != s.mu_usd_per_gpu.size()) return;
    for (std::size_t k = 0; k < s.lambda_usd_per_kw.size(); ++k) {
      lambda[origin + k] = s.lambda_usd_per_kw[k];
      mu[origin + k] = s.mu_usd_per_gpu[k];
    }
  }

  void Offer(int from, int to, WarmStart& warm) const {
    for (int t = from; t < to; ++t) {
      if (std::isnan(lambda[t]) || std::isnan(mu[t])) return;
    }
    warm.lambda_usd_per_kw.assign(lambda.begin() + from, lambda.begin() + to);
    warm.mu_usd_per_gpu.assign(mu.begin() + from, mu.begin() + to);
  }
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

absl::StatusOr<Instance> WithActualSeries(const Instance& instance, const Series& actual) {
  Instance out = instance;
  out.name = instance.name + "_actual";
  out.series = actual;
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(out));
  return out;
}

absl::StatusOr<RollingOutcome> RunRolling(const Instance& forecast, const Series& actual,
                                          const RollingOptions& options) {
  if (options.every_slots < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--every: must be at least 1 slot, got ", options.every_slots));
  }
  if (options.scenario != Scenario::kS4 && options.scenario != Scenario::kS6) {
    return absl::InvalidArgumentError(
        absl::StrCat("--scenario: rolling re-plans jobs on their checkpoint graphs: S4 or S6, got ",
                     ScenarioName(options.scenario)));
  }
  CKPTDP_RETURN_IF_ERROR(ValidateSolveOptions(options.solve));
  CKPTDP_ASSIGN_OR_RETURN(const Instance actual_instance, WithActualSeries(forecast, actual));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<JobModes> modes, BuildAllModes(forecast));
  CKPTDP_RETURN_IF_ERROR(rolling_internal::CheckRollable(forecast, modes));
  const Scenario scenario = options.scenario;
  const bool use_battery = TraitsOf(scenario).battery;
  const int T = forecast.time.slots;
  const auto start = std::chrono::steady_clock::now();

  RollingOutcome out;
  CKPTDP_ASSIGN_OR_RETURN(out.day_ahead, SolveScenario(forecast, scenario, options.solve));
  if (out.day_ahead.schedule.jobs.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("rolling: the day-ahead plan has no schedule (",
                     SolveStatusName(out.day_ahead.status), "): ", out.day_ahead.diagnosis));
  }
  CKPTDP_ASSIGN_OR_RETURN(out.day_ahead_executed_usd,
                          ExecuteUnchanged(forecast, actual, modes, out.day_ahead.schedule,
                                           use_battery, options.every_slots));

  std::vector<CheckpointGraph> graphs;
  for (std::size_t j = 0; j < forecast.jobs.size(); ++j) {
    graphs.emplace_back(forecast, static_cast<int>(j), modes[j], GraphOptions{});
  }
  Schedule plan = out.day_ahead.schedule;
  LatestMultipliers prices(T);
  prices.Record(out.day_ahead.solver, 0);
  double soc = forecast.battery.soc_initial_kwh;
  PowerDispatch executed;
  int iterations = out.day_ahead.solver.iterations;
  for (int t = 0; t < T;) {
    const int next =
        rolling_internal::CommitUpTo(plan, graphs, std::min(T, t + options.every_slots));
    CKPTDP_RETURN_IF_ERROR(
        ExecuteWindow(forecast, actual, modes, plan, use_battery, t, next, soc, executed));
    t = next;
    if (t >= T) break;
    const std::vector<JobState> states = rolling_internal::StatesAt(forecast, plan, t);
    const int end =
        options.full_horizon ? T : rolling_internal::DecisionHorizonEnd(forecast, states, t);
    // The SoC the plan reaches at the end of the decision horizon, on the forecast: where
    // the part after it, planned earlier, starts.
    double soc_end = forecast.battery_soc_final_kwh.value_or(forecast.battery.soc_initial_kwh);
    if (end < T && use_battery) {
      CKPTDP_ASSIGN_OR_RETURN(const PowerDispatch ahead,
                              DispatchRest(forecast, actual, modes, plan, use_battery, t, t, soc));
      soc_end = ahead.slots[end - t - 1].soc_kwh;
    }
    CKPTDP_ASSIGN_OR_RETURN(const SubProblem sub,
                            rolling_internal::BuildSubProblem(forecast, modes, states, t, end, soc,
                                                              soc_end, forecast.series));
    if (sub.job_of.empty()) continue;  // nothing left to plan: the power side runs on
    const Schedule seed = rolling_internal::ToSubSchedule(sub, states, plan);
    WarmStart warm;
    if (options.warm_start) {
      warm.incumbent = &seed;
      prices.Offer(t, end, warm);
    }
    const auto solve_start = std::chrono::steady_clock::now();
    absl::StatusOr<Result> r = SolveScenario(sub.instance, scenario, options.solve, warm);
    RollingSolve rs;
    rs.start_slot = t;
    rs.end_slot = end;
    rs.jobs = static_cast<int>(sub.job_of.size());
    rs.seconds = Seconds(solve_start);
    if (r.ok() && !r->schedule.jobs.empty()) {
      rs.status = r->status;
      rs.plan_cost_usd = r->objective_usd;
      iterations += r->solver.iterations;
      plan = rolling_internal::MergeSubSchedule(sub, states, plan, r->schedule);
      prices.Record(r->solver, t);
    } else {
      // Fallback: the previous plan stays (it is complete and within the site limits,
      // which do not depend on the renewables), and the run says so.
      rs.status = r.ok() ? r->status : SolveStatus::kInfeasible;
      rs.kept_previous = true;
      out.notes.push_back(absl::StrFormat(
          "slot %d: the re-solve gave no schedule (%s); the previous plan is kept", t,
          r.ok() ? std::string(SolveStatusName(r->status)) : std::string(r.status().message())));
    }
    out.resolves.push_back(rs);
  }

  // Perfect foresight and the fixed baseline, both on the actuals.
  CKPTDP_ASSIGN_OR_RETURN(out.perfect_foresight,
                          SolveScenario(actual_instance, scenario, options.solve));
  CKPTDP_ASSIGN_OR_RETURN(const Result s1,
                          SolveScenario(actual_instance, Scenario::kS1, options.solve));
  out.s1_actual_usd = s1.objective_usd;

  // Which jobs missed their deadline (none unless a fallback left work undone).
  const std::vector<JobState> final_states = rolling_internal::StatesAt(forecast, plan, T);
  for (std::size_t j = 0; j < forecast.jobs.size(); ++j) {
    const Job& job = forecast.jobs[j];
    if (final_states[j].done_segments < job.segments) {
      out.shortfalls.push_back(
          {job.name, final_states[j].done_segments, job.segments, job.deadline_slot});
    }
  }

  Result& r = out.realised;
  r.scenario = scenario;
  r.schedule = plan;
  r.load = AggregateLoad(actual_instance, modes, plan);
  r.power = std::move(executed);
  r.objective_usd = r.power.TotalCostUsd();
  r.metrics = ComputeMetrics(actual_instance, r.power, r.load, out.s1_actual_usd);
  r.lower_bound_usd = std::min(out.perfect_foresight.lower_bound_usd, r.objective_usd);
  r.gap = RelativeGap(r.objective_usd, r.lower_bound_usd);
  r.status = out.shortfalls.empty() ? SolveStatus::kFeasible : SolveStatus::kInfeasible;
  for (const RollingShortfall& s : out.shortfalls) {
    r.diagnosis += absl::StrFormat("job %s missed its deadline (slot %d): %d of %d segments done\n",
                                   s.job, s.deadline_slot, s.segments_done, s.segments);
  }
  r.solver.seconds = Seconds(start);
  r.solver.iterations = iterations;
  r.solver.threads = out.day_ahead.solver.threads;
  return out;
}

}  // namespace ckptdp
