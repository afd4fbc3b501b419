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
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/multipliers.h"

namespace ckptdp::bench {

inline constexpr int kSegments = 24;
inline constexpr int kWeekHours = 168;

[[noreturn]] inline void Fail(const char* bench, const char* what, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s: %s\n", bench, what, status.ToString().c_str());
  std::abort();
}

// Multipliers at the day-ahead energy price (lambda in USD per kW of AIDC load: USD/MWh / 1000)
// with the GPUs unpriced: the relaxed plans then crowd into the cheap hours.
inline internal::Multipliers DayAheadPrices(const Instance& instance) {
  const int slots = instance.time.slots;
  internal::Multipliers prices;
  prices.lambda.resize(slots);
  prices.mu.assign(slots, 0.0);
  for (int t = 0; t < slots; ++t) prices.lambda[t] = instance.series.price_usd_per_mwh[t] / 1000.0;
  return prices;
}

// A generated week set up for one scenario, at the day-ahead prices. The context points into
// `instance` and `modes`: the week is built in place (Init) and never moved.
struct PricedWeek {
  Instance instance;
  std::vector<JobModes> modes;
  internal::ScenarioContext context;
  internal::Workspaces workspaces;
  internal::Multipliers prices;

  // Aborts with a message naming `bench` if the generator or the modes fail.
  void Init(int jobs, int slots, Scenario scenario, const char* bench) {
    GenerateOptions options;
    options.jobs = jobs;
    options.hours = kWeekHours;
    options.step_minutes = kWeekHours * 60 / slots;
    options.segments = kSegments;
    options.gpus = 0;
    options.seed = 1;
    absl::StatusOr<Instance> generated = GenerateInstance(options);
    if (!generated.ok()) Fail(bench, "GenerateInstance", generated.status());
    instance = *std::move(generated);
    if (instance.time.slots != slots) {
      Fail(bench, "GenerateInstance", absl::InternalError("unexpected slot count"));
    }
    absl::StatusOr<std::vector<JobModes>> all_modes = BuildAllModes(instance);
    if (!all_modes.ok()) Fail(bench, "BuildAllModes", all_modes.status());
    modes = *std::move(all_modes);
    context = internal::MakeContext(instance, modes, scenario);
    prices = DayAheadPrices(instance);
  }
};

}  // namespace ckptdp::bench

#endif  // CKPTDP_BENCH_GENERATED_WEEK_H_
