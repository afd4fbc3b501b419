// The Lagrangian-relaxation engine for the flexible scenarios (S3, S4, S6).
// Method, update rule and guarantees: docs/engine.md.
#ifndef CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_
#define CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/multipliers.h"
#include "dispatch/internal/repair.h"
#include "dispatch/internal/solver_log.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

struct EngineOutcome {
  std::optional<Evaluated> incumbent;  // always a fully feasible schedule when present
  double lower_bound = 0;
  int iterations = 0;
  int neighbourhood_rounds = 0;
  int nodes = 0;            // branch-and-bound nodes solved after the root
  Multipliers multipliers;  // at the best bound
  SolveStatus status = SolveStatus::kFeasible;
  std::string diagnosis;  // when no incumbent: why
};

// When the root recovers a schedule from the relaxed plans, and how much it spends on
// improving it. Repair costs about a third of an iteration on fleets and, once it has
// stopped finding better schedules, rarely pays; local search is the expensive part.
struct RepairPolicy {
  // Repair runs at every iteration until the first schedule and for this many iterations
  // after the last one that gave a better schedule; after that every `sparse_every`-th.
  int dense_after_gain = 10;
  int sparse_every = 5;
  // With a battery (S6) repair runs at every iteration while the phase, at its pace so far,
  // still reaches its iteration cap within the time: S6 starts from S4's schedule, and on the
  // long fleets its repairs, priced with the battery, are what beat that schedule (the search
  // after them gains little); where the time ends the phase first (the 4096-job week) the
  // bound needs the iterations (docs/benchmarks.md, "Repairs at every S6 iteration").
  bool dense_with_battery = true;
  // Until there is an incumbent, repair may run this long past the deadline: that buys the
  // first schedule on large instances, and the time limit is promised within a second.
  std::chrono::milliseconds first_schedule_grace{500};
  // Local search on a repaired schedule: always on the first; then on a better one at
  // most every `search_spacing` iterations, and on any every `search_refresh` iterations.
  int search_spacing = 5;
  int search_refresh = 25;
};

// Whether the root repairs the relaxed plans at iteration `it` (RepairPolicy): `have` is
// whether an incumbent exists, `battery` whether the scenario has one, `on_pace` whether
// the phase, at its pace so far, reaches its iteration cap before its deadline, `last_gain`
// the iteration whose repair last gave a better schedule.
inline bool RepairDue(const RepairPolicy& policy, bool have, bool battery, bool on_pace, int it,
                      int last_gain) {
  return !have || (policy.dense_with_battery && battery && on_pace) ||
         it - last_gain <= policy.dense_after_gain || it % policy.sparse_every == 0;
}

// How one run of the root is set up beyond SolveOptions.
struct RootSetup {
  // A feasible schedule of this scenario to start from, or null (S6 and S3 start from S4's
  // incumbent, which is feasible for both).
  const Schedule* seed = nullptr;
  // The search after the Lagrangian phase stops here, or (unset) at the time limit. S4's
  // warm start of S6 and S3 stops its search earlier than its Lagrangian phase may run.
  std::optional<std::chrono::steady_clock::time_point> search_until;
  // In [0, 1): the step direction's share of the previous direction (multiplier_update.h).
  double deflection = 0.0;
  // PolyakStepOptions::restart_above_gap (multiplier_update.h), applied only where the
  // repair overlaps the job DPs (SolveOptions::repair_overlap); 0: never.
  double restart_above_gap = 0.0;
  RepairPolicy repair;
  // Starting multipliers (one per slot each), or null: the marginal cost of power at the
  // baseline load and mu = 0. A rolling re-solve passes the previous window's, shifted.
  const Multipliers* start = nullptr;
};

// The root of the engine: Lagrangian iterations with primal recovery, then neighbourhood
// and local search on the incumbent. Stops (docs/engine.md, "Stopping rules") with
//   kInfeasible     a job cannot finish alone, or the bound exceeds the cost ceiling;
//   kOptimal        the incumbent is within options.gap of the bound;
//   kTimeLimit      the time limit passed (kInterrupted: the stop token was set);
//   kFeasible       the bound stalled for options.stall_iterations iterations, or the
//                   relaxed plans met the coupling rows exactly, with an incumbent;
//   kIterationLimit options.max_iterations were spent, or the bound stalled without one.
absl::StatusOr<EngineOutcome> RunLagrangian(const ScenarioContext& context, Workspaces& work,
                                            const SolveOptions& options,
                                            std::chrono::steady_clock::time_point start,
                                            const RootSetup& setup, SolverLog& log);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_
