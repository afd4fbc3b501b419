#include "dispatch/internal/resource_diagnosis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;

// The largest values a probe may set: the instance format's limits (docs/instance-format.md).
constexpr double kMaxGpus = 10'000'000;

enum class Probe { kProvenInfeasible, kFeasible, kNotFound, kBadInput };

// Quick solves of modified copies of the instance within one time budget. A probe asks for
// a schedule, not for a proof of its optimality: no branching, a 1 % gap.
class Prober {
 public:
  Prober(Scenario scenario, const SolveOptions& options, double remaining_s) : scenario_(scenario) {
    quick_.gap = 1e-2;
    quick_.max_iterations = options.max_iterations;
    quick_.threads = options.threads;
    quick_.diagnose_capacity = false;
    quick_.rescue_with_fewer_gpus = false;  // a probe's answer is about its own capacity
    quick_.stop = options.stop;             // an interrupt ends the probes too
    quick_.max_nodes = 0;
    quick_.decomposition_iterations = 0;  // its bound proves nothing a probe needs
    const double budget_s = std::min(std::max(2.0, options.time_limit_s / 4), remaining_s);
    quick_.time_limit_s =
        std::min(std::max(1.0, std::min(10.0, options.time_limit_s / 8)), budget_s);
    until_ = Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
  }

  bool TimeLeft() const { return Clock::now() < until_; }

  Probe Run(const Instance& copy) const {
    SolveOptions options = quick_;
    // The last probe gets what is left of the budget, so the caller's limit holds.
    const double left_s = std::chrono::duration<double>(until_ - Clock::now()).count();
    options.time_limit_s = std::clamp(left_s, 0.1, quick_.time_limit_s);
    absl::StatusOr<Result> r = SolveScenario(copy, scenario_, options);
    if (!r.ok()) return Probe::kBadInput;  // e.g. a capacity below a job's baseline layout
    if (!r->schedule.jobs.empty()) return Probe::kFeasible;
    return r->status == SolveStatus::kInfeasible ? Probe::kProvenInfeasible : Probe::kNotFound;
  }

 private:
  Scenario scenario_;
  SolveOptions quick_;
  Clock::time_point until_;
};

std::string Num(double v) {
  return v == std::round(v) ? absl::StrFormat("%.0f", v) : absl::StrFormat("%.1f", v);
}

// A site resource varied in whole steps: value(k) = start + k * step. At k = 0, the
// instance's own value, the caller found no schedule (and may have proved there is none).
// Feasibility is monotone in the resource, but a probe is a heuristic that may miss a
// schedule, so the search keeps every outcome and reports only what they support.
class StepSearch {
 public:
  StepSearch(const Instance& instance, const Prober& prober, const char* unit, double start,
             double step, double floor, std::function<void(Instance&, double)> set,
             bool proven_at_start)
      : instance_(instance),
        prober_(prober),
        unit_(unit),
        start_(start),
        step_(step),
        floor_(floor),
        set_(std::move(set)) {
    seen_[0] = proven_at_start ? Probe::kProvenInfeasible : Probe::kNotFound;
  }

  // The instance's own value at k = 0; the other steps sit on whole multiples of the
  // step (whole nodes), so that 1150 GPUs are followed by 1152, not by 1158.
  double Value(int k) const {
    if (k == 0) return start_;
    const double above = std::floor(start_ / step_) * step_ + step_;  // least multiple > start
    const double below = std::ceil(start_ / step_) * step_ - step_;   // largest multiple < start
    return k > 0 ? above + (k - 1) * step_ : below + (k + 1) * step_;
  }

  Probe At(int k) {
    if (auto it = seen_.find(k); it != seen_.end()) return it->second;
    Instance copy = instance_;
    set_(copy, Value(k));
    return seen_[k] = prober_.Run(copy);
  }

  // Given a schedule at step `hi`, looks for the least step with one: bisection narrows it
  // quickly; then, because a probe that found nothing does not prove that nothing exists
  // (1440 GPUs may fail where 1280 succeed), every step from the bottom up is tried until
  // one succeeds, as long as time is left.
  void Narrow(int hi) {
    int lo = 0;
    while (hi - lo > 1 && prober_.TimeLeft()) {
      const int mid = lo + (hi - lo) / 2;
      (At(mid) == Probe::kFeasible ? hi : lo) = mid;
    }
    for (int k = 1; k < hi && prober_.TimeLeft(); ++k) {
      if (At(k) == Probe::kFeasible) break;
    }
  }

  // Below the least schedule, looks downwards for a value proven infeasible (monotonicity
  // extends the proof to every smaller value), unless one is already known.
  void ProveBelow() {
    const std::optional<int> least = LeastFeasible();
    if (!least || GreatestProvenBelow(*least).has_value()) return;
    for (int k = -1; Value(k) >= floor_ && prober_.TimeLeft(); --k) {
      const Probe p = At(k);
      if (p == Probe::kProvenInfeasible || p == Probe::kBadInput || p == Probe::kFeasible) break;
    }
  }

  std::optional<int> LeastFeasible() const {
    for (const auto& [k, p] : seen_) {
      if (p == Probe::kFeasible) return k;
    }
    return std::nullopt;
  }

  // A proof at or above a found schedule would be an engine bug; it is never printed.
  std::optional<int> GreatestProvenBelow(int k_end) const {
    std::optional<int> proven;
    for (const auto& [k, p] : seen_) {
      if (k < k_end && p == Probe::kProvenInfeasible) proven = k;
    }
    return proven;
  }

  // "with 1280 GPUs a feasible schedule exists; from 1152 to 1272 GPUs none was found;
  // with 1016 GPUs or fewer infeasibility is proven (from 1024 to 1272 GPUs it is not)".
  // Requires LeastFeasible().
  std::string Describe() const {
    const int least = *LeastFeasible();
    std::string text =
        absl::StrFormat("with %s %s a feasible schedule exists", Num(Value(least)), unit_);
    const std::optional<int> proven = GreatestProvenBelow(least);
    // Values below the least feasible one that a proof covers need no "none was found".
    const bool all_proven = proven && *proven + 1 >= least;
    int tried = 0;
    for (int k = 0; k < least; ++k) tried += seen_.count(k) > 0 ? 1 : 0;
    if (all_proven) {
      // Nothing to say between the proof and the least feasible value.
    } else if (least == 1) {
      absl::StrAppendFormat(&text, "; with %s %s none was found", Num(Value(0)), unit_);
    } else if (least > 1 && tried == least) {
      absl::StrAppendFormat(&text, "; from %s to %s %s none was found", Num(Value(0)),
                            Num(Value(least - 1)), unit_);
    } else if (least > 1) {
      absl::StrAppendFormat(&text,
                            "; of the %d values from %s to %s %s (in steps of %s), %d %s tried, "
                            "without a schedule; the others were not tried",
                            least, Num(Value(0)), Num(Value(least - 1)), unit_, Num(step_), tried,
                            tried == 1 ? "was" : "were");
    }
    if (!proven) {
      absl::StrAppendFormat(&text, "; no smaller value is proven infeasible");
    } else {
      absl::StrAppendFormat(&text, "; with %s %s or fewer infeasibility is proven",
                            Num(Value(*proven)), unit_);
      if (*proven + 1 < least) {
        absl::StrAppendFormat(&text, " (from %s to %s %s it is not)", Num(Value(*proven + 1)),
                              Num(Value(least - 1)), unit_);
      }
    }
    return text;
  }

 private:
  const Instance& instance_;
  const Prober& prober_;
  const char* unit_;
  double start_;
  double step_;
  double floor_;  // the least value a probe may set
  std::function<void(Instance&, double)> set_;
  std::map<int, Probe> seen_;
};

// A site power cap that never binds at the instance's GPU capacity: the base load plus
// every job in its most power-hungry mode at once.
double AmplePowerCapKw(const Instance& instance, const std::vector<JobModes>& modes) {
  double it_kw = 0;
  for (const JobModes& job : modes) {
    double most = 0;
    for (const Mode& m : job.feasible) most = std::max(most, m.it_power_kw);
    it_kw += most;
  }
  return instance.site.base_load_kw + instance.site.pue * it_kw;
}

}  // namespace

std::string DiagnoseResources(const Instance& instance, const std::vector<JobModes>& modes,
                              Scenario scenario, const SolveOptions& options, double remaining_s,
                              bool proven_infeasible) {
  const Prober prober(scenario, options, remaining_s);
  const Site& site = instance.site;
  const int node = site.gpus_per_node;

  // The power cap first: one probe tells whether raising it alone is enough (a cap below
  // the baseline modes' load); then more GPUs would not help, and naming them would mislead.
  const double ample_kw = AmplePowerCapKw(instance, modes);
  if (ample_kw > site.site_power_cap_kw && prober.TimeLeft()) {
    const double node_kw = site.pue * site.gpu_train_power_kw * node;
    // One node's power (whole kW) per step, coarser only beyond 1024 steps to the ample cap.
    const double step_kw = std::ceil(std::max(node_kw, (ample_kw - site.site_power_cap_kw) / 1024));
    StepSearch power(
        instance, prober, "kW", site.site_power_cap_kw, step_kw, site.base_load_kw + step_kw,
        [](Instance& copy, double kw) { copy.site.site_power_cap_kw = kw; }, proven_infeasible);
    // The first step at or above the ample cap.
    const int hi = static_cast<int>(std::ceil((ample_kw - site.site_power_cap_kw) / step_kw)) + 1;
    if (power.At(hi) == Probe::kFeasible) {
      power.Narrow(hi);
      power.ProveBelow();
      return "site power cap: " + power.Describe();
    }
  }

  StepSearch gpus(
      instance, prober, "GPUs", site.gpu_capacity, node, node,
      [](Instance& copy, double n) { copy.site.gpu_capacity = static_cast<int>(std::lround(n)); },
      proven_infeasible);
  int tried_up_to = site.gpu_capacity;
  for (int k = std::max(1, site.gpu_capacity / node);
       gpus.Value(k) <= kMaxGpus && prober.TimeLeft(); k *= 2) {
    tried_up_to = static_cast<int>(gpus.Value(k));
    if (gpus.At(k) == Probe::kFeasible) {
      gpus.Narrow(k);
      gpus.ProveBelow();
      return "GPU capacity: " + gpus.Describe();
    }
  }
  if (!prober.TimeLeft()) {
    return absl::StrFormat(
        "site limits: no schedule found within the time limit (GPU capacity tried up to %d)",
        tried_up_to);
  }
  if (ample_kw > site.site_power_cap_kw) {
    return absl::StrFormat(
        "site limits: no schedule was found with the GPU capacity raised up to %d, nor with "
        "the site power cap raised to %s kW (each alone)",
        tried_up_to, Num(ample_kw));
  }
  return absl::StrFormat(
      "site limits: no schedule was found with the GPU capacity raised up to %d; the site "
      "power cap (%s kW) covers every job's most power-hungry mode at once",
      tried_up_to, Num(site.site_power_cap_kw));
}

}  // namespace ckptdp::internal
