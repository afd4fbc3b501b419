// The dispatch engine: solves one scenario of Table III.
//
// S1, S2 and S5 follow the fixed baseline trajectory (S5 adds the exact battery DP). S3, S4
// and S6 are solved by Lagrangian relaxation of the constraints that couple jobs (per-slot
// GPU capacity and the AIDC load that enters the power balance): per-job shortest paths on
// the checkpoint-state graph in parallel, an exact power-side subproblem, a proximal-bundle
// style multiplier update, and primal recovery by repair, local search and the battery DP.
// The method and its guarantees are described in docs/engine.md.
#ifndef CKPTDP_ENGINE_H_
#define CKPTDP_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/result.h"

namespace ckptdp {

class Communicator;  // ckptdp/communicator.h
class PlanPool;      // ckptdp/plan_pool.h

// How the multipliers of the decomposition dual move (docs/engine.md, "The decomposition
// bound"): Polyak subgradient steps, the volume algorithm, or a proximal bundle method.
enum class DualMethod { kSubgradient = 0, kVolume = 1, kBundle = 2 };

// SolveOptions::repair_overlap = -1 overlaps the root's repairs from this many jobs, where a
// repair takes a sizeable share of an iteration's time (tens of milliseconds and more).
inline constexpr int kRepairOverlapJobs = 512;

// SolveOptions::s3_work_units by default: on the paper case an 8-GPU mode then delivers
// 1.77 units per slot, a 2048-GPU mode 285 (docs/engine.md, "S3's job subproblem").
inline constexpr int kDefaultS3WorkUnits = 2000;

struct SolveOptions {
  double gap = 1e-4;          // stop when (incumbent - bound) / |incumbent| <= gap
  double time_limit_s = 600;  // wall-clock limit; the incumbent is returned with its gap
  int threads = 0;            // worker threads for per-job subproblems (0 = all cores)
  int max_iterations = 400;   // Lagrangian iterations at most
  int stall_iterations = 60;  // stop when the bound has not improved for this many
  int max_nodes = 20000;      // branch-and-bound nodes after the root (0 = no branching)
  int node_iterations = 40;   // Lagrangian iterations per branch-and-bound node
  // S3 (no checkpoints) branches only when asked: nodes after its root, each bounded by the
  // decomposition (0 = the root only). Its Lagrangian node bounds are the knapsacks' LP and
  // do not pay (docs/engine.md, "Branch and bound").
  int s3_max_nodes = 0;
  // S3's job knapsacks count work in this many equal parts of C_j: finer parts tighten the
  // bound and the plans (each slot's work is rounded up for the bound, down for the plans)
  // and cost time in proportion.
  int s3_work_units = kDefaultS3WorkUnits;
  int decomposition_iterations = 1000;  // root Lagrangian-decomposition bound (0 = off)
  // Where the decomposition's slot side is the DP over GPU units (fleets), its budget in
  // (job, level, choice) cells over all slots (docs/engine.md); above it the Lagrangian
  // bound stands. One iteration costs a pass over the cells.
  int64_t decomposition_cells = int64_t{1} << 23;
  int decomposition_node_iterations = 250;  // its volume iterations per branch-and-bound node
  int neighbourhood_stall_rounds = 100;     // neighbourhood search: stop after this many rounds
                                            // per job (at least 100) without improvement (0 = none)
  // How the root decomposition bound's multipliers move (docs/engine.md, "Dual methods").
  DualMethod dual_method = DualMethod::kVolume;
  int reoptimise_every = 0;  // every n-th neighbourhood round re-optimises 2-3 jobs (0 = never)
  // Neighbourhood-search streams run side by side as a portfolio that shares its cheapest
  // schedule in batches (docs/engine.md); the result depends on it, not on `threads`.
  // 0: auto, 2 from 16 jobs, else 1.
  int search_streams = 0;
  // Jobs a neighbourhood round removes at most (0: auto, 3 from 16 jobs without a battery,
  // else 6).
  int neighbourhood_size = 0;
  // S6 and S3 first solve S4 for a schedule and multipliers (docs/engine.md, "Warm
  // starts"): the share of time_limit_s after which S4's neighbourhood search stops. Its
  // Lagrangian phase may run to half the limit, or to this share if it is larger.
  double warm_start_share = 0.5;
  // The root's repair of an iteration's relaxed plans runs beside the next iteration's job
  // DPs (1), or between them (0); -1: from kRepairOverlapJobs jobs. Overlapped, the
  // multiplier step sees a repaired schedule one iteration later; the result still does not
  // depend on `threads` (docs/engine.md, "Primal recovery").
  int repair_overlap = -1;
  int log_level = 1;              // 0 quiet, 1 changes and throttled progress, 2 every iteration
  bool diagnose_capacity = true;  // when no schedule is found, search the binding site limit
  // When the root finds no schedule and none is proven impossible, ask quick solves of
  // copies with fewer GPUs for one (docs/engine.md, "Primal recovery"). Off in those
  // solves themselves.
  bool rescue_with_fewer_gpus = true;
  std::ostream* log = nullptr;  // the solver log (docs/engine.md, "The log")
  // The stop token: once it reads true, the search stops at its next check of the deadline
  // and returns the best schedule so far with status kInterrupted. Set by the CLI's SIGINT
  // and SIGTERM handler (a lock-free atomic, so a signal handler may store to it).
  const std::atomic<bool>* stop = nullptr;
  // The ranks that solve this scenario together (docs/distributed.md), or null: alone. Every
  // rank calls SolveScenario with the same arguments; rank 0's Result is the answer.
  const Communicator* comm = nullptr;
  // Where the solve collects the job plans it meets (ckptdp/plan_pool.h), or null: none are
  // kept. Plans are only added, so one pool may collect over several solves of an instance.
  PlanPool* plan_pool = nullptr;
  // The decomposition's branch and bound (docs/engine.md): branching on progress (1; 2: only
  // where x-bar splits it as evenly as a level) or on levels only (0); -1: 2 where the slot
  // side is the unit DP (fleets), else 0. Reduced-cost fixing at
  // every node (1) or at the root only (0), early branching's window in volume iterations
  // (0 = off), strong-branching candidates among the progress splits (0 = off).
  int progress_branching = -1;
  int node_fixing = 1;
  int early_branching_window = 0;
  int strong_branching_candidates = 0;
  // At the root node of the decomposition's branch and bound: level (and progress) splits
  // tried with a node's iterations on each child before the first branch (0 = off; -1:
  // 4 where the slot side enumerates patterns, else 0).
  int root_strong_branching_candidates = -1;
  // With a battery (S6): the decomposition's slot side also holds the battery as a DP over
  // this many state-of-charge cells (0 = off; docs/engine.md, "The battery inside the slot
  // side"), beside the copy of its net power (battery_slot_copy = 1: first without the DP,
  // which continues where the gap stays open) or instead of it (0).
  int battery_slot_cells = 25;
  int battery_slot_copy = 1;
};

// Each option once: name, meaning, default and valid range. The CLI builds its flags and
// help text from this table, and ValidateSolveOptions checks values against it.
struct SolveOptionSpec {
  std::string name;  // flag name without dashes
  std::string doc;
  double default_value;
  double min_value;
  double max_value;
  bool integer;
  // Non-empty: the option takes one of these names, and its value is the name's index (the
  // range is [0, size - 1]); e.g. --dual-method.
  std::vector<std::string> values;
  std::function<void(SolveOptions&, double)> set;
  std::function<double(const SolveOptions&)> get;
};
const std::vector<SolveOptionSpec>& SolveOptionSpecs();
absl::Status ValidateSolveOptions(const SolveOptions& options);

// Solves `scenario`. A returned Result may have status kInfeasible with a diagnosis; an
// error status means bad input (InvalidArgument) or an internal failure.
absl::StatusOr<Result> SolveScenario(const Instance& instance, Scenario scenario,
                                     const SolveOptions& options);

// A warm start (rolling re-solves, ckptdp/rolling.h): a schedule of this instance, e.g. the
// previous window's plan carried over, offered as the first incumbent of a flexible scenario
// (it is evaluated exactly and ignored if it breaks a site limit). S6 and S3 then start from
// it instead of solving S4 first. Null: a cold solve, as above.
// Starting multipliers (SolverStats's, shifted to this instance's slots) replace the default
// start of the flexible scenarios' Lagrangian when both have one value per slot.
struct WarmStart {
  const Schedule* incumbent = nullptr;
  std::vector<double> lambda_usd_per_kw = {};
  std::vector<double> mu_usd_per_gpu = {};
};
absl::StatusOr<Result> SolveScenario(const Instance& instance, Scenario scenario,
                                     const SolveOptions& options, const WarmStart& warm);

// The same, on every job's modes as BuildAllModes(instance) returns them, for a caller that
// keeps them anyway (the CLI writes the result with them): the solve then holds no second
// copy (on the 4096-job week each copy is about 60 MB). InvalidArgument if `modes` does not
// have one entry per job; modes built otherwise give an undefined result.
absl::StatusOr<Result> SolveScenario(const Instance& instance, const std::vector<JobModes>& modes,
                                     Scenario scenario, const SolveOptions& options,
                                     const WarmStart& warm = {});

}  // namespace ckptdp

#endif  // CKPTDP_ENGINE_H_
