// Shared machinery of the engine: the scenario context, exact evaluation of a schedule,
// and the two ways of pricing a job's edges (Lagrangian multipliers, or the exact marginal
// cost of adding the job to the other jobs' load).
#ifndef CKPTDP_DISPATCH_INTERNAL_EVALUATION_H_
#define CKPTDP_DISPATCH_INTERNAL_EVALUATION_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/power.h"
#include "ckptdp/result.h"
#include "ckptdp/schedule.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/job_subproblem.h"
#include "dispatch/internal/multipliers.h"

namespace ckptdp::internal {

// Slack on the site limits so that round-off in sums of kW never rejects a schedule.
inline constexpr double kPowerSlackKw = 1e-6;

// The model of one scenario: fixed data, read-only during a solve (shared by every phase and
// thread). The job DPs' scratch memory lives in Workspaces.
struct ScenarioContext {
  const Instance* instance = nullptr;
  const std::vector<JobModes>* modes = nullptr;
  ScenarioTraits traits{};
  PowerInputs power;                                 // battery flag per scenario
  std::vector<std::unique_ptr<JobSubproblem>> jobs;  // one per job
  std::vector<std::vector<int>> graph_mode_of;       // per job: feasible index -> mode or -1

  int slots() const { return instance->time.slots; }
  int num_jobs() const { return static_cast<int>(jobs.size()); }
};

// `s3_work_units`: the resolution of S3's job knapsacks (SolveOptions::s3_work_units).
ScenarioContext MakeContext(const Instance& instance, const std::vector<JobModes>& modes,
                            Scenario scenario, int s3_work_units = kDefaultS3WorkUnits);

// The job DPs' scratch memory (JobWorkspace, job_subproblem.h): one workspace per thread
// that solves, not one per job. A workspace carries nothing from one Solve to the next (each
// solve resets what it reads), so which thread's workspace solves a job changes no result,
// and the memory grows with the threads instead of the jobs: a path DP's values take
// layers x (K + 1) doubles, 25 times as many with a minimum run of 4 and 4 pauses (one per
// job, they held 0.37 GiB of the 512-job week with those limits). A reference from Local()
// is for the calls of the current task only: no caller keeps one across a parallel loop,
// where the thread may run another job's task.
class Workspaces {
 public:
  // The calling thread's workspace (made on its first call).
  JobWorkspace& Local() { return per_thread_.local(); }

 private:
  tbb::enumerable_thread_specific<JobWorkspace> per_thread_;
};

// A schedule with its exact power dispatch and cost, or why it violates a site limit.
struct Evaluated {
  Schedule schedule;
  SlotLoad load;
  PowerDispatch power;
  double cost_usd = 0;
  bool feasible = false;
  std::string violation;
};
absl::StatusOr<Evaluated> Evaluate(const ScenarioContext& context, Schedule schedule);

// What Evaluate does after summing the load: checks the site limits slot by slot and
// dispatches the power, setting out.power, out.cost_usd and out.feasible, or out.violation
// (out's schedule and load are left alone). The local search calls it on a load it keeps up
// to date move by move, instead of copying the schedule and summing every job's runs again
// for each move it tries.
absl::Status EvaluateLoad(const ScenarioContext& context, const std::vector<int>& gpus,
                          const std::vector<double>& aidc_kw, Evaluated& out);

// Per-slot GPU and AIDC contribution of one job's runs (added with `sign` = +1 or -1).
void AddJobLoad(const ScenarioContext& context, int job, const std::vector<Run>& runs, int sign,
                std::vector<double>& aidc_kw, std::vector<int>& gpus);

// Lagrangian prices: mode m in slot t costs lambda_t * PUE * P_m + mu_t * n_m.
void PriceLagrangian(const ScenarioContext& context, int job, const Multipliers& prices,
                     EdgeCosts& costs);

// Whether a slot's GPUs and AIDC load are within the site's limits.
bool WithinSiteLimits(const Instance& instance, int gpus, double aidc_kw);

// The battery's net charge per slot (charge - discharge, kW) in a dispatch: added to the
// AIDC load, the load that the grid and the renewables serve.
std::vector<double> BatteryNetShift(const PowerDispatch& power);

// Exact marginal prices against the other jobs' load (no battery), with modes blocked in
// slots where they would exceed the residual GPU or site power capacity.
// `net_shift_kw` (may be empty) is added to the load before pricing: the battery's net
// charge, so that re-routing sees the load the grid actually serves.
void PriceMarginal(const ScenarioContext& context, int job,
                   const std::vector<double>& other_aidc_kw, const std::vector<int>& other_gpus,
                   const std::vector<double>& net_shift_kw, EdgeCosts& costs);

// Only the blocks of PriceMarginal (costs.next_blocked inside the job's window), for callers
// that price the edges otherwise: repair re-routes a job at the Lagrangian prices within the
// capacity the placed jobs leave. Sizes costs for the job; sets no prices.
void MarkBlockedSlots(const ScenarioContext& context, int job,
                      const std::vector<double>& other_aidc_kw, const std::vector<int>& other_gpus,
                      EdgeCosts& costs);

// Seconds of wall clock since `since` (the solver log's time column).
inline double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Whether a cost is better than the current one by more than round-off (relative 1e-9):
// every improvement loop uses the same test, so none of them cycles on noise.
inline bool Improves(double candidate, double current) {
  return candidate < current - 1e-9 * std::max(1.0, std::abs(current));
}

// Cost of `runs` under `costs` (the same prices the subproblem saw).
double PlanCost(const ScenarioContext& context, int job, const std::vector<Run>& runs,
                const EdgeCosts& costs);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_EVALUATION_H_
