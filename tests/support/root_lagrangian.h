// The engine's root Lagrangian phase alone (no branch and bound, one thread, no log): the
// multipliers and bound that the decomposition tests start from.
#ifndef CKPTDP_TESTS_SUPPORT_ROOT_LAGRANGIAN_H_
#define CKPTDP_TESTS_SUPPORT_ROOT_LAGRANGIAN_H_

#include <chrono>

#include "ckptdp/engine.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/solver_log.h"

namespace ckptdp::testing {

inline absl::StatusOr<internal::EngineOutcome> RootLagrangian(const internal::ScenarioContext& c,
                                                              internal::Workspaces& work) {
  SolveOptions root;
  root.max_nodes = 0;
  root.threads = 1;
  const auto now = std::chrono::steady_clock::now();
  internal::SolverLog quiet(nullptr, internal::kLogQuiet, now);
  return internal::RunLagrangian(c, work, root, now, internal::RootSetup{}, quiet);
}

}  // namespace ckptdp::testing

#endif  // CKPTDP_TESTS_SUPPORT_ROOT_LAGRANGIAN_H_
