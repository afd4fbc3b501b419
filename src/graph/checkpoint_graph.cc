#include <algorithm>
#include <climits>

#include "absl/strings/str_format.h"
#include "ckptdp/graph.h"

namespace ckptdp {

CheckpointGraph::CheckpointGraph(const Instance& instance, int job_index, const JobModes& modes,
                                 const GraphOptions& options)
    : job_index_(job_index) {
  const Job& job = instance.jobs[job_index];
  release_ = job.release_slot;
  deadline_ = job.deadline_slot;
  segments_ = job.segments;
  max_dk_ = job.max_segments_per_run > 0 ? std::min(job.max_segments_per_run, job.segments)
                                         : job.segments;
  allow_wait_ = options.allow_wait;
  boundary_idle_allowed_ = job.boundary_idle_allowed;
  min_run_slots_ = job.min_run_slots;
  max_pauses_ = job.max_pauses;

  if (options.baseline_only) {
    mode_index_.push_back(modes.baseline);
  } else {
    // The effective modes, plus the baseline even when it is dominated: the operator's
    // baseline is always runnable, and keeping it makes the fixed trajectory (S2) a path of
    // every flexible graph, so flexible scenarios can never cost more than the baseline.
    mode_index_ = modes.effective;
    if (!modes.feasible[modes.baseline].effective) mode_index_.push_back(modes.baseline);
  }
  const double step_s = instance.time.StepHours() * 3600.0;
  const int window = deadline_ - release_;
  for (int feasible : mode_index_) {
    const Mode& m = modes.feasible[feasible];
    gpus_.push_back(m.gpus);
    it_power_kw_.push_back(m.it_power_kw);
    const double slots_per_segment = modes.workload.segment_flops / (m.throughput_flops * step_s);
    for (int dk = 1; dk <= max_dk_; ++dk) {
      // eq. (24): a partially used last slot counts as occupied. Durations longer than the
      // window are clamped to window + 1: such an edge can never be used.
      const int64_t l = RobustCeil(dk * slots_per_segment);
      duration_.push_back(static_cast<int>(std::min<int64_t>(l, window + 1)));
    }
  }

  // Fewest slots to cover r segments, r = 0..K (unbounded knapsack over edge lengths).
  // Clamped durations keep the sums far below INT_MAX.
  min_slots_for_.assign(segments_ + 1, INT_MAX);
  min_slots_for_[0] = 0;
  for (int k = 1; k <= segments_; ++k) {
    for (int mode = 0; mode < num_modes(); ++mode) {
      for (int dk = 1; dk <= std::min(k, max_dk_); ++dk) {
        min_slots_for_[k] =
            std::min(min_slots_for_[k], min_slots_for_[k - dk] + duration(mode, dk));
      }
    }
  }
  const int fewest = min_slots_for_[segments_];
  if (fewest > window) {
    unreachable_reason_ = absl::StrFormat(
        "job %s cannot finish: its fastest path needs %d slots but its window [%d, %d) has %d "
        "(short by %d slots)",
        job.name, fewest, release_, deadline_, window, fewest - window);
  }
}

long long CheckpointGraph::CountTrainEdges() const {
  long long count = 0;
  for (int tau = release_; tau < deadline_; ++tau) {
    for (int k = 0; k < segments_; ++k) {
      for (int mode = 0; mode < num_modes(); ++mode) {
        for (int dk = 1; dk <= std::min(max_dk_, segments_ - k); ++dk) {
          if (tau + duration(mode, dk) <= deadline_) ++count;
        }
      }
    }
  }
  return count;
}

}  // namespace ckptdp
