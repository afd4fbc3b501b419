// The Lagrangian decomposition bound (Guignard and Kim, Math. Prog. 39, 1987): a bound
// beyond the LP relaxation that today's Lagrangian dual (dual.h) equals.
//
// Each job's choice in each slot of its window (idle, or one of its graph modes) is copied:
// x_{j,t} on the job side, y_{j,t} on the slot side, and x = y is dualised with prices
// pi_{j,t,m} (idle is priced 0: both sides pick exactly one choice per (job, slot), so a
// common shift of a (job, slot)'s prices cancels). Then, for every pi,
//
//   D(pi) = sum_j min_{path of j} sum_t pi_{j,t,x_{j,t}}                       (path DP)
//         + sum_t min_{pattern y_t} [ SlotCostUsd_t(base + PUE sum_j P_{y_{j,t}})
//                                      - sum_j pi_{j,t,y_{j,t}} ]              (slot oracle)
//
// is a lower bound on the optimum (weak duality), where a pattern picks one choice per job
// active in slot t with its GPUs within the capacity and its load within the site cap. The
// slot side keeps what the LP loses: integral packings of modes into the GPUs, and the
// exact (convex, kinked) power cost of the slot's load instead of its linearisation.
//
// With a battery (S6) its net power b_t (charging > 0) is copied as well: the slot side
// picks (pattern, b) at SlotCostUsd_t(L + b) - rho_t b, the battery side is the exact
// battery DP (battery_dp.h; wear and SoC limits) at linear prices rho_t b. This is weaker
// than it looks: priced linearly, the battery works as free storage between the patterns
// mixed in one slot, so on the small instances the S6 bound stays at the Lagrangian's
// (the engine keeps the larger of the two). Hence, optionally (DecompositionOptions::
// battery_cells; the engine's default where the copy leaves the gap open), the slot side
// also runs the battery itself: a DP over state-of-charge cells whose stage picks a
// pattern and a net power (decomposition_battery_slot.cc, a valid relaxation of the SoC
// dynamics), so that the dual mixes whole battery trajectories.
//
// The slot oracle enumerates the patterns, which are fixed, once: each keeps its cost (with
// a battery, its cost at the few b where the minimum over b can lie), so an evaluation is a
// sum of prices per pattern. Patterns grow exponentially with the jobs that share a slot;
// for many jobs, when IT power is proportional to GPUs, the slot oracle is instead a DP
// over GPU units (decomposition_slot_dp.h): the same minimum, with the same costs kept per
// GPU level instead of per pattern. In S3 (no checkpoints) the job side is each job's
// knapsack (job_subproblem.h) and its bound, max(rounded-up DP, LP), stands for the path's
// cost: still a lower bound on the job's cheapest plan at pi. Rule (`Build`): the
// decomposition is used when
//   - the patterns of all slots, counted as (pattern, active job) entries, fit the budget
//     (DecompositionOptions::max_pattern_entries, 2^20; the paper case has 20880: 435
//     patterns per slot, 2 jobs): they are enumerated; else
//   - every mode's IT power is proportional to its GPUs and the unit DP's (job, level,
//     choice) cells of all slots fit their budget (max_unit_dp_cells, 2^23 by default, option
//     --decomposition-cells; the generated fleets of 4, 8 and 16 jobs x 24 h have 0.8, 1.7
//     and 6.6 million, the shipped 128-job week 2.6e8): the unit DP.
// Elsewhere (communication power, or larger fleets: 128 jobs x 168 h) the engine keeps
// today's relaxation, as an iteration costs one pass over the patterns or cells.
//
// The multipliers pi are raised by the volume algorithm (Barahona and Anbil, Math. Prog.
// 87, 2000), which also yields x-bar, a convex combination of the two sides' choices (a
// fractional primal). It starts from the Lagrangian multipliers: pi_{j,t,m} = lambda_t PUE
// P_m + mu_t n_m gives the same job side as the Lagrangian dual and a slot side at least as
// high (each pattern is one point of the Lagrangian's load band, at most the capacity), so
// without a battery D(pi_0) >= the Lagrangian bound at (lambda, mu). The battery's copy
// starts at rho = lambda.
#ifndef CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_H_
#define CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/decomposition_fixing.h"
#include "dispatch/internal/decomposition_slot_dp.h"
#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/progress_branching.h"
#include "dispatch/internal/solver_log.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

struct DecompositionOptions {
  // How the multipliers move (SolveOptions::dual_method; docs/engine.md).
  DualMethod method = DualMethod::kVolume;
  int max_iterations = 1000;
  double gap = 1e-4;  // stop once RelativeGap(target, bound) <= gap
  // Affordability budget of the slot oracle: (pattern, active job) entries over all slots.
  int64_t max_pattern_entries = int64_t{1} << 20;
  // Beyond it, the budget of the unit DP (decomposition_slot_dp.h): (job, level, choice)
  // cells over all slots.
  int64_t max_unit_dp_cells = int64_t{1} << 23;
  // With a battery (S6, no contract prices): 0 copies the battery's net power (above);
  // n > 0 puts the battery inside the slot side instead, as a DP over n state-of-charge
  // cells (decomposition_battery_slot.cc), when its table of (pattern, SoC step) costs fits
  // max_battery_table entries. `battery_slot_copy` keeps the net power's copy beside it.
  int battery_cells = 0;
  bool battery_slot_copy = false;
  int64_t max_battery_table = int64_t{1} << 24;
  // Early branching (branch and bound's nodes): every this many iterations, stop when the
  // bound, extrapolated linearly from its rise over the last ones to the remaining
  // iterations, stays below `cutoff` (0: never). The rise slows down, so such a node would
  // not be pruned by its remaining iterations; it branches at once.
  int early_branching_window = 0;
  double cutoff = std::numeric_limits<double>::infinity();
};

// The multipliers of the copies. job[j][(t - release_j) * M_j + m]: graph mode m of job j
// in slot t (USD). battery[t]: the battery's net power in slot t (USD per kW; empty
// without a battery). contract: the grid contract's multipliers, dual variables of the
// decomposition like the others (docs/model.md, "Grid contract"): first the peak
// multipliers nu_t (USD per kW imported in slot t, >= 0, summing to at most the demand
// charge; one per slot when the site has a demand charge), then the green floor's mu (USD
// per MWh imported, >= 0; when it has a floor). Empty when neither applies.
struct DecompositionPrices {
  std::vector<std::vector<double>> job;
  std::vector<double> battery;
  std::vector<double> contract;
};

// One evaluation of D(pi) and the choices that attain it (choice 0: idle, m + 1: mode m).
struct DecompositionPoint {
  double value = 0;
  double job_side = 0, slot_side = 0, battery_side = 0;
  std::vector<std::vector<int>> job_choice;         // [j][t - release_j]
  std::vector<std::vector<int>> slot_choice;        // [j][t - release_j]
  std::vector<double> slot_battery_kw, battery_kw;  // the two copies of b_t (battery only)
  std::vector<PathSolution> plans;                  // the job side's paths
  // The slot side's subgradient in the contract multipliers (DecompositionPrices::contract):
  // grid_t - peak_so_far (kW) per nu_t, sum_t (grid_t - (1 - floor) L_t) dt (MWh) for mu.
  std::vector<double> contract_slack;
  std::vector<std::vector<int>> job_progress;  // [j][t - release_j], t to the deadline
};

class DecompositionBound {
 public:
  // Enumerates the slot patterns; std::nullopt if the rule above says not affordable.
  static std::optional<DecompositionBound> Build(const ScenarioContext& context,
                                                 const DecompositionOptions& options);

  // pi from Lagrangian multipliers (lambda USD/kW, mu USD/GPU): the warm start.
  DecompositionPrices FromLagrangian(const std::vector<double>& lambda,
                                     const std::vector<double>& mu) const;

  // Sets pi.contract to the contract multipliers' start: the better, by D, of 0 (the
  // contract left out) and the demand charge shared by the slots where `incumbent` imports
  // its peak (mu = 0 in both). Empty when the decomposition does not price the contract
  // (contract_units() is empty); false if D cannot be evaluated at pi.
  bool StartContract(const PowerDispatch& incumbent, DecompositionPrices& pi);
  // Then the green floor's mu (if priced): a line search of D over mu >= 0 at the other
  // prices of pi (the Lagrangian's lambda do not carry the floor's price).
  bool StartGreenPrice(DecompositionPrices& pi);
  // The units of the contract coordinates (kW for nu, MWh for mu): the volume algorithm
  // steps in the coordinates divided by them, as it measures the battery copies in P.
  const std::vector<double>& contract_units() const { return contract_units_; }
  // Projects the contract multipliers back onto their set (nu >= 0 with sum <= the
  // charge, mu >= 0).
  void ProjectContract(std::vector<double>& contract) const;

  // D(pi); false if some job has no path or some slot no pattern (the scenario, or the
  // restricted part of it, is infeasible: no bound).
  bool Evaluate(const DecompositionPrices& pi, DecompositionPoint& out);

  // Restricts both sides to branch-and-bound restrictions (dual.h; at most one per (job,
  // slot)), replacing earlier ones: the job side's path DP blocks the excluded levels, the
  // slot side drops the patterns that use them. D then bounds the restricted schedules.
  void Restrict(const std::vector<SlotRestriction>& restrictions);
  // The same with progress restrictions (progress_branching.h; job side only: they are
  // constraints of its paths) and excluded choices ([j][(t - release_j) * (M_j + 1) +
  // choice] != 0, both sides; empty: none), for branch and bound's nodes.
  void Restrict(const std::vector<SlotRestriction>& restrictions,
                const std::vector<ProgressRestriction>& progress,
                const std::vector<std::vector<char>>& excluded);

  // The bound of every (job, slot, choice) at prices pi, [j][(t - release_j) * (M_j + 1) +
  // choice] (decomposition_fixing.h); std::nullopt if D(pi) cannot be evaluated. The job
  // side comes from forward and backward DP values where the graphs allow them
  // (path_dp_backward.h), else from one restricted DP per (job, slot, choice) when
  // `allow_resolves`, else std::nullopt.
  std::optional<std::vector<std::vector<double>>> ChoiceBounds(const DecompositionPrices& pi,
                                                               bool allow_resolves);

  // Reduced-cost fixing at prices pi against `cutoff` (decomposition_fixing.h; defined in
  // decomposition_fixing.cc). Returns std::nullopt if D(pi) cannot be evaluated.
  std::optional<RootFixings> Fix(const DecompositionPrices& pi, double cutoff);

  int64_t pattern_entries() const { return entries_; }
  // The cells of the unit DP when the slot oracle runs it (0 when it enumerates patterns).
  int64_t unit_dp_cells() const { return unit_dp_cells_; }
  // The battery's power P (kW) when its net power is copied, else 0.
  double battery_power_kw() const { return battery_copy_ ? c_->power.battery.power_kw : 0.0; }
  // The SoC cells of the slot side's battery DP (0: not built).
  int battery_cells() const { return battery_.cells; }
  // Whether the slot side runs the battery DP (after Build: whenever it was built). With the
  // net power's copy beside it, the DP can be switched off and on between evaluations: off,
  // D is the copy's decomposition (its battery side charges the wear again).
  bool battery_slot_on() const { return battery_slot_on_; }
  void UseBatterySlot(bool on) { battery_slot_on_ = on && battery_.cells > 0 && battery_copy_; }

 private:
  // With a battery a pattern's slot cost min_b SlotCostUsd(L + b) - rho b is convex in b
  // with its minimum at b_lo = max(-P, -L), at P or where L + b meets the renewables, so
  // each pattern keeps those candidates (cost, b): for each, the value is linear in rho.
  struct Slot {
    std::vector<int> jobs;          // active jobs
    std::vector<int> price_offset;  // per active job: offset of its idle entry in `table`
    std::vector<int32_t> entry;     // patterns x jobs: offset into `table` of the choice
    std::vector<double> cost;       // patterns x candidates: SlotCostUsd(L + b)
    std::vector<double> net_kw;     // patterns x candidates: b (0 without battery)
    std::vector<double> grid_kw;    // patterns x candidates: the import (contract prices only)
    std::vector<double> load_kw;    // per pattern: its AIDC load (contract prices only)
    std::vector<double> table;      // per active job: 0 (idle), then its mode prices
    std::vector<char> excluded;     // like `table`: choices a restriction excludes (or empty)
    // The unit DP instead of patterns (decomposition_slot_dp.h): `cost`, `net_kw`, `grid_kw`
    // and `load_kw` are per GPU level (g units) instead of per pattern; `entry` is empty.
    bool unit_dp = false;
    UnitDpShape shape;
  };
  // The slot's active jobs, their offsets and price table (everything else cleared).
  void SetActiveJobs(int t);
  // Appends the costs of slot t's next pattern or level, of load `load` (kW), to its
  // `cost`, `net_kw` and (while `price_contract`) `grid_kw` and `load_kw`; clears
  // `price_contract` where a candidate imports more than it must.
  void AppendLoadCosts(int t, double load, bool& price_contract);
  // Sets every slot up for the unit DP; false when it does not apply (IT power not
  // proportional to GPUs), a slot has no level, or its cells exceed the budget.
  bool BuildUnitDp(const DecompositionOptions& options, bool& price_contract);
  // The three sides of D(pi) (Evaluate adds them up).
  bool SolveJobSide(const DecompositionPrices& pi, DecompositionPoint& out);
  bool SolveSlotSide(const DecompositionPrices& pi, DecompositionPoint& out);
  // Job j's restrictions into `costs`, the one of `replace`'s slot (if any) replaced by it.
  void ApplyJobRestrictions(int j, const SlotRestriction* replace, EdgeCosts& costs) const;
  bool SolveBatterySide(const DecompositionPrices& pi, DecompositionPoint& out) const;
  // Fills slot t's `table` with the job prices of pi (excluded choices -infinity).
  void FillTable(const DecompositionPrices& pi, int t);

  // ---- The battery inside the slot side (decomposition_battery_slot.cc) ----
  // Per slot: every pattern's load, its net-power domain [b_lo, P], the candidates of its
  // unconstrained minimum (cost at each) and its cost at every SoC-step edge.
  struct BatterySlot {
    int candidates = 0;              // per pattern
    std::vector<double> load_kw;     // per pattern
    std::vector<double> b_lo;        // per pattern: max(-P, -L)
    std::vector<double> cost_lo;     // per pattern: SlotCostUsd(L + b_lo)
    std::vector<double> cand_b;      // patterns x candidates
    std::vector<double> cand_value;  // patterns x candidates: SlotCostUsd(L + b) + wear |b|
    std::vector<int> cand_edge;      // patterns x candidates: the last edge e with b_e <= b
    std::vector<double> edge_cost;   // edges x patterns: SlotCostUsd(L + b_e) (+inf below b_lo)
    // The live patterns (no choice excluded by Restrict), in pattern order, and their edge
    // costs (edges x live; empty while every pattern is live: edge_cost serves). The
    // evaluation skips the others, whose price is +infinity: below the root most are.
    std::vector<int> live;
    std::vector<double> live_edge_cost;
    // Evaluation scratch per live pattern (BatteryPatternPrices): its price, minimiser b*
    // and minimum, kept per slot so that StagePattern reads them back.
    std::vector<double> prices, base, b_star;
    std::vector<int> b_star_edge;  // cand_edge of b*
    const double* LiveEdgeCost() const {
      return live_edge_cost.empty() ? edge_cost.data() : live_edge_cost.data();
    }
  };
  struct BatteryGrid {
    int cells = 0;
    double delta_kwh = 0;  // cell width
    int start_cell = 0, final_cell = 0;
    int d_min = 0, d_max = 0;    // transitions c -> c + d
    std::vector<double> edge_b;  // b at SoC change e delta, e = d_min - 1 .. d_max + 1
    double wear_usd_per_kw = 0;  // wear per kW of |b| over a slot
    std::vector<BatterySlot> slots;
    // Evaluation scratch: per (slot, d) the stage's value, pattern and b; value functions.
    std::vector<double> stage, stage_b, backward, forward, through;
    std::vector<int> stage_pattern;
    bool live_stale = true;  // Restrict changed the exclusions: RefreshBatteryLive
    // Per edge: the cheapest pattern's value at b_e and that pattern; per edge interval
    // [b_e, b_{e+1}): the cheapest unconstrained minimum inside it and its pattern.
    std::vector<double> edge_value, bucket_value;
    std::vector<int> bucket_pattern;
  };
  bool BuildBatterySlot(const DecompositionOptions& options);
  // The slot side as the battery DP over patterns (replaces the per-slot minimum).
  bool SolveBatterySlotSide(const DecompositionPrices& pi, DecompositionPoint& out);
  // Slot t's stage at pi: the prices of its patterns into battery_.prices and, per d, the
  // cheapest (pattern, b) over the SoC interval into the stage arrays.
  void BatteryStage(const DecompositionPrices& pi, int t);
  // Its first part: the live patterns' prices, minimisers b* and minima into the slot's
  // scratch.
  void BatteryPatternPrices(const DecompositionPrices& pi, int t);
  // The live patterns of every slot after Restrict (BatterySlot::live).
  void RefreshBatteryLive();
  // The pattern of a stage's pick (stage_pattern: a pattern, or -1 - e for edge e's
  // cheapest, found again here from slot t's scratch of the last BatteryStage).
  int StagePattern(int t, int pick) const;
  // Live pattern i's value in slot t over transition index di (the stage's scratch at its
  // prices): the cheapest b (returned in `b`) of its SoC interval; +infinity if none.
  double BatteryWindow(int t, size_t i, int di, double rho, double& b) const;
  // For ChoiceBounds: per slot and table entry, the slot side's minimum with a pattern that
  // has the entry, minus its minimum ([t][entry]); needs SolveBatterySlotSide at pi first.
  void BatterySlotChoiceIncrements(const DecompositionPrices& pi,
                                   std::vector<std::vector<double>>& increments);
  // The value of every pattern of slot t at pi (its cost at the best battery candidate,
  // minus its choices' prices) and that candidate's index into Slot::cost.
  void PatternValues(const DecompositionPrices& pi, int t, std::vector<double>& values,
                     std::vector<size_t>& picks);
  explicit DecompositionBound(const ScenarioContext& context)
      : c_(&context), work_(context.num_jobs()) {}

  const ScenarioContext* c_;
  std::vector<JobWorkspace> work_;  // the job side's DP scratch, one per job
  std::vector<Slot> slots_;
  std::vector<EdgeCosts> costs_;
  std::vector<std::vector<int>> level_of_mode_;             // per job (dual.h)
  std::vector<std::vector<SlotRestriction>> restrictions_;  // per job (Restrict)
  std::vector<ProgressRestriction> progress_;               // (Restrict)
  std::vector<std::vector<char>> excluded_;                 // per job (Restrict; may be empty)
  std::vector<double> values_;                              // PatternValues scratch
  std::vector<size_t> picks_;
  int64_t entries_ = 0;
  int64_t unit_dp_cells_ = 0;
  UnitPatternDp unit_dp_;       // the unit DP's scratch
  std::vector<int> dp_choice_;  // its argmin, per active job
  int candidates_ = 1;          // per pattern: 1 without battery, 4 with
  bool battery_copy_ = false;   // the battery's net power is copied (DecompositionPrices::battery)
  BatteryGrid battery_;         // the battery inside the slot side (battery_.cells > 0)
  bool battery_slot_on_ = false;  // the slot side runs battery_'s DP
  // Contract multipliers (ContractStart): how many nu (0 or the slots), whether mu is
  // priced, and the coordinates' units.
  int peak_coords_ = 0;
  bool green_coord_ = false;
  std::vector<double> contract_units_;
  std::vector<char> masks_current_;  // per job: costs_[j] holds its restrictions' masks
};

struct DecompositionOutcome {
  double bound = 0;
  int iterations = 0;
  DecompositionPrices prices;  // at the best bound
  // x-bar of the volume algorithm, per job [(t - release) * (M + 1) + choice]: the
  // average of the two sides' choices, weights summing to 1 per (job, slot).
  std::vector<std::vector<double>> x_bar;
  std::vector<PathSolution> plans;  // the job side's paths at the best bound
  // The volume algorithm's average of the job side's progress (progress_branching.h), per
  // job [(t - release) * (K + 1) + k] for t from release to deadline: the weight of the
  // paths that have done k segments by slot t (empty from other methods).
  std::vector<std::vector<double>> progress_bar;
};

// Offered the job side's paths every kOfferEvery iterations (primal recovery); returns the
// incumbent's cost afterwards, the new target. Repair and local search cost about as much
// as a few dozen iterations on the paper case.
inline constexpr int kOfferEvery = 25;
using OfferPlans = std::function<absl::StatusOr<double>(const std::vector<PathSolution>&)>;

// Raises D from the warm start `pi0` towards `target` (the incumbent's cost) by
// options.method, until RelativeGap(target, bound) <= options.gap, max_iterations or the
// deadline. std::nullopt if a job has no path.
absl::StatusOr<std::optional<DecompositionOutcome>> MaximiseDecompositionDual(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer = {});

// The methods behind it. The volume algorithm (kVolume) and the plain subgradient method
// (kSubgradient: the same Polyak steps along the newest subgradient, no averaging; its
// x-bar is the last point) are in decomposition.cc.
absl::StatusOr<std::optional<DecompositionOutcome>> RunVolumeAlgorithm(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer = {});
// The proximal bundle method (proximal_bundle.h) on the same dual, in
// decomposition_bundle.cc: the battery's prices in units of the battery power, like the
// volume algorithm's; x-bar is the master's convex combination of the oracle's choices.
absl::StatusOr<std::optional<DecompositionOutcome>> RunBundleMethod(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer = {});

// ---- Engine hook (SolveScenario, between the root Lagrangian and branch and bound): when
// the root gap is open and the rule allows it, runs the decomposition warm-started from
// root.multipliers and returns its bound (-infinity when it did not run). The job
// side's paths are repaired into schedules on the way (RepairPlans, local search) and
// replace root.incumbent when cheaper. If the bound closes the gap, root.lower_bound takes
// it and root.status becomes kOptimal, so branch and bound has nothing left to do.
// Otherwise root.lower_bound is left to branch and bound, whose best-first order and node
// bounds build on the Lagrangian root bound (a higher inherited bound would tie its open
// nodes and turn the order into creation order), and the caller applies the decomposition
// bound after it with KeepDecompositionBound. No-op when
// options.decomposition_iterations == 0.
// When the gap stays open and `keep` is not null, it receives the reduced-cost fixings at
// the best prices (decomposition_fixing.h) and, if the gap is at most 5 %, the
// decomposition and those prices, for branch and bound's node bounds.
struct DecompositionRoot {
  std::optional<DecompositionBound> bound;
  DecompositionPrices prices;
  RootFixings fixings;
};
absl::StatusOr<double> TightenByDecomposition(const ScenarioContext& context, Workspaces& work,
                                              const SolveOptions& options, const Deadline& deadline,
                                              SolverLog& log, EngineOutcome& root,
                                              DecompositionRoot* keep = nullptr);

// outcome.lower_bound = max(itself, bound), and kOptimal if that closes the gap.
void KeepDecompositionBound(const SolveOptions& options, double bound, EngineOutcome& outcome);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_H_
