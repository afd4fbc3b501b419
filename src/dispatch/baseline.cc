#include "dispatch/internal/baseline.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace ckptdp::internal {

BaselinePlan BaselineSchedule(const Instance& instance, const std::vector<JobModes>& modes,
                              bool record_checkpoints) {
  BaselinePlan plan;
  const double step_s = instance.time.StepHours() * 3600.0;
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    const Job& job = instance.jobs[j];
    const JobModes& jm = modes[j];
    const Mode& base = jm.feasible[jm.baseline];
    const double slots_per_segment = jm.workload.segment_flops / (base.throughput_flops * step_s);
    const int length = static_cast<int>(RobustCeil(job.segments * slots_per_segment));
    const int end = job.release_slot + length;
    if (plan.infeasible_reason.empty()) {
      if (end > job.deadline_slot) {
        plan.infeasible_reason = absl::StrFormat(
            "job %s: the baseline mode needs %d slots from release %d, past its deadline %d",
            job.name, length, job.release_slot, job.deadline_slot);
      } else if (!job.boundary_idle_allowed && end != job.deadline_slot) {
        plan.infeasible_reason = absl::StrFormat(
            "job %s: the baseline finishes at slot %d, not at its deadline %d, and boundary idle "
            "is not allowed",
            job.name, end, job.deadline_slot);
      }
    }
    std::vector<Run> runs;
    int from = 0, start = job.release_slot;
    for (int k = 1; k <= job.segments; ++k) {
      const double reached = k * slots_per_segment;
      const bool on_boundary =
          static_cast<double>(RobustCeil(reached)) == std::round(reached) &&
          std::abs(reached - std::round(reached)) <= 1e-9 * std::max(1.0, reached);
      if (k < job.segments && !(record_checkpoints && on_boundary)) continue;
      Run run;
      run.start_slot = start;
      run.end_slot = job.release_slot + static_cast<int>(RobustCeil(reached));
      run.from_segment = from;
      run.to_segment = k;
      run.mode = jm.baseline;
      run.work_flops = (k - from) * jm.workload.segment_flops;
      runs.push_back(run);
      from = k;
      start = run.end_slot;
    }
    plan.schedule.jobs.push_back(std::move(runs));
  }
  return plan;
}

Schedule AsIdealSchedule(const Instance& instance, const std::vector<JobModes>& modes,
                         const Schedule& schedule) {
  const double step_s = instance.time.StepHours() * 3600.0;
  Schedule out = schedule;
  for (size_t j = 0; j < out.jobs.size(); ++j) {
    for (Run& run : out.jobs[j]) {
      run.from_segment = -1;
      run.to_segment = -1;
      run.work_flops =
          (run.end_slot - run.start_slot) * modes[j].feasible[run.mode].throughput_flops * step_s;
    }
  }
  return out;
}

}  // namespace ckptdp::internal
