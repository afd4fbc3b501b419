// Primal recovery benchmark (issue 21, "faster rounds" and "parallel work across the two
// cores"): time of the two searches of repair.h that move one job after the other, with a
// battery (scenario S6), on generated weeks. On the 4096-job week they took most of the
// time in which one of the two cores idled (docs/benchmarks.md, "A faster local search").
//   BM_Repair: RepairPlans of the relaxed plans, which re-routes, one after the other, the
//     jobs whose plans do not fit the capacity the others left (with the list of jobs to
//     place first, as the engine repairs). Serial.
//   BM_LocalSearch: ImproveByLocalSearch from the repaired schedule to its local optimum,
//     every move evaluated exactly (battery DP included), on 1 and 2 threads: it makes the
//     same moves on any thread count, and on 2 threads it works out a few jobs' moves at a
//     time in parallel. The engine runs it after the repairs that improve the incumbent.
//
// The relaxed plans are those at the day-ahead prices with the GPUs unpriced: they crowd into
// the cheap hours, as early in the dual ascent, and many jobs are re-routed. Where the repair
// fails, the search starts from the engine's fallback, by footprint. Instances come from
// GenerateInstance (as `ckptdp generate --seed 1 --gpus 0`). Counters: the cost before and
// after the search and the jobs it moved (the same in every run of one build and on 1 and 2
// threads), and the jobs the repair re-routed.
// Run: build/primal_recovery_bench (--benchmark_filter=... for one size).
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

constexpr char kBench[] = "primal_recovery_bench";

struct Setup : bench::PricedWeek {
  std::vector<internal::PathSolution> plans;  // relaxed, at `prices`
  bool repaired = false;                      // whether RepairPlans placed every job
  internal::Evaluated start;                  // of the local search
  internal::JobWorkspace repair_work;         // the repair's one workspace
};

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  bench::Fail(kBench, what, status);
}

const internal::Deadline kNoLimit(std::chrono::steady_clock::time_point::max());

Setup& GetSetup(int jobs, int slots) {
  static std::map<std::pair<int, int>, std::unique_ptr<Setup>> cache;
  std::unique_ptr<Setup>& entry = cache[{jobs, slots}];
  if (entry) return *entry;

  auto s = std::make_unique<Setup>();
  s->Init(jobs, slots, Scenario::kS6, kBench);
  internal::DualEvaluator dual(s->context, s->workspaces, 1);
  absl::StatusOr<internal::DualEvaluator::Outcome> relaxed = dual.Evaluate(s->prices, {}, kNoLimit);
  if (!relaxed.ok()) Fail("DualEvaluator", relaxed.status());
  s->plans = dual.plans();
  internal::EdgeCosts scratch;
  Schedule repaired;
  std::vector<int> place_first;
  s->repaired = internal::RepairPlans(s->context, s->repair_work, s->plans, s->prices, kNoLimit,
                                      scratch, repaired, &place_first);
  if (!s->repaired && !internal::PlaceByFootprint(s->context, s->repair_work, s->prices, kNoLimit,
                                                  scratch, repaired)) {
    Fail("RepairPlans", absl::InternalError("no schedule from the relaxed plans"));
  }
  absl::StatusOr<internal::Evaluated> start = internal::Evaluate(s->context, std::move(repaired));
  if (!start.ok()) Fail("Evaluate", start.status());
  if (!start->feasible) Fail("Evaluate", absl::InternalError(start->violation));
  s->start = *std::move(start);
  entry = std::move(s);
  return *entry;
}

// Args: jobs, slots (and threads for BM_LocalSearch).
void BM_Repair(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  Setup& s = GetSetup(jobs, static_cast<int>(state.range(1)));
  internal::EdgeCosts scratch;
  int rerouted = 0;
  for (auto _ : state) {
    Schedule repaired;
    std::vector<int> place_first;
    const bool ok = internal::RepairPlans(s.context, s.repair_work, s.plans, s.prices, kNoLimit,
                                          scratch, repaired, &place_first);
    state.PauseTiming();
    if (ok != s.repaired) Fail("RepairPlans", absl::InternalError("differs from the first"));
    rerouted = 0;
    for (int j = 0; j < jobs; ++j) rerouted += repaired.jobs[j] != s.plans[j].runs;
    state.ResumeTiming();
  }
  state.counters["repaired"] = s.repaired;
  state.counters["jobs_rerouted"] = rerouted;
}

void BM_LocalSearch(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(2));
  Setup& s = GetSetup(jobs, static_cast<int>(state.range(1)));
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
  state.counters["threads"] = threads;
  state.counters["start_usd"] = s.start.cost_usd;
  state.counters["end_usd"] = end_cost;
  state.counters["jobs_moved"] = moved;
}

void Common(benchmark::internal::Benchmark* b) {
  b->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Repair)
    ->Args({128, 168})
    ->Args({512, 672})
    ->Args({1024, 672})
    ->ArgNames({"jobs", "slots"})
    ->Apply(Common);
BENCHMARK(BM_LocalSearch)
    ->ArgsProduct({{128}, {168}, {1, 2}})
    ->ArgsProduct({{512, 1024}, {672}, {1, 2}})
    ->ArgNames({"jobs", "slots", "threads"})
    ->Apply(Common);

}  // namespace
}  // namespace ckptdp

BENCHMARK_MAIN();
