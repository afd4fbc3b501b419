#include "dispatch/internal/lagrangian.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <limits>
#include <optional>

#include "absl/strings/str_format.h"
#include "ckptdp/plan_pool.h"
#include "dispatch/internal/distributed.h"
#include "dispatch/internal/distributed_search.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/guided_search.h"
#include "dispatch/internal/multiplier_update.h"
#include "dispatch/internal/neighbourhood.h"
#include "dispatch/internal/portfolio_search.h"
#include "dispatch/internal/repair.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
// A bound must exceed the cost ceiling by this share of it to prove infeasibility, so that
// round-off in either sum never does.
constexpr double kCeilingTolerance = 1e-6;

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
  // The grid contract: carbon on every kW bought, the demand charge on the most bought.
  const double most_kw = in.site.site_power_cap_kw + (c.traits.battery ? in.battery.power_kw : 0);
  for (int t = 0; t < c.slots() && !c.power.carbon_usd_per_mwh.empty(); ++t) {
    ceiling += dt * c.power.carbon_usd_per_mwh[t] * most_kw;
  }
  ceiling += c.power.demand_charge_usd_per_kw * most_kw;
  return ceiling;
}

// Warm start: lambda_t is the marginal cost of power at the baseline load, mu = 0.
Multipliers WarmStart(const ScenarioContext& c) {
  const Instance& in = *c.instance;
  const int slots = c.slots();
  Multipliers m{std::vector<double>(slots), std::vector<double>(slots, 0.0)};
  std::vector<double> base_load(slots, in.site.base_load_kw);
  for (int j = 0; j < c.num_jobs(); ++j) {
    const Mode& b = (*c.modes)[j].feasible[(*c.modes)[j].baseline];
    for (int t = in.jobs[j].release_slot; t < in.jobs[j].deadline_slot; ++t) {
      base_load[t] += in.site.pue * b.it_power_kw;
    }
  }
  for (int t = 0; t < slots; ++t) {
    m.lambda[t] =
        SlotCostUsd(c.power, t, base_load[t] + 1.0) - SlotCostUsd(c.power, t, base_load[t]);
    // Beyond an import cap the cost is infinite: start from the energy price instead.
    if (!std::isfinite(m.lambda[t])) {
      m.lambda[t] = c.power.ImportPriceUsdPerMwh(t) * in.time.StepHours() / 1000.0;
    }
  }
  return m;
}

// The state of one run of the root, with one method per step of an iteration.
class Root {
 public:
  Root(const ScenarioContext& c, Workspaces& work, const SolveOptions& options,
       Clock::time_point start, const RootSetup& setup, SolverLog& log)
      : c_(c),
        work_(work),
        options_(options),
        setup_(setup),
        log_(log),
        deadline_(Deadline::After(start, options.time_limit_s, options)),
        comm_(DistributedComm(options)),
        threads_(ResolveThreads(options.threads)),
        overlap_repair_(comm_ == nullptr &&
                        (options.repair_overlap > 0 ||
                         (options.repair_overlap < 0 && c.num_jobs() >= kRepairOverlapJobs))),
        dual_(c, work, threads_, comm_),
        update_(RootStepOptions(setup.deflection, overlap_repair_ ? setup.restart_above_gap : 0.0)),
        gap_{options.gap},
        ceiling_(CostCeiling(c)),
        prices_(setup.start != nullptr ? *setup.start : WarmStart(c)) {
    out_.status = SolveStatus::kFeasible;
  }

  // Reachability is a per-job property: an unreachable sink proves infeasibility.
  bool ProvenUnreachable();
  absl::Status StartFromSeed();
  // One iteration; false when a stopping rule ended the phase.
  absl::StatusOr<bool> Iterate(int it);
  // The loop ran out of iterations without another stopping rule.
  void SpentIterations() { out_.status = SolveStatus::kIterationLimit; }
  // A job cannot finish even alone: nothing after the Lagrangian phase can help.
  bool JobInfeasible() const { return job_infeasible_; }
  // Distributed: one log line with what this rank solved and received in the Lagrangian
  // phase (docs/distributed.md quotes it).
  void NoteTraffic() const;
  // The repair set up by the last iteration, when it overlaps the next one's job DPs: done
  // now, as the phase ends.
  absl::Status FinishRepair();
  // After the Lagrangian phase: neighbourhood and local search on the incumbent.
  absl::Status SearchAfterRoot();
  EngineOutcome Finish();

 private:
  double Incumbent() const { return out_.incumbent ? out_.incumbent->cost_usd : kInf; }
  bool RecordInfeasibleJob(int it);
  absl::Status RecoverPrimal(int it);
  // A feasible schedule repaired from `plans` under `prices`, or none.
  absl::StatusOr<std::optional<Evaluated>> Repair(const std::vector<PathSolution>& plans,
                                                  const Multipliers& prices, bool have,
                                                  const Deadline& deadline);
  // A repaired schedule of iteration `it`: searched on, and kept if it is better.
  absl::Status TakeRepaired(int it, Evaluated e);
  std::optional<SolveStatus> StopRule();
  // Distributed: rank 0's stopping decision and (when it changed) its incumbent on every rank.
  absl::StatusOr<std::optional<SolveStatus>> FollowLeaderStop(std::optional<SolveStatus> stop);
  void NewIncumbent(Evaluated e) {
    Collect(e.schedule);
    out_.incumbent = std::move(e);
    ++incumbent_version_;
  }
  // The plan pool (ckptdp/plan_pool.h), when the caller keeps one.
  void Collect(const Schedule& schedule) {
    if (options_.plan_pool != nullptr) options_.plan_pool->AddSchedule(schedule);
  }
  void Log(const char* phase, std::string_view text = {}) {
    log_.Offer({phase, out_.iterations, 0, 0, dual_value_, update_.best(), Incumbent()}, text);
  }

  const ScenarioContext& c_;
  Workspaces& work_;
  const SolveOptions& options_;
  const RootSetup& setup_;
  SolverLog& log_;
  const Deadline deadline_;
  // Distributed (docs/distributed.md): the job subproblems are split over the ranks; rank 0
  // alone recovers schedules and decides when to stop, and the others follow it.
  const Communicator* comm_;
  const int threads_;  // --threads resolved (0 = all cores)
  // Whether an iteration's repair runs beside the next iteration's job DPs (repair_overlap).
  const bool overlap_repair_;
  int incumbent_version_ = 0, shared_version_ = 0;
  DualEvaluator dual_;
  DeflectedPolyakStep update_;
  const GapTarget gap_;
  const double ceiling_;
  Multipliers prices_;
  EdgeCosts scratch_;         // the repair's prices
  JobWorkspace repair_work_;  // and its one DP workspace (repair.h)
  const std::int64_t bytes_at_start_ = comm_ != nullptr ? comm_->bytes_received() : 0;
  const Clock::time_point began_ = Clock::now();
  RelaxedAverage average_;  // x-bar of the relaxed paths, for the guided heuristics
  EngineOutcome out_;
  double dual_value_ = NAN;
  int last_search_ = -1000, last_repair_gain_ = 0;
  // The jobs that repairs place first, learnt from the repairs that failed (repair.h).
  std::vector<int> repair_first_;
  bool job_infeasible_ = false;
  // The overlapped repair (overlap_repair_): what an iteration set up, copied so that the
  // next iteration's job DPs may run beside it, and the repair itself on its own thread
  // (on one thread: run when it is collected). Declared last: destroyed first, it waits
  // for the repair before the state that the repair reads goes.
  struct PendingRepair {
    int it = 0;
    bool have = false;  // whether an incumbent existed when it was set up
    std::vector<PathSolution> plans;
    Multipliers prices;
    Deadline deadline{Clock::time_point{}};
    std::future<absl::StatusOr<std::optional<Evaluated>>> running;
  };
  std::optional<PendingRepair> pending_;
};

bool Root::ProvenUnreachable() {
  for (int j = 0; j < c_.num_jobs(); ++j) {
    std::string reason = c_.jobs[j]->UnreachableReason();
    if (!reason.empty()) {
      out_.status = SolveStatus::kInfeasible;
      out_.diagnosis = std::move(reason);
      return true;
    }
  }
  return false;
}

absl::Status Root::StartFromSeed() {
  if (setup_.seed == nullptr || !Leader(comm_)) return absl::OkStatus();
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c_, *setup_.seed));
  if (e.feasible) {
    CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c_, work_, e, deadline_, threads_));
    NewIncumbent(std::move(e));
  }
  return absl::OkStatus();
}

// Without restrictions the subproblem is feasible iff the job alone can finish; the
// idealised S3 rounding is conservative, so the diagnosis says so.
bool Root::RecordInfeasibleJob(int it) {
  const Instance& in = *c_.instance;
  const int j = dual_.infeasible_job();
  out_.status = SolveStatus::kInfeasible;
  out_.diagnosis = absl::StrFormat(
      "job %s cannot deliver its compute of %.4g FLOP in its window [%d, %d) with any "
      "effective mode",
      in.jobs[j].name, (*c_.modes)[j].workload.compute_flops, in.jobs[j].release_slot,
      in.jobs[j].deadline_slot);
  out_.iterations = it;
  job_infeasible_ = true;
  return false;
}

absl::StatusOr<bool> Root::Iterate(int it) {
  if (comm_ != nullptr) comm_->MaybeInjectFailure("Lagrangian iteration", it);
  // The previous iteration's repair runs beside this iteration's job DPs (on two or more
  // threads; else it runs when FinishRepair collects it).
  if (pending_ && threads_ > 1) {
    PendingRepair& p = *pending_;
    p.running = std::async(std::launch::async,
                           [this, &p] { return Repair(p.plans, p.prices, p.have, p.deadline); });
  }
  CKPTDP_ASSIGN_OR_RETURN(const DualEvaluator::Outcome evaluated,
                          dual_.Evaluate(prices_, {}, deadline_));
  CKPTDP_RETURN_IF_ERROR(FinishRepair());
  if (evaluated == DualEvaluator::Outcome::kOutOfTime) {
    out_.status = deadline_.Reason();
    return false;  // this iteration did not happen
  }
  if (evaluated == DualEvaluator::Outcome::kJobInfeasible) return RecordInfeasibleJob(it);
  out_.iterations = it;
  dual_value_ = dual_.value();
  if (options_.plan_pool != nullptr) {
    for (int j = 0; j < c_.num_jobs(); ++j) options_.plan_pool->Add(j, dual_.plans()[j].runs);
  }
  // Primal averaging, later iterations weighted more (their multipliers are closer).
  average_.Add(c_, dual_.plans());
  if (update_.Observe(dual_value_)) out_.multipliers = prices_;
  if (Leader(comm_)) CKPTDP_RETURN_IF_ERROR(RecoverPrimal(it));
  Log("root");
  std::optional<SolveStatus> stop = Leader(comm_) ? StopRule() : std::nullopt;
  if (comm_ != nullptr) {
    CKPTDP_ASSIGN_OR_RETURN(stop, FollowLeaderStop(stop));
  }
  if (stop) {
    out_.status = *stop;
    return false;
  }
  update_.Step(dual_, out_.incumbent ? std::optional<double>(Incumbent()) : std::nullopt, prices_);
  return true;
}

// Primal recovery from the relaxed plans, on the schedule of setup_.repair.
absl::Status Root::RecoverPrimal(int it) {
  const RepairPolicy& policy = setup_.repair;
  const bool have = out_.incumbent.has_value();
  const Deadline repair_deadline = have ? deadline_ : deadline_.Plus(policy.first_schedule_grace);
  // The phase's pace (only a battery asks): at its time per iteration so far, do the
  // remaining iterations fit in the time left?
  const bool on_pace =
      c_.traits.battery && SecondsSince(began_) / it * (options_.max_iterations - it) <=
                               std::chrono::duration<double>(deadline_.at() - Clock::now()).count();
  const bool try_repair =
      RepairDue(policy, have, c_.traits.battery, on_pace, it, last_repair_gain_);
  if (!try_repair) return absl::OkStatus();
  if (overlap_repair_) {
    // Set up now, run beside the next iteration's job DPs (Iterate) or as the phase ends.
    pending_ = PendingRepair{it, have, dual_.plans(), prices_, repair_deadline, {}};
    return absl::OkStatus();
  }
  CKPTDP_ASSIGN_OR_RETURN(std::optional<Evaluated> e,
                          Repair(dual_.plans(), prices_, have, repair_deadline));
  return e ? TakeRepaired(it, *std::move(e)) : absl::OkStatus();
}

absl::StatusOr<std::optional<Evaluated>> Root::Repair(const std::vector<PathSolution>& plans,
                                                      const Multipliers& prices, bool have,
                                                      const Deadline& deadline) {
  Schedule repaired;
  const bool placed =
      RepairPlans(c_, repair_work_, plans, prices, deadline, scratch_, repaired, &repair_first_) ||
      (!have && PlaceByFootprint(c_, repair_work_, prices, deadline, scratch_, repaired));
  if (!placed) return std::nullopt;
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c_, std::move(repaired)));
  if (!e.feasible) return std::nullopt;
  return std::optional<Evaluated>(std::move(e));
}

absl::Status Root::FinishRepair() {
  if (!pending_) return absl::OkStatus();
  PendingRepair& p = *pending_;
  absl::StatusOr<std::optional<Evaluated>> e =
      p.running.valid() ? p.running.get() : Repair(p.plans, p.prices, p.have, p.deadline);
  const int it = p.it;
  pending_.reset();
  if (!e.ok()) return e.status();
  return *e ? TakeRepaired(it, **std::move(e)) : absl::OkStatus();
}

absl::Status Root::TakeRepaired(int it, Evaluated e) {
  const RepairPolicy& policy = setup_.repair;
  const bool have = out_.incumbent.has_value();
  Collect(e.schedule);
  const bool better = !have || Improves(e.cost_usd, Incumbent());
  if ((better || it - last_search_ >= policy.search_refresh) &&
      (!have || it - last_search_ >= policy.search_spacing)) {
    CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c_, work_, e, deadline_, threads_));
    last_search_ = it;
  }
  if (!have || Improves(e.cost_usd, Incumbent())) {
    NewIncumbent(std::move(e));
    last_repair_gain_ = it;
  }
  return absl::OkStatus();
}

// The stopping rules of the Lagrangian phase, in order (see RunLagrangian).
std::optional<SolveStatus> Root::StopRule() {
  const Instance& in = *c_.instance;
  const double bound = update_.best();
  // A bound above the most any schedule could cost: no schedule fits (weak duality).
  if (!out_.incumbent && bound > ceiling_ + kCeilingTolerance * std::max(1.0, ceiling_)) {
    out_.diagnosis = absl::StrFormat(
        "no schedule fits the shared limits (GPU capacity %d, site cap %.1f kW%s): the "
        "Lagrangian bound %.6g USD exceeds the %.6g USD that any schedule could cost",
        in.site.gpu_capacity, in.site.site_power_cap_kw,
        in.grid.min_green_share_pct > 0
            ? absl::StrFormat(", min_green_share_pct %g", in.grid.min_green_share_pct)
            : std::string(),
        bound, ceiling_);
    return SolveStatus::kInfeasible;
  }
  if (out_.incumbent && gap_.Closed(Incumbent(), bound)) return SolveStatus::kOptimal;
  if (deadline_.Passed()) return deadline_.Reason();
  if (update_.since_best() >= options_.stall_iterations) {
    return out_.incumbent ? SolveStatus::kFeasible : SolveStatus::kIterationLimit;
  }
  if (dual_.norm_squared() <= kZeroSubgradientNormSq) return SolveStatus::kFeasible;
  return std::nullopt;
}

absl::StatusOr<std::optional<SolveStatus>> Root::FollowLeaderStop(std::optional<SolveStatus> stop) {
  const bool send = incumbent_version_ != shared_version_;
  shared_version_ = incumbent_version_;
  CKPTDP_ASSIGN_OR_RETURN(
      const int code,
      FollowLeader(c_, *comm_, stop ? static_cast<int>(*stop) : -1, send, out_.incumbent));
  if (code < 0) return std::optional<SolveStatus>();
  return std::optional<SolveStatus>(static_cast<SolveStatus>(code));
}

void Root::NoteTraffic() const {
  if (comm_ == nullptr) return;
  const std::int64_t bytes = comm_->bytes_received() - bytes_at_start_;
  log_.Note(absl::StrFormat(
      "distributed: rank %d of %d solved %d of %d jobs per iteration; of the Lagrangian "
      "phase's %.3f s, %.3f s were job DPs and %.3f s exchanges; %d bytes received in %d "
      "iterations (%d per iteration)",
      comm_->rank(), comm_->size(), dual_.jobs_solved_here(), c_.num_jobs(), SecondsSince(began_),
      dual_.dp_seconds(), dual_.exchange_seconds(), bytes, out_.iterations,
      out_.iterations > 0 ? bytes / out_.iterations : 0));
}

absl::Status Root::SearchAfterRoot() {
  out_.lower_bound = update_.best();
  const Deadline search_until = setup_.search_until
                                    ? deadline_.At(std::min(*setup_.search_until, deadline_.at()))
                                    : deadline_;
  // The bound has converged (or the iterations are spent): the rest of the time goes to
  // the primal side, where coordinated moves of several jobs close most of the gap.
  if (out_.incumbent && !search_until.Passed() && out_.status != SolveStatus::kOptimal &&
      !gap_.Closed(Incumbent(), out_.lower_bound)) {
    CKPTDP_ASSIGN_OR_RETURN(const int dives,
                            ImproveByDiving(c_, work_, average_, out_.multipliers, search_until,
                                            threads_, *out_.incumbent));
    if (dives > 0) Log("dive", absl::StrFormat("diving on x-bar: %d better schedules", dives));
  }
  bool neighbourhood = out_.incumbent && !search_until.Passed() &&
                       out_.status != SolveStatus::kOptimal &&
                       options_.neighbourhood_stall_rounds > 0;
  // Distributed, the search is collective: rank 0's clock decides whether it runs.
  if (comm_ != nullptr) neighbourhood = AgreeWithLeader(*comm_, neighbourhood);
  if (neighbourhood) {
    NeighbourhoodOptions lns;
    lns.guide = &average_;
    lns.reoptimise_every = options_.reoptimise_every;
    lns.max_removed =
        ResolveNeighbourhoodSize(options_.neighbourhood_size, c_.num_jobs(), c_.traits.battery);
    // At --log-level 2, a row per improvement: how the incumbent moves over a long search.
    if (options_.log_level >= kLogEveryRow) {
      lns.on_improvement = [this](double, int rounds) {
        Log("lns", absl::StrFormat("%d rounds", rounds));
      };
    }
    // Per job: a round touches a handful of jobs, so fleets need more rounds to try each.
    lns.stall_rounds = std::max(100, options_.neighbourhood_stall_rounds * c_.num_jobs());
    const double bound = out_.lower_bound;
    const auto good_enough = [&](double cost) { return gap_.Closed(cost, bound); };
    // Distributed: every rank searches on its own seed stream, in batches after which the
    // ranks share the cheapest schedule (distributed_search.h).
    SearchTraffic traffic;
    const int streams =
        comm_ != nullptr ? 1 : ResolveSearchStreams(options_.search_streams, c_.num_jobs());
    CKPTDP_ASSIGN_OR_RETURN(
        const NeighbourhoodStats stats,
        comm_ != nullptr
            ? DistributedNeighbourhoodSearch(c_, work_, *comm_, out_.incumbent, out_.multipliers,
                                             lns, search_until, good_enough, traffic)
            : PortfolioNeighbourhoodSearch(c_, work_, *out_.incumbent, out_.multipliers, lns,
                                           streams, options_.threads, search_until, good_enough));
    out_.neighbourhood_rounds = stats.rounds;
    Log("lns", absl::StrFormat("neighbourhood search%s: %d rounds, %d improvements, %d full "
                               "evaluations; RINS: %d rounds, %d improvements; groups: %d "
                               "rounds, %d improvements, %d proven",
                               streams > 1 ? absl::StrFormat(" (%d streams)", streams) : "",
                               stats.rounds, stats.improvements, stats.evaluations,
                               stats.guided_rounds, stats.guided_improvements, stats.group_rounds,
                               stats.group_improvements, stats.group_proven));
    if (comm_ != nullptr) {
      log_.Note(absl::StrFormat(
          "distributed search: %d ranks, %d batches of up to %d rounds each, a cheaper schedule "
          "shared after %d; %d bytes received (%d per batch)",
          comm_->size(), traffic.batches, BatchRounds(lns.stall_rounds), traffic.shared,
          traffic.bytes, traffic.batches > 0 ? traffic.bytes / traffic.batches : 0));
    }
    if (search_until.Passed() && !gap_.Closed(Incumbent(), bound)) {
      out_.status = search_until.Reason();
    }
  }
  if (out_.incumbent && !search_until.Passed() && Leader(comm_)) {
    CKPTDP_RETURN_IF_ERROR(
        ImproveByLocalSearch(c_, work_, *out_.incumbent, search_until, threads_));
    if (out_.status != SolveStatus::kTimeLimit && out_.status != SolveStatus::kInterrupted &&
        gap_.Closed(Incumbent(), out_.lower_bound)) {
      out_.status = SolveStatus::kOptimal;
    }
  }
  if (comm_ != nullptr) {
    CKPTDP_ASSIGN_OR_RETURN(const int status,
                            FollowLeader(c_, *comm_, static_cast<int>(out_.status),
                                         /*send=*/true, out_.incumbent));
    out_.status = static_cast<SolveStatus>(status);
  }
  return absl::OkStatus();
}

EngineOutcome Root::Finish() {
  if (out_.incumbent) Collect(out_.incumbent->schedule);  // as the search left it
  if (!out_.incumbent && out_.status != SolveStatus::kInfeasible) {
    out_.diagnosis =
        "no schedule satisfying the shared GPU and site power limits was found within the "
        "iteration and time limits, and infeasibility is not proven";
  }
  return std::move(out_);
}

}  // namespace

absl::StatusOr<EngineOutcome> RunLagrangian(const ScenarioContext& c, Workspaces& work,
                                            const SolveOptions& options, Clock::time_point start,
                                            const RootSetup& setup, SolverLog& log) {
  Root root(c, work, options, start, setup, log);
  if (root.ProvenUnreachable()) return root.Finish();
  CKPTDP_RETURN_IF_ERROR(root.StartFromSeed());
  bool go_on = true;
  for (int it = 1; go_on && it <= options.max_iterations; ++it) {
    CKPTDP_ASSIGN_OR_RETURN(go_on, root.Iterate(it));
  }
  CKPTDP_RETURN_IF_ERROR(root.FinishRepair());
  root.NoteTraffic();
  if (root.JobInfeasible()) return root.Finish();
  if (go_on) root.SpentIterations();
  CKPTDP_RETURN_IF_ERROR(root.SearchAfterRoot());
  return root.Finish();
}

}  // namespace ckptdp::internal
