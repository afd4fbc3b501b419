#include "rolling/internal/sub_problem.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "ckptdp/result.h"

namespace ckptdp::rolling_internal {
namespace {

std::vector<double> Slice(const std::vector<double>& v, int from, int to) {
  return std::vector<double>(v.begin() + from, v.begin() + to);
}

bool Near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// The carried state is exact only if the sub-job's modes are the original's, in the same
// order (Run::mode indexes them), with the same work per segment (edge durations, eq. 24).
absl::Status CheckSameModes(const std::string& name, const JobModes& original,
                            const JobModes& sub) {
  bool same = original.feasible.size() == sub.feasible.size() &&
              Near(sub.workload.segment_flops, original.workload.segment_flops);
  for (std::size_t m = 0; same && m < sub.feasible.size(); ++m) {
    same = sub.feasible[m].layout == original.feasible[m].layout &&
           Near(sub.feasible[m].throughput_flops, original.feasible[m].throughput_flops);
  }
  if (same) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat(
      "rolling: job %s: its remaining work does not keep the original modes and segment work",
      name));
}

}  // namespace

absl::Status CheckRollable(const Instance& instance, const std::vector<JobModes>& modes) {
  if (!instance.model.kernel_efficiency.has_value()) {
    return absl::InvalidArgumentError(
        "model.kernel_efficiency: rolling needs it given (a calibrated eta_0 would be re-fitted "
        "to every shortened window and change the jobs' throughput)");
  }
  if (HasGridContract(instance)) {
    // The contract's state (the billing peak reached, the caps' series) is not carried over
    // re-solves yet: refuse rather than re-plan on a different model.
    return absl::InvalidArgumentError(
        "site: rolling does not support the grid contract (demand charge, import and export "
        "caps, carbon, renewable_first) yet");
  }
  for (std::size_t j = 0; j < instance.jobs.size(); ++j) {
    const Job& job = instance.jobs[j];
    if (job.HasRestartModel()) {
      // Restart state (running layout, partial segment) is not carried over re-solves yet.
      return absl::InvalidArgumentError(absl::StrFormat(
          "jobs[%d].resume_minutes: rolling does not support restart overheads or an initial "
          "run yet; remove resume_minutes, reshard_minutes and initial",
          static_cast<int>(j)));
    }
    if (job.max_pauses >= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "jobs[%d].max_pauses: rolling does not carry pauses over re-solves; use -1",
          static_cast<int>(j)));
    }
    const long long iterations = modes[j].workload.iterations_window;
    if (iterations % job.segments != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "jobs[%d].daily_ratio: its %lld iterations are not a multiple of its %d segments, so "
          "the work left after a checkpoint is not whole iterations",
          static_cast<int>(j), iterations, job.segments));
    }
  }
  return absl::OkStatus();
}

int DecisionHorizonEnd(const Instance& instance, const std::vector<JobState>& states, int origin) {
  const int slots = instance.time.slots;
  for (int end = origin + 1; end < slots; ++end) {
    bool straddled = false;
    for (std::size_t j = 0; j < instance.jobs.size() && !straddled; ++j) {
      const Job& job = instance.jobs[j];
      if (states[j].done_segments >= job.segments || job.deadline_slot <= origin) continue;
      straddled = job.release_slot < end && job.deadline_slot > end;
    }
    if (!straddled) return end;
  }
  return slots;
}

absl::StatusOr<SubProblem> BuildSubProblem(const Instance& original,
                                           const std::vector<JobModes>& modes,
                                           const std::vector<JobState>& states, int origin, int end,
                                           double soc_kwh, double soc_end_kwh,
                                           const Series& series) {
  SubProblem sub;
  sub.origin = origin;
  sub.end = end;
  Instance& in = sub.instance;
  in.name = absl::StrFormat("%s@%d", original.name, origin);
  in.site = original.site;
  in.time = original.time;
  in.time.slots = end - origin;
  in.series.pv_kw = Slice(series.pv_kw, origin, end);
  in.series.wind_kw = Slice(series.wind_kw, origin, end);
  in.series.price_usd_per_mwh = Slice(series.price_usd_per_mwh, origin, end);
  in.costs = original.costs;
  in.battery = original.battery;
  const Battery& b = original.battery;
  in.battery.soc_initial_kwh = std::clamp(soc_kwh, b.soc_min_kwh, b.soc_max_kwh);
  in.battery_soc_final_kwh = std::clamp(soc_end_kwh, b.soc_min_kwh, b.soc_max_kwh);
  in.model = original.model;
  for (std::size_t j = 0; j < original.jobs.size(); ++j) {
    const Job& job = original.jobs[j];
    const JobState& s = states[j];
    if (s.done_segments >= job.segments || job.deadline_slot <= origin) continue;
    if (job.release_slot >= end) continue;  // beyond the decision horizon: keeps its plan
    Job rest = job;
    const int left = job.segments - s.done_segments;
    rest.segments = left;
    // The remaining share of the window's iterations (whole: CheckRollable).
    const long long iterations = modes[j].workload.iterations_window / job.segments * left;
    rest.daily_ratio =
        static_cast<double>(iterations) / static_cast<double>(modes[j].workload.iterations_total);
    rest.release_slot = std::max({job.release_slot, s.free_from, origin}) - origin;
    rest.deadline_slot = job.deadline_slot - origin;
    if (rest.release_slot >= rest.deadline_slot) continue;  // no slot left: a shortfall
    if (rest.max_segments_per_run > left) rest.max_segments_per_run = left;
    in.jobs.push_back(std::move(rest));
    sub.job_of.push_back(static_cast<int>(j));
  }
  if (in.jobs.empty()) return sub;
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(in));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<JobModes> sub_modes, BuildAllModes(in));
  for (std::size_t i = 0; i < sub.job_of.size(); ++i) {
    CKPTDP_RETURN_IF_ERROR(CheckSameModes(in.jobs[i].name, modes[sub.job_of[i]], sub_modes[i]));
  }
  return sub;
}

Schedule ToSubSchedule(const SubProblem& sub, const std::vector<JobState>& states,
                       const Schedule& plan) {
  Schedule out;
  out.jobs.resize(sub.job_of.size());
  for (std::size_t i = 0; i < sub.job_of.size(); ++i) {
    const int j = sub.job_of[i];
    for (const Run& r : plan.jobs[j]) {
      if (r.start_slot < sub.origin) continue;
      Run s = r;
      s.start_slot -= sub.origin;
      s.end_slot -= sub.origin;
      s.from_segment -= states[j].done_segments;
      s.to_segment -= states[j].done_segments;
      out.jobs[i].push_back(s);
    }
  }
  return out;
}

Schedule MergeSubSchedule(const SubProblem& sub, const std::vector<JobState>& states,
                          const Schedule& plan, const Schedule& sub_schedule) {
  Schedule out;
  out.jobs.resize(plan.jobs.size());
  std::vector<bool> replanned(plan.jobs.size(), false);
  for (int j : sub.job_of) replanned[j] = true;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    for (const Run& r : plan.jobs[j]) {
      if (r.start_slot < sub.origin || !replanned[j]) out.jobs[j].push_back(r);
    }
  }
  for (std::size_t i = 0; i < sub.job_of.size(); ++i) {
    const int j = sub.job_of[i];
    for (const Run& r : sub_schedule.jobs[i]) {
      Run s = r;
      s.start_slot += sub.origin;
      s.end_slot += sub.origin;
      s.from_segment += states[j].done_segments;
      s.to_segment += states[j].done_segments;
      out.jobs[j].push_back(s);
    }
  }
  return out;
}

namespace {

// Graph-mode index of feasible mode `feasible`, or -1.
int GraphMode(const CheckpointGraph& g, int feasible) {
  for (int m = 0; m < g.num_modes(); ++m) {
    if (g.feasible_index(m) == feasible) return m;
  }
  return -1;
}

// Cuts `r` at its first checkpoint ending at or after `slot` on a slot boundary whose two
// parts last exactly as long as the whole; false if there is none (or limits forbid it).
bool CutRun(const CheckpointGraph& g, const Run& r, int slot, Run& first, Run& second) {
  const int m = GraphMode(g, r.mode);
  const int dk = r.to_segment - r.from_segment;
  if (m < 0 || g.min_run_slots() > 1 || r.from_segment < 0) return false;
  const int whole = g.duration(m, dk);
  for (int i = 1; i < dk; ++i) {
    const int head = g.duration(m, i);
    if (r.start_slot + head < slot || head + g.duration(m, dk - i) != whole) continue;
    first = second = r;
    first.end_slot = second.start_slot = r.start_slot + head;
    first.to_segment = second.from_segment = r.from_segment + i;
    return true;
  }
  return false;
}

}  // namespace

int CommitUpTo(Schedule& plan, const std::vector<CheckpointGraph>& graphs, int slot) {
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
      std::vector<Run>& runs = plan.jobs[j];
      for (std::size_t k = 0; k < runs.size(); ++k) {
        if (runs[k].start_slot >= slot || runs[k].end_slot <= slot) continue;
        Run first, second;
        if (CutRun(graphs[j], runs[k], slot, first, second)) {
          runs[k] = first;
          runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(k) + 1, second);
          if (first.end_slot == slot) continue;
        }
        slot = runs[k].end_slot;
        moved = true;
      }
    }
  }
  return slot;
}

std::vector<JobState> StatesAt(const Instance& instance, const Schedule& plan, int slot) {
  std::vector<JobState> states(instance.jobs.size());
  for (std::size_t j = 0; j < instance.jobs.size(); ++j) {
    states[j].free_from = instance.jobs[j].release_slot;
    for (const Run& r : plan.jobs[j]) {
      if (r.start_slot >= slot) continue;
      states[j].done_segments = std::max(states[j].done_segments, r.to_segment);
      states[j].free_from = std::max(states[j].free_from, r.end_slot);
    }
  }
  return states;
}

}  // namespace ckptdp::rolling_internal
