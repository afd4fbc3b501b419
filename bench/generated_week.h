// The generated weeks the benchmarks run on: `ckptdp generate --jobs J --hours 168 --segments 24
// --gpus 0 --seed 1` at a step that gives `slots` slots (168 hourly, 672 quarter-hour).
#ifndef CKPTDP_BENCH_GENERATED_WEEK_H_
#define CKPTDP_BENCH_GENERATED_WEEK_H_

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "ckptdp/generate.h"
#include "ckptdp/modes.h"

namespace ckptdp::bench {

inline constexpr int kSegments = 24;
inline constexpr int kWeekHours = 168;

[[noreturn]] inline void Fail(const char* bench, const char* what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s: %s\n", bench, what, status.ToString().c_str());
  std::abort();
}

struct GeneratedWeek {
  Instance instance;
  std::vector<JobModes> modes;
};

// Aborts with a message naming `bench` if the generator or the modes fail.
inline GeneratedWeek GenerateWeek(int jobs, int slots, const char* bench) {
  GenerateOptions options;
  options.jobs = jobs;
  options.hours = kWeekHours;
  options.step_minutes = kWeekHours * 60 / slots;
  options.segments = kSegments;
  options.gpus = 0;
  options.seed = 1;
  GeneratedWeek week;
  absl::StatusOr<Instance> instance = GenerateInstance(options);
  if (!instance.ok()) Fail(bench, "GenerateInstance", instance.status());
  week.instance = *std::move(instance);
  if (week.instance.time.slots != slots) {
    Fail(bench, "GenerateInstance", absl::InternalError("unexpected slot count"));
  }
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(week.instance);
  if (!modes.ok()) Fail(bench, "BuildAllModes", modes.status());
  week.modes = *std::move(modes);
  return week;
}

}  // namespace ckptdp::bench

#endif  // CKPTDP_BENCH_GENERATED_WEEK_H_
