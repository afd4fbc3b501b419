#include "dispatch/internal/branch_and_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "dispatch/internal/distributed.h"
#include "dispatch/internal/distributed_branch_and_bound.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/multiplier_update.h"
#include "dispatch/internal/neighbourhood.h"
#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Strong branching: volume iterations per candidate child. A node takes 250; a few dozen
// rank the candidates (and start the children from a higher bound).
constexpr int kStrongIterations = 20;

using Node = BranchNode;

// The progress range [lo, hi] of (job, slot) at a node; `top` is the job's segments.
std::pair<int, int> ProgressRange(const std::vector<ProgressRestriction>& rs, int job, int slot,
                                  int top) {
  for (const ProgressRestriction& r : rs) {
    if (r.job == job && r.slot == slot) return {r.lo, r.hi};
  }
  return {0, top};
}

std::vector<ProgressRestriction> With(std::vector<ProgressRestriction> rs,
                                      const ProgressRestriction& add) {
  for (ProgressRestriction& r : rs) {
    if (r.job == add.job && r.slot == add.slot) {
      r = add;
      return rs;
    }
  }
  rs.push_back(add);
  return rs;
}

// The level range (lo, hi] of (job, slot) at a node; `top` is the job's highest level.
std::pair<int, int> Range(const std::vector<SlotRestriction>& rs, int job, int slot, int top) {
  for (const SlotRestriction& r : rs) {
    if (r.job == job && r.slot == slot) return {r.lo, r.hi};
  }
  return {-1, top};
}

std::vector<SlotRestriction> With(std::vector<SlotRestriction> rs, const SlotRestriction& add) {
  for (SlotRestriction& r : rs) {
    if (r.job == add.job && r.slot == add.slot) {
      r = add;
      return rs;
    }
  }
  rs.push_back(add);
  return rs;
}

// Level of a job's plan in each slot of its window (0 where it does not train).
std::vector<int> PlanLevels(const ScenarioContext& c, int j, const std::vector<int>& level_of_mode,
                            const std::vector<Run>& runs) {
  const Job& job = c.instance->jobs[j];
  std::vector<int> level(job.deadline_slot - job.release_slot, 0);
  for (const Run& r : runs) {
    const int m = c.graph_mode_of[j][r.mode];
    for (int t = r.start_slot; t < r.end_slot; ++t) level[t - job.release_slot] = level_of_mode[m];
  }
  return level;
}

// --progress-branching -1 (auto): 2 where the decomposition's slot side is the DP over GPU
// units (generated fleets: 8 and 16 jobs end at 0.47 % and 0.45 % in 60 s instead of 0.50 %
// and 0.49 %, docs/benchmarks.md), 0 where it enumerates patterns (the paper case and the small
// instances: there progress splits cost nodes, e.g. paper S6 33 nodes instead of 23).
int EffectiveProgressBranching(const SolveOptions& options,
                               const DecompositionRoot* decomposition) {
  if (options.progress_branching >= 0) return options.progress_branching;
  return decomposition != nullptr && decomposition->bound->unit_dp_cells() > 0 ? 2 : 0;
}

// --root-strong-branching -1 (auto): 4 where the decomposition's slot side enumerates
// patterns (the paper case and the small instances: small_3job_12slot S6 ends its root node
// 1.25 % below the optimum instead of 3.0 %, docs/benchmarks.md), 0 where it is the DP over
// GPU units (fleets, where a node costs a hundred times more; not measured there).
int EffectiveRootStrongBranching(const SolveOptions& options,
                                 const DecompositionRoot* decomposition) {
  if (options.root_strong_branching_candidates >= 0) {
    return options.root_strong_branching_candidates;
  }
  return decomposition != nullptr && decomposition->bound->unit_dp_cells() == 0 ? 4 : 0;
}

class Search {
 public:
  Search(const ScenarioContext& c, Workspaces& work, const SolveOptions& options,
         const Deadline& deadline, SolverLog& log, EngineOutcome& root,
         DecompositionRoot* decomposition)
      : c_(c),
        work_(work),
        options_(options),
        deadline_(deadline),
        log_(log),
        root_(root),
        gap_{options.gap},
        fixings_(decomposition != nullptr ? decomposition->fixings : RootFixings{}),
        decomposition_(decomposition != nullptr && decomposition->bound ? decomposition : nullptr),
        progress_branching_(EffectiveProgressBranching(options, decomposition_)),
        root_strong_branching_(EffectiveRootStrongBranching(options, decomposition_)),
        search_new_incumbents_(options.neighbourhood_stall_rounds > 0 &&
                               c.num_jobs() >= kFleetSearchMinJobs),
        dual_(c, work, ResolveThreads(options.threads)) {}

  absl::Status Run();
  // One node solved, then closed or split (the step of Run and of the distributed search).
  absl::StatusOr<NodeExpansion> Expand(const Node& node);

 private:
  struct NodeResult {
    bool infeasible = false;
    bool out_of_time = false;
    double bound = -kInf;
    Multipliers multipliers;
    // usage[j][(t - release) * (levels + 1) + level]: weight of the relaxed plans' levels.
    std::vector<std::vector<double>> usage;
    std::vector<PathSolution> last_plans;
    DecompositionPrices prices;                     // decomposition bound: the best prices
    std::vector<std::vector<double>> progress_bar;  // its average progress (may be empty)
    // Node fixing: the node's excluded choices with those removed here, and the least bound
    // of the removed ones (infinity: none).
    std::vector<std::vector<char>> excluded;
    double fixed_bound = kInf;
  };
  // A split into two children: on levels, or on progress when `on_progress`. Strong
  // branching may have raised the children's bounds and prices already.
  struct Branch {
    bool found = false;
    SlotRestriction left, right;
    bool on_progress = false;
    ProgressRestriction progress_left, progress_right;
    double score = 0;
    double bound_left = -kInf, bound_right = -kInf;
    std::optional<DecompositionPrices> prices_left, prices_right;
  };

  double Incumbent() const { return root_.incumbent->cost_usd; }
  double Cutoff() const { return gap_.Cutoff(Incumbent()); }
  absl::StatusOr<NodeResult> SolveNode(const Node& node);
  absl::StatusOr<NodeResult> SolveByDecomposition(const Node& node);
  absl::Status OfferPlans(const std::vector<PathSolution>& plans, const Multipliers& prices);
  absl::Status OfferSchedule(Schedule schedule, double* cost);
  Branch ChooseBranch(const Node& node, const NodeResult& result) const;
  static Branch Split(const SlotRestriction& left, const SlotRestriction& right);
  // Sorts the most divided first, keeping the order of ties (so the choice is
  // deterministic), and keeps at most `limit`.
  static void KeepMostDivided(std::vector<Branch>& branches, int limit);
  // Progress splits of x-bar, the most divided first (at most `limit`).
  std::vector<Branch> ProgressCandidates(const Node& node, const NodeResult& result,
                                         int limit) const;
  // The most divided level split of each (job, slot) of x-bar, the most divided first (at
  // most `limit`).
  std::vector<Branch> LevelCandidates(const Node& node, const NodeResult& result, int limit) const;
  // Strong branching: `iterations` volume iterations on both children of each candidate;
  // the one whose weaker child gains most wins (the product rule).
  absl::StatusOr<Branch> StrongBranch(const Node& node, const NodeResult& result,
                                      std::vector<Branch> candidates, int iterations,
                                      bool offer_plans);
  Node Child(const Node& node, const NodeResult& result, const Branch& b, bool left, long id) const;
  // A log row; `progress_point` rows may be shown to show progress, the others only if news.
  void Log(size_t open, double bound, bool progress_point) {
    log_.Offer(
        {"b&b", root_.iterations, root_.nodes, static_cast<int>(open), NAN, bound, Incumbent()}, {},
        progress_point);
  }

  const ScenarioContext& c_;
  Workspaces& work_;
  const SolveOptions& options_;
  const Deadline deadline_;
  SolverLog& log_;
  EngineOutcome& root_;
  const GapTarget gap_;
  const RootFixings fixings_;         // of the root (none without the decomposition)
  DecompositionRoot* decomposition_;  // null: Lagrangian node bounds
  const int progress_branching_;      // options.progress_branching with "auto" resolved
  const int root_strong_branching_;   // options.root_strong_branching_candidates, resolved
  // A node's new incumbent gets a neighbourhood search, on fleets (kFleetSearchMinJobs
  // jobs and more): on the generated 16-job fleet, S4 in 60 s, 0.38 % instead of 0.51 %.
  // Below, on 8 jobs, it found 432.44 at node 2 where the tree found 432.41 later, and
  // the tree then ended lower (0.62-0.64 % instead of 0.46-0.48 %; docs/benchmarks.md).
  const bool search_new_incumbents_;
  DualEvaluator dual_;
  EdgeCosts scratch_;
  JobWorkspace repair_work_;   // the repair's one workspace (repair.h)
  long fixings_at_nodes_ = 0;  // choices removed by node fixing, for the log
};

absl::Status Search::OfferSchedule(Schedule schedule, double* cost) {
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c_, std::move(schedule)));
  if (cost != nullptr) *cost = e.feasible ? e.cost_usd : kInf;
  if (!e.feasible || e.cost_usd >= Incumbent()) return absl::OkStatus();
  CKPTDP_RETURN_IF_ERROR(
      ImproveByLocalSearch(c_, work_, e, deadline_, ResolveThreads(options_.threads)));
  if (e.cost_usd >= Incumbent()) return absl::OkStatus();
  if (search_new_incumbents_) {
    // Its neighbourhood, as the root's search explores the root's incumbent. Serial and
    // seeded by the node count, so the result does not depend on the thread count.
    NeighbourhoodOptions lns;
    lns.max_removed =
        ResolveNeighbourhoodSize(options_.neighbourhood_size, c_.num_jobs(), c_.traits.battery);
    lns.stall_rounds = std::max(100, options_.neighbourhood_stall_rounds * c_.num_jobs());
    lns.seed = static_cast<std::uint64_t>(root_.nodes) + 1;
    const double bound = root_.lower_bound;
    const auto good_enough = [&](double cost) { return gap_.Closed(cost, bound); };
    CKPTDP_RETURN_IF_ERROR(
        ImproveByNeighbourhoodSearch(c_, work_, e, root_.multipliers, lns, deadline_, good_enough)
            .status());
  }
  root_.incumbent = std::move(e);
  return absl::OkStatus();
}

absl::Status Search::OfferPlans(const std::vector<PathSolution>& plans, const Multipliers& prices) {
  Schedule repaired;
  if (!RepairPlans(c_, repair_work_, plans, prices, deadline_, scratch_, repaired))
    return absl::OkStatus();
  return OfferSchedule(std::move(repaired), nullptr);
}

absl::StatusOr<Search::NodeResult> Search::SolveByDecomposition(const Node& node) {
  NodeResult out;
  out.multipliers = node.multipliers;
  DecompositionBound& d = *decomposition_->bound;
  d.Restrict(node.restrictions, node.progress, node.excluded);
  DecompositionOptions volume;
  volume.max_iterations = options_.decomposition_node_iterations;
  volume.gap = options_.gap;
  volume.early_branching_window = options_.early_branching_window;
  volume.cutoff = Cutoff();
  // On fleets (the unit DP's slot oracle) the node's job-side paths are also repaired
  // every kOfferEvery iterations, as the Lagrangian nodes repair theirs: measured on the
  // generated 8-job fleet, one repair per node left the root's incumbent standing.
  internal::OfferPlans offer;
  if (d.unit_dp_cells() > 0) {
    offer = [&](const std::vector<PathSolution>& plans) -> absl::StatusOr<double> {
      CKPTDP_RETURN_IF_ERROR(OfferPlans(plans, node.multipliers));
      return Incumbent();
    };
  }
  CKPTDP_ASSIGN_OR_RETURN(
      std::optional<DecompositionOutcome> run,
      RunVolumeAlgorithm(d, node.prices, Incumbent(), volume, deadline_, offer));
  if (!run) {
    out.infeasible = true;  // some job has no path, or some slot no pattern, in the node
    return out;
  }
  out.bound = std::max(node.bound, run->bound);
  out.prices = std::move(run->prices);
  out.last_plans = std::move(run->plans);
  out.progress_bar = std::move(run->progress_bar);
  out.excluded = node.excluded;
  // Path-reduced-cost fixing at the node's best prices (decomposition_fixing.h): choices
  // whose bound reaches the cutoff leave the node and its subtree.
  if (options_.node_fixing != 0 && out.bound < Cutoff()) {
    if (const auto bounds = d.ChoiceBounds(out.prices, /*allow_resolves=*/false)) {
      const NodeFixing fixed = ExcludeAboveCutoff(*bounds, Cutoff(), out.excluded);
      out.fixed_bound = fixed.removed_bound;
      fixings_at_nodes_ += fixed.removed;
    }
  }
  // x-bar by level instead of by choice.
  out.usage.resize(c_.num_jobs());
  for (int j = 0; j < c_.num_jobs(); ++j) {
    const std::vector<int>& level = dual_.levels(j);
    const int stride = c_.jobs[j]->num_modes() + 1;
    out.usage[j].assign(run->x_bar[j].size(), 0.0);
    for (size_t i = 0; i < run->x_bar[j].size(); i += stride) {
      out.usage[j][i] = run->x_bar[j][i];
      for (int m = 0; m + 1 < stride; ++m) out.usage[j][i + level[m]] = run->x_bar[j][i + m + 1];
    }
  }
  if (out.bound < Cutoff()) CKPTDP_RETURN_IF_ERROR(OfferPlans(out.last_plans, out.multipliers));
  return out;
}

absl::StatusOr<Search::NodeResult> Search::SolveNode(const Node& node) {
  if (decomposition_ != nullptr) return SolveByDecomposition(node);
  const int jobs = c_.num_jobs();
  NodeResult out;
  out.multipliers = node.multipliers;
  out.usage.resize(jobs);
  for (int j = 0; j < jobs; ++j) {
    const Job& job = c_.instance->jobs[j];
    out.usage[j].assign(
        static_cast<size_t>(job.deadline_slot - job.release_slot) * (c_.jobs[j]->num_modes() + 1),
        0.0);
  }
  Multipliers prices = node.multipliers;
  DeflectedPolyakStep update(NodeStepOptions());
  for (int it = 1; it <= options_.node_iterations; ++it) {
    CKPTDP_ASSIGN_OR_RETURN(const DualEvaluator::Outcome outcome,
                            dual_.Evaluate(prices, node.restrictions, deadline_));
    if (outcome == DualEvaluator::Outcome::kOutOfTime) {
      out.out_of_time = true;
      return out;
    }
    if (outcome == DualEvaluator::Outcome::kJobInfeasible) {
      out.infeasible = true;  // some job has no path within the restrictions
      return out;
    }
    if (update.Observe(dual_.value())) out.multipliers = prices;
    out.bound = std::max(node.bound, update.best());
    out.last_plans = dual_.plans();
    // Later plans are closer to the node's relaxed optimum: weight them more.
    for (int j = 0; j < jobs; ++j) {
      const std::vector<int> level = PlanLevels(c_, j, dual_.levels(j), out.last_plans[j].runs);
      const int stride = c_.jobs[j]->num_modes() + 1;
      for (size_t i = 0; i < level.size(); ++i) out.usage[j][i * stride + level[i]] += it;
    }
    if (out.bound >= Cutoff()) return out;  // pruned
    if (it % 10 == 1) CKPTDP_RETURN_IF_ERROR(OfferPlans(out.last_plans, prices));
    // The relaxed plans fit the shared limits exactly: no step can be taken.
    if (dual_.norm_squared() <= kZeroSubgradientNormSq) break;
    update.Step(dual_, Incumbent(), prices);
  }
  CKPTDP_RETURN_IF_ERROR(OfferPlans(out.last_plans, out.multipliers));
  return out;
}

std::vector<Search::Branch> Search::ProgressCandidates(const Node& node, const NodeResult& result,
                                                       int limit) const {
  std::vector<Branch> out;
  if (progress_branching_ == 0 || result.progress_bar.empty()) return out;
  const Instance& in = *c_.instance;
  for (int j = 0; j < c_.num_jobs(); ++j) {
    const Job& job = in.jobs[j];
    const int width = job.segments + 1;
    if (result.progress_bar[j].size() !=
        static_cast<size_t>(job.deadline_slot - job.release_slot + 1) * width) {
      continue;  // (the DP of this job does not take progress limits)
    }
    for (int t = job.release_slot + 1; t < job.deadline_slot; ++t) {
      const auto [lo, hi] = ProgressRange(node.progress, j, t, job.segments);
      const double* p =
          result.progress_bar[j].data() + static_cast<size_t>(t - job.release_slot) * width;
      double at_least = 0;  // weight of progress >= k
      for (int k = job.segments; k > lo; --k) {
        at_least += p[k];
        if (k > hi) continue;
        Branch b;
        b.found = true;
        b.on_progress = true;
        b.score = std::min(at_least, 1.0 - at_least);
        if (b.score <= 1e-6) continue;
        b.progress_left = {j, t, k, hi};
        b.progress_right = {j, t, lo, k - 1};
        out.push_back(b);
      }
    }
  }
  KeepMostDivided(out, limit);  // ties in (job, slot, k) order
  return out;
}

Node Search::Child(const Node& node, const NodeResult& result, const Branch& b, bool left,
                   long id) const {
  Node child{id,
             result.bound,
             node.restrictions,
             result.multipliers,
             result.prices,
             node.progress,
             result.excluded};
  if (b.on_progress) {
    child.progress = With(node.progress, left ? b.progress_left : b.progress_right);
  } else {
    child.restrictions = With(node.restrictions, left ? b.left : b.right);
  }
  // Strong branching's trial: a valid bound of the child and better prices to start from.
  const double trial = left ? b.bound_left : b.bound_right;
  const auto& prices = left ? b.prices_left : b.prices_right;
  if (trial > child.bound) {
    child.bound = trial;
    if (prices) child.prices = *prices;
  }
  return child;
}

absl::StatusOr<Search::Branch> Search::StrongBranch(const Node& node, const NodeResult& result,
                                                    std::vector<Branch> candidates, int iterations,
                                                    bool offer_plans) {
  DecompositionBound& d = *decomposition_->bound;
  DecompositionOptions trial;
  trial.max_iterations = iterations;
  trial.gap = options_.gap;
  size_t best = 0;
  double best_score = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Branch& b = candidates[i];
    for (bool left : {true, false}) {
      const Node child = Child(node, result, b, left, 0);
      d.Restrict(child.restrictions, child.progress, child.excluded);
      CKPTDP_ASSIGN_OR_RETURN(std::optional<DecompositionOutcome> run,
                              RunVolumeAlgorithm(d, child.prices, Incumbent(), trial, deadline_));
      // No path or pattern left: the child is empty, as good as pruned.
      const double bound = run ? std::max(child.bound, run->bound) : kInf;
      // At the root the children's paths are repaired into schedules as a node's are.
      if (run && offer_plans && bound < Cutoff()) {
        CKPTDP_RETURN_IF_ERROR(OfferPlans(run->plans, result.multipliers));
      }
      (left ? b.bound_left : b.bound_right) = bound;
      if (run && run->bound > child.bound) (left ? b.prices_left : b.prices_right) = run->prices;
    }
    const double gain_left = std::min(b.bound_left, Cutoff()) - result.bound;
    const double gain_right = std::min(b.bound_right, Cutoff()) - result.bound;
    const double score = std::max(gain_left, 1e-9) * std::max(gain_right, 1e-9);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  return std::move(candidates[best]);
}

void Search::KeepMostDivided(std::vector<Branch>& branches, int limit) {
  std::stable_sort(branches.begin(), branches.end(),
                   [](const Branch& a, const Branch& b) { return a.score > b.score; });
  if (static_cast<int>(branches.size()) > limit) branches.resize(limit);
}

Search::Branch Search::Split(const SlotRestriction& left, const SlotRestriction& right) {
  Branch b;
  b.found = true;
  b.left = left;
  b.right = right;
  return b;
}

std::vector<Search::Branch> Search::LevelCandidates(const Node& node, const NodeResult& result,
                                                    int limit) const {
  std::vector<Branch> out;
  const Instance& in = *c_.instance;
  for (int j = 0; j < c_.num_jobs(); ++j) {
    const int top = c_.jobs[j]->num_modes(), stride = top + 1;
    const Job& job = in.jobs[j];
    for (int t = job.release_slot; t < job.deadline_slot; ++t) {
      const auto [lo, hi] = Range(node.restrictions, j, t, top);
      if (hi - lo <= 1) continue;
      const double* w = &result.usage[j][static_cast<size_t>(t - job.release_slot) * stride];
      double total = 0;
      for (int l = 0; l <= top; ++l) total += w[l];
      if (total <= 0) continue;
      Branch best;
      best.score = 1e-6;
      double below = 0;
      for (int l = std::max(0, lo + 1); l < hi; ++l) {
        below += w[l];
        const double score = std::min(below, total - below) / total;
        if (score > best.score) {
          best = Split({j, t, lo, l}, {j, t, l, hi});
          best.score = score;
        }
      }
      if (best.found) out.push_back(best);
    }
  }
  KeepMostDivided(out, limit);  // ties in (job, slot) order
  return out;
}

Search::Branch Search::ChooseBranch(const Node& node, const NodeResult& result) const {
  const Instance& in = *c_.instance;
  Branch b;
  // 0. Decomposition nodes: the most divided progress of x-bar; with progress_branching 2
  // only when it is at least as divided as the most divided level below.
  const std::vector<Branch> progress = ProgressCandidates(node, result, 1);
  if (!progress.empty() && progress_branching_ == 1) return progress.front();
  // 1. The most divided (job, slot) of the averaged relaxed plans.
  const std::vector<Branch> levels = LevelCandidates(node, result, 1);
  if (!levels.empty()) b = levels.front();
  const double best_score = b.found ? b.score : 1e-6;
  if (!progress.empty() && (!b.found || progress.front().score >= best_score)) {
    return progress.front();
  }
  if (b.found) return b;
  // 2. A pair that takes part in a violation of the shared limits by the last plans.
  std::vector<double> aidc(c_.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c_.slots(), 0);
  for (int j = 0; j < c_.num_jobs(); ++j) {
    AddJobLoad(c_, j, result.last_plans[j].runs, +1, aidc, gpus);
  }
  for (int t = 0; t < c_.slots() && !b.found; ++t) {
    if (WithinSiteLimits(in, gpus[t], aidc[t])) continue;
    for (int j = 0; j < c_.num_jobs() && !b.found; ++j) {
      const Job& job = in.jobs[j];
      if (t < job.release_slot || t >= job.deadline_slot) continue;
      const int level =
          PlanLevels(c_, j, dual_.levels(j), result.last_plans[j].runs)[t - job.release_slot];
      const auto [lo, hi] = Range(node.restrictions, j, t, c_.jobs[j]->num_modes());
      if (level == 0 || hi - lo <= 1) continue;
      const int split = level - 1 > lo ? level - 1 : level;  // lo < split < hi
      b = Split({j, t, lo, split}, {j, t, split, hi});
    }
  }
  if (b.found) return b;
  // 3. Any pair with more than one level left.
  for (int j = 0; j < c_.num_jobs() && !b.found; ++j) {
    const Job& job = in.jobs[j];
    for (int t = job.release_slot; t < job.deadline_slot && !b.found; ++t) {
      const auto [lo, hi] = Range(node.restrictions, j, t, c_.jobs[j]->num_modes());
      if (hi - lo <= 1) continue;
      const int split = lo + (hi - lo) / 2;
      b = Split({j, t, lo, split}, {j, t, split, hi});
    }
  }
  return b;  // not found: every level is fixed, the node is a single load profile
}

absl::StatusOr<NodeExpansion> Search::Expand(const Node& node) {
  using Kind = NodeExpansion::Kind;
  CKPTDP_ASSIGN_OR_RETURN(NodeResult result, SolveNode(node));
  NodeExpansion e;
  if (result.out_of_time) {
    e.kind = Kind::kOutOfTime;
    return e;
  }
  if (result.infeasible) {
    e.kind = Kind::kInfeasible;  // no schedule in this node
    return e;
  }
  e.closed = result.fixed_bound;  // the part node fixing removed
  Branch b;
  if (result.bound < Cutoff()) {
    b = ChooseBranch(node, result);
    if (node.id == 0 && decomposition_ != nullptr && root_strong_branching_ > 0 && b.found) {
      // The root: the most divided level splits (and progress splits, where progress
      // branching is on), each child with a node's iterations. Every schedule lies in one
      // child, so the best split's weaker child is a bound of the whole problem.
      std::vector<Branch> candidates = LevelCandidates(node, result, root_strong_branching_);
      for (Branch& p : ProgressCandidates(node, result, root_strong_branching_)) {
        candidates.push_back(std::move(p));
      }
      KeepMostDivided(candidates, root_strong_branching_);  // ties: levels first
      if (!candidates.empty()) {
        CKPTDP_ASSIGN_OR_RETURN(b, StrongBranch(node, result, std::move(candidates),
                                                options_.decomposition_node_iterations,
                                                /*offer_plans=*/true));
      }
    } else if (b.on_progress && options_.strong_branching_candidates > 1) {
      CKPTDP_ASSIGN_OR_RETURN(
          b, StrongBranch(node, result,
                          ProgressCandidates(node, result, options_.strong_branching_candidates),
                          kStrongIterations, /*offer_plans=*/false));
    }
  }
  if (result.bound >= Cutoff()) {
    e.kind = Kind::kClosed;
    e.closed = std::min(e.closed, result.bound);
  } else if (!b.found) {
    // Every (job, slot) level is fixed: the relaxed plans are the node's only load profile.
    Schedule s;
    for (const PathSolution& p : result.last_plans) s.jobs.push_back(p.runs);
    double cost = kInf;
    CKPTDP_RETURN_IF_ERROR(OfferSchedule(std::move(s), &cost));
    e.kind = Kind::kClosed;
    e.closed = std::min(e.closed, cost);
  } else {
    e.kind = Kind::kBranched;
    for (bool left : {true, false}) {
      Node child = Child(node, result, b, left, 0);
      if (child.bound >= Cutoff()) {  // strong branching's trial pruned it already
        e.closed = std::min(e.closed, child.bound);
        continue;
      }
      e.children.push_back(std::move(child));
    }
  }
  return e;
}

absl::Status Search::Run() {
  Node first{0,
             root_.lower_bound,
             fixings_.restrictions,
             root_.multipliers,
             decomposition_ != nullptr ? decomposition_->prices : DecompositionPrices{},
             {},
             {}};
  if (const Communicator* comm = DistributedComm(options_)) {
    return DistributedBestFirst(c_, *comm, options_, deadline_, log_, root_, std::move(first),
                                fixings_.removed_bound,
                                [this](const Node& node) { return Expand(node); });
  }
  // Open nodes by (bound, id): the first is the best bound, ties in creation order.
  std::map<std::pair<double, long>, Node> open;
  open.emplace(std::make_pair(root_.lower_bound, 0L), std::move(first));
  long next_id = 1;
  // Least bound of the nodes closed without being branched, and of the fixed-out part.
  double closed = fixings_.removed_bound;
  auto global_bound = [&] {
    const double lowest_open = open.empty() ? kInf : open.begin()->first.first;
    return std::max(root_.lower_bound, std::min({lowest_open, closed, Incumbent()}));
  };
  bool stopped_by_deadline = false;
  while (!open.empty()) {
    if (gap_.Closed(Incumbent(), global_bound())) break;
    if (root_.nodes >= options_.max_nodes) break;
    if (deadline_.Passed()) {
      stopped_by_deadline = true;
      break;
    }
    Node node = std::move(open.extract(open.begin()).mapped());
    ++root_.nodes;
    CKPTDP_ASSIGN_OR_RETURN(const NodeExpansion e, Expand(node));
    if (e.kind == NodeExpansion::Kind::kOutOfTime) {
      open.emplace(std::make_pair(node.bound, node.id), std::move(node));
      stopped_by_deadline = true;
      break;
    }
    if (e.kind == NodeExpansion::Kind::kInfeasible) continue;  // no schedule in this node
    closed = std::min(closed, e.closed);  // pruned or fixed-out parts of the node
    for (Node& child : ChildrenOf(e, next_id)) {
      open.emplace(std::make_pair(child.bound, child.id), std::move(child));
    }
    Log(open.size(), global_bound(), root_.nodes % 100 == 0);
  }
  root_.lower_bound = global_bound();
  Log(open.size(), root_.lower_bound, true);
  if (fixings_at_nodes_ > 0) {
    log_.Note(absl::StrFormat("node fixing: %d (job, slot, choice) removed below the root",
                              fixings_at_nodes_));
  }
  if (gap_.Closed(Incumbent(), root_.lower_bound)) {
    root_.status = SolveStatus::kOptimal;
  } else if (stopped_by_deadline) {
    root_.status = deadline_.Reason();
  } else if (root_.nodes >= options_.max_nodes) {
    root_.status = SolveStatus::kNodeLimit;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<BranchNode> ChildrenOf(const NodeExpansion& expansion, long& next_id) {
  std::vector<BranchNode> children;
  if (expansion.kind != NodeExpansion::Kind::kBranched) return children;
  for (const BranchNode& child : expansion.children) {
    children.push_back(child);
    children.back().id = next_id++;
  }
  return children;
}

absl::Status BranchAndBound(const ScenarioContext& context, Workspaces& work,
                            const SolveOptions& options, const Deadline& deadline, SolverLog& log,
                            EngineOutcome& root, DecompositionRoot* decomposition) {
  // Distributed: every rank searches from rank 0's root (its bound and incumbent).
  if (const Communicator* comm = DistributedComm(options)) {
    CKPTDP_RETURN_IF_ERROR(AgreeOnRoot(context, *comm, root));
  }
  if (!root.incumbent || root.multipliers.empty() || options.max_nodes <= 0) {
    return absl::OkStatus();
  }
  if (GapTarget{options.gap}.Closed(root.incumbent->cost_usd, root.lower_bound)) {
    return absl::OkStatus();
  }
  Search search(context, work, options, deadline, log, root, decomposition);
  return search.Run();
}

}  // namespace ckptdp::internal
