// Job checks: each run is a feasible mode inside the job's window, runs do not overlap,
// checkpoint runs chain segment 0 -> K with eq. (24) lengths, and the scenario's rules on
// modes and waiting hold (section IV-A, Table III).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {
namespace {

std::string LayoutText(const ParallelLayout& a) {
  return absl::StrCat("(p,q,d)=(", a.p, ",", a.q, ",", a.d, ")");
}

const Mode* FindMode(const JobModes& modes, const ParallelLayout& layout) {
  for (const Mode& m : modes.feasible) {
    if (m.layout == layout) return &m;
  }
  return nullptr;
}

// Everything the result's job entry copies from the instance.
void CheckJobHeader(const Job& job, const JobModes& modes, const JobRecord& r, int j,
                    CheckReport& report) {
  const std::string where = JobPath(j);
  if (r.name != job.name) {
    Flag(report, where,
         absl::StrCat("name is \"", r.name, "\", the instance's job ", j, " is \"", job.name,
                      "\" (jobs are matched by position)"));
  }
  const auto expect_int = [&](const char* field, int reported, int expected) {
    if (reported == expected) return;
    Flag(report, where, absl::StrCat(field, " is ", reported, ", the instance has ", expected));
  };
  expect_int("segments", r.segments, job.segments);
  expect_int("release_slot", r.release_slot, job.release_slot);
  expect_int("deadline_slot", r.deadline_slot, job.deadline_slot);
  if (r.boundary_idle_allowed != job.boundary_idle_allowed) {
    Flag(report, where,
         absl::StrCat("boundary_idle_allowed is ", r.boundary_idle_allowed ? "true" : "false",
                      ", the instance has ", job.boundary_idle_allowed ? "true" : "false"));
  }
  ExpectNear(report, where, "daily_compute_flops", r.daily_compute_flops,
             modes.workload.compute_flops, "C_j of the workload model");
}

// Checks shared by every scenario: window, order, mode. Returns the run's mode, or null if
// its layout is not a feasible mode of the job.
const Mode* CheckRunBasics(const Instance& instance, const Job& job, const JobModes& modes,
                           const ResultRecord& result, int j, int r, CheckReport& report) {
  const RunRecord& run = result.jobs[j].runs[r];
  const std::string where = RunPath(j, r);
  if (run.end_slot <= run.start_slot) {
    Flag(report, where,
         absl::StrCat("end_slot ", run.end_slot, " is not after start_slot ", run.start_slot));
  }
  if (run.start_slot < job.release_slot) {
    Flag(report, where,
         absl::StrCat("starts at slot ", run.start_slot, ", before the job's release slot ",
                      job.release_slot));
  }
  if (run.end_slot > job.deadline_slot) {
    Flag(report, where,
         absl::StrCat("ends at slot ", run.end_slot, ", after the job's deadline slot ",
                      job.deadline_slot, ": the deadline is missed"));
  }
  if (r > 0) {
    const RunRecord& prev = result.jobs[j].runs[r - 1];
    if (run.start_slot < prev.end_slot) {
      Flag(report, where,
           absl::StrCat("overlaps ", RunPath(j, r - 1), ": starts at slot ", run.start_slot,
                        " before that run ends at slot ", prev.end_slot,
                        " (runs must be in time order and must not overlap)"));
    }
  }

  const Mode* mode = FindMode(modes, run.layout);
  if (mode == nullptr) {
    std::string why = LayoutDefect(job, instance.site, instance.model, run.layout);
    if (why.empty()) why = "it does not fit in GPU memory";
    Flag(report, where,
         absl::StrCat(LayoutText(run.layout), " is not a feasible mode of job ", job.name, ": ",
                      why));
  }
  if (result.rules.fixed_mode && !(run.layout == job.baseline)) {
    Flag(report, where,
         absl::StrCat(LayoutText(run.layout), " is not the baseline ", LayoutText(job.baseline),
                      ": scenario ", result.scenario, " runs the fixed baseline mode only"));
  }
  if (mode == nullptr) return nullptr;
  if (run.gpus != mode->gpus) {
    Flag(
        report, where,
        absl::StrCat("gpus is ", run.gpus, ", mode ", LayoutText(run.layout), " has ", mode->gpus));
  }
  ExpectNear(report, where, "it_power_kw", run.it_power_kw, mode->it_power_kw,
             absl::StrCat("IT power of mode ", LayoutText(run.layout)));
  ExpectNear(report, where, "throughput_flops", run.throughput_flops, mode->throughput_flops,
             absl::StrCat("throughput of mode ", LayoutText(run.layout)));
  return mode;
}

// What run r of a checkpoint job pays at its start (docs/model.md, "Restarts"), from the
// instance's rules alone: the first run continues the initial run if it starts at slot 0 in
// its layout; otherwise a start after a pause (or the first start) pays resume_minutes, and a
// layout other than the previous run's (or the initial one) adds reshard_minutes.
struct RunStart {
  double overhead_minutes = 0;
  bool continues_initial = false;
};
RunStart ExpectedStart(const Job& job, const std::vector<RunRecord>& runs, int r) {
  const RunRecord& run = runs[r];
  RunStart start;
  const ParallelLayout* previous = nullptr;
  bool paused = true;
  if (r > 0) {
    previous = &runs[r - 1].layout;
    paused = runs[r - 1].end_slot != run.start_slot;
  } else if (job.initial.has_value()) {
    previous = &job.initial->mode;
    if (run.start_slot == 0 && run.layout == job.initial->mode) {
      start.continues_initial = true;
      return start;
    }
  }
  const bool new_layout = previous != nullptr && !(*previous == run.layout);
  if (paused || new_layout) start.overhead_minutes = job.resume_minutes;
  if (new_layout) start.overhead_minutes += job.reshard_minutes;
  return start;
}

// Checkpoint scenarios: segment chain, eq. (24) length, edge size, no-wait rule.
void CheckCheckpointRun(const Instance& instance, const Job& job, const JobModes& modes,
                        const ResultRecord& result, const Mode* mode, int j, int r,
                        CheckReport& report) {
  const RunRecord& run = result.jobs[j].runs[r];
  const std::string where = RunPath(j, r);
  const int from = *run.from_segment, to = *run.to_segment, k = job.segments;
  if (r == 0 && from != 0) {
    Flag(report, where,
         absl::StrCat("from_segment is ", from, ": the first run must start at segment 0"));
  } else if (r > 0) {
    const int reached = *result.jobs[j].runs[r - 1].to_segment;
    if (from != reached) {
      Flag(report, where,
           absl::StrCat("from_segment is ", from, ", but ", RunPath(j, r - 1), " ended at segment ",
                        reached, ": segments must follow each other"));
    }
  }
  if (to <= from) {
    Flag(report, where, absl::StrCat("to_segment ", to, " is not after from_segment ", from));
  }
  if (to > k) {
    Flag(report, where, absl::StrCat("to_segment ", to, " exceeds the job's ", k, " segments"));
  }

  // The fixed-baseline scenarios run the paper's reference trajectory, without restarts.
  const bool restarts = job.HasRestartModel() && !result.rules.fixed_mode;
  const RunStart start = restarts ? ExpectedStart(job, result.jobs[j].runs, r) : RunStart{};
  const double done = start.continues_initial ? job.initial->segment_fraction : 0.0;
  const double work = (to - from - done) / k * modes.workload.compute_flops;
  ExpectNear(report, where, "work_flops", run.work_flops, work,
             start.continues_initial
                 ? "(to_segment - from_segment - initial.segment_fraction) / segments * daily "
                   "compute"
                 : "(to_segment - from_segment) / segments * daily compute");
  if (restarts) {
    if (!run.overhead_minutes.has_value() || !run.continues_initial.has_value()) {
      Flag(report, where,
           "lacks overhead_minutes or continues_initial, which a job with restart overheads or "
           "an initial run must report");
    } else {
      ExpectNear(report, where, "overhead_minutes", *run.overhead_minutes, start.overhead_minutes,
                 "resume_minutes after a pause or at the first start, plus reshard_minutes on a "
                 "layout change");
      if (*run.continues_initial != start.continues_initial) {
        Flag(report, where,
             absl::StrCat("continues_initial is ", *run.continues_initial ? "true" : "false",
                          ", but the run ", start.continues_initial ? "does" : "does not",
                          " start at slot 0 in the initial layout"));
      }
    }
  }
  if (mode != nullptr && to > from) {
    const double step_s = instance.time.StepHours() * 3600.0;
    const int64_t slots = ForgivingCeil(start.overhead_minutes / instance.time.step_minutes +
                                        work / (mode->throughput_flops * step_s));
    if (run.end_slot - run.start_slot != slots) {
      Flag(report, where,
           absl::StrCat("lasts ", run.end_slot - run.start_slot, " slots, but segments ", from,
                        "->", to, " in mode ", LayoutText(run.layout), " take ", slots,
                        " slots (ceil((overhead + work / throughput) / step), eq. 24)"));
    }
  }
  if (result.rules.graph) {
    const int max_dk = job.max_segments_per_run > 0 ? std::min(job.max_segments_per_run, k) : k;
    if (to - from > max_dk) {
      Flag(
          report, where,
          absl::StrCat("covers ", to - from, " segments, more than max_segments_per_run=", max_dk));
    }
  }
  if (!result.rules.waiting) {
    const std::string rule = absl::StrCat("scenario ", result.scenario, " does not allow waiting");
    if (r == 0 && run.start_slot != job.release_slot) {
      Flag(report, where,
           absl::StrCat("starts at slot ", run.start_slot, ", not at the release slot ",
                        job.release_slot, ": ", rule));
    } else if (r > 0) {
      const int prev_end = result.jobs[j].runs[r - 1].end_slot;
      if (run.start_slot > prev_end) {
        Flag(report, where,
             absl::StrCat("waits ", run.start_slot - prev_end,
                          " slots after the previous run: ", rule));
      }
    }
  }
}

// After the runs of a checkpoint job: completion, boundary idle, operators' limits.
void CheckCheckpointJob(const Job& job, const ResultRecord& result, int j, CheckReport& report) {
  const std::vector<RunRecord>& runs = result.jobs[j].runs;
  if (runs.empty()) {
    Flag(report, JobPath(j),
         absl::StrCat("has no runs: the job never reaches its ", job.segments, " segments"));
    return;
  }
  const RunRecord& last = runs.back();
  if (*last.to_segment != job.segments) {
    Flag(report, JobPath(j),
         absl::StrCat("the last run reaches segment ", *last.to_segment, " of ", job.segments,
                      ": the job does not complete by its deadline"));
  }
  if (!job.boundary_idle_allowed && last.end_slot != job.deadline_slot) {
    Flag(report, RunPath(j, static_cast<int>(runs.size()) - 1),
         absl::StrCat("ends at slot ", last.end_slot,
                      ", but boundary_idle_allowed is false: the last run must end exactly at "
                      "the deadline slot ",
                      job.deadline_slot));
  }
  if (!result.rules.waiting) return;
  // min_run_slots and max_pauses are read on maximal back-to-back blocks of runs, so a
  // solver that splits one block into several train edges is not penalised.
  int pauses = 0;
  size_t block = 0;
  for (size_t r = 1; r <= runs.size(); ++r) {
    if (r < runs.size() && runs[r].start_slot <= runs[r - 1].end_slot) continue;
    const int length = runs[r - 1].end_slot - runs[block].start_slot;
    if (length < job.min_run_slots) {
      Flag(report, RunPath(j, static_cast<int>(block)),
           absl::StrCat("trains ", length, " slots without a pause (runs ", block, "..", r - 1,
                        "), fewer than min_run_slots=", job.min_run_slots));
    }
    if (r < runs.size()) ++pauses;
    block = r;
  }
  if (job.max_pauses >= 0 && pauses > job.max_pauses) {
    Flag(report, JobPath(j),
         absl::StrCat("pauses ", pauses,
                      " times between runs, more than "
                      "max_pauses=",
                      job.max_pauses));
  }
}

// S3: no checkpoints; delivered work is bounded by each run and must cover C_j.
void CheckIdealisedJob(const Instance& instance, const JobModes& modes, const ResultRecord& result,
                       const std::vector<const Mode*>& run_modes, int j, CheckReport& report) {
  const std::vector<RunRecord>& runs = result.jobs[j].runs;
  const double step_s = instance.time.StepHours() * 3600.0;
  double delivered = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunRecord& run = runs[r];
    const std::string where = RunPath(j, static_cast<int>(r));
    if (run.from_segment.has_value() || run.to_segment.has_value()) {
      Flag(report, where, "carries from_segment/to_segment, but S3 has no checkpoints");
    }
    const double throughput =
        run_modes[r] != nullptr ? run_modes[r]->throughput_flops : run.throughput_flops;
    const double most = std::max(0, run.end_slot - run.start_slot) * throughput * step_s;
    if (run.work_flops < 0) {
      Flag(report, where, absl::StrCat("work_flops is negative: ", Num(run.work_flops)));
    } else if (!AtMost(run.work_flops, most, kWorkTolerance)) {
      Flag(report, where,
           absl::StrCat("work_flops ", Num(run.work_flops), " is more than the run can deliver: ",
                        run.end_slot - run.start_slot, " slots * ", Num(throughput), " FLOP/s * ",
                        Num(step_s), " s = ", Num(most)));
    }
    delivered += run.work_flops;
  }
  const double needed = modes.workload.compute_flops;
  if (delivered < needed * (1.0 - kWorkTolerance)) {
    Flag(report, JobPath(j),
         absl::StrCat("runs deliver ", Num(delivered), " FLOP, less than the daily compute ",
                      Num(needed), ": the job does not complete by its deadline"));
  }
}

void AddLoad(const RunRecord& run, const Mode* mode, RecomputedLoad& load) {
  const int gpus = mode != nullptr ? mode->gpus : run.gpus;
  const double it_kw = mode != nullptr ? mode->it_power_kw : run.it_power_kw;
  const int first = std::max(run.start_slot, 0);
  const int last = std::min(run.end_slot, static_cast<int>(load.gpus.size()));
  for (int t = first; t < last; ++t) {
    load.gpus[t] += gpus;
    load.train_it_kw[t] += it_kw;
  }
}

}  // namespace

RecomputedLoad CheckJobs(const Instance& instance, const std::vector<JobModes>& modes,
                         const ResultRecord& result, CheckReport& report) {
  const int slots = instance.time.slots;
  RecomputedLoad load{std::vector<int>(slots, 0), std::vector<double>(slots, 0.0)};
  const size_t n = std::min(result.jobs.size(), instance.jobs.size());
  if (result.jobs.size() != instance.jobs.size()) {
    Flag(
        report, "jobs",
        absl::StrCat("has ", result.jobs.size(), " jobs, the instance has ", instance.jobs.size()));
  }
  for (size_t jj = 0; jj < n; ++jj) {
    const int j = static_cast<int>(jj);
    const Job& job = instance.jobs[j];
    CheckJobHeader(job, modes[j], result.jobs[j], j, report);
    std::vector<const Mode*> run_modes;
    for (size_t r = 0; r < result.jobs[j].runs.size(); ++r) {
      const Mode* mode =
          CheckRunBasics(instance, job, modes[j], result, j, static_cast<int>(r), report);
      if (result.rules.checkpoints) {
        CheckCheckpointRun(instance, job, modes[j], result, mode, j, static_cast<int>(r), report);
      }
      AddLoad(result.jobs[j].runs[r], mode, load);
      run_modes.push_back(mode);
    }
    if (result.rules.checkpoints) {
      CheckCheckpointJob(job, result, j, report);
    } else {
      CheckIdealisedJob(instance, modes[j], result, run_modes, j, report);
    }
  }
  return load;
}

}  // namespace ckptdp::check_internal
