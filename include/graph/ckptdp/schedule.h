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
  friend bool operator==(const Run&, const Run&) = default;
};

struct Schedule {
  std::vector<std::vector<Run>> jobs;  // per job, runs in time order
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

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
