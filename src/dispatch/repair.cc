// Primal recovery: turning the relaxed plans of the Lagrangian dual into schedules that
// meet the shared limits, and improving a schedule one job at a time (repair.h).
#include "dispatch/internal/repair.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace ckptdp::internal {
namespace {

// Routes job j against the residual capacity left by `aidc` / `gpus` under `prices`, adds its load
// and records its runs. False if no path fits.
bool PlaceJob(const ScenarioContext& c, JobWorkspace& work, int j, const Multipliers& prices,
              std::vector<double>& aidc, std::vector<int>& gpus, EdgeCosts& scratch,
              Schedule& out) {
  PriceLagrangian(c, j, prices, scratch);
  MarkBlockedSlots(c, j, aidc, gpus, scratch);
  PathSolution p = c.jobs[j]->Solve(scratch, work);
  if (!p.feasible) return false;
  out.jobs[j] = p.runs;
  AddJobLoad(c, j, p.runs, +1, aidc, gpus);
  return true;
}

// One attempt of RepairPlans: the jobs of `first` (in order), then the others in `order`,
// each kept on its relaxed plan if that fits the capacity left; the jobs left over are
// re-routed in `order`. -1 on success, else the job that could not be placed (or, out of
// time, the number of jobs).
int RepairOnce(const ScenarioContext& c, JobWorkspace& work, const std::vector<PathSolution>& plans,
               const Multipliers& prices, const Deadline& deadline, EdgeCosts& scratch,
               const std::vector<int>& first, const std::vector<int>& order,
               std::vector<char>& placed, Schedule& out) {
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  std::vector<double> aidc(c.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c.slots(), 0);
  out.jobs.assign(jobs, {});
  placed.assign(jobs, 0);
  const auto keep_if_fits = [&](int j) {
    AddJobLoad(c, j, plans[j].runs, +1, aidc, gpus);
    bool fits = true;
    for (int t = 0; t < c.slots() && fits; ++t) fits = WithinSiteLimits(in, gpus[t], aidc[t]);
    if (fits) {
      out.jobs[j] = plans[j].runs;
      placed[j] = 1;
    } else {
      AddJobLoad(c, j, plans[j].runs, -1, aidc, gpus);
    }
    return fits;
  };
  // The jobs that earlier attempts could not place come first, re-routed at once if their
  // plan does not fit: the others have not taken their window yet.
  for (int j : first) {
    if (keep_if_fits(j)) continue;
    if (deadline.Passed()) return jobs;
    if (!PlaceJob(c, work, j, prices, aidc, gpus, scratch, out)) return j;
    placed[j] = 1;
  }
  std::vector<int> deferred;
  for (int j : order) {
    if (!placed[j] && !keep_if_fits(j)) deferred.push_back(j);
  }
  for (int j : deferred) {
    if (deadline.Passed()) return jobs;
    if (!PlaceJob(c, work, j, prices, aidc, gpus, scratch, out)) return j;
    placed[j] = 1;
  }
  return -1;
}

}  // namespace

bool PlaceByFootprint(const ScenarioContext& c, JobWorkspace& work, const Multipliers& prices,
                      const Deadline& deadline, EdgeCosts& scratch, Schedule& out) {
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  std::vector<double> aidc(c.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c.slots(), 0);
  std::vector<double> footprint(jobs, 0);
  const Multipliers gpu_slots{std::vector<double>(c.slots(), 0.0),
                              std::vector<double>(c.slots(), 1.0)};
  for (int j = 0; j < jobs; ++j) {
    if (deadline.Passed()) return false;
    PriceLagrangian(c, j, gpu_slots, scratch);
    footprint[j] = c.jobs[j]->Solve(scratch, work).cost;
  }
  std::vector<int> order(jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return footprint[a] > footprint[b]; });
  out.jobs.assign(jobs, {});
  // GPU-slots dominate; the Lagrangian prices, scaled down, only break ties.
  double scale = 0;
  for (int t = 0; t < c.slots(); ++t) {
    scale = std::max(scale, std::abs(prices.lambda[t]) + prices.mu[t]);
  }
  const double eps = scale > 0 ? 1e-3 / (scale * c.slots()) : 0.0;
  Multipliers tie{std::vector<double>(c.slots()), std::vector<double>(c.slots())};
  for (int t = 0; t < c.slots(); ++t) {
    tie.lambda[t] = eps * prices.lambda[t];
    tie.mu[t] = 1.0 + eps * prices.mu[t];
  }
  for (int j : order) {
    if (deadline.Passed()) return false;
    if (!PlaceJob(c, work, j, tie, aidc, gpus, scratch, out)) return false;
  }
  return true;
}

bool RepairPlans(const ScenarioContext& c, JobWorkspace& work,
                 const std::vector<PathSolution>& plans, const Multipliers& prices,
                 const Deadline& deadline, EdgeCosts& scratch, Schedule& out,
                 std::vector<int>* place_first) {
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  std::vector<long long> footprint(jobs, 0);
  for (int j = 0; j < jobs; ++j) {
    for (const Run& r : plans[j].runs) {
      footprint[j] +=
          static_cast<long long>(r.end_slot - r.start_slot) * (*c.modes)[j].feasible[r.mode].gpus;
    }
  }
  std::vector<int> order(jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return footprint[a] > footprint[b]; });
  // First the plain repair; only when it fails, the retries with the jobs learnt so far.
  static const std::vector<int> kNone;
  std::vector<char> placed;
  for (int attempt = 0;; ++attempt) {
    const int failed = RepairOnce(c, work, plans, prices, deadline, scratch,
                                  attempt == 0 ? kNone : *place_first, order, placed, out);
    if (failed < 0) return true;
    if (failed == jobs || place_first == nullptr || attempt == kRepairRetries) return false;
    if (std::find(place_first->begin(), place_first->end(), failed) != place_first->end()) {
      // A learnt job that cannot be placed even so: its window is filled by other learnt
      // jobs (at the first attempt: a retry can still help).
      if (attempt > 0) return false;
    } else {
      place_first->push_back(failed);
    }
    // The retries take the jobs with the shortest windows first (by footprint among equal
    // windows): those are the ones that find their window full when others went first.
    if (attempt == 0) {
      const auto window = [&](int j) { return in.jobs[j].deadline_slot - in.jobs[j].release_slot; };
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return window(a) < window(b); });
    }
  }
}

namespace {

// One job's move as the serial search would try it from the current state: its cheapest
// path against the load of the other jobs, and with a battery the exact evaluation of the
// schedule with that path. Worked out for a block of jobs in parallel (ImproveByLocalSearch).
struct CandidateMove {
  std::vector<double> other_aidc;  // the load without the job
  std::vector<int> other_gpus;
  EdgeCosts costs;
  PathSolution path;
  bool improves = false;  // cheaper at the marginal prices than the job's runs
  Evaluated trial;        // with a battery: power, cost and feasibility of the move
};

absl::Status TryMove(const ScenarioContext& c, Workspaces& work, int j, const Schedule& schedule,
                     const std::vector<double>& aidc, const std::vector<int>& gpus,
                     const std::vector<double>& shift, CandidateMove& move) {
  const std::vector<Run>& runs = schedule.jobs[j];
  move.other_aidc = aidc;
  move.other_gpus = gpus;
  AddJobLoad(c, j, runs, -1, move.other_aidc, move.other_gpus);
  PriceMarginal(c, j, move.other_aidc, move.other_gpus, shift, move.costs);
  const double now_cost = PlanCost(c, j, runs, move.costs);
  move.path = c.jobs[j]->Solve(move.costs, work.Local());
  move.improves =
      move.path.feasible && Improves(move.path.cost, now_cost) && move.path.runs != runs;
  if (!move.improves || !c.traits.battery) return absl::OkStatus();
  // The trial load reuses the other jobs' load: it is not needed after this.
  AddJobLoad(c, j, move.path.runs, +1, move.other_aidc, move.other_gpus);
  return EvaluateLoad(c, move.other_gpus, move.other_aidc, move.trial);
}

}  // namespace

absl::Status ImproveByLocalSearch(const ScenarioContext& c, Workspaces& work, Evaluated& current,
                                  const Deadline& deadline, int threads) {
  // The moves are tried on the load kept up to date here (changed only by the moves made),
  // not on sums of the schedule's runs in job order, so the round-off differs: once the
  // search has moved a job the schedule is evaluated in full, and if that evaluation breaks
  // a limit (without a battery the moves are priced slot by slot, blind to horizon-level
  // terms such as the green floor), the starting schedule stays.
  const Evaluated start = current;
  bool moved = false;
  std::vector<double> aidc = current.load.aidc_kw;
  std::vector<int> gpus = current.load.gpus;
  const bool battery = c.traits.battery;
  // The search is serial: job j's move is priced against the moves before it. A block of
  // jobs is worked out in parallel from the same state, and the first move kept ends the
  // block (the later jobs' work, done against the state before it, is dropped). So the
  // moves are those of the serial search, whatever the threads and the block size; one
  // thread works job by job, and more threads try a few jobs each per block.
  threads = std::max(1, threads);
  const int block_size = threads == 1 ? 1 : 4 * threads;
  std::vector<CandidateMove> block(block_size);
  tbb::task_arena arena(threads);
  std::vector<absl::Status> statuses(block_size);
  bool out_of_time = false;
  for (int pass = 0; pass < 50 && !out_of_time; ++pass) {
    bool improved = false;
    // With a battery, price against the load the grid sees after the current battery
    // schedule; every move is then evaluated exactly with the battery DP.
    std::vector<double> shift;
    if (battery) shift = BatteryNetShift(current.power);
    for (int first = 0; first < c.num_jobs();) {
      if (deadline.Passed()) {
        out_of_time = true;
        break;
      }
      const int size = std::min(block_size, c.num_jobs() - first);
      const auto try_move = [&](int k) {
        statuses[k] = TryMove(c, work, first + k, current.schedule, aidc, gpus, shift, block[k]);
      };
      if (size == 1) {
        try_move(0);
      } else {
        arena.execute([&] { tbb::parallel_for(0, size, try_move); });
      }
      int next = first + size;
      for (int k = 0; k < size; ++k) {
        CKPTDP_RETURN_IF_ERROR(statuses[k]);
        const CandidateMove& move = block[k];
        if (!move.improves) continue;
        if (battery && !(move.trial.feasible && Improves(move.trial.cost_usd, current.cost_usd))) {
          continue;
        }
        const int j = first + k;
        std::vector<Run>& runs = current.schedule.jobs[j];
        AddJobLoad(c, j, runs, -1, aidc, gpus);
        runs = move.path.runs;
        AddJobLoad(c, j, runs, +1, aidc, gpus);
        if (battery) {
          current.power = move.trial.power;
          current.cost_usd = move.trial.cost_usd;
          shift = BatteryNetShift(current.power);
        }
        improved = moved = true;
        next = j + 1;
        break;
      }
      first = next;
    }
    if (!improved) break;
  }
  if (moved) {
    CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(current.schedule)));
    current = e.feasible ? std::move(e) : start;
  }
  return absl::OkStatus();
}

}  // namespace ckptdp::internal
