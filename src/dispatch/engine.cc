#include "ckptdp/engine.h"

#include <chrono>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "dispatch/internal/baseline.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/lagrangian.h"

namespace ckptdp {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T>
SolveOptionSpec Spec(std::string name, std::string doc, double def, double lo, double hi,
                     T SolveOptions::*field) {
  return SolveOptionSpec{
      std::move(name), std::move(doc), def, lo, hi, std::is_integral_v<T>,
      [field](SolveOptions& o, double v) { o.*field = static_cast<T>(v); },
      [field](const SolveOptions& o) { return static_cast<double>(o.*field); }};
}

// Cost of the fixed baseline without battery: the reference of cost_reduction_pct.
double BaselineCost(const internal::ScenarioContext& s1) {
  const internal::BaselinePlan plan =
      internal::BaselineSchedule(*s1.instance, *s1.modes, /*record_checkpoints=*/false);
  if (!plan.infeasible_reason.empty()) return std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<internal::Evaluated> e = internal::Evaluate(s1, plan.schedule);
  if (!e.ok() || !e->feasible) return std::numeric_limits<double>::quiet_NaN();
  return e->cost_usd;
}

void FillFromEvaluated(const Instance& instance, internal::Evaluated e, double reference_cost,
                       Result& r) {
  r.objective_usd = e.cost_usd;
  r.metrics = ComputeMetrics(instance, e.power, e.load, reference_cost);
  r.load = std::move(e.load);
  r.power = std::move(e.power);
  r.schedule = std::move(e.schedule);
}

}  // namespace

const std::vector<SolveOptionSpec>& SolveOptionSpecs() {
  static const std::vector<SolveOptionSpec> specs = {
      Spec("gap", "relative gap (incumbent - bound) / |incumbent| at which to stop", 1e-4, 0.0,
           1.0, &SolveOptions::gap),
      Spec("time-limit", "wall-clock limit in seconds; the incumbent is returned with its gap",
           600.0, 0.0, 1e7, &SolveOptions::time_limit_s),
      Spec("threads", "worker threads for the per-job subproblems (0 = all cores)", 0.0, 0.0,
           1024.0, &SolveOptions::threads),
      Spec("max-iterations", "Lagrangian iterations at most", 400.0, 1.0, 1e6,
           &SolveOptions::max_iterations),
      Spec("stall-iterations", "stop when the bound has not improved for this many iterations",
           60.0, 1.0, 1e6, &SolveOptions::stall_iterations),
  };
  return specs;
}

absl::Status ValidateSolveOptions(const SolveOptions& options) {
  for (const SolveOptionSpec& spec : SolveOptionSpecs()) {
    const double v = spec.get(options);
    if (!std::isfinite(v) || v < spec.min_value || v > spec.max_value) {
      return absl::InvalidArgumentError(absl::StrFormat("--%s: %g is outside [%g, %g]", spec.name,
                                                        v, spec.min_value, spec.max_value));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Result> SolveScenario(const Instance& instance, Scenario scenario,
                                     const SolveOptions& options) {
  const Clock::time_point start = Clock::now();
  CKPTDP_RETURN_IF_ERROR(ValidateSolveOptions(options));
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(instance));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<JobModes> modes, BuildAllModes(instance));

  Result r;
  r.scenario = scenario;
  r.solver.threads = options.threads;
  const internal::ScenarioContext s1 = internal::MakeContext(instance, modes, Scenario::kS1);
  const double reference_cost = BaselineCost(s1);
  internal::ScenarioContext context = internal::MakeContext(instance, modes, scenario);

  const ScenarioTraits traits = TraitsOf(scenario);
  if (!traits.variable_modes) {
    // S1, S2, S5: the trajectory is fixed; the power side is solved exactly, so the
    // objective is optimal and is its own bound.
    const internal::BaselinePlan plan =
        internal::BaselineSchedule(instance, modes, scenario == Scenario::kS2);
    if (!plan.infeasible_reason.empty()) {
      r.status = SolveStatus::kInfeasible;
      r.diagnosis = plan.infeasible_reason;
    } else {
      CKPTDP_ASSIGN_OR_RETURN(internal::Evaluated e, internal::Evaluate(context, plan.schedule));
      if (!e.feasible) {
        r.status = SolveStatus::kInfeasible;
        r.diagnosis = "the fixed baseline violates a site limit: " + e.violation;
      } else {
        r.status = SolveStatus::kOptimal;
        FillFromEvaluated(instance, std::move(e), reference_cost, r);
        r.lower_bound_usd = r.objective_usd;
      }
    }
  } else {
    CKPTDP_ASSIGN_OR_RETURN(internal::EngineOutcome outcome,
                            internal::RunLagrangian(context, options, start));
    r.status = outcome.status;
    r.solver.iterations = outcome.iterations;
    r.lower_bound_usd = outcome.lower_bound;
    if (outcome.incumbent) {
      FillFromEvaluated(instance, std::move(*outcome.incumbent), reference_cost, r);
    } else {
      r.diagnosis = outcome.diagnosis;
      if (r.status != SolveStatus::kInfeasible) r.status = SolveStatus::kTimeLimit;
    }
  }
  r.gap = r.status == SolveStatus::kInfeasible ? 0.0 : RelativeGap(r.objective_usd, r.lower_bound_usd);
  r.solver.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace ckptdp
