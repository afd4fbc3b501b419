#include "dispatch/internal/lagrangian.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/neighbourhood.h"
#include "tbb/task_arena.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Routes job j against the residual capacity left by `aidc` / `gpus` under the prices
// (lambda, mu), adds its load and records its runs. False if no path fits.
bool PlaceJob(ScenarioContext& c, int j, const std::vector<double>& lambda,
              const std::vector<double>& mu, std::vector<double>& aidc, std::vector<int>& gpus,
              EdgeCosts& scratch, Schedule& out) {
  PriceMarginal(c, j, aidc, gpus, {}, scratch);  // only for the slots where a mode is blocked
  std::vector<int> blocked = std::move(scratch.next_blocked);
  PriceLagrangian(c, j, lambda, mu, scratch);
  scratch.next_blocked = std::move(blocked);
  PathSolution p = c.jobs[j]->Solve(scratch);
  if (!p.feasible) return false;
  out.jobs[j] = p.runs;
  AddJobLoad(c, j, p.runs, +1, aidc, gpus);
  return true;
}

// The most any schedule could cost: every slot buys the site cap at a non-negative price,
// curtails all renewables and cycles the battery at full power. A Lagrangian bound above
// it proves that no schedule satisfies the shared limits (weak duality).
double CostCeiling(const ScenarioContext& c) {
  const Instance& in = *c.instance;
  const double dt = in.time.StepHours() / 1000.0;
  double ceiling = 0;
  for (int t = 0; t < c.slots(); ++t) {
    ceiling += dt * (std::max(0.0, in.series.price_usd_per_mwh[t]) * in.site.site_power_cap_kw +
                     in.costs.curtailment_usd_per_mwh * in.RenewableKw(t));
    if (c.traits.battery) {
      ceiling += dt * in.costs.battery_wear_usd_per_mwh * 2.0 * in.battery.power_kw;
    }
  }
  return ceiling;
}

// Fallback when repair fails under tight capacity: place the jobs one by one, largest
// footprint first, each on the path that uses the fewest GPU-slots of the residual
// capacity (ties broken by the Lagrangian prices, scaled down to stay tie-breakers).
// Gives up (false) when the deadline passes: it solves every job twice, serially.
bool PlaceByFootprint(ScenarioContext& c, const std::vector<double>& lambda,
                      const std::vector<double>& mu, Clock::time_point deadline, EdgeCosts& scratch,
                      Schedule& out) {
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  std::vector<double> aidc(c.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c.slots(), 0);
  std::vector<double> footprint(jobs, 0);
  std::vector<double> zero(c.slots(), 0.0), one(c.slots(), 1.0);
  for (int j = 0; j < jobs; ++j) {
    if (Clock::now() >= deadline) return false;
    PriceLagrangian(c, j, zero, one, scratch);
    footprint[j] = c.jobs[j]->Solve(scratch).cost;
  }
  std::vector<int> order(jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return footprint[a] > footprint[b]; });
  out.jobs.assign(jobs, {});
  // GPU-slots dominate; the Lagrangian prices, scaled down, only break ties.
  double scale = 0;
  for (int t = 0; t < c.slots(); ++t) scale = std::max(scale, std::abs(lambda[t]) + mu[t]);
  const double eps = scale > 0 ? 1e-3 / (scale * c.slots()) : 0.0;
  std::vector<double> tie_lambda(c.slots()), tie_mu(c.slots());
  for (int t = 0; t < c.slots(); ++t) {
    tie_lambda[t] = eps * lambda[t];
    tie_mu[t] = 1.0 + eps * mu[t];
  }
  for (int j : order) {
    if (Clock::now() >= deadline) return false;
    if (!PlaceJob(c, j, tie_lambda, tie_mu, aidc, gpus, scratch, out)) return false;
  }
  return true;
}

}  // namespace

bool RepairPlans(ScenarioContext& c, const std::vector<PathSolution>& plans,
                 const std::vector<double>& lambda, const std::vector<double>& mu,
                 Clock::time_point deadline, EdgeCosts& scratch, Schedule& out) {
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

  std::vector<double> aidc(c.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c.slots(), 0);
  out.jobs.assign(jobs, {});
  std::vector<int> deferred;
  for (int j : order) {
    AddJobLoad(c, j, plans[j].runs, +1, aidc, gpus);
    bool fits = true;
    for (int t = 0; t < c.slots() && fits; ++t) {
      fits = gpus[t] <= in.site.gpu_capacity && aidc[t] <= in.site.site_power_cap_kw + 1e-6;
    }
    if (fits) {
      out.jobs[j] = plans[j].runs;
    } else {
      AddJobLoad(c, j, plans[j].runs, -1, aidc, gpus);
      deferred.push_back(j);
    }
  }
  for (int j : deferred) {
    if (Clock::now() >= deadline) return false;
    if (!PlaceJob(c, j, lambda, mu, aidc, gpus, scratch, out)) return false;
  }
  return true;
}

absl::Status ImproveByLocalSearch(ScenarioContext& c, Evaluated& current,
                                  Clock::time_point deadline) {
  const Instance& in = *c.instance;
  EdgeCosts costs;
  std::vector<double> aidc = current.load.aidc_kw;
  std::vector<int> gpus = current.load.gpus;
  const bool battery = c.traits.battery;
  bool out_of_time = false;
  for (int pass = 0; pass < 50 && !out_of_time; ++pass) {
    bool improved = false;
    // With a battery, price against the load the grid sees after the current battery
    // schedule; every move is then re-evaluated exactly with the battery DP.
    std::vector<double> shift;
    if (battery) {
      shift.resize(c.slots());
      for (int t = 0; t < c.slots(); ++t) {
        shift[t] = current.power.slots[t].charge_kw - current.power.slots[t].discharge_kw;
      }
    }
    for (int j = 0; j < c.num_jobs(); ++j) {
      // Not a return: without a battery, moves already made changed the schedule in place
      // and only the evaluation after the loop brings its load and cost up to date.
      if (Clock::now() > deadline) {
        out_of_time = true;
        break;
      }
      std::vector<Run>& runs = current.schedule.jobs[j];
      AddJobLoad(c, j, runs, -1, aidc, gpus);
      PriceMarginal(c, j, aidc, gpus, shift, costs);
      const double now_cost = PlanCost(c, j, runs, costs);
      PathSolution p = c.jobs[j]->Solve(costs);
      if (p.feasible && Improves(p.cost, now_cost) && p.runs != runs) {
        if (!battery) {
          runs = p.runs;
          improved = true;
        } else {
          Schedule trial = current.schedule;
          trial.jobs[j] = p.runs;
          CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(trial)));
          if (e.feasible && Improves(e.cost_usd, current.cost_usd)) {
            current = std::move(e);
            improved = true;
            for (int t = 0; t < c.slots(); ++t) {
              shift[t] = current.power.slots[t].charge_kw - current.power.slots[t].discharge_kw;
            }
          }
        }
      }
      AddJobLoad(c, j, current.schedule.jobs[j], +1, aidc, gpus);
    }
    if (!improved) break;
  }
  if (!battery) {
    CKPTDP_ASSIGN_OR_RETURN(current, Evaluate(c, std::move(current.schedule)));
  }
  (void)in;
  return absl::OkStatus();
}

absl::StatusOr<EngineOutcome> RunLagrangian(ScenarioContext& c, const SolveOptions& options,
                                            Clock::time_point start, const Schedule* seed,
                                            const SearchDeadline& search_deadline,
                                            double deflection) {
  const Instance& in = *c.instance;
  const int slots = c.slots(), jobs = c.num_jobs();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.time_limit_s));
  EngineOutcome out;

  // Reachability is a per-job property: an unreachable sink proves infeasibility.
  for (int j = 0; j < jobs; ++j) {
    if (const auto* g = dynamic_cast<const GraphSubproblem*>(c.jobs[j].get())) {
      if (!g->graph().Reachable()) {
        out.status = SolveStatus::kInfeasible;
        out.diagnosis = g->graph().UnreachableReason();
        return out;
      }
    }
  }

  // Warm start: lambda_t is the marginal cost of power at the baseline load, mu = 0.
  std::vector<double> lambda(slots), mu(slots, 0.0);
  {
    std::vector<double> base_load(slots, in.site.base_load_kw);
    for (int j = 0; j < jobs; ++j) {
      const Mode& b = (*c.modes)[j].feasible[(*c.modes)[j].baseline];
      for (int t = in.jobs[j].release_slot; t < in.jobs[j].deadline_slot; ++t) {
        base_load[t] += in.site.pue * b.it_power_kw;
      }
    }
    for (int t = 0; t < slots; ++t) {
      lambda[t] =
          SlotCostUsd(c.power, t, base_load[t] + 1.0) - SlotCostUsd(c.power, t, base_load[t]);
    }
  }
  const int threads =
      options.threads > 0 ? options.threads : tbb::this_task_arena::max_concurrency();
  DualEvaluator dual_at(c, threads);
  // mu is in USD per GPU; scaled by the kW of one GPU it joins lambda in one step norm.
  const double gpu_kw = dual_at.gpu_kw();
  const std::vector<SlotRestriction> no_restrictions;
  EdgeCosts scratch;

  const double ceiling = CostCeiling(c);
  double best_bound = -kInf, theta = 1.0;
  std::vector<double> d_lambda(slots, 0.0), d_mu(slots, 0.0);
  int stall = 0, since_theta = 0, last_search = -1000, last_repair_gain = 0;
  double last_log = -kInf;
  auto log_line = [&](int it, double dual) {
    if (options.log == nullptr) return;
    const double t = SecondsSince(start);
    if (options.log_every_s > 0 && t - last_log < options.log_every_s) return;
    last_log = t;
    const double inc = out.incumbent ? out.incumbent->cost_usd : kInf;
    *options.log << absl::StrFormat(
        "%6d %14.4f %14.4f %14.4f %9.4f%% %8.2fs\n", it, dual, best_bound, inc,
        out.incumbent ? 100.0 * RelativeGap(inc, best_bound) : 100.0, t);
  };
  if (options.log != nullptr) {
    *options.log << absl::StrFormat("%6s %14s %14s %14s %10s %9s\n", "iter", "dual", "bound",
                                    "incumbent", "gap", "time");
  }

  out.status = SolveStatus::kFeasible;
  if (seed != nullptr) {
    CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, *seed));
    if (e.feasible) {
      CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c, e, deadline));
      out.incumbent = std::move(e);
    }
  }
  int it = 0;
  for (it = 1; it <= options.max_iterations; ++it) {
    CKPTDP_ASSIGN_OR_RETURN(const DualEvaluator::Outcome evaluated,
                            dual_at.Evaluate(lambda, mu, no_restrictions, deadline));
    if (evaluated == DualEvaluator::Outcome::kOutOfTime) {
      out.status = SolveStatus::kTimeLimit;
      --it;  // this iteration did not happen
      break;
    }
    if (evaluated == DualEvaluator::Outcome::kJobInfeasible) {
      // Without restrictions the subproblem is feasible iff the job alone can finish; the
      // idealised S3 rounding is conservative, so say so.
      const int j = dual_at.infeasible_job();
      out.status = SolveStatus::kInfeasible;
      out.diagnosis = absl::StrFormat(
          "job %s cannot deliver its compute of %.4g FLOP in its window [%d, %d) with any "
          "effective mode",
          in.jobs[j].name, (*c.modes)[j].workload.compute_flops, in.jobs[j].release_slot,
          in.jobs[j].deadline_slot);
      out.iterations = it;
      return out;
    }
    const std::vector<PathSolution>& plans = dual_at.plans();
    const double dual = dual_at.value();
    if (best_bound == -kInf || dual > best_bound + 1e-9 * std::max(1.0, std::abs(best_bound))) {
      best_bound = dual;
      out.lambda = lambda;
      out.mu = mu;
      stall = 0;
      since_theta = 0;
    } else {
      ++stall;
      ++since_theta;
    }
    const std::vector<double>& g_lambda = dual_at.g_lambda();
    const std::vector<double>& g_mu = dual_at.g_mu();
    const double norm = dual_at.norm_squared();

    // Primal recovery from the relaxed plans. Until there is an incumbent, repair may run
    // half a second past the deadline: that buys the first schedule on large instances,
    // and the time limit is promised within a second, not exactly.
    const Clock::time_point repair_deadline =
        out.incumbent ? deadline : deadline + std::chrono::milliseconds(500);
    // Repair costs about a third of an iteration on fleets and, once it has stopped
    // finding better schedules, rarely pays: then it runs every 5th iteration only.
    const bool try_repair = !out.incumbent || it - last_repair_gain <= 10 || it % 5 == 0;
    Schedule repaired;
    const bool placed =
        try_repair &&
        (RepairPlans(c, plans, lambda, mu, repair_deadline, scratch, repaired) ||
         (!out.incumbent && PlaceByFootprint(c, lambda, mu, repair_deadline, scratch, repaired)));
    if (placed) {
      CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(repaired)));
      if (e.feasible) {
        const bool better = !out.incumbent || Improves(e.cost_usd, out.incumbent->cost_usd);
        // Local search is the expensive part: run it on new incumbents, at most every
        // 5 iterations, and always on the first.
        if (better || it - last_search >= 25) {
          if (!out.incumbent || it - last_search >= 5) {
            CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c, e, deadline));
            last_search = it;
          }
        }
        if (!out.incumbent || Improves(e.cost_usd, out.incumbent->cost_usd)) {
          out.incumbent = std::move(e);
          last_repair_gain = it;
        }
      }
    }
    log_line(it, dual);

    const double inc = out.incumbent ? out.incumbent->cost_usd : kInf;
    if (!out.incumbent && best_bound > ceiling + 1e-6 * std::max(1.0, ceiling)) {
      out.status = SolveStatus::kInfeasible;
      out.diagnosis = absl::StrFormat(
          "no schedule fits the shared limits (GPU capacity %d, site cap %.1f kW): the "
          "Lagrangian bound %.6g USD exceeds the %.6g USD that any schedule could cost",
          in.site.gpu_capacity, in.site.site_power_cap_kw, best_bound, ceiling);
      break;
    }
    if (out.incumbent && RelativeGap(inc, best_bound) <= options.gap) {
      out.status = SolveStatus::kOptimal;
      break;
    }
    if (Clock::now() >= deadline) {
      out.status = SolveStatus::kTimeLimit;
      break;
    }
    if (stall >= options.stall_iterations || norm <= 1e-18) break;

    // Polyak step towards the incumbent (or an optimistic target before one exists);
    // theta halves when the bound has not improved for a while.
    if (since_theta >= 10) {
      theta *= 0.5;
      since_theta = 0;
    }
    const double target =
        out.incumbent ? inc : best_bound + std::max(1.0, 0.05 * std::abs(best_bound));
    // Direction: the subgradient, deflected by the previous direction when asked
    // (Camerini, Fratta and Maffioli 1975), projected so that mu stays >= 0.
    double direction_norm = 0;
    for (int t = 0; t < slots; ++t) {
      d_lambda[t] = g_lambda[t] + deflection * d_lambda[t];
      d_mu[t] = g_mu[t] + deflection * d_mu[t];
      if (mu[t] <= 0 && d_mu[t] < 0) d_mu[t] = 0;
      direction_norm += d_lambda[t] * d_lambda[t] + d_mu[t] * d_mu[t];
    }
    if (direction_norm <= 1e-18) direction_norm = norm;
    const double step =
        theta * std::max(target - dual, 1e-9 * std::max(1.0, std::abs(dual))) / direction_norm;
    for (int t = 0; t < slots; ++t) {
      lambda[t] += step * d_lambda[t];
      mu[t] = std::max(0.0, mu[t] + step * d_mu[t] * gpu_kw);
    }
  }
  out.iterations = std::min(it, options.max_iterations);
  out.lower_bound = best_bound;
  const Clock::time_point search_until = search_deadline ? search_deadline(Clock::now()) : deadline;
  // The bound has converged (or the iterations are spent): the rest of the time goes to
  // the primal side, where coordinated moves of several jobs close most of the gap.
  if (out.incumbent && Clock::now() < search_until && out.status != SolveStatus::kOptimal &&
      options.neighbourhood_stall_rounds > 0) {
    NeighbourhoodOptions lns;
    // Per job: a round touches a handful of jobs, so fleets need more rounds to try each.
    lns.stall_rounds = std::max(100, options.neighbourhood_stall_rounds * c.num_jobs());
    const auto good_enough = [&](double cost) {
      return RelativeGap(cost, best_bound) <= options.gap;
    };
    CKPTDP_ASSIGN_OR_RETURN(const NeighbourhoodStats stats,
                            ImproveByNeighbourhoodSearch(c, *out.incumbent, {out.lambda, out.mu},
                                                         lns, search_until, good_enough));
    out.neighbourhood_rounds = stats.rounds;
    if (options.log != nullptr) {
      *options.log << absl::StrFormat(
          "%6s %14s %14.4f %14.4f %9.4f%% %8.2fs  neighbourhood search: %d rounds, %d "
          "improvements\n",
          "lns", "", best_bound, out.incumbent->cost_usd,
          100.0 * RelativeGap(out.incumbent->cost_usd, best_bound), SecondsSince(start),
          stats.rounds, stats.improvements);
    }
    if (Clock::now() >= search_until &&
        RelativeGap(out.incumbent->cost_usd, best_bound) > options.gap) {
      out.status = SolveStatus::kTimeLimit;
    }
  }
  if (out.incumbent && Clock::now() < search_until) {
    CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c, *out.incumbent, search_until));
    if (out.status != SolveStatus::kTimeLimit &&
        RelativeGap(out.incumbent->cost_usd, best_bound) <= options.gap) {
      out.status = SolveStatus::kOptimal;
    }
  }
  if (!out.incumbent && out.status != SolveStatus::kInfeasible) {
    out.diagnosis =
        "no schedule satisfying the shared GPU and site power limits was found within the "
        "iteration and time limits, and infeasibility is not proven";
  }
  return out;
}

}  // namespace ckptdp::internal
