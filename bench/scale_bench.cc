// Scale benchmark (issue 6): time of ONE engine iteration (PriceLagrangian + Solve for every
// job, scenario S4) on generated instances, against jobs x slots x segments x modes, with 1 or
// 2 TBB threads. Instances come from GenerateInstance (the same as `ckptdp generate`) and are
// built outside the timed loop. Two sweeps, K = 24, seed 1, GPU capacity scaled to the jobs
// (`--gpus 0`, the CLI default):
//   jobs  in {2, 8, 32, 128, 512, 1024, 2048, 4096} at 168 hourly slots (--hours 168; issue 21
//   asks for the curve to 4096 jobs);
//   slots in {24, 96, 168, 336, 672} at 32 jobs: one week at a step of 420, 105, 60, 30 and
//   15 minutes, so that the horizon, the jobs and their windows in hours stay the same and
//   only the resolution changes.
// BM_ScaleIterationHot is a control for cache effects between jobs, and every repetition
// records the cores that other processes used meanwhile (`other_cores`): the machine is shared.
// Run: build-scale/scale_bench (or tools/scale-curve.sh, which also plots the curve).
#include <benchmark/benchmark.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "dispatch/internal/evaluation.h"
#include "generated_week.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace ckptdp {
namespace {

using bench::kSegments;

// Everything one benchmark needs, built once per (jobs, slots) and kept for the process.
struct Setup : bench::PricedWeek {
  std::vector<internal::EdgeCosts> costs;
  long long total_modes = 0;  // sum over jobs of graph modes
  long long edges = 0;        // sum over jobs of CountTrainEdges
  long long work = 0;         // sum over jobs of slots x segments x modes
  long long window_work = 0;  // sum over jobs of window slots x segments x modes
};

// CPU seconds used by the whole machine (from /proc/stat, in clock ticks) and by this process.
struct CpuSample {
  double machine_busy_s = 0;
  double self_s = 0;
  std::chrono::steady_clock::time_point wall;
};

CpuSample SampleCpu() {
  CpuSample out;
  if (std::FILE* f = std::fopen("/proc/stat", "r")) {
    unsigned long long v[8] = {};  // user nice system idle iowait irq softirq steal
    if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5], &v[6], &v[7]) == 8) {
      out.machine_busy_s = static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) /
                           static_cast<double>(sysconf(_SC_CLK_TCK));
    }
    std::fclose(f);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  out.self_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  out.wall = std::chrono::steady_clock::now();
  return out;
}

// Mean number of cores that other processes kept busy between two samples: the machine is
// shared, and a run with other work on its cores is not a clean measurement.
double OtherCores(const CpuSample& a, const CpuSample& b) {
  const double wall = std::chrono::duration<double>(b.wall - a.wall).count();
  if (wall <= 0) return 0;
  return std::max(0.0, (b.machine_busy_s - a.machine_busy_s) - (b.self_s - a.self_s)) / wall;
}

// One engine iteration: price and solve every job's subproblem.
void Iterate(Setup& s) {
  const internal::ScenarioContext& c = s.context;
  tbb::parallel_for(0, c.num_jobs(), [&](int j) {
    internal::PriceLagrangian(c, j, s.prices, s.costs[j]);
    benchmark::DoNotOptimize(c.jobs[j]->Solve(s.costs[j], s.workspaces.Local()).cost);
  });
}

Setup& GetSetup(int jobs, int slots) {
  static std::map<std::pair<int, int>, std::unique_ptr<Setup>> cache;
  std::unique_ptr<Setup>& entry = cache[{jobs, slots}];
  if (entry) return *entry;

  auto s = std::make_unique<Setup>();
  s->Init(jobs, slots, Scenario::kS4, "scale_bench");
  const int t_count = s->instance.time.slots;
  s->costs.resize(s->context.num_jobs());
  for (int j = 0; j < s->context.num_jobs(); ++j) {
    const auto* sub = static_cast<const internal::GraphSubproblem*>(s->context.jobs[j].get());
    const CheckpointGraph& g = sub->graph();
    s->total_modes += g.num_modes();
    s->edges += g.CountTrainEdges();
    s->work += static_cast<long long>(t_count) * g.segments() * g.num_modes();
    s->window_work +=
        static_cast<long long>(g.deadline() - g.release()) * g.segments() * g.num_modes();
  }
  Iterate(*s);  // warm-up: the solvers' workspaces are allocated here, not in the timed loop
  entry = std::move(s);
  return *entry;
}

// Args: jobs, slots, threads.
void BM_ScaleIteration(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const int slots = static_cast<int>(state.range(1));
  const int threads = static_cast<int>(state.range(2));
  Setup& s = GetSetup(jobs, slots);
  tbb::task_arena arena(threads);
  double seconds = 0;  // wall time of the timed iterations, for the per-unit counters
  const CpuSample before = SampleCpu();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    arena.execute([&] { Iterate(s); });
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["other_cores"] = OtherCores(before, SampleCpu());
  const double ns_per_iteration = 1e9 * seconds / static_cast<double>(state.iterations());
  const auto edges = static_cast<double>(s.edges);
  const auto work = static_cast<double>(s.work);
  state.counters["jobs"] = jobs;
  state.counters["slots"] = slots;
  state.counters["segments"] = kSegments;
  state.counters["arena_threads"] = threads;
  state.counters["modes"] = static_cast<double>(s.total_modes);
  state.counters["edges"] = edges;
  state.counters["work"] = work;
  state.counters["window_work"] = static_cast<double>(s.window_work);
  state.counters["ns_per_edge"] = ns_per_iteration / edges;
  state.counters["ns_per_work"] = ns_per_iteration / work;
  state.counters["edges_per_s"] =
      benchmark::Counter(edges, benchmark::Counter::kIsIterationInvariantRate);
}

// Control for cache effects between jobs, single thread: each job is priced and solved 4 times
// in a row, and only the last 3 (with the job's prices, graph and DP arrays in cache) are
// timed; the time reported per iteration is the sum over jobs of their mean. Compared with
// BM_ScaleIteration at 1 thread, a ratio above 1 is the cost of reloading each job's data.
void BM_ScaleIterationHot(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const int slots = static_cast<int>(state.range(1));
  Setup& s = GetSetup(jobs, slots);
  const internal::ScenarioContext& c = s.context;
  constexpr int kHotRepeats = 3;
  for (auto _ : state) {
    double seconds = 0;
    for (int j = 0; j < c.num_jobs(); ++j) {
      internal::PriceLagrangian(c, j, s.prices, s.costs[j]);  // brings the job in
      benchmark::DoNotOptimize(c.jobs[j]->Solve(s.costs[j], s.workspaces.Local()).cost);
      const auto start = std::chrono::steady_clock::now();
      for (int r = 0; r < kHotRepeats; ++r) {
        internal::PriceLagrangian(c, j, s.prices, s.costs[j]);
        benchmark::DoNotOptimize(c.jobs[j]->Solve(s.costs[j], s.workspaces.Local()).cost);
      }
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    state.SetIterationTime(seconds / kHotRepeats);
  }
  state.counters["jobs"] = jobs;
  state.counters["slots"] = slots;
}

// The jobs sweep at 168 hourly slots, shared by both benchmarks.
constexpr std::array<int, 8> kJobsSweep = {2, 8, 32, 128, 512, 1024, 2048, 4096};

void ScaleArgs(benchmark::internal::Benchmark* b) {
  // Jobs sweep at 168 hourly slots, then the slots sweep at 32 jobs (32 x 168 once).
  std::vector<std::pair<int, int>> grid;
  for (int jobs : kJobsSweep) grid.emplace_back(jobs, 168);
  for (int slots : {24, 96, 336, 672}) grid.emplace_back(32, slots);
  for (const auto& [jobs, slots] : grid) {
    for (int threads : {1, 2}) b->Args({jobs, slots, threads});
  }
  b->ArgNames({"jobs", "slots", "threads"});
}
void HotArgs(benchmark::internal::Benchmark* b) {
  for (int jobs : kJobsSweep) b->Args({jobs, 168});
  for (int slots : {24, 96, 336, 672}) b->Args({32, slots});
  b->ArgNames({"jobs", "slots"});
}
// Real time: the work runs on the arena's threads, not only on the main thread. The CPU time
// is the whole process's: about `threads` x the real time when the run had its cores to
// itself, less when other processes took them (tools/scale-curve.py warns then).
BENCHMARK(BM_ScaleIteration)
    ->Apply(ScaleArgs)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->MinTime(0.1)
    ->Repetitions(7)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScaleIterationHot)
    ->Apply(HotArgs)
    ->UseManualTime()
    ->MinTime(0.1)
    ->Repetitions(5)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ckptdp

BENCHMARK_MAIN();
