// One evaluation of the Lagrangian dual function at multipliers (lambda, mu): every job's
// subproblem in parallel (TBB), the exact power-side subproblem, the dual value (a valid
// lower bound) and a subgradient. Shared by the root Lagrangian (lagrangian.cc) and the
// nodes of branch and bound (branch_and_bound.cc), which add per-slot restrictions.
#ifndef CKPTDP_DISPATCH_INTERNAL_DUAL_H_
#define CKPTDP_DISPATCH_INTERNAL_DUAL_H_

#include <chrono>
#include <vector>

#include "ckptdp/communicator.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/multipliers.h"
#include "dispatch/internal/stop_rules.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/task_arena.h"

namespace ckptdp::internal {

// Branch and bound's restriction of one job in one slot. A job's "level" in a slot is 0
// when it does not train and 1..M for its graph modes ordered by (GPUs, kW, index); the
// restriction keeps the levels in (lo, hi]. lo >= 0 therefore means "must train".
struct SlotRestriction {
  int job = 0;
  int slot = 0;
  int lo = -1;
  int hi = 0;
  friend bool operator==(const SlotRestriction&, const SlotRestriction&) = default;
};

// level_of_mode[m] for the graph modes of one job (1-based; see SlotRestriction).
std::vector<int> ModeLevels(const JobSubproblem& job);

// Blocks, in `costs`, every mode whose level a restriction excludes, and forbids waiting
// where a restriction requires training. `restrictions` are this job's only.
void ApplyRestrictions(const ScenarioContext& context, int job,
                       const std::vector<const SlotRestriction*>& restrictions,
                       const std::vector<int>& level_of_mode, EdgeCosts& costs);

class DualEvaluator {
 public:
  // Solves the jobs in `work`, one workspace per job. With a distributed `comm`, each rank
  // solves its share of the jobs (job_partition.h) and Evaluate is a collective: every rank
  // calls it, and every rank ends with every job's plan (docs/distributed.md).
  DualEvaluator(const ScenarioContext& context, Workspaces& work, int threads,
                const Communicator* comm = nullptr);

  enum class Outcome { kOk, kOutOfTime, kJobInfeasible };

  // Evaluates the dual at `prices` under `restrictions` (may be empty). kOutOfTime if the
  // deadline passed (or a stop was requested) before every job was solved (no value then);
  // kJobInfeasible if some job has no plan (infeasible_job() says which): the restricted
  // problem is empty.
  absl::StatusOr<Outcome> Evaluate(const Multipliers& prices,
                                   const std::vector<SlotRestriction>& restrictions,
                                   const Deadline& deadline);

  double value() const { return value_; }
  // The parts of value(): each job's subproblem bound and the power side's optimum.
  double job_bound(int job) const { return bounds_[job]; }
  double power_value() const { return power_value_; }
  const std::vector<PathSolution>& plans() const { return plans_; }
  const std::vector<double>& g_lambda() const { return g_lambda_; }  // kW
  const std::vector<double>& g_mu() const { return g_mu_; }          // GPUs, in kW of GPU
  double norm_squared() const { return norm_; }
  int infeasible_job() const { return infeasible_job_; }
  // Distributed: this rank's jobs, and the wall-clock seconds it spent solving them and in
  // the exchanges that followed (waiting for the slowest rank included), over all calls.
  int jobs_solved_here() const { return static_cast<int>(mine_.size()); }
  double dp_seconds() const { return dp_seconds_; }
  double exchange_seconds() const { return exchange_seconds_; }
  const std::vector<int>& levels(int job) const { return levels_[job]; }
  // kW of one GPU at the meter: converts mu (USD per GPU) to the units of lambda.
  double gpu_kw() const { return gpu_kw_; }

 private:
  // Distributed: exchanges the jobs' plans and bounds; true if any rank ran out of time.
  bool ShareJobResults(bool out_of_time);

  const ScenarioContext& c_;
  Workspaces& work_;
  const Communicator* comm_ = nullptr;  // only when distributed
  std::vector<int> mine_;               // the jobs this rank solves
  tbb::task_arena arena_;
  std::vector<double> load_lo_, load_hi_;
  std::vector<std::vector<int>> levels_;
  // A job's edge costs live only while its task prices and solves it: one per thread, like
  // the workspaces (per job they took 0.55 GB on the 4096-job week).
  tbb::enumerable_thread_specific<EdgeCosts> costs_;
  std::vector<PathSolution> plans_;
  std::vector<double> bounds_;
  std::vector<std::vector<const SlotRestriction*>> by_job_;
  double value_ = 0, power_value_ = 0, norm_ = 0, gpu_kw_ = 0;
  double dp_seconds_ = 0, exchange_seconds_ = 0;
  std::vector<double> g_lambda_, g_mu_;
  int infeasible_job_ = -1;
};

// The gap breakdown (ckptdp/result.h) of a feasible `incumbent` at `prices`.
absl::StatusOr<GapBreakdown> ExplainGap(const ScenarioContext& context, Workspaces& work,
                                        int threads, const Multipliers& prices,
                                        const Evaluated& incumbent);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DUAL_H_
