// The per-job subproblem of the Lagrangian engine, behind one interface for the two job
// models: the checkpoint-state graph (S1-S2, S4-S6) and the idealised per-slot mode choice
// without checkpoints (S3).
#ifndef CKPTDP_DISPATCH_INTERNAL_JOB_SUBPROBLEM_H_
#define CKPTDP_DISPATCH_INTERNAL_JOB_SUBPROBLEM_H_

#include <memory>
#include <string>
#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {

// The scratch memory of subproblem solves, reused from one solve to the next and from one
// job to the next: a solve keeps nothing in it for the next. The subproblems themselves are
// read-only, so one workspace per thread (evaluation.h's Workspaces) lets the jobs be solved
// in parallel.
struct JobWorkspace {
  PathSolver path;               // the DP on the checkpoint-state graph
  std::vector<double> value;     // the idealised DP (S3): value per (slot, units done)
  std::vector<double> tail_min;  // and a layer's least value at or above each level
};

class JobSubproblem {
 public:
  virtual ~JobSubproblem() = default;
  virtual int num_modes() const = 0;
  virtual int gpus(int mode) const = 0;
  virtual double it_power_kw(int mode) const = 0;
  virtual int feasible_index(int mode) const = 0;
  // A cheapest feasible plan under `costs` (feasible == false if none exists).
  virtual PathSolution Solve(const EdgeCosts& costs, JobWorkspace& work) const = 0;
  // A lower bound on the optimal value under `costs`; equals Solve's cost where the
  // subproblem is solved exactly. `solved` is the result of Solve with the same costs.
  virtual double LowerBound(const EdgeCosts& costs, const PathSolution& solved,
                            JobWorkspace& work) const = 0;
  // Why no plan can reach the job's goal under any prices, or empty if some plan can.
  // A non-empty reason proves the scenario infeasible.
  virtual std::string UnreachableReason() const { return {}; }
};

// Exact: the DP on the checkpoint-state graph.
class GraphSubproblem final : public JobSubproblem {
 public:
  explicit GraphSubproblem(CheckpointGraph graph) : graph_(std::move(graph)) {}
  int num_modes() const override { return graph_.num_modes(); }
  int gpus(int mode) const override { return graph_.gpus(mode); }
  double it_power_kw(int mode) const override { return graph_.it_power_kw(mode); }
  int feasible_index(int mode) const override { return graph_.feasible_index(mode); }
  PathSolution Solve(const EdgeCosts& costs, JobWorkspace& work) const override {
    return work.path.Solve(graph_, costs);
  }
  double LowerBound(const EdgeCosts&, const PathSolution& solved, JobWorkspace&) const override {
    return solved.cost;
  }
  std::string UnreachableReason() const override {
    return graph_.Reachable() ? std::string() : graph_.UnreachableReason();
  }
  const CheckpointGraph& graph() const { return graph_; }

 private:
  CheckpointGraph graph_;
};

// S3: each slot of the window runs one effective mode or none; work accumulates without
// checkpoints until it reaches C_j (a multiple-choice knapsack). Work is counted in `units`
// equal parts of C_j: rounding each slot's work down gives feasible plans, rounding it up a
// valid lower bound. A small mode delivers only a few units per slot, so both roundings can
// be several per cent off; hence Solve then drops the work the rounding down made it buy
// in excess, and LowerBound also takes the knapsack's LP relaxation, which is exact in the
// work (docs/engine.md, "S3's job subproblem").
class IdealSubproblem final : public JobSubproblem {
 public:
  IdealSubproblem(const Instance& instance, int job_index, const JobModes& modes, int units);
  int num_modes() const override { return static_cast<int>(mode_index_.size()); }
  int gpus(int mode) const override { return gpus_[mode]; }
  double it_power_kw(int mode) const override { return it_power_kw_[mode]; }
  int feasible_index(int mode) const override { return mode_index_[mode]; }
  PathSolution Solve(const EdgeCosts& costs, JobWorkspace& work) const override;
  double LowerBound(const EdgeCosts& costs, const PathSolution& solved,
                    JobWorkspace& work) const override;

 private:
  // DP over (slot, units done); returns the optimal value and fills `choice` if non-null.
  double RunDp(const EdgeCosts& costs, const std::vector<int>& units_per_slot,
               std::vector<int>* choice, JobWorkspace& work) const;
  // Lowers the cost of a plan (a mode or -1 per slot of the window) by single changes to a
  // cheaper mode, or none, while its exact work still reaches C_j. Returns the saving.
  double TrimExcessWork(const EdgeCosts& costs, std::vector<int>& choice) const;
  // The knapsack's LP relaxation, by its Lagrangian dual in the work row:
  // max over s >= 0 of s + sum_t min(0 if idle is allowed, min_m cost(m, t) - s f_m),
  // with f_m the fraction of C_j a slot in mode m delivers. Any s gives a valid bound.
  double LpBound(const EdgeCosts& costs) const;

  int release_, deadline_, units_;
  double slot_seconds_;
  std::vector<int> mode_index_, gpus_;
  double compute_flops_;
  std::vector<double> it_power_kw_, work_per_slot_, work_fraction_;
  std::vector<int> units_down_, units_up_;
};

// Builds the subproblem of every job for a scenario (graph or idealised, whose knapsacks
// count work in `s3_work_units` equal parts of C_j).
std::vector<std::unique_ptr<JobSubproblem>> BuildSubproblems(const Instance& instance,
                                                             const std::vector<JobModes>& modes,
                                                             bool checkpoints,
                                                             const GraphOptions& options,
                                                             int s3_work_units);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_JOB_SUBPROBLEM_H_
