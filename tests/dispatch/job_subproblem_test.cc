// S3's job subproblem (IdealSubproblem) against exhaustive enumeration: each slot of the
// window runs one mode or none, and the plan must deliver the job's daily compute. Its plans
// must be feasible and not improvable by one change of one slot, and its lower bound must
// lie between the knapsack's LP relaxation (enumerated by its vertices, which have at most
// one fractional slot) and the true optimum. Coarse work units make the DP's rounding
// visible.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/job_subproblem.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-9;

struct Case {
  Instance instance;
  JobModes modes;
  EdgeCosts costs;
};

// One job over `slots` one-hour slots; mode m delivers fraction[m] of the daily compute per
// slot. Costs per (mode, slot) in [-1, 3), or with `ties` whole numbers in [0, 2], so that
// many plans cost the same; some (mode, slot) blocked, some waits forbidden.
Case RandomCase(std::mt19937& rng, int slots, int num_modes, bool ties = false) {
  Case c;
  c.instance.time.step_minutes = 60;
  c.instance.time.slots = slots;
  Job job;
  job.name = "job";
  job.release_slot = 0;
  job.deadline_slot = slots;
  c.instance.jobs.push_back(job);
  const double compute = 1e15;
  c.modes.workload.compute_flops = compute;
  std::uniform_real_distribution<double> fraction(0.05, 0.6);
  for (int m = 0; m < num_modes; ++m) {
    Mode mode;
    mode.gpus = 8 * (m + 1);
    mode.it_power_kw = 3.2 * (m + 1);
    mode.throughput_flops = fraction(rng) * compute / 3600.0;
    mode.effective = true;
    mode.baseline = m == 0;
    c.modes.feasible.push_back(mode);
    c.modes.effective.push_back(m);
  }
  c.modes.baseline = 0;

  std::uniform_real_distribution<double> cost(-1.0, 3.0);
  std::uniform_int_distribution<int> whole_cost(0, 2);
  std::bernoulli_distribution blocked(0.15), forbidden(0.1);
  c.costs.Resize(num_modes, slots);
  for (int m = 0; m < num_modes; ++m) {
    double* row = c.costs.PrefixRow(m);
    for (int t = 0; t < slots; ++t) row[t + 1] = row[t] + (ties ? whole_cost(rng) : cost(rng));
  }
  c.costs.next_blocked.assign(static_cast<size_t>(num_modes) * (slots + 1), slots);
  for (int m = 0; m < num_modes; ++m) {
    int* row = c.costs.next_blocked.data() + static_cast<size_t>(m) * (slots + 1);
    for (int t = slots - 1; t >= 0; --t) row[t] = blocked(rng) ? t : row[t + 1];
  }
  c.costs.wait_forbidden.assign(slots, 0);
  for (int t = 0; t < slots; ++t) c.costs.wait_forbidden[t] = forbidden(rng) ? 1 : 0;
  return c;
}

double WorkPerSlot(const Case& c, int m) { return c.modes.feasible[m].throughput_flops * 3600.0; }

// The cheapest plan by enumeration of every mode-or-none per slot (infinity: none exists).
double ExhaustiveOptimum(const Case& c) {
  const int slots = c.instance.time.slots;
  const int modes = static_cast<int>(c.modes.feasible.size());
  const double need = c.modes.workload.compute_flops;
  double best = kInf;
  std::function<void(int, double, double)> visit = [&](int t, double work, double cost) {
    if (t == slots) {
      if (work >= need) best = std::min(best, cost);
      return;
    }
    if (c.costs.WaitAllowed(t)) visit(t + 1, work, cost);
    for (int m = 0; m < modes; ++m) {
      if (c.costs.Allowed(m, t, t + 1)) {
        visit(t + 1, work + WorkPerSlot(c, m), cost + c.costs.SlotCost(m, t));
      }
    }
  };
  visit(0, 0.0, 0.0);
  return best;
}

// The knapsack's LP relaxation, by enumeration of its vertices: every slot takes one option
// but at most one, which mixes two options to deliver exactly the compute still needed.
double ExhaustiveLp(const Case& c) {
  const int slots = c.instance.time.slots;
  const int modes = static_cast<int>(c.modes.feasible.size());
  const double need = c.modes.workload.compute_flops;
  const auto work_of = [&](int m) { return m >= 0 ? WorkPerSlot(c, m) : 0.0; };
  const auto cost_of = [&](int m, int t) { return m >= 0 ? c.costs.SlotCost(m, t) : 0.0; };
  double best = kInf;
  std::function<void(int, double, double, int, int, int)> visit =
      [&](int t, double work, double cost, int mixed_slot, int low, int high) {
        if (t == slots) {
          if (mixed_slot < 0) {
            if (work >= need) best = std::min(best, cost);
            return;
          }
          const double w1 = work_of(low), w2 = work_of(high);
          const double theta = std::clamp((need - work - w1) / (w2 - w1), 0.0, 1.0);
          if (work + w1 + theta * (w2 - w1) < need * (1 - 1e-12)) return;
          const double c1 = cost_of(low, mixed_slot), c2 = cost_of(high, mixed_slot);
          best = std::min(best, cost + c1 + theta * (c2 - c1));
          return;
        }
        std::vector<int> options;
        if (c.costs.WaitAllowed(t)) options.push_back(-1);
        for (int m = 0; m < modes; ++m) {
          if (c.costs.Allowed(m, t, t + 1)) options.push_back(m);
        }
        for (int o : options)
          visit(t + 1, work + work_of(o), cost + cost_of(o, t), mixed_slot, low, high);
        if (mixed_slot >= 0) return;
        for (int a : options) {
          for (int b : options) {
            if (work_of(b) > work_of(a)) visit(t + 1, work, cost, t, a, b);
          }
        }
      };
  visit(0, 0.0, 0.0, -1, -1, -1);
  return best;
}

// The plan's mode per slot (-1: none), after checking its runs against the rules.
std::vector<int> CheckedChoice(const Case& c, const PathSolution& plan) {
  const int slots = c.instance.time.slots;
  std::vector<int> choice(slots, -1);
  double work = 0, cost = 0;
  for (const Run& run : plan.runs) {
    REQUIRE(run.start_slot >= 0);
    REQUIRE(run.end_slot <= slots);
    REQUIRE(std::abs(run.work_flops - (run.end_slot - run.start_slot) * WorkPerSlot(c, run.mode)) <=
            kTol * run.work_flops);
    work += run.work_flops;
    for (int t = run.start_slot; t < run.end_slot; ++t) {
      REQUIRE(choice[t] == -1);
      REQUIRE(c.costs.Allowed(run.mode, t, t + 1));
      choice[t] = run.mode;
      cost += c.costs.SlotCost(run.mode, t);
    }
  }
  for (int t = 0; t < slots; ++t) {
    if (choice[t] < 0) REQUIRE(c.costs.WaitAllowed(t));
  }
  REQUIRE(work >= c.modes.workload.compute_flops * (1 - kTol));
  REQUIRE(std::abs(cost - plan.cost) <= 1e-9 * (1 + std::abs(cost)));
  return choice;
}

TEST_CASE(
    "S3's job subproblem: feasible plans that one change cannot improve, and a bound "
    "between the knapsack's LP relaxation and its optimum",
    "[job_subproblem]") {
  std::mt19937 rng(20261207);
  int solved = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int slots = 3 + trial % 4;
    const int num_modes = 1 + trial % 3;
    Case c = RandomCase(rng, slots, num_modes);
    const int units = trial % 2 == 0 ? 10 : 2000;  // coarse units round by whole tenths
    IdealSubproblem sub(c.instance, 0, c.modes, units);
    JobWorkspace work;
    const double optimum = ExhaustiveOptimum(c);
    const PathSolution plan = sub.Solve(c.costs, work);
    const double bound = sub.LowerBound(c.costs, plan, work);
    CAPTURE(trial, slots, num_modes, units, optimum, plan.cost, bound);
    REQUIRE(bound <= optimum + kTol * (1 + std::abs(optimum)));
    if (optimum == kInf) {
      REQUIRE_FALSE(plan.feasible);
      continue;
    }
    // The bound is at least the knapsack's LP relaxation, whatever the work units.
    const double lp = ExhaustiveLp(c);
    CAPTURE(lp);
    REQUIRE(lp <= optimum + kTol * (1 + std::abs(optimum)));
    REQUIRE(bound >= lp - 1e-6 * (1 + std::abs(lp)));  // the bound asks 1e-9 less work
    if (!plan.feasible) continue;                      // rounding work down may lose every plan
    ++solved;
    REQUIRE(plan.cost >= optimum - kTol * (1 + std::abs(optimum)));
    std::vector<int> choice = CheckedChoice(c, plan);
    // No single change of one slot (another allowed mode, or none where waiting is
    // allowed) lowers the cost and still delivers the compute.
    double delivered = 0;
    for (int m : choice) delivered += m >= 0 ? WorkPerSlot(c, m) : 0.0;
    for (int t = 0; t < slots; ++t) {
      const double now = choice[t] >= 0 ? c.costs.SlotCost(choice[t], t) : 0.0;
      const double rest = delivered - (choice[t] >= 0 ? WorkPerSlot(c, choice[t]) : 0.0);
      for (int m = -1; m < num_modes; ++m) {
        if (m == choice[t]) continue;
        if (m < 0 ? !c.costs.WaitAllowed(t) : !c.costs.Allowed(m, t, t + 1)) continue;
        const double after = rest + (m >= 0 ? WorkPerSlot(c, m) : 0.0);
        if (after < c.modes.workload.compute_flops) continue;
        const double then = m >= 0 ? c.costs.SlotCost(m, t) : 0.0;
        REQUIRE(then >= now - 1e-12);
      }
    }
  }
  REQUIRE(solved >= 200);  // the cases exercise the plans, not only infeasibility
}

// --s3-work-units: k times the units round each slot's work up by at most as much (ceil(k x)
// / k <= ceil(x)), so the rounded-up knapsack only shrinks and its bound cannot fall; it
// stays below the optimum; and BuildSubproblems hands the units to every job.
TEST_CASE("S3's job subproblem: finer work units never lower the bound", "[job_subproblem]") {
  std::mt19937 rng(20261208);
  int raised = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int slots = 3 + trial % 4;
    const int num_modes = 1 + trial % 3;
    Case c = RandomCase(rng, slots, num_modes);
    const std::vector<JobModes> modes = {c.modes};
    const auto coarse = BuildSubproblems(c.instance, modes, false, GraphOptions{}, 10);
    const auto fine = BuildSubproblems(c.instance, modes, false, GraphOptions{}, 40);
    JobWorkspace work;
    const double optimum = ExhaustiveOptimum(c);
    const double at_10 = coarse[0]->LowerBound(c.costs, coarse[0]->Solve(c.costs, work), work);
    const double at_40 = fine[0]->LowerBound(c.costs, fine[0]->Solve(c.costs, work), work);
    IdealSubproblem direct(c.instance, 0, c.modes, 40);
    CAPTURE(trial, optimum, at_10, at_40);
    REQUIRE(at_40 == direct.LowerBound(c.costs, direct.Solve(c.costs, work), work));
    if (optimum == kInf) continue;  // no plan: both bounds may be +infinity
    REQUIRE(at_40 >= at_10 - kTol * (1 + std::abs(at_10)));
    REQUIRE(at_40 <= optimum + kTol * (1 + std::abs(optimum)));
    if (at_40 > at_10 + 1e-9 * (1 + std::abs(at_10))) ++raised;
  }
  REQUIRE(raised >= 30);  // the finer units do tighten some of them
}

// The DP keeps values forward and finds the plan backward (job_subproblem.cc); with many
// equal costs the backward search must still return a feasible plan of the DP's value, and
// a workspace that a larger job used before must not change it (its arrays are reused).
TEST_CASE("S3's job subproblem: ties and a reused workspace give the same optimal plans",
          "[job_subproblem]") {
  std::mt19937 rng(43);
  JobWorkspace used;
  int solved = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int slots = 3 + trial % 4;
    const int num_modes = 1 + trial % 3;
    Case c = RandomCase(rng, slots, num_modes, /*ties=*/true);
    const int units = trial % 2 == 0 ? 10 : 2000;
    IdealSubproblem sub(c.instance, 0, c.modes, units);
    JobWorkspace fresh;
    const PathSolution plan = sub.Solve(c.costs, fresh);
    const double bound = sub.LowerBound(c.costs, plan, fresh);
    const PathSolution again = sub.Solve(c.costs, used);
    const double bound_again = sub.LowerBound(c.costs, again, used);
    // Dirty the shared workspace with a longer window and finer units for the next trial.
    Case other = RandomCase(rng, 6, 3, /*ties=*/true);
    IdealSubproblem(other.instance, 0, other.modes, 4000).Solve(other.costs, used);
    const double optimum = ExhaustiveOptimum(c);
    CAPTURE(trial, slots, num_modes, units, optimum, plan.cost, bound);
    REQUIRE(again.feasible == plan.feasible);
    REQUIRE(bound_again == bound);
    REQUIRE(bound <= optimum + kTol * (1 + std::abs(optimum)));
    if (!plan.feasible) continue;
    ++solved;
    REQUIRE(again.cost == plan.cost);
    REQUIRE(CheckedChoice(c, again) == CheckedChoice(c, plan));
    REQUIRE(plan.cost >= optimum - kTol * (1 + std::abs(optimum)));
  }
  REQUIRE(solved >= 150);
}

}  // namespace
}  // namespace ckptdp::internal
