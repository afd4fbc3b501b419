#include <algorithm>
#include <climits>
#include <cstddef>

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
  // The layout the job runs in at slot 0 stays available for that run even when pruned.
  // The fixed-baseline scenarios (S1, S2, S5) are the paper's reference trajectory, run
  // through the window without restarts (docs/model.md, "Restarts").
  const bool restarts = job.HasRestartModel() && !options.baseline_only;
  if (restarts && modes.initial >= 0) {
    const auto it = std::find(mode_index_.begin(), mode_index_.end(), modes.initial);
    if (it != mode_index_.end()) {
      initial_mode_ = static_cast<int>(it - mode_index_.begin());
    } else {
      initial_mode_ = num_modes();
      initial_only_ = true;
      mode_index_.push_back(modes.initial);
    }
    initial_fraction_ = job.initial->segment_fraction;
    initial_outside_ = initial_mode_ < 0;
  }
  if (restarts) {
    resume_minutes_ = job.resume_minutes;
    reshard_minutes_ = job.reshard_minutes;
    has_restarts_ = true;
  }
  const double step_s = instance.time.StepHours() * 3600.0;
  const int window = deadline_ - release_;
  // eq. (24): a partially used last slot counts as occupied. Durations longer than the
  // window are clamped to window + 1: such an edge can never be used.
  auto slots_for = [&](double slots) {
    return static_cast<int>(std::min<int64_t>(RobustCeil(slots), window + 1));
  };
  std::vector<double> slots_per_segment;
  for (int feasible : mode_index_) {
    const Mode& m = modes.feasible[feasible];
    gpus_.push_back(m.gpus);
    it_power_kw_.push_back(m.it_power_kw);
    slots_per_segment.push_back(modes.workload.segment_flops / (m.throughput_flops * step_s));
  }
  // Overhead minutes are held at the mode's GPUs and power: they add to the work's time
  // before the ceiling (docs/model.md).
  for (Overhead o : {Overhead::kNone, Overhead::kResume, Overhead::kRestart}) {
    if (o != Overhead::kNone && !has_restarts_) break;
    const double overhead_slots = OverheadMinutes(o) / instance.time.step_minutes;
    for (int mode = 0; mode < num_modes(); ++mode) {
      for (int dk = 1; dk <= max_dk_; ++dk) {
        duration_.push_back(slots_for(overhead_slots + dk * slots_per_segment[mode]));
      }
    }
  }
  if (initial_mode_ >= 0) {
    for (int dk = 1; dk <= max_dk_; ++dk) {
      initial_duration_.push_back(
          slots_for((dk - initial_fraction_) * slots_per_segment[initial_mode_]));
    }
  }
  GroupEdgesByEnd();

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
  // The first edge pays the first start's resume overhead, unless it continues the initial
  // run; after it, min_slots_for_ (no overhead) is a lower bound.
  int fewest = min_slots_for_[segments_];
  if (has_restarts_) {
    fewest = INT_MAX;
    for (int mode = 0; mode < num_modes(); ++mode) {
      if (initial_only(mode)) continue;
      for (int dk = 1; dk <= max_dk_; ++dk) {
        fewest = std::min(fewest,
                          duration(mode, dk, Overhead::kResume) + min_slots_for_[segments_ - dk]);
      }
    }
    for (int dk = 1; initial_mode_ >= 0 && release_ == 0 && dk <= max_dk_; ++dk) {
      fewest = std::min(fewest, initial_duration(dk) + min_slots_for_[segments_ - dk]);
    }
  }
  min_slots_to_finish_ = fewest;
  if (fewest > window) {
    unreachable_reason_ = absl::StrFormat(
        "job %s cannot finish: its fastest path needs %d slots but its window [%d, %d) has %d "
        "(short by %d slots)",
        job.name, fewest, release_, deadline_, window, fewest - window);
  }
}

void CheckpointGraph::GroupEdgesByEnd() {
  for (int dk = 1; dk <= max_dk_; ++dk) {
    end_group_begin_.push_back(static_cast<int>(end_groups_.size()));
    const auto first = static_cast<std::ptrdiff_t>(end_group_modes_.size());
    for (int mode = 0; mode < num_modes(); ++mode) end_group_modes_.push_back(mode);
    std::stable_sort(end_group_modes_.begin() + first, end_group_modes_.end(),
                     [&](int a, int b) { return duration(a, dk) < duration(b, dk); });
    for (auto i = first; i < static_cast<std::ptrdiff_t>(end_group_modes_.size()); ++i) {
      const int l = duration(end_group_modes_[i], dk);
      if (i == first || end_groups_.back().duration != l) {
        end_groups_.push_back(EndGroup{dk, l, static_cast<int>(i), 0});
      }
      ++end_groups_.back().count;
    }
  }
  end_group_begin_.push_back(static_cast<int>(end_groups_.size()));
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
