// Engine benchmarks: one Lagrangian iteration's per-job subproblems (edges relaxed per
// second) and full solves of the paper case. Run: build/engine_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace ckptdp {
namespace {

const Instance& Paper() {
  static const Instance instance = *LoadInstance(CKPTDP_SOURCE_DIR "/instances/paper_2048gpu.json");
  return instance;
}

// The Lagrangian multipliers at the baseline's marginal prices: the day-ahead price as
// lambda, no GPU price.
internal::Multipliers BaselinePrices(const Instance& in) {
  internal::Multipliers prices{std::vector<double>(in.time.slots),
                               std::vector<double>(in.time.slots, 0.0)};
  for (int t = 0; t < in.time.slots; ++t) {
    prices.lambda[t] = in.series.price_usd_per_mwh[t] / 1000.0;
  }
  return prices;
}

// Pricing and solving every job's subproblem once: the inner loop of the engine.
void BM_EngineIteration(benchmark::State& state) {
  const Instance& in = Paper();
  const std::vector<JobModes> modes = *BuildAllModes(in);
  const internal::ScenarioContext c = internal::MakeContext(in, modes, Scenario::kS4);
  internal::Workspaces work;
  const internal::Multipliers prices = BaselinePrices(in);
  std::vector<internal::EdgeCosts> costs(c.num_jobs());
  long long edges = 0;
  for (int j = 0; j < c.num_jobs(); ++j) {
    edges +=
        static_cast<const internal::GraphSubproblem*>(c.jobs[j].get())->graph().CountTrainEdges();
  }
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    arena.execute([&] {
      tbb::parallel_for(0, c.num_jobs(), [&](int j) {
        internal::PriceLagrangian(c, j, prices, costs[j]);
        benchmark::DoNotOptimize(c.jobs[j]->Solve(costs[j], work.Local()).cost);
      });
    });
  }
  state.counters["edges"] = static_cast<double>(edges);
  state.counters["edges_per_s"] =
      benchmark::Counter(static_cast<double>(edges), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EngineIteration)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

// S3's knapsacks (job_subproblem.h) at the baseline's marginal prices: the plan (the
// rounded-down DP and its trimming) and the bound (the rounded-up DP and the LP), once per
// job; a dual evaluation of S3 is this, and so is its decomposition's job side.
void BM_S3Knapsacks(benchmark::State& state) {
  const Instance& in = Paper();
  const std::vector<JobModes> modes = *BuildAllModes(in);
  const internal::ScenarioContext c = internal::MakeContext(in, modes, Scenario::kS3);
  internal::Workspaces work;
  const internal::Multipliers prices = BaselinePrices(in);
  std::vector<internal::EdgeCosts> costs(c.num_jobs());
  for (int j = 0; j < c.num_jobs(); ++j) internal::PriceLagrangian(c, j, prices, costs[j]);
  for (auto _ : state) {
    for (int j = 0; j < c.num_jobs(); ++j) {
      const internal::PathSolution plan = c.jobs[j]->Solve(costs[j], work.Local());
      benchmark::DoNotOptimize(c.jobs[j]->LowerBound(costs[j], plan, work.Local()));
    }
  }
}
BENCHMARK(BM_S3Knapsacks)->Unit(benchmark::kMicrosecond);

// The Lagrangian root with its neighbourhood search: what "solves in tens of milliseconds"
// means. Branch and bound (range(1) nodes) then narrows the gap; BM_SolvePaper/6/2000 shows
// what a node costs.
void BM_SolvePaper(benchmark::State& state) {
  const Scenario scenario = static_cast<Scenario>(state.range(0));
  SolveOptions options;
  options.diagnose_capacity = false;
  options.max_nodes = static_cast<int>(state.range(1));
  double cost = 0, gap = 0;
  int nodes = 0;
  for (auto _ : state) {
    absl::StatusOr<Result> r = SolveScenario(Paper(), scenario, options);
    cost = r->objective_usd;
    gap = r->gap;
    nodes = r->solver.nodes;
  }
  state.counters["cost_usd"] = cost;
  state.counters["gap_pct"] = 100 * gap;
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(BM_SolvePaper)
    ->Args({static_cast<int>(Scenario::kS1), 0})
    ->Args({static_cast<int>(Scenario::kS3), 0})
    ->Args({static_cast<int>(Scenario::kS4), 0})
    ->Args({static_cast<int>(Scenario::kS5), 0})
    ->Args({static_cast<int>(Scenario::kS6), 0})
    ->Args({static_cast<int>(Scenario::kS4), 2000})
    ->Args({static_cast<int>(Scenario::kS6), 2000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ckptdp

BENCHMARK_MAIN();
