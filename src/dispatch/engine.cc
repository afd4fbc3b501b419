#include "ckptdp/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ckptdp/plan_pool.h"
#include "dispatch/internal/baseline.h"
#include "dispatch/internal/branch_and_bound.h"
#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/distributed.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/import_cap_proof.h"
#include "dispatch/internal/infeasibility.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/repair.h"
#include "dispatch/internal/resource_diagnosis.h"
#include "dispatch/internal/schedule_rescue.h"
#include "dispatch/internal/solver_log.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T>
SolveOptionSpec Spec(std::string name, std::string doc, double def, double lo, double hi,
                     T SolveOptions::*field) {
  return SolveOptionSpec{std::move(name),
                         std::move(doc),
                         def,
                         lo,
                         hi,
                         std::is_integral_v<T> || std::is_enum_v<T>,
                         {},
                         [field](SolveOptions& o, double v) { o.*field = static_cast<T>(v); },
                         [field](const SolveOptions& o) { return static_cast<double>(o.*field); }};
}

// An option that names one of `values`, stored as its index in an enum field.
template <typename T>
SolveOptionSpec NamedSpec(std::string name, std::string doc, T def, std::vector<std::string> values,
                          T SolveOptions::*field) {
  const double hi = static_cast<double>(values.size()) - 1;
  SolveOptionSpec spec =
      Spec(std::move(name), std::move(doc), static_cast<double>(def), 0.0, hi, field);
  spec.values = std::move(values);
  return spec;
}

// After S4's warm start, S6 and S3 start from S4's schedule, and a deflected subgradient
// raises their bound faster (their repairs still beat that schedule on the long weeks, with
// the deflection in place): on the 128-job week, 10581.5 instead of 10579.8 USD after 400
// iterations (docs/benchmarks.md). A plain S4 solve keeps the plain subgradient, with
// which its neighbourhood search did better (not measured again since).
constexpr double kSeededDeflection = 0.6;

// S4's root inside S6's and S3's warm start. On the 128-job weeks its plain subgradient
// stalls up to 0.4 % below the LP (seeds 2 and 3); deflected, S4's bound gets within
// 0.1 % of it, and S6 ended 0.14 points lower on average over six seeds (1.350 % against
// 1.488 %, 60 s), and lower on the 512- and 1024-job weeks (one run each). On the
// 4096-job week two pairs of runs went opposite ways (0.625 and 0.572 % against 0.558 and
// 0.608 %): no difference that they show (docs/benchmarks.md, session 28).
constexpr double kWarmStartDeflection = 0.9;

// With that deflection S4's dual can run away early, while its incumbent is far above it:
// on the 1024-job week it fell from 20718.91 USD (iteration 71, incumbent 35419.71) to
// -20174.32 ten iterations later, and the stall rule then ended S4's phase 21 % below the
// bound it reaches. The overlapped repair's one-iteration lag made that worse (without it
// the same dual fell too, but recovered by itself). So where the repair overlaps (from 512
// jobs) the direction restarts whenever the dual falls while the gap is above 20 %: on
// the 1024-job week S4's dual was back above its best eleven iterations after its fall.
// On the 128-job weeks, where the repair is serial, the rule left S4's bound after 400
// iterations within -0.09 to +0.04 % but S6's gap after 60 s worse on four seeds of six
// (docs/benchmarks.md, session 33), so there it is off.
constexpr double kWarmStartRestartGap = 0.2;

// Cost of the fixed baseline without battery: the reference of cost_reduction_pct.
double BaselineCost(const internal::ScenarioContext& s1) {
  const internal::BaselinePlan plan =
      internal::BaselineSchedule(*s1.instance, *s1.modes, /*record_checkpoints=*/false);
  if (!plan.infeasible_reason.empty()) return std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<internal::Evaluated> e = internal::Evaluate(s1, plan.schedule);
  if (!e.ok() || !e->feasible) return std::numeric_limits<double>::quiet_NaN();
  return e->cost_usd;
}

void FillFromEvaluated(const Instance& instance, internal::Evaluated e, double reference_cost,
                       Result& r) {
  r.objective_usd = e.cost_usd;
  r.metrics = ComputeMetrics(instance, e.power, e.load, reference_cost);
  r.load = std::move(e.load);
  r.power = std::move(e.power);
  r.schedule = std::move(e.schedule);
}

}  // namespace

const std::vector<SolveOptionSpec>& SolveOptionSpecs() {
  static const std::vector<SolveOptionSpec> specs = {
      Spec("gap", "relative gap (incumbent - bound) / |incumbent| at which to stop", 1e-4, 0.0, 1.0,
           &SolveOptions::gap),
      Spec("time-limit", "wall-clock limit in seconds; the incumbent is returned with its gap",
           600.0, 0.0, 1e7, &SolveOptions::time_limit_s),
      Spec("threads", "worker threads for the per-job subproblems (0 = all cores)", 0.0, 0.0,
           1024.0, &SolveOptions::threads),
      Spec("max-iterations", "Lagrangian iterations at most", 400.0, 1.0, 1e6,
           &SolveOptions::max_iterations),
      Spec("stall-iterations", "stop when the bound has not improved for this many iterations",
           60.0, 1.0, 1e6, &SolveOptions::stall_iterations),
      Spec("max-nodes",
           "branch-and-bound nodes at most after the Lagrangian root (0 = stop at the root)",
           20000.0, 0.0, 1e9, &SolveOptions::max_nodes),
      Spec("node-iterations", "Lagrangian iterations per branch-and-bound node", 40.0, 1.0, 1e6,
           &SolveOptions::node_iterations),
      Spec("s3-max-nodes",
           "S3: branch-and-bound nodes at most after the root, each bounded by the decomposition "
           "where its slot side is affordable (0 = the root only; --max-nodes is S4's and S6's)",
           0.0, 0.0, 1e9, &SolveOptions::s3_max_nodes),
      Spec("s3-work-units",
           "S3: the job knapsacks count work in this many parts of a job's daily compute; finer "
           "parts tighten the bound and the plans, and each dual evaluation costs in proportion",
           static_cast<double>(kDefaultS3WorkUnits), 100.0, 1e6, &SolveOptions::s3_work_units),
      Spec("decomposition-iterations",
           "volume-algorithm iterations of the Lagrangian decomposition bound at the root, "
           "where its slot oracle is affordable (docs/engine.md; 0 = keep the Lagrangian bound)",
           1000.0, 0.0, 1e6, &SolveOptions::decomposition_iterations),
      Spec("decomposition-cells",
           "where the decomposition's slot side is the DP over GPU units (fleets): its budget in "
           "(job, level, choice) cells over all slots, above which the Lagrangian bound stands "
           "(one iteration is a pass over them; the shipped 128-job week needs 2.6e8)",
           static_cast<double>(SolveOptions{}.decomposition_cells), 0.0, 1e12,
           &SolveOptions::decomposition_cells),
      Spec("neighbourhood-stall",
           "after the Lagrangian phase, stop the neighbourhood search after this many rounds "
           "per job (at least 100) without improvement (0 = skip it)",
           100.0, 0.0, 1e6, &SolveOptions::neighbourhood_stall_rounds),
      Spec("warm-start-share",
           "S6 and S3 first solve S4 for a schedule and multipliers: the share of the time "
           "limit after which S4's neighbourhood search stops (its Lagrangian phase may run to "
           "half the limit, or to this share if it is larger)",
           0.5, 0.0, 0.9, &SolveOptions::warm_start_share),
      Spec("repair-overlap",
           absl::StrCat("the Lagrangian root repairs an iteration's relaxed plans while the "
                        "next iteration's job DPs run, on the second core (its multiplier "
                        "step then sees the repaired schedule one iteration later): 1 on, 0 "
                        "off, -1 auto: on from ",
                        kRepairOverlapJobs, " jobs"),
           -1.0, -1.0, 1.0, &SolveOptions::repair_overlap),
      Spec("log-level",
           "solver log on stderr: 0 none, 1 new incumbents, better bounds and throttled "
           "progress rows, 2 every iteration (docs/engine.md, \"The log\")",
           1.0, 0.0, 2.0, &SolveOptions::log_level),
      // The decomposition's branch and bound (#13: docs/engine.md).
      Spec("decomposition-node-iterations",
           "volume-algorithm iterations of the decomposition bound at each branch-and-bound "
           "node, where the root's decomposition gap is at most 5 % (otherwise "
           "--node-iterations applies)",
           250.0, 1.0, 1e6, &SolveOptions::decomposition_node_iterations),
      // The decomposition dual's method (#13: docs/engine.md); the order is DualMethod's.
      NamedSpec("dual-method",
                "how the root decomposition bound's multipliers move: subgradient (Polyak "
                "steps), volume (the volume algorithm) or bundle (a proximal bundle method)",
                SolveOptions{}.dual_method, {"subgradient", "volume", "bundle"},
                &SolveOptions::dual_method),
      // Joint re-optimisation of 2-3 jobs with the others fixed (#21: docs/engine.md).
      Spec("reoptimise-every",
           "every n-th round of the neighbourhood search re-optimises 2-3 interacting jobs "
           "jointly with the other jobs fixed, instead of ruin and recreate (0 = never)",
           0.0, 0.0, 1e6, &SolveOptions::reoptimise_every),
      // The neighbourhood search on several cores (#21: docs/engine.md).
      Spec("search-streams",
           "neighbourhood-search streams run side by side from the same incumbent, sharing the "
           "cheapest schedule after each batch of rounds; the result depends on this, not on "
           "--threads (0 = auto: 2 from 16 jobs, else 1)",
           0.0, 0.0, 64.0, &SolveOptions::search_streams),
      Spec("neighbourhood-size",
           "jobs a round of the neighbourhood search removes and re-inserts at most, at least 2 "
           "(0 = auto: 3 from 16 jobs without a battery, else 6)",
           0.0, 0.0, 1e4, &SolveOptions::neighbourhood_size),
      Spec("progress-branching",
           "decomposition nodes: 1 branches on a job's progress (\"at least k segments by "
           "slot t\") where x-bar splits it, 2 where it splits it at least as evenly as a "
           "level, 0 on levels only, -1 (auto) 2 where the slot side is the DP over GPU "
           "units (fleets) and 0 where it enumerates patterns",
           -1.0, -1.0, 2.0, &SolveOptions::progress_branching),
      // The battery inside the decomposition's slot side (#13: docs/engine.md).
      Spec("battery-slot-cells",
           "with a battery: where the root decomposition's gap stays open, its slot side also "
           "runs the battery as a DP over this many state-of-charge cells (0 = off)",
           25.0, 0.0, 1e5, &SolveOptions::battery_slot_cells),
      Spec("battery-slot-copy",
           "with --battery-slot-cells: 1 keeps the copy of the battery's net power beside the "
           "DP (the copy's decomposition first), 0 replaces the copy by the DP",
           1.0, 0.0, 1.0, &SolveOptions::battery_slot_copy),
      Spec("node-fixing",
           "decomposition nodes: path-reduced-cost fixing at every node (0 = at the root only)",
           1.0, 0.0, 1.0, &SolveOptions::node_fixing),
      Spec("early-branching-window",
           "decomposition nodes: every this many volume iterations, branch at once when the "
           "bound's rise cannot reach the cutoff (0 = off)",
           0.0, 0.0, 1e6, &SolveOptions::early_branching_window),
      Spec("strong-branching",
           "decomposition nodes: candidates tried with a few volume iterations per child before "
           "branching (0 = off)",
           0.0, 0.0, 100.0, &SolveOptions::strong_branching_candidates),
      Spec("root-strong-branching",
           "decomposition nodes: at the root node, the most divided level (and progress) splits "
           "tried with --decomposition-node-iterations per child before the first branch; the "
           "best split's weaker child bounds the whole problem (0 = off, -1 = auto: 4 where the "
           "slot side enumerates patterns, 0 where it is the DP over GPU units)",
           -1.0, -1.0, 100.0, &SolveOptions::root_strong_branching_candidates),
  };
  return specs;
}

absl::Status ValidateSolveOptions(const SolveOptions& options) {
  for (const SolveOptionSpec& spec : SolveOptionSpecs()) {
    const double v = spec.get(options);
    if (!std::isfinite(v) || v < spec.min_value || v > spec.max_value) {
      if (!spec.values.empty()) {
        return absl::InvalidArgumentError(absl::StrFormat("--%s: %g is not one of %s", spec.name, v,
                                                          absl::StrJoin(spec.values, ", ")));
      }
      return absl::InvalidArgumentError(absl::StrFormat("--%s: %g is outside [%g, %g]", spec.name,
                                                        v, spec.min_value, spec.max_value));
    }
  }
  return absl::OkStatus();
}

namespace {

// S1, S2, S5: the trajectory is fixed; the power side is solved exactly, so the objective is
// optimal and is its own bound.
absl::Status SolveFixed(const internal::ScenarioContext& context, Scenario scenario,
                        double reference_cost, Result& r) {
  const Instance& instance = *context.instance;
  const internal::BaselinePlan plan =
      internal::BaselineSchedule(instance, *context.modes, scenario == Scenario::kS2);
  if (!plan.infeasible_reason.empty()) {
    r.status = SolveStatus::kInfeasible;
    r.diagnosis = plan.infeasible_reason;
    return absl::OkStatus();
  }
  CKPTDP_ASSIGN_OR_RETURN(internal::Evaluated e, internal::Evaluate(context, plan.schedule));
  if (!e.feasible) {
    r.status = SolveStatus::kInfeasible;
    r.diagnosis = "the fixed baseline violates a site limit: " + e.violation;
    return absl::OkStatus();
  }
  r.status = SolveStatus::kOptimal;
  FillFromEvaluated(instance, std::move(e), reference_cost, r);
  r.lower_bound_usd = r.objective_usd;
  return absl::OkStatus();
}

// What S4's warm start hands on: its incumbent and its multipliers at the best bound (both
// empty if it found no schedule).
struct S4WarmStart {
  std::optional<Schedule> seed;
  internal::Multipliers prices;
};

// S6 and S3 relax S4 (add a battery; drop checkpoint continuity), so S4's incumbent is
// feasible for both: solving S4 first guarantees cost(S6), cost(S3) <= cost(S4).
absl::StatusOr<S4WarmStart> WarmStartFromS4(const Instance& instance,
                                            const std::vector<JobModes>& modes, Scenario scenario,
                                            const SolveOptions& options, internal::SolverLog& log) {
  SolveOptions first = options;
  // S4's Lagrangian phase, whose multipliers start S6's, may run to half the limit (on the
  // 4096-job week it needs all of it). S4's search, which improves only the seed, stops at
  // options.warm_start_share of the limit. Until session 26 it could run on to 90 % of the
  // limit; but on the long weeks S6's repairs of its own relaxed plans beat S4's schedule,
  // and S6's search keeps improving: on the 512-job week S6 ended at 0.35 % with half the
  // limit for S4 against 0.48 %, while the 128-job weeks, where S4's search is the better
  // use of the time, were no worse (docs/benchmarks.md, session 26).
  const double limit_s = options.time_limit_s;
  first.time_limit_s = limit_s * std::max(0.5, options.warm_start_share);
  const Clock::time_point warm_start = Clock::now();
  internal::RootSetup setup;
  setup.deflection = kWarmStartDeflection;
  setup.restart_above_gap = kWarmStartRestartGap;
  setup.search_until =
      warm_start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(limit_s * options.warm_start_share));
  first.max_nodes = 0;  // a seed, not a proof
  // The warm start's own rows only at --log-level 2; by default one line sums it up.
  const bool every_row = options.log_level >= internal::kLogEveryRow;
  internal::SolverLog warm_log(options.log, every_row ? options.log_level : internal::kLogQuiet,
                               warm_start);
  if (every_row) warm_log.Note("warm start: solving S4 first");
  const internal::ScenarioContext s4 = internal::MakeContext(instance, modes, Scenario::kS4);
  internal::Workspaces s4_work;
  CKPTDP_ASSIGN_OR_RETURN(internal::EngineOutcome warm,
                          internal::RunLagrangian(s4, s4_work, first, warm_start, setup, warm_log));
  log.Note(absl::StrFormat(
      "warm start: S4 %s in %.2f s; solving %s",
      warm.incumbent ? absl::StrFormat("gives a schedule of %.4f USD", warm.incumbent->cost_usd)
                     : std::string("found no schedule"),
      internal::SecondsSince(warm_start), ScenarioName(scenario)));
  // Without a schedule S4's multipliers price rows it could not meet (a green floor that
  // S4, without a battery, cannot reach): S6 then keeps its own start.
  S4WarmStart out;
  if (!warm.incumbent) return out;
  out.prices = std::move(warm.multipliers);
  out.seed = std::move(warm.incumbent->schedule);
  if (scenario == Scenario::kS3) out.seed = internal::AsIdealSchedule(instance, modes, *out.seed);
  return out;
}

// The root found no schedule and proved none impossible: a schedule of a copy with fewer
// GPUs is one of this instance too (schedule_rescue.h). It becomes the incumbent, improved
// by local search; the root's status (the limit that stopped it) stands.
absl::Status RescueSchedule(const internal::ScenarioContext& context, Scenario scenario,
                            const SolveOptions& options, const internal::Deadline& deadline,
                            internal::Workspaces& work, internal::SolverLog& log,
                            internal::EngineOutcome& outcome) {
  std::optional<internal::RescuedSchedule> rescued =
      internal::ScheduleWithFewerGpus(*context.instance, scenario, options, deadline);
  if (!rescued) return absl::OkStatus();
  CKPTDP_ASSIGN_OR_RETURN(internal::Evaluated e,
                          internal::Evaluate(context, std::move(rescued->schedule)));
  if (!e.feasible) return absl::OkStatus();
  CKPTDP_RETURN_IF_ERROR(internal::ImproveByLocalSearch(context, work, e, deadline,
                                                        internal::ResolveThreads(options.threads)));
  log.Note(absl::StrFormat(
      "no schedule at the root; one of the instance with %d GPUs keeps these limits: %.4f USD",
      rescued->gpu_capacity, e.cost_usd));
  outcome.incumbent = std::move(e);
  return absl::OkStatus();
}

// S3, S4, S6: the Lagrangian root, then (on the checkpoint graphs) branch and bound.
absl::Status SolveFlexible(const internal::ScenarioContext& context, Scenario scenario,
                           const SolveOptions& options, const WarmStart& warm,
                           Clock::time_point start, double reference_cost, Result& r) {
  const Instance& instance = *context.instance;
  internal::SolverLog log(options.log, options.log_level, start);
  internal::Workspaces work;
  std::optional<Schedule> seed;
  internal::Multipliers s4_prices;
  if (warm.incumbent != nullptr) {
    seed = *warm.incumbent;
    if (scenario == Scenario::kS3)
      seed = internal::AsIdealSchedule(instance, *context.modes, *seed);
  } else if (scenario == Scenario::kS6 || scenario == Scenario::kS3) {
    absl::StatusOr<S4WarmStart> s4 =
        WarmStartFromS4(instance, *context.modes, scenario, options, log);
    if (!s4.ok()) return s4.status();
    if (s4->seed) seed.emplace(std::move(*s4->seed));
    // S6's Lagrangian starts from S4's multipliers: the same GPU and power rows, priced
    // before the battery flattens them. On the 4096-job week, where S4's phase takes half
    // the limit, S6 then ended at 0.65 % instead of 1.28 % (docs/benchmarks.md, session
    // 20). S3 keeps its own start (not measured).
    if (scenario == Scenario::kS6) s4_prices = std::move(s4->prices);
  }
  internal::RootSetup setup;
  setup.seed = seed ? &*seed : nullptr;
  const internal::Multipliers start_prices{warm.lambda_usd_per_kw, warm.mu_usd_per_gpu};
  const auto one_per_slot = [&](const internal::Multipliers& m) {
    return static_cast<int>(m.lambda.size()) == instance.time.slots &&
           static_cast<int>(m.mu.size()) == instance.time.slots;
  };
  if (one_per_slot(start_prices)) {
    setup.start = &start_prices;
  } else if (one_per_slot(s4_prices)) {
    setup.start = &s4_prices;
  }
  setup.deflection = seed ? kSeededDeflection : 0.0;
  CKPTDP_ASSIGN_OR_RETURN(internal::EngineOutcome outcome,
                          internal::RunLagrangian(context, work, options, start, setup, log));
  // S3 branches only with --s3-max-nodes, on decomposition nodes: its Lagrangian nodes
  // did not pay (paper case: bound 238.86 -> 239.32 USD in 2390 nodes and 600 s;
  // docs/engine.md).
  const internal::Deadline deadline =
      internal::Deadline::After(start, options.time_limit_s, options);
  if (options.rescue_with_fewer_gpus && !outcome.incumbent &&
      outcome.status == SolveStatus::kIterationLimit && !deadline.Passed()) {
    CKPTDP_RETURN_IF_ERROR(
        RescueSchedule(context, scenario, options, deadline, work, log, outcome));
  }
  // Distributed: the root was shared. Every rank runs the decomposition bound (the same
  // work, which its node bounds need) and takes part in branch and bound; the gap
  // breakdown runs on rank 0 alone, whose Result is the answer (docs/distributed.md).
  const bool leader = internal::Leader(internal::DistributedComm(options));
  const bool search = outcome.status != SolveStatus::kInfeasible &&
                      outcome.status != SolveStatus::kTimeLimit && !deadline.StopRequested();
  if (search) {
    // The decomposition bound at the root (decomposition.h): where it closes the gap,
    // branch and bound has nothing left to do; otherwise it is applied after the search.
    // Its reduced-cost fixings restrict the search's root, and its bound is the nodes'.
    // S3 by default takes the bound at the root only (its slot side packs whole modes into
    // the GPUs, which the knapsacks' LP bound cannot: paper case 1.81 -> 0.48 %), so it
    // keeps no fixings; its tree, when asked for, has decomposition nodes or none.
    const bool s3 = !TraitsOf(scenario).checkpoints;
    SolveOptions tree = options;
    if (s3) tree.max_nodes = options.s3_max_nodes;
    internal::DecompositionRoot decomposition;
    CKPTDP_ASSIGN_OR_RETURN(
        const double decomposition_bound,
        internal::TightenByDecomposition(context, work, tree, deadline, log, outcome,
                                         s3 && tree.max_nodes <= 0 ? nullptr : &decomposition));
    if (!s3 || decomposition.bound) {
      CKPTDP_RETURN_IF_ERROR(
          internal::BranchAndBound(context, work, tree, deadline, log, outcome, &decomposition));
    }
    internal::KeepDecompositionBound(options, decomposition_bound, outcome);
  }
  if (leader && outcome.incumbent) {
    CKPTDP_ASSIGN_OR_RETURN(r.solver.gap_breakdown,
                            internal::ExplainGap(context, work, r.solver.threads,
                                                 outcome.multipliers, *outcome.incumbent));
  }
  r.solver.nodes = outcome.nodes;
  r.solver.lambda_usd_per_kw = outcome.multipliers.lambda;
  r.solver.mu_usd_per_gpu = outcome.multipliers.mu;
  r.status = outcome.status;
  r.solver.iterations = outcome.iterations;
  r.lower_bound_usd = outcome.lower_bound;
  if (outcome.incumbent) {
    FillFromEvaluated(instance, std::move(*outcome.incumbent), reference_cost, r);
  } else {
    r.diagnosis = outcome.diagnosis;
    // Without a schedule only a proof or a limit can have ended the search.
    if (r.status != SolveStatus::kInfeasible && !StoppedEarly(r.status)) {
      r.status = SolveStatus::kIterationLimit;
    }
  }
  return absl::OkStatus();
}

// The capacity proof runs on every rank but stops on the clock, so ranks could disagree:
// rank 0's answer decides whether the distributed search runs at all.
internal::CapacityProof AgreedCapacityProof(const internal::ScenarioContext& context,
                                            const SolveOptions& options, Clock::time_point start) {
  internal::CapacityProof proof =
      internal::ProveCapacityInfeasible(context, internal::ProofOptions(options, start));
  if (const Communicator* comm = internal::DistributedComm(options)) {
    proof.proven = internal::AgreeWithLeader(*comm, proof.proven);
  }
  return proof;
}

// The solve proper, on every job's modes built once by the caller. `start` is when the
// public call began: the time limit counts from there.
absl::StatusOr<Result> SolveWithModes(const Instance& instance, const std::vector<JobModes>& modes,
                                      Scenario scenario, const SolveOptions& options,
                                      const WarmStart& warm, Clock::time_point start) {
  Result r;
  r.scenario = scenario;
  r.solver.threads = internal::ResolveThreads(options.threads);
  const internal::ScenarioContext s1 = internal::MakeContext(instance, modes, Scenario::kS1);
  const double reference_cost = BaselineCost(s1);
  const internal::ScenarioContext context =
      internal::MakeContext(instance, modes, scenario, options.s3_work_units);
  CKPTDP_ASSIGN_OR_RETURN(const internal::ImportCapProof cap_proof,
                          internal::ProveImportCapInfeasible(context));
  if (cap_proof.proven) {
    // The grid contract's import caps cannot serve even the base load: no schedule.
    r.status = SolveStatus::kInfeasible;
    r.diagnosis = cap_proof.diagnosis;
  } else if (!TraitsOf(scenario).variable_modes) {
    CKPTDP_RETURN_IF_ERROR(SolveFixed(context, scenario, reference_cost, r));
  } else if (const internal::CapacityProof proof = AgreedCapacityProof(context, options, start);
             proof.proven) {
    // Proven before any search: the jobs cannot share the GPU capacity (infeasibility.h).
    r.status = SolveStatus::kInfeasible;
    r.diagnosis = proof.diagnosis;
    r.solver.iterations = proof.iterations;
  } else {
    CKPTDP_RETURN_IF_ERROR(
        SolveFlexible(context, scenario, options, warm, start, reference_cost, r));
  }
  // An interrupt that came before the search ended is what ended it.
  const bool stopped = options.stop != nullptr && options.stop->load();
  if (stopped && r.status != SolveStatus::kOptimal && r.status != SolveStatus::kInfeasible) {
    r.status = SolveStatus::kInterrupted;
  }
  if (r.schedule.jobs.empty() && options.diagnose_capacity && !stopped && !cap_proof.proven &&
      internal::Leader(internal::DistributedComm(options))) {
    // The time limit covers the diagnosis too (--time-limit is honoured within a second).
    const double remaining_s =
        options.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
    r.diagnosis +=
        "\n" + (remaining_s > 0
                    ? internal::DiagnoseResources(instance, modes, scenario, options, remaining_s,
                                                  r.status == SolveStatus::kInfeasible)
                    : std::string("site limits: not searched, the time limit was reached"));
  }
  if (options.plan_pool != nullptr) options.plan_pool->AddSchedule(r.schedule);
  r.gap =
      r.status == SolveStatus::kInfeasible ? 0.0 : RelativeGap(r.objective_usd, r.lower_bound_usd);
  r.solver.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace

absl::StatusOr<Result> SolveScenario(const Instance& instance, Scenario scenario,
                                     const SolveOptions& options) {
  return SolveScenario(instance, scenario, options, WarmStart{});
}

absl::StatusOr<Result> SolveScenario(const Instance& instance, Scenario scenario,
                                     const SolveOptions& options, const WarmStart& warm) {
  const Clock::time_point start = Clock::now();
  CKPTDP_RETURN_IF_ERROR(ValidateSolveOptions(options));
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(instance));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<JobModes> modes, BuildAllModes(instance));
  return SolveWithModes(instance, modes, scenario, options, warm, start);
}

absl::StatusOr<Result> SolveScenario(const Instance& instance, const std::vector<JobModes>& modes,
                                     Scenario scenario, const SolveOptions& options,
                                     const WarmStart& warm) {
  const Clock::time_point start = Clock::now();
  CKPTDP_RETURN_IF_ERROR(ValidateSolveOptions(options));
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(instance));
  if (modes.size() != instance.jobs.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("modes: %d jobs' modes given for an instance of %d jobs (pass "
                        "BuildAllModes(instance))",
                        modes.size(), instance.jobs.size()));
  }
  return SolveWithModes(instance, modes, scenario, options, warm, start);
}

}  // namespace ckptdp
