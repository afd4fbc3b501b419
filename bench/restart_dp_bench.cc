// Speed of the path DPs beside the plain one: one engine iteration's per-job subproblems
// (PriceLagrangian + Solve for every job, one thread, S6) on the 128-job week as shipped and
// with a variant that needs another DP. Both variants run inside every benchmark iteration,
// one after the other (A/B/A/B...), each timed in this thread's CPU time, so that load from
// other processes on a shared machine hits both alike.
// - BM_RestartDpWeek128 (issue 14): resume_minutes = reshard_minutes = 15 on every job, the
//   restart DP. Counters plain_ms, restarts_ms (mean CPU ms per iteration) and their ratio
//   (the target: at most 3).
// - BM_LimitsDpWeek128: min_run_slots = 4 and max_pauses = 4 on every job (operators'
//   limits), the resource-expanded DP. Counters plain_ms, limits_ms and their ratio.
// Run: build/restart_dp_bench
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"

namespace ckptdp {
namespace {

constexpr double kOverheadMinutes = 15;
constexpr int kMinRunSlots = 4;
constexpr int kMaxPauses = 4;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// One variant of the instance with everything an iteration needs, built once.
struct Variant {
  Instance instance;
  std::vector<JobModes> modes;
  internal::ScenarioContext context;
  internal::Workspaces work;
  internal::Multipliers prices;
  std::vector<internal::EdgeCosts> costs;

  explicit Variant(Instance in)
      : instance(std::move(in)),
        modes(Build(instance)),
        context(internal::MakeContext(instance, modes, Scenario::kS6)),
        costs(context.num_jobs()) {
    prices.lambda.resize(instance.time.slots);
    prices.mu.assign(instance.time.slots, 0.0);
    for (int t = 0; t < instance.time.slots; ++t) {
      prices.lambda[t] = instance.series.price_usd_per_mwh[t] / 1000.0;
    }
  }

  static std::vector<JobModes> Build(const Instance& in) {
    absl::StatusOr<std::vector<JobModes>> m = BuildAllModes(in);
    if (!m.ok()) {
      std::fprintf(stderr, "restart_dp_bench: %s\n", m.status().ToString().c_str());
      std::abort();
    }
    return *std::move(m);
  }

  // Prices and solves every job once; returns the sum of path costs.
  double Iterate() {
    double total = 0;
    for (int j = 0; j < context.num_jobs(); ++j) {
      internal::PriceLagrangian(context, j, prices, costs[j]);
      total += context.jobs[j]->Solve(costs[j], work.Local()).cost;
    }
    return total;
  }
};

Instance Load() {
  absl::StatusOr<Instance> in = LoadInstance(CKPTDP_SOURCE_DIR "/instances/gen_128jobs_168h.json");
  if (!in.ok()) {
    std::fprintf(stderr, "restart_dp_bench: %s\n", in.status().ToString().c_str());
    std::abort();
  }
  return *std::move(in);
}

Instance WithOverheads(Instance in) {
  for (Job& job : in.jobs) {
    job.resume_minutes = kOverheadMinutes;
    job.reshard_minutes = kOverheadMinutes;
  }
  return in;
}

Instance WithLimits(Instance in) {
  for (Job& job : in.jobs) {
    job.min_run_slots = kMinRunSlots;
    job.max_pauses = kMaxPauses;
  }
  return in;
}

Variant& Plain() {
  static Variant plain(Load());
  return plain;
}

// Times `plain` and `other` alternately; counters plain_ms, <other_name>_ms and ratio.
void Alternate(benchmark::State& state, Variant& other, const char* other_counter) {
  Variant& plain = Plain();
  double plain_s = 0, other_s = 0;
  for (auto _ : state) {
    double t0 = ThreadCpuSeconds();
    benchmark::DoNotOptimize(plain.Iterate());
    double t1 = ThreadCpuSeconds();
    benchmark::DoNotOptimize(other.Iterate());
    double t2 = ThreadCpuSeconds();
    plain_s += t1 - t0;
    other_s += t2 - t1;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["plain_ms"] = 1e3 * plain_s / n;
  state.counters[other_counter] = 1e3 * other_s / n;
  state.counters["ratio"] = plain_s > 0 ? other_s / plain_s : 0;
}

void BM_RestartDpWeek128(benchmark::State& state) {
  static Variant restarts(WithOverheads(Load()));
  Alternate(state, restarts, "restarts_ms");
}
BENCHMARK(BM_RestartDpWeek128)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_LimitsDpWeek128(benchmark::State& state) {
  static Variant limits(WithLimits(Load()));
  Alternate(state, limits, "limits_ms");
}
BENCHMARK(BM_LimitsDpWeek128)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace
}  // namespace ckptdp

BENCHMARK_MAIN();
