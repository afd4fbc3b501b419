#include "ckptdp/schedule.h"

namespace ckptdp {

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
