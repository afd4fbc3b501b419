#include "ckptdp/schedule.h"

namespace ckptdp {

RestartCounts CountRestarts(const std::vector<JobModes>& modes, const Schedule& schedule) {
  RestartCounts counts;
  for (size_t j = 0; j < schedule.jobs.size() && j < modes.size(); ++j) {
    int previous_mode = modes[j].initial;  // -1: the job is not running at slot 0
    int previous_end = -1;
    for (const Run& run : schedule.jobs[j]) {
      counts.overhead_minutes += run.overhead_minutes;
      if (!run.continues_initial) {
        const bool continues = run.start_slot == previous_end && run.mode == previous_mode;
        if (!continues) ++counts.resumes;
        if (previous_mode >= 0 && run.mode != previous_mode) ++counts.layout_changes;
      }
      previous_mode = run.mode;
      previous_end = run.end_slot;
    }
  }
  return counts;
}

SlotLoad AggregateLoad(const Instance& instance, const std::vector<JobModes>& modes,
                       const Schedule& schedule) {
  const int slots = instance.time.slots;
  SlotLoad load;
  load.gpus.assign(slots, 0);
  load.train_it_kw.assign(slots, 0.0);
  load.aidc_kw.assign(slots, 0.0);
  for (size_t j = 0; j < schedule.jobs.size(); ++j) {
    for (const Run& run : schedule.jobs[j]) {
      const Mode& m = modes[j].feasible[run.mode];
      for (int t = run.start_slot; t < run.end_slot; ++t) {
        load.gpus[t] += m.gpus;
        load.train_it_kw[t] += m.it_power_kw;
      }
    }
  }
  for (int t = 0; t < slots; ++t) {
    load.aidc_kw[t] = instance.site.base_load_kw + instance.site.pue * load.train_it_kw[t];
  }
  return load;
}

}  // namespace ckptdp
