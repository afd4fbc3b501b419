// Rolling re-optimisation: plan on the forecast, execute against the actuals, re-plan.
//
// A day-ahead plan is made on forecasts; the horizon then runs on actuals. RunRolling plans
// the whole horizon on the forecast, executes `every_slots` slots (the jobs follow the plan;
// the battery, grid and curtailment are re-dispatched on the actual renewable output), then
// re-solves the rest of the horizon from the state reached -- each job's completed
// segments, the slot it is free from, the battery's state of charge -- on the forecast
// ahead, and repeats to the end. docs/operations.md describes the rules and the figures.
#ifndef CKPTDP_ROLLING_H_
#define CKPTDP_ROLLING_H_

#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/result.h"

namespace ckptdp {

struct RollingOptions {
  Scenario scenario = Scenario::kS6;
  int every_slots = 4;     // slots executed between re-solves (at least; see docs/operations.md)
  SolveOptions solve;      // every solve: the first plan, the re-solves and the references
  bool warm_start = true;  // offer the previous plan to each re-solve as its first incumbent
  // false: each re-solve covers the decision horizon, up to the first slot after it that no
  // unfinished job's window straddles (the rest of the day for daily tranches); later jobs
  // keep their plan until a re-solve reaches them. true: always to the end of the horizon.
  bool full_horizon = false;
};

// One re-solve: the rest of the horizon from `start_slot`, planned on the forecast.
struct RollingSolve {
  int start_slot = 0;
  int end_slot = 0;  // exclusive end of the re-solved horizon
  int jobs = 0;      // unfinished jobs in the sub-problem
  double seconds = 0;
  SolveStatus status = SolveStatus::kFeasible;
  double plan_cost_usd = 0;    // the sub-problem's objective (forecast ahead)
  bool kept_previous = false;  // the re-solve gave no schedule: the previous plan is kept
};

// A job that did not complete its segments by its deadline.
struct RollingShortfall {
  std::string job;
  int segments_done = 0;
  int segments = 0;
  int deadline_slot = 0;
};

struct RollingOutcome {
  // The executed schedule and power dispatch, on the actual series. Its bound is the
  // perfect-foresight bound (valid for every schedule on the actuals); status kFeasible,
  // or kInfeasible when a job missed its deadline (then `shortfalls` says which).
  Result realised;
  Result day_ahead;                   // the first plan, on the forecast
  double day_ahead_executed_usd = 0;  // that plan unchanged, power-side recourse only, on actuals
  Result perfect_foresight;           // the scenario solved on the actual series
  double s1_actual_usd = 0;           // S1 (fixed baseline) on the actual series
  std::vector<RollingSolve> resolves;
  std::vector<RollingShortfall> shortfalls;
  std::vector<std::string> notes;  // fallbacks taken, in order
};

// `instance` with its series replaced by `actual` (same slots) and its name suffixed with
// "_actual": the instance `ckptdp check` verifies a rolling result against.
absl::StatusOr<Instance> WithActualSeries(const Instance& instance, const Series& actual);

// Runs the rolling horizon. InvalidArgument when the instance cannot be rolled (see
// docs/operations.md: explicit model.kernel_efficiency, whole iterations per segment, no
// max_pauses) or the options are out of range.
absl::StatusOr<RollingOutcome> RunRolling(const Instance& forecast, const Series& actual,
                                          const RollingOptions& options);

}  // namespace ckptdp

#endif  // CKPTDP_ROLLING_H_
