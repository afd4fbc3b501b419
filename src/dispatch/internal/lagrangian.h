// The Lagrangian-relaxation engine for the flexible scenarios (S3, S4, S6).
// Method, update rule and guarantees: docs/engine.md.
#ifndef CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_
#define CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

struct EngineOutcome {
  std::optional<Evaluated> incumbent;  // always a fully feasible schedule when present
  double lower_bound = 0;
  int iterations = 0;
  int neighbourhood_rounds = 0;
  int nodes = 0;                   // branch-and-bound nodes solved after the root
  std::vector<double> lambda, mu;  // the multipliers at the best bound
  SolveStatus status = SolveStatus::kFeasible;
  std::string diagnosis;  // when no incumbent: why
};

// When the primal search after the Lagrangian phase must stop, given when that phase
// ended. Empty: at the time limit.
using SearchDeadline = std::function<std::chrono::steady_clock::time_point(
    std::chrono::steady_clock::time_point lagrangian_end)>;

// `seed`, when given, is a feasible schedule of this scenario to start from (S6 and S3
// start from S4's incumbent, which is feasible for both). The Lagrangian phase stops at
// the time limit, the search after it at `search_deadline` (which may be later).
// `deflection` in [0, 1): the step direction is the subgradient plus this share of the
// previous direction (0: plain subgradient). See docs/engine.md for where each is used.
absl::StatusOr<EngineOutcome> RunLagrangian(ScenarioContext& context, const SolveOptions& options,
                                            std::chrono::steady_clock::time_point start,
                                            const Schedule* seed = nullptr,
                                            const SearchDeadline& search_deadline = {},
                                            double deflection = 0.0);

// Builds a capacity-feasible schedule from relaxed plans: plans that fit are kept (largest
// GPU-slot footprint first), the others are re-routed against the residual capacity under
// the prices (lambda, mu). False if some job cannot be placed or the deadline passes (each
// re-route is a full subproblem solve: seconds on large cases).
bool RepairPlans(ScenarioContext& context, const std::vector<PathSolution>& plans,
                 const std::vector<double>& lambda, const std::vector<double>& mu,
                 std::chrono::steady_clock::time_point deadline, EdgeCosts& scratch, Schedule& out);

// Primal improvement used by the engine (exposed for tests): re-routes one job at a time
// against the exact marginal cost of the other jobs' load until no move helps.
absl::Status ImproveByLocalSearch(ScenarioContext& context, Evaluated& current,
                                  std::chrono::steady_clock::time_point deadline);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_LAGRANGIAN_H_
