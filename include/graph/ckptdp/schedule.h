// Schedule: what every job does in every slot, and the load it puts on the site.
#ifndef CKPTDP_SCHEDULE_H_
#define CKPTDP_SCHEDULE_H_

#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace ckptdp {

// One train edge of a job's path: mode `mode` (index into JobModes::feasible) from slot
// start_slot to end_slot (exclusive), advancing from_segment -> to_segment. In the
// idealised scenario S3 there are no checkpoints: both segment fields are -1 and `work_flops`
// says how much compute the run delivers.
struct Run {
  int start_slot = 0;
  int end_slot = 0;
  int from_segment = -1;
  int to_segment = -1;
  int mode = -1;
  double work_flops = 0;
  // Restart overhead the run paid at its start (resume, plus reshard on a layout change),
  // inside [start_slot, end_slot): docs/model.md. 0 when it continues the previous run's
  // layout across a checkpoint, or the job's initial run.
  double overhead_minutes = 0;
  // The run continues the job's initial run (Job::initial) from slot 0: its first segment
  // needs only (1 - segment_fraction) of the work.
  bool continues_initial = false;
  friend bool operator==(const Run&, const Run&) = default;
};

struct Schedule {
  std::vector<std::vector<Run>> jobs;  // per job, runs in time order
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Restarts of a checkpoint schedule (docs/result-format.md, "restarts"), counted from the
// runs' shape whatever the overhead minutes: a resume is a run that starts after a pause or
// at the job's first start (unless it continues Job::initial); a layout change is a run in
// another layout than the job's previous run (or its initial run).
struct RestartCounts {
  int resumes = 0;
  int layout_changes = 0;
  double overhead_minutes = 0;  // sum of Run::overhead_minutes
};
RestartCounts CountRestarts(const std::vector<JobModes>& modes, const Schedule& schedule);

// Per-slot GPUs, training IT power and AIDC power of a schedule:
// AIDC = base + PUE * training IT (the base load is site-level; docs/model.md).
struct SlotLoad {
  std::vector<int> gpus;
  std::vector<double> train_it_kw;
  std::vector<double> aidc_kw;
};
SlotLoad AggregateLoad(const Instance& instance, const std::vector<JobModes>& modes,
                       const Schedule& schedule);

}  // namespace ckptdp

#endif  // CKPTDP_SCHEDULE_H_
