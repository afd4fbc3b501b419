// Local search benchmark (issue 21, "faster rounds"): time of ImproveByLocalSearch (repair.h)
// with a battery (scenario S6), from a repaired schedule to its local optimum, on generated
// weeks. The engine runs this search after each repair that improves the incumbent, and on
// the 4096-job week the searches took about a quarter of S6's time (docs/benchmarks.md,
// session 30). Each move the search tries is evaluated exactly, battery DP included.
//
// The start is the same for every iteration: the relaxed plans at the day-ahead prices (GPUs
// unpriced, so the plans crowd into the cheap hours, as early in the dual ascent), repaired
// to a capacity-feasible schedule (the engine's fallback, by footprint, where the repair
// fails). Instances come from GenerateInstance (as `ckptdp generate
// --seed 1 --gpus 0`). Counters: the cost before and after the search (the same in every run
// of one build and the same on 1 and 2 threads), and the jobs the search moved. On 2 threads
// the search works out a few jobs' moves at a time in parallel and keeps the serial moves.
// Run: build/local_search_bench (--benchmark_filter=... for one size).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "dispatch/internal/dual.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/repair.h"
#include "generated_week.h"

namespace ckptdp {
namespace {

struct Setup {
  Instance instance;
  std::vector<JobModes> modes;
  internal::ScenarioContext context;
  internal::Workspaces workspaces;
  internal::Evaluated start;
};

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  bench::Fail("local_search_bench", what, status);
}

const internal::Deadline kNoLimit(std::chrono::steady_clock::time_point::max());

Setup& GetSetup(int jobs, int slots) {
  static std::map<std::pair<int, int>, std::unique_ptr<Setup>> cache;
  std::unique_ptr<Setup>& entry = cache[{jobs, slots}];
  if (entry) return *entry;

  auto s = std::make_unique<Setup>();
  bench::GeneratedWeek week = bench::GenerateWeek(jobs, slots, "local_search_bench");
  s->instance = std::move(week.instance);
  s->modes = std::move(week.modes);
  s->context = internal::MakeContext(s->instance, s->modes, Scenario::kS6);
  s->workspaces = internal::MakeWorkspaces(s->context);

  const int t_count = s->instance.time.slots;
  internal::Multipliers prices;
  prices.lambda.resize(t_count);
  prices.mu.assign(t_count, 0.0);
  for (int t = 0; t < t_count; ++t) {
    prices.lambda[t] = s->instance.series.price_usd_per_mwh[t] / 1000.0;
  }
  internal::DualEvaluator dual(s->context, s->workspaces, 1);
  absl::StatusOr<internal::DualEvaluator::Outcome> relaxed = dual.Evaluate(prices, {}, kNoLimit);
  if (!relaxed.ok()) Fail("DualEvaluator", relaxed.status());
  internal::EdgeCosts scratch;
  Schedule repaired;
  std::vector<int> place_first;
  if (!internal::RepairPlans(s->context, s->workspaces, dual.plans(), prices, kNoLimit, scratch,
                             repaired, &place_first) &&
      !internal::PlaceByFootprint(s->context, s->workspaces, prices, kNoLimit, scratch, repaired)) {
    Fail("RepairPlans", absl::InternalError("no schedule from the relaxed plans"));
  }
  absl::StatusOr<internal::Evaluated> start = internal::Evaluate(s->context, std::move(repaired));
  if (!start.ok()) Fail("Evaluate", start.status());
  if (!start->feasible) Fail("Evaluate", absl::InternalError(start->violation));
  s->start = *std::move(start);
  entry = std::move(s);
  return *entry;
}

// Args: jobs, slots, threads.
void BM_LocalSearch(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const int slots = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  Setup& s = GetSetup(jobs, slots);
  double end_cost = 0;
  int moved = 0;
  for (auto _ : state) {
    state.PauseTiming();
    internal::Evaluated current = s.start;
    state.ResumeTiming();
    const absl::Status status =
        internal::ImproveByLocalSearch(s.context, s.workspaces, current, kNoLimit, threads);
    if (!status.ok()) Fail("ImproveByLocalSearch", status);
    state.PauseTiming();
    end_cost = current.cost_usd;
    moved = 0;
    for (int j = 0; j < jobs; ++j) moved += current.schedule.jobs[j] != s.start.schedule.jobs[j];
    state.ResumeTiming();
  }
  state.counters["jobs"] = jobs;
  state.counters["slots"] = slots;
  state.counters["threads"] = threads;
  state.counters["start_usd"] = s.start.cost_usd;
  state.counters["end_usd"] = end_cost;
  state.counters["jobs_moved"] = moved;
}

BENCHMARK(BM_LocalSearch)
    ->ArgsProduct({{128}, {168}, {1, 2}})
    ->ArgsProduct({{512, 1024}, {672}, {1, 2}})
    ->ArgNames({"jobs", "slots", "threads"})
    ->Iterations(1)
    ->Repetitions(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ckptdp

BENCHMARK_MAIN();
