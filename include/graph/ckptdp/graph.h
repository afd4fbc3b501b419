// Checkpoint-state graph of one job (section IV-A, eqs. 21-25).
//
// Nodes are (slot tau, segment k) for tau in [release, deadline], k in [0, K]. Wait edges
// go (tau, k) -> (tau+1, k); a train edge in mode a covering dk segments goes
// (tau, k) -> (tau + l(a, dk), k + dk) with l = ceil(dk/K * C_j / (X_a * step)) (eq. 24).
// Nodes and edges are implicit: the graph stores only the durations table l(a, dk), so a
// job with K = 48, 30 modes and 672 slots needs kilobytes. Path algorithms live in
// dispatch/; costs live in arrays outside the graph and change every iteration.
#ifndef CKPTDP_GRAPH_H_
#define CKPTDP_GRAPH_H_

#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace ckptdp {

// Which edges a scenario allows.
struct GraphOptions {
  bool allow_wait = true;      // false: S2, checkpoints recorded but no waiting
  bool baseline_only = false;  // true: only the job's baseline mode (S1, S2, S5)
};

class CheckpointGraph {
 public:
  // Builds the graph of job `job_index` from its modes. Never fails: an unreachable sink
  // is reported by Reachable() / UnreachableReason().
  CheckpointGraph(const Instance& instance, int job_index, const JobModes& modes,
                  const GraphOptions& options);

  int job_index() const { return job_index_; }
  int release() const { return release_; }
  int deadline() const { return deadline_; }  // exclusive end slot of the window
  int segments() const { return segments_; }  // K
  int max_dk() const { return max_dk_; }      // longest train edge in segments
  bool allow_wait() const { return allow_wait_; }
  bool boundary_idle_allowed() const { return boundary_idle_allowed_; }
  int min_run_slots() const { return min_run_slots_; }
  int max_pauses() const { return max_pauses_; }

  // Graph modes: a subset of the job's feasible modes: the effective ones plus the baseline,
  // or the baseline only.
  int num_modes() const { return static_cast<int>(mode_index_.size()); }
  int feasible_index(int mode) const { return mode_index_[mode]; }  // into JobModes::feasible
  int gpus(int mode) const { return gpus_[mode]; }
  double it_power_kw(int mode) const { return it_power_kw_[mode]; }
  // l(a, dk) in slots, dk in [1, max_dk].
  int duration(int mode, int dk) const { return duration_[mode * max_dk_ + dk - 1]; }

  // Whether the sink can be reached at all (ignoring other jobs), and if not, why:
  // the job, its fastest mode and by how many slots it misses the deadline.
  bool Reachable() const { return unreachable_reason_.empty(); }
  const std::string& UnreachableReason() const { return unreachable_reason_; }
  // Fewest slots from (release, 0) to segment K using the fastest path.
  int MinimumSlotsToFinish() const { return min_slots_for_[segments_]; }
  // Fewest slots to train `remaining` segments (0..K) from any checkpoint: edges do not
  // depend on the segment they start from. Path algorithms use it to skip states from which
  // the deadline cannot be met (a lower bound however modes are blocked or waits forbidden).
  int MinimumSlotsFor(int remaining) const { return min_slots_for_[remaining]; }

  // Number of train edges (all (tau, k, mode, dk) that fit in the window), for benchmarks.
  long long CountTrainEdges() const;

 private:
  int job_index_;
  int release_, deadline_, segments_, max_dk_;
  bool allow_wait_, boundary_idle_allowed_;
  int min_run_slots_, max_pauses_;
  std::vector<int> mode_index_;
  std::vector<int> gpus_;
  std::vector<double> it_power_kw_;
  std::vector<int> duration_;
  std::vector<int> min_slots_for_;  // index: segments remaining, 0..K
  std::string unreachable_reason_;
};

}  // namespace ckptdp

#endif  // CKPTDP_GRAPH_H_
