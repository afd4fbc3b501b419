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

// Restart overheads (docs/model.md): a train edge that starts a run pays kResume (after a
// pause, or at the first start) or kRestart (resume + reshard: a run in another layout than
// the previous one, paused or not); an edge continuing the previous edge's layout without a
// pause pays kNone. The overhead lengthens the edge: l = ceil((overhead + work / X) / step).
enum class Overhead { kNone = 0, kResume = 1, kRestart = 2 };

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
  // l(a, dk) in slots, dk in [1, max_dk], without overhead.
  int duration(int mode, int dk) const { return duration_[mode * max_dk_ + dk - 1]; }

  // Train edges grouped by where they end (no overhead): for each dk, the modes whose edges
  // over dk segments last the same number of slots. A group's edges leave and reach the same
  // states, so a shortest-path DP can relax them once, at their cheapest mode's cost.
  struct EndGroup {
    int dk = 0;
    int duration = 0;  // l(a, dk) of every mode a of the group
    int first = 0;     // the group's modes: end_group_modes()[first, first + count)
    int count = 0;
  };
  // By dk, then duration; within a group, modes in graph order. The groups of dk are
  // end_groups()[end_group_begin(dk), end_group_begin(dk + 1)), dk in [1, max_dk].
  const std::vector<EndGroup>& end_groups() const { return end_groups_; }
  int end_group_begin(int dk) const { return end_group_begin_[dk - 1]; }
  const std::vector<int>& end_group_modes() const { return end_group_modes_; }

  // --- restarts (all trivial when the job has no overheads and no initial run) ---
  // Whether paths need the run state: non-zero overheads or an initial run.
  bool has_restarts() const { return has_restarts_; }
  double resume_minutes() const { return resume_minutes_; }
  double reshard_minutes() const { return reshard_minutes_; }
  double OverheadMinutes(Overhead o) const {
    return o == Overhead::kNone     ? 0.0
           : o == Overhead::kResume ? resume_minutes_
                                    : resume_minutes_ + reshard_minutes_;
  }
  // l in slots of an edge paying overhead `o`.
  int duration(int mode, int dk, Overhead o) const {
    return duration_[(static_cast<int>(o) * num_modes() + mode) * max_dk_ + dk - 1];
  }
  // The graph mode the job is running in at slot 0 (-1: none, or not a mode of this graph).
  int initial_mode() const { return initial_mode_; }
  double initial_fraction() const { return initial_fraction_; }
  // Whether the job runs at slot 0 in a layout that is not a mode of this graph (a
  // baseline-only graph): its first start then changes layout.
  bool initial_outside() const { return initial_outside_; }
  // Whether `mode` is in the graph only as the initial run's layout (Pareto pruning removed
  // it): then only the run that continues from slot 0 may use it.
  bool initial_only(int mode) const { return mode == initial_mode_ && initial_only_; }
  // l in slots of the edge that continues the initial run from slot 0 over segments
  // [0, dk): dk - initial_fraction segments of work, no overhead.
  int initial_duration(int dk) const { return initial_duration_[dk - 1]; }

  // Whether the sink can be reached at all (ignoring other jobs), and if not, why:
  // the job, its fastest mode and by how many slots it misses the deadline.
  bool Reachable() const { return unreachable_reason_.empty(); }
  const std::string& UnreachableReason() const { return unreachable_reason_; }
  // Fewest slots from (release, 0) to segment K using the fastest path (with the first
  // start's overhead, or the initial run's head start).
  int MinimumSlotsToFinish() const { return min_slots_to_finish_; }
  // Fewest slots to train `remaining` segments (0..K) from any checkpoint: edges do not
  // depend on the segment they start from. Path algorithms use it to skip states from which
  // the deadline cannot be met (a lower bound however modes are blocked or waits forbidden).
  int MinimumSlotsFor(int remaining) const { return min_slots_for_[remaining]; }

  // Number of train edges (all (tau, k, mode, dk) that fit in the window), for benchmarks.
  long long CountTrainEdges() const;

 private:
  void GroupEdgesByEnd();  // fills end_groups_ and end_group_modes_

  int job_index_;
  int release_, deadline_, segments_, max_dk_;
  bool allow_wait_, boundary_idle_allowed_;
  int min_run_slots_, max_pauses_;
  std::vector<int> mode_index_;
  std::vector<int> gpus_;
  std::vector<double> it_power_kw_;
  std::vector<int> duration_;       // [overhead class][mode][dk - 1]; one class without restarts
  std::vector<int> min_slots_for_;  // index: segments remaining, 0..K
  std::vector<EndGroup> end_groups_;
  std::vector<int> end_group_begin_;  // index: dk - 1, 0..max_dk
  std::vector<int> end_group_modes_;
  int min_slots_to_finish_ = 0;
  bool has_restarts_ = false;
  double resume_minutes_ = 0, reshard_minutes_ = 0;
  int initial_mode_ = -1;
  bool initial_only_ = false;
  bool initial_outside_ = false;
  double initial_fraction_ = 0;
  std::vector<int> initial_duration_;  // [dk - 1]
  std::string unreachable_reason_;
};

}  // namespace ckptdp

#endif  // CKPTDP_GRAPH_H_
