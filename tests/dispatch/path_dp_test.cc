// The fast per-job DP (PathSolver) against an independent oracle: Boost.Graph's
// r_c_shortest_paths on the explicit checkpoint-state graph (ReferenceShortestPath), and, on
// the smallest graphs, against exhaustive enumeration of every path (which checks the
// oracle's dominance rule too).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/path_dp.h"
#include "dispatch/internal/path_dp_backward.h"
#include "dispatch/internal/progress_branching.h"
#include "support/edge_by_edge_resource_dp.h"
#include "support/reference_path.h"

namespace ckptdp::internal {
namespace {

constexpr double kTol = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Job limits and scenario switches of one test graph.
struct JobSpec {
  int slots = 12;  // T
  int release = 0;
  int deadline = 12;
  int segments = 3;                       // K
  std::vector<double> slots_per_segment;  // one mode each: l(m, dk) = ceil(dk * this)
  bool allow_wait = true;
  bool boundary_idle = false;
  int min_run_slots = 1;
  int max_pauses = -1;
  int max_segments_per_run = 0;
  // Restarts (docs/model.md): minutes in 60-minute slots, and the initial run.
  double resume_minutes = 0;
  double reshard_minutes = 0;
  int initial_mode = -1;  // feasible index of the layout running at slot 0 (-1: none)
  double initial_fraction = 0;
  bool initial_pruned = false;  // the initial layout is not an effective mode
};

// An instance with one job and hand-made modes: a mode's throughput is chosen so that one
// segment takes exactly `slots_per_segment` one-hour slots, which pins the durations table.
struct Fixture {
  Instance instance;
  JobModes modes;

  explicit Fixture(const JobSpec& spec) {
    instance.time.step_minutes = 60;
    instance.time.slots = spec.slots;
    Job job;
    job.name = "job";
    job.release_slot = spec.release;
    job.deadline_slot = spec.deadline;
    job.segments = spec.segments;
    job.boundary_idle_allowed = spec.boundary_idle;
    job.min_run_slots = spec.min_run_slots;
    job.max_pauses = spec.max_pauses;
    job.max_segments_per_run = spec.max_segments_per_run;
    job.resume_minutes = spec.resume_minutes;
    job.reshard_minutes = spec.reshard_minutes;
    if (spec.initial_mode >= 0) {
      job.initial = InitialRun{ParallelLayout{}, spec.initial_fraction};
      modes.initial = spec.initial_mode;
    }
    instance.jobs.push_back(job);

    const double step_s = 3600.0;
    modes.workload.segments = spec.segments;
    modes.workload.segment_flops = 1e12 * step_s;
    for (size_t i = 0; i < spec.slots_per_segment.size(); ++i) {
      Mode m;
      m.gpus = 8 * static_cast<int>(i + 1);
      m.it_power_kw = 3.2 * static_cast<double>(i + 1);
      m.throughput_flops = modes.workload.segment_flops / (spec.slots_per_segment[i] * step_s);
      m.effective = !(spec.initial_pruned && static_cast<int>(i) == spec.initial_mode && i > 0);
      m.baseline = i == 0;
      modes.feasible.push_back(m);
      if (m.effective) modes.effective.push_back(static_cast<int>(i));
    }
    modes.baseline = 0;
  }

  CheckpointGraph Graph(bool allow_wait) const {
    GraphOptions options;
    options.allow_wait = allow_wait;
    return CheckpointGraph(instance, 0, modes, options);
  }
};

// Costs from per-slot values (prefix sums), nothing blocked.
EdgeCosts CostsFromSlots(const std::vector<std::vector<double>>& slot_costs) {
  EdgeCosts costs;
  costs.Resize(static_cast<int>(slot_costs.size()), static_cast<int>(slot_costs[0].size()));
  for (int m = 0; m < costs.modes; ++m) {
    double* row = costs.PrefixRow(m);
    for (int t = 0; t < costs.slots; ++t) row[t + 1] = row[t] + slot_costs[m][t];
  }
  return costs;
}

// Marks slots in which a mode does not fit; builds next_blocked as the engine defines it.
void SetBlocked(EdgeCosts& costs, const std::vector<std::vector<bool>>& blocked) {
  costs.next_blocked.assign(static_cast<size_t>(costs.modes) * (costs.slots + 1), costs.slots);
  for (int m = 0; m < costs.modes; ++m) {
    int* row = costs.next_blocked.data() + static_cast<size_t>(m) * (costs.slots + 1);
    for (int t = costs.slots - 1; t >= 0; --t) row[t] = blocked[m][t] ? t : row[t + 1];
  }
}

int GraphModeOf(const CheckpointGraph& g, int feasible_index) {
  for (int m = 0; m < g.num_modes(); ++m) {
    if (g.feasible_index(m) == feasible_index) return m;
  }
  return -1;
}

// Checks a feasible solution against the rules directly on its runs: contiguous segments,
// durations from the table, nothing blocked, waits only where allowed, every block at least
// min_run_slots long, at most max_pauses pauses, and the cost recomputed from the prefix sums.
void RequireValidPath(const CheckpointGraph& g, const EdgeCosts& costs, const PathSolution& s) {
  REQUIRE(s.feasible);
  REQUIRE(!s.runs.empty());
  REQUIRE(s.runs.front().from_segment == 0);
  REQUIRE(s.runs.back().to_segment == g.segments());
  double cost = 0;
  int pauses = 0;
  int block_start = s.runs.front().start_slot;
  if (s.runs.front().start_slot > g.release()) REQUIRE(g.allow_wait());
  for (size_t i = 0; i < s.runs.size(); ++i) {
    const Run& r = s.runs[i];
    INFO("run " << i << ": slots [" << r.start_slot << ", " << r.end_slot << "), segments "
                << r.from_segment << " -> " << r.to_segment << ", mode " << r.mode);
    const int m = GraphModeOf(g, r.mode);
    REQUIRE(m >= 0);
    const int dk = r.to_segment - r.from_segment;
    REQUIRE(dk >= 1);
    REQUIRE(dk <= g.max_dk());
    REQUIRE(r.start_slot >= g.release());
    REQUIRE(r.end_slot <= g.deadline());
    // Restarts, from the rules (docs/model.md): what this run must pay at its start.
    const int prev_mode = i > 0 ? GraphModeOf(g, s.runs[i - 1].mode) : g.initial_mode();
    const bool running =
        i > 0 ? s.runs[i - 1].end_slot == r.start_slot : g.initial_mode() >= 0 && r.start_slot == 0;
    const bool first_layout_unknown = i == 0 && g.initial_mode() < 0;
    const bool continues_initial = i == 0 && running && m == g.initial_mode();
    REQUIRE(r.continues_initial == continues_initial);
    Overhead o = Overhead::kNone;
    if (g.has_restarts() && !(running && m == prev_mode)) {
      const bool new_layout =
          !first_layout_unknown && (m != prev_mode || (i == 0 && g.initial_outside()));
      o = new_layout ? Overhead::kRestart : Overhead::kResume;
      REQUIRE_FALSE(g.initial_only(m));
    }
    REQUIRE(r.overhead_minutes == g.OverheadMinutes(o));
    REQUIRE(r.end_slot - r.start_slot ==
            (continues_initial ? g.initial_duration(dk) : g.duration(m, dk, o)));
    REQUIRE(costs.Allowed(m, r.start_slot, r.end_slot));
    cost += costs.Cost(m, r.start_slot, r.end_slot);
    if (i > 0) {
      const Run& prev = s.runs[i - 1];
      REQUIRE(r.from_segment == prev.to_segment);
      REQUIRE(r.start_slot >= prev.end_slot);
      if (r.start_slot > prev.end_slot) {  // a pause between two blocks
        REQUIRE(g.allow_wait());
        REQUIRE(prev.end_slot - block_start >= g.min_run_slots());
        ++pauses;
        block_start = r.start_slot;
      }
    }
  }
  // Slots where branch and bound forbids waiting are covered by a run.
  for (int t = g.release(); t < g.deadline(); ++t) {
    if (costs.WaitAllowed(t)) continue;
    INFO("slot " << t << " must be trained through");
    REQUIRE(std::any_of(s.runs.begin(), s.runs.end(),
                        [t](const Run& r) { return r.start_slot <= t && t < r.end_slot; }));
  }
  const Run& last = s.runs.back();
  REQUIRE(last.end_slot - block_start >= g.min_run_slots());
  if (last.end_slot < g.deadline()) REQUIRE(g.boundary_idle_allowed());
  if (g.max_pauses() >= 0) REQUIRE(pauses <= g.max_pauses());
  REQUIRE(cost == Approx(s.cost).margin(kTol));
}

// Exhaustive search over every path, written from the rules: exponential, tiny graphs only.
class BruteForce {
 public:
  BruteForce(const CheckpointGraph& g, const EdgeCosts& costs) : g_(g), costs_(costs) {}

  double Solve() {
    best_ = kInf;
    last_mode_ = g_.initial_mode();
    fresh_ = true;
    Visit(g_.release(), 0, /*block=*/0, /*pauses=*/0, 0.0);
    return best_;
  }

 private:
  // block > 0: the last edge was a train edge and the current block has lasted `block` slots.
  // last_mode_ and fresh_ carry the restart state along the current path.
  void Visit(int t, int k, int block, int pauses, double cost) {
    const int K = g_.segments();
    if (!InProgressLimits(t, k)) return;
    if (t == g_.deadline()) {
      if (k == K && (block == 0 || block >= g_.min_run_slots())) best_ = std::min(best_, cost);
      return;
    }
    const int saved_mode = last_mode_;
    const bool saved_fresh = fresh_;
    const bool can_wait = k < K ? g_.allow_wait() : g_.boundary_idle_allowed();
    if (can_wait && costs_.WaitAllowed(t) && (block == 0 || block >= g_.min_run_slots())) {
      const bool pause = block > 0 && k < K;
      if (!pause || g_.max_pauses() < 0 || pauses < g_.max_pauses()) {
        fresh_ = false;
        Visit(t + 1, k, 0, pauses + (pause ? 1 : 0), cost);
        fresh_ = saved_fresh;
      }
    }
    for (int m = 0; m < g_.num_modes(); ++m) {
      for (int dk = 1; dk <= std::min(g_.max_dk(), K - k); ++dk) {
        // The class this edge pays: running on in the same layout is free; the initial run
        // goes on from slot 0 with less work; otherwise resume, plus reshard on a new layout.
        int duration = 0;
        const bool running = block > 0 || (saved_fresh && g_.initial_mode() >= 0);
        if (!g_.has_restarts()) {
          duration = g_.duration(m, dk);
        } else if (saved_fresh && m == g_.initial_mode()) {
          duration = g_.initial_duration(dk);
        } else if (running && m == saved_mode) {
          duration = g_.duration(m, dk, Overhead::kNone);
        } else if (g_.initial_only(m)) {
          continue;
        } else if (saved_mode == m || (saved_mode < 0 && !g_.initial_outside())) {
          duration = g_.duration(m, dk, Overhead::kResume);
        } else {
          duration = g_.duration(m, dk, Overhead::kRestart);
        }
        const int end = t + duration;
        if (end > g_.deadline() || !costs_.Allowed(m, t, end)) continue;
        bool inside = true;  // the progress inside a train edge is the segment it started from
        for (int s = t + 1; s < end; ++s) inside = inside && InProgressLimits(s, k);
        if (!inside) continue;
        last_mode_ = m;
        fresh_ = false;
        Visit(end, k + dk, block + (end - t), pauses, cost + costs_.Cost(m, t, end));
        last_mode_ = saved_mode;
        fresh_ = saved_fresh;
      }
    }
  }

  // Branch and bound's progress limits: segments done by the start of slot t.
  bool InProgressLimits(int t, int k) const {
    return !costs_.HasProgressLimits() ||
           (costs_.progress_lo[t] <= k && k <= costs_.progress_hi[t]);
  }

  int last_mode_ = -1;
  bool fresh_ = true;
  const CheckpointGraph& g_;
  const EdgeCosts& costs_;
  double best_ = kInf;
};

// Portable pseudo-random helpers (std::uniform_*_distribution differ between libraries).
int Uniform(std::mt19937& rng, int lo, int hi) {
  return lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
}
bool Chance(std::mt19937& rng, int percent) { return Uniform(rng, 0, 99) < percent; }

struct RandomCase {
  JobSpec spec;
  std::vector<std::vector<double>> slot_costs;
  std::vector<std::vector<bool>> blocked;  // empty: nothing blocked
  std::vector<char> wait_forbidden;        // empty: waiting allowed everywhere
};

// A small random job. `side_resources` draws min_run_slots in 1..3 and max_pauses in -1..2;
// otherwise both are off (the DP's plain path).
// `restarts` draws resume and reshard overheads and, half of the time, an initial run.
RandomCase MakeRandomCase(uint32_t seed, bool side_resources, int max_window,
                          bool restarts = false) {
  std::mt19937 rng(seed);
  RandomCase c;
  JobSpec& s = c.spec;
  const int window = Uniform(rng, 6, max_window);
  s.release = Uniform(rng, 0, 2);
  s.deadline = s.release + window;
  s.slots = s.deadline + Uniform(rng, 0, 2);
  s.segments = Uniform(rng, 2, 5);
  static const double kSlotsPerSegment[] = {0.5, 1.0 / 3, 0.75, 1.0, 1.25, 1.5, 2.0};
  const int num_modes = Uniform(rng, 1, 4);
  for (int m = 0; m < num_modes; ++m) s.slots_per_segment.push_back(kSlotsPerSegment[rng() % 7]);
  s.allow_wait = Chance(rng, 70);
  s.boundary_idle = Chance(rng, 50);
  s.max_segments_per_run = Chance(rng, 30) ? Uniform(rng, 1, 3) : 0;
  if (side_resources) {
    s.min_run_slots = Uniform(rng, 1, 3);
    s.max_pauses = Uniform(rng, -1, 2);
  }
  if (restarts) {
    static const double kResume[] = {0, 15, 20, 45, 60, 90};
    static const double kReshard[] = {0, 0, 10, 30, 60};
    static const double kFraction[] = {0, 0.25, 0.5, 0.9};
    s.resume_minutes = kResume[rng() % 6];
    s.reshard_minutes = kReshard[rng() % 5];
    if (Chance(rng, 50)) {
      s.release = 0;  // a job running at slot 0 is released at 0
      s.deadline = window;
      s.initial_mode = Uniform(rng, 0, num_modes - 1);
      s.initial_fraction = kFraction[rng() % 4];
      s.initial_pruned = Chance(rng, 40);
    } else if (s.resume_minutes == 0 && s.reshard_minutes == 0) {
      s.resume_minutes = 30;
    }
  }
  // Integer costs half of the time: many equal-cost paths, so tie-breaking cannot hide
  // behind distinct costs; otherwise real costs of both signs.
  const bool integral = Chance(rng, 50);
  c.slot_costs.assign(num_modes, std::vector<double>(s.slots));
  for (auto& row : c.slot_costs) {
    for (double& v : row) {
      v = integral ? Uniform(rng, -3, 3) : Uniform(rng, -1000, 1000) / 137.0;
    }
  }
  if (Chance(rng, 40)) {
    const int percent = Uniform(rng, 5, 25);
    c.blocked.assign(num_modes, std::vector<bool>(s.slots, false));
    for (auto& row : c.blocked) {
      for (int t = 0; t < s.slots; ++t) row[t] = Chance(rng, percent);
    }
  }
  // Branch and bound's "must train in slot t".
  if (Chance(rng, 25)) {
    c.wait_forbidden.assign(s.slots, 0);
    for (char& f : c.wait_forbidden) f = Chance(rng, 15) ? 1 : 0;
  }
  return c;
}

// The edge costs of a random case: its slot costs, blocked modes and forbidden waits.
EdgeCosts CaseCosts(const RandomCase& c) {
  EdgeCosts costs = CostsFromSlots(c.slot_costs);
  if (!c.blocked.empty()) SetBlocked(costs, c.blocked);
  costs.wait_forbidden = c.wait_forbidden;
  return costs;
}

std::string Describe(uint32_t seed, const JobSpec& s) {
  std::string out = "seed " + std::to_string(seed) + ": T=" + std::to_string(s.slots) +
                    " window=[" + std::to_string(s.release) + "," + std::to_string(s.deadline) +
                    ") K=" + std::to_string(s.segments) + " slots/segment={";
  for (double x : s.slots_per_segment) out += std::to_string(x) + " ";
  out += "} wait=" + std::to_string(s.allow_wait) + " idle=" + std::to_string(s.boundary_idle) +
         " min_run=" + std::to_string(s.min_run_slots) +
         " max_pauses=" + std::to_string(s.max_pauses) +
         " max_dk=" + std::to_string(s.max_segments_per_run) +
         " resume=" + std::to_string(s.resume_minutes) +
         " reshard=" + std::to_string(s.reshard_minutes) +
         " initial=" + std::to_string(s.initial_mode) + "@" + std::to_string(s.initial_fraction) +
         (s.initial_pruned ? " pruned" : "");
  return out;
}

struct CompareStats {
  int cases = 0;
  int feasible = 0;
};

// Solves one random case with the DP and the oracle and requires that they agree.
void CompareOnCase(uint32_t seed, bool side_resources, int max_window, bool brute_force,
                   PathSolver& solver, CompareStats& stats, bool restarts = false) {
  const RandomCase c = MakeRandomCase(seed, side_resources, max_window, restarts);
  INFO(Describe(seed, c.spec));
  const Fixture fixture(c.spec);
  const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
  EdgeCosts costs = CaseCosts(c);

  const PathSolution dp = solver.Solve(g, costs);
  const PathSolution ref = ReferenceShortestPath(g, costs);
  ++stats.cases;
  REQUIRE(dp.feasible == ref.feasible);
  if (brute_force) {
    const double exhaustive = BruteForce(g, costs).Solve();
    REQUIRE(ref.feasible == (exhaustive < kInf));
    if (ref.feasible) REQUIRE(ref.cost == Approx(exhaustive).margin(kTol));
  }
  if (!dp.feasible) {
    REQUIRE(dp.runs.empty());
    REQUIRE(ref.runs.empty());
    return;
  }
  ++stats.feasible;
  REQUIRE(dp.cost == Approx(ref.cost).margin(kTol));
  {
    INFO("DP path");
    RequireValidPath(g, costs, dp);
  }
  {
    INFO("reference path");
    RequireValidPath(g, costs, ref);
  }
}

TEST_CASE("DP matches the r_c_shortest_paths oracle without side resources", "[path]") {
  PathSolver solver;  // one workspace for all cases: reuse across graph sizes is tested too
  CompareStats stats;
  for (uint32_t seed = 1; seed <= 600; ++seed) {
    CompareOnCase(seed, /*side_resources=*/false, /*max_window=*/16, /*brute_force=*/false, solver,
                  stats);
  }
  // Guard against a generator that only makes infeasible graphs (a vacuous comparison).
  CHECK(stats.feasible * 4 >= stats.cases);
}

TEST_CASE("DP matches the r_c_shortest_paths oracle with min run length and pauses", "[path]") {
  PathSolver solver;
  CompareStats stats;
  for (uint32_t seed = 1001; seed <= 2200; ++seed) {
    CompareOnCase(seed, /*side_resources=*/true, /*max_window=*/16, /*brute_force=*/false, solver,
                  stats);
  }
  CHECK(stats.feasible * 4 >= stats.cases);
}

TEST_CASE("Oracle and DP match exhaustive enumeration on tiny graphs", "[path]") {
  PathSolver solver;
  CompareStats stats;
  for (uint32_t seed = 5001; seed <= 5400; ++seed) {
    CompareOnCase(seed, /*side_resources=*/seed % 4 != 0, /*max_window=*/9,
                  /*brute_force=*/true, solver, stats);
  }
  CHECK(stats.feasible * 4 >= stats.cases);
}

TEST_CASE("DP matches the r_c_shortest_paths oracle with restart overheads", "[path]") {
  PathSolver solver;
  CompareStats stats;
  for (uint32_t seed = 7001; seed <= 7800; ++seed) {
    CompareOnCase(seed, /*side_resources=*/false, /*max_window=*/16, /*brute_force=*/false, solver,
                  stats, /*restarts=*/true);
  }
  CHECK(stats.feasible * 4 >= stats.cases);
}

TEST_CASE("Oracle and DP with restarts match exhaustive enumeration on tiny graphs", "[path]") {
  PathSolver solver;
  CompareStats stats;
  for (uint32_t seed = 9001; seed <= 9400; ++seed) {
    CompareOnCase(seed, /*side_resources=*/false, /*max_window=*/9, /*brute_force=*/true, solver,
                  stats, /*restarts=*/true);
  }
  CHECK(stats.feasible * 4 >= stats.cases);
}

TEST_CASE("Oracle is deterministic", "[path]") {
  const RandomCase c = MakeRandomCase(77, /*side_resources=*/true, 16);
  const Fixture fixture(c.spec);
  const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
  const EdgeCosts costs = CostsFromSlots(c.slot_costs);
  const PathSolution a = ReferenceShortestPath(g, costs);
  const PathSolution b = ReferenceShortestPath(g, costs);
  REQUIRE(a.feasible == b.feasible);
  REQUIRE(a.cost == b.cost);
  REQUIRE(a.runs == b.runs);
}

// One mode, one segment per edge, no waiting and no boundary idle: the only path trains
// segment after segment from release to deadline.
TEST_CASE("Single forced path is found by both solvers", "[path]") {
  JobSpec spec;
  spec.slots = 8;
  spec.release = 2;
  spec.deadline = 8;
  spec.segments = 3;
  spec.slots_per_segment = {2.0};
  spec.max_segments_per_run = 1;
  const Fixture fixture(spec);
  const CheckpointGraph g = fixture.Graph(/*allow_wait=*/false);
  REQUIRE(g.Reachable());
  REQUIRE(g.duration(0, 1) == 2);
  const EdgeCosts costs = CostsFromSlots({{9, 9, 1.5, -2, 0.25, 4, -1, 3}});
  const std::vector<Run> expected = {{2, 4, 0, 1, 0, 0}, {4, 6, 1, 2, 0, 0}, {6, 8, 2, 3, 0, 0}};
  PathSolver solver;
  for (const PathSolution& s : {solver.Solve(g, costs), ReferenceShortestPath(g, costs)}) {
    REQUIRE(s.feasible);
    REQUIRE(s.cost == Approx(1.5 - 2 + 0.25 + 4 - 1 + 3).margin(kTol));
    REQUIRE(s.runs == expected);
  }
}

// One mode, one slot per segment, K = 2 in a 4-slot window with slot costs {5, -1, 3, -2}.
// Hand-computed optima for each combination of limits.
TEST_CASE("Hand-computed optima with waits, pauses and minimum run length", "[path]") {
  struct Expect {
    int min_run_slots;
    int max_pauses;
    bool boundary_idle;
    double cost;
    std::vector<Run> runs;
  };
  const std::vector<Expect> cases = {
      // Train in slots 1 and 3, pausing in slot 2.
      {1, -1, false, -3, {{1, 2, 0, 1, 0, 0}, {3, 4, 1, 2, 0, 0}}},
      {1, 1, false, -3, {{1, 2, 0, 1, 0, 0}, {3, 4, 1, 2, 0, 0}}},
      // No pause and no boundary idle: one block ending at the deadline, slots 2-3.
      {1, 0, false, 1, {{2, 3, 0, 1, 0, 0}, {3, 4, 1, 2, 0, 0}}},
      // With boundary idle the block may also be slots 1-2 (cost 2): 2-3 is still cheaper.
      {1, 0, true, 1, {{2, 3, 0, 1, 0, 0}, {3, 4, 1, 2, 0, 0}}},
      // Blocks of >= 2 slots: the two slots must be consecutive.
      {2, -1, false, 1, {{2, 3, 0, 1, 0, 0}, {3, 4, 1, 2, 0, 0}}},
  };
  for (const Expect& e : cases) {
    INFO("min_run " << e.min_run_slots << " max_pauses " << e.max_pauses << " idle "
                    << e.boundary_idle);
    JobSpec spec;
    spec.slots = 4;
    spec.deadline = 4;
    spec.segments = 2;
    spec.slots_per_segment = {1.0};
    spec.max_segments_per_run = 1;
    spec.min_run_slots = e.min_run_slots;
    spec.max_pauses = e.max_pauses;
    spec.boundary_idle = e.boundary_idle;
    const Fixture fixture(spec);
    const CheckpointGraph g = fixture.Graph(/*allow_wait=*/true);
    const EdgeCosts costs = CostsFromSlots({{5, -1, 3, -2}});
    PathSolver solver;
    for (const PathSolution& s : {solver.Solve(g, costs), ReferenceShortestPath(g, costs)}) {
      REQUIRE(s.feasible);
      REQUIRE(s.cost == Approx(e.cost).margin(kTol));
      REQUIRE(s.runs == e.runs);
    }
  }
}

TEST_CASE("Deadline too close is infeasible in both solvers", "[path]") {
  JobSpec spec;
  spec.slots = 10;
  spec.release = 3;
  spec.deadline = 5;  // two slots for three one-slot segments
  spec.segments = 3;
  spec.slots_per_segment = {1.0};
  const Fixture fixture(spec);
  const CheckpointGraph g = fixture.Graph(/*allow_wait=*/true);
  REQUIRE_FALSE(g.Reachable());
  const EdgeCosts costs = CostsFromSlots({std::vector<double>(10, -1.0)});
  PathSolver solver;
  const PathSolution dp = solver.Solve(g, costs);
  const PathSolution ref = ReferenceShortestPath(g, costs);
  REQUIRE_FALSE(dp.feasible);
  REQUIRE_FALSE(ref.feasible);
  REQUIRE(dp.runs.empty());
  REQUIRE(ref.runs.empty());
}

TEST_CASE("Side limits and blocked slots can make a reachable sink infeasible", "[path]") {
  JobSpec spec;
  spec.slots = 6;
  spec.deadline = 6;
  spec.segments = 2;
  spec.slots_per_segment = {1.0};
  spec.max_segments_per_run = 1;
  PathSolver solver;

  SECTION("minimum run longer than the whole job") {
    spec.min_run_slots = 3;  // two one-slot segments make a block of at most 2 slots
    const Fixture fixture(spec);
    const CheckpointGraph g = fixture.Graph(/*allow_wait=*/true);
    REQUIRE(g.Reachable());
    const EdgeCosts costs = CostsFromSlots({std::vector<double>(6, 1.0)});
    REQUIRE_FALSE(solver.Solve(g, costs).feasible);
    REQUIRE_FALSE(ReferenceShortestPath(g, costs).feasible);
  }
  SECTION("a blocked slot forces a pause that is not allowed") {
    spec.max_pauses = 0;
    const Fixture fixture(spec);
    const CheckpointGraph g = fixture.Graph(/*allow_wait=*/true);
    EdgeCosts costs = CostsFromSlots({std::vector<double>(6, 1.0)});
    // No boundary idle: the last segment ends in slot 5, slot 4 is blocked, so slots 3 and 5
    // with a pause in between is the only way.
    SetBlocked(costs, {{false, false, false, false, true, false}});
    REQUIRE_FALSE(solver.Solve(g, costs).feasible);
    REQUIRE_FALSE(ReferenceShortestPath(g, costs).feasible);
    SECTION("and one pause makes it feasible") {
      spec.max_pauses = 1;
      const Fixture fixture1(spec);
      const CheckpointGraph g1 = fixture1.Graph(/*allow_wait=*/true);
      const PathSolution dp = solver.Solve(g1, costs);
      const PathSolution ref = ReferenceShortestPath(g1, costs);
      REQUIRE(dp.feasible);
      REQUIRE(ref.feasible);
      REQUIRE(dp.cost == Approx(2.0).margin(kTol));
      REQUIRE(ref.cost == Approx(2.0).margin(kTol));
      RequireValidPath(g1, costs, dp);
      RequireValidPath(g1, costs, ref);
    }
  }
}

// ---- Progress limits (progress_branching.h) and backward values (path_dp_backward.h) --

// Random progress limits on one to three slots of the window: [lo, hi] within 0..K.
void AddRandomProgressLimits(std::mt19937& rng, const JobSpec& spec, EdgeCosts& costs) {
  costs.progress_lo.assign(costs.slots + 1, 0);
  costs.progress_hi.assign(costs.slots + 1, spec.segments);
  for (int i = Uniform(rng, 1, 3); i > 0; --i) {
    const int t = Uniform(rng, spec.release + 1, spec.deadline - 1);
    const int k = Uniform(rng, 0, spec.segments);
    if (Chance(rng, 50)) {
      costs.progress_lo[t] = std::max(costs.progress_lo[t], k);  // "at least k by t"
    } else {
      costs.progress_hi[t] = std::min(costs.progress_hi[t], k);  // "at most k by t"
    }
  }
}

// The progress of a path at slot t, from its runs: the segment it has checkpointed by then.
int ProgressAt(const PathSolution& path, int t) {
  int done = 0;
  for (const Run& r : path.runs) {
    if (t <= r.start_slot) return done;
    if (t < r.end_slot) return r.from_segment;
    done = r.to_segment;
  }
  return done;
}

TEST_CASE("Progress limits: the DP agrees with exhaustive enumeration on tiny graphs",
          "[path][progress]") {
  PathSolver solver;
  int cases = 0, feasible = 0, restricted = 0;
  for (uint32_t seed = 13001; seed <= 13400; ++seed) {
    const bool side_resources = seed % 2 == 0;
    const RandomCase c = MakeRandomCase(seed, side_resources, 8);
    INFO(Describe(seed, c.spec));
    const Fixture fixture(c.spec);
    const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
    EdgeCosts costs = CaseCosts(c);
    const double unrestricted = BruteForce(g, costs).Solve();
    std::mt19937 rng(seed);
    AddRandomProgressLimits(rng, c.spec, costs);
    const PathSolution dp = solver.Solve(g, costs);
    const double exhaustive = BruteForce(g, costs).Solve();
    ++cases;
    REQUIRE(dp.feasible == (exhaustive < kInf));
    if (!dp.feasible) continue;
    ++feasible;
    if (exhaustive > unrestricted + kTol) ++restricted;
    REQUIRE(dp.cost == Approx(exhaustive).margin(kTol));
    RequireValidPath(g, costs, dp);
    for (int t = g.release(); t <= g.deadline(); ++t) {
      INFO("slot " << t);
      CHECK(ProgressAt(dp, t) >= costs.progress_lo[t]);
      CHECK(ProgressAt(dp, t) <= costs.progress_hi[t]);
    }
  }
  CHECK(feasible * 4 >= cases);        // not a vacuous comparison
  CHECK(restricted * 10 >= feasible);  // and the limits do cut off optima
}

// The row form of the DP with operators' limits (path_dp_resources.cc) finds predecessors
// in a backward pass; it must pick the same path among equally cheap ones as the
// edge-by-edge DP that it replaced, so that solves with limits keep their results. Half of
// the random cases have integer costs (many ties) and half of them progress limits.
TEST_CASE("Operators' limits: the row DP returns the edge-by-edge DP's runs", "[path][progress]") {
  PathSolver solver;
  int feasible = 0, limited = 0;
  for (uint32_t seed = 15001; seed <= 16200; ++seed) {
    const RandomCase c = MakeRandomCase(seed, /*side_resources=*/true, 16);
    INFO(Describe(seed, c.spec));
    const Fixture fixture(c.spec);
    const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
    if (!HasSideResources(g)) continue;
    ++limited;
    EdgeCosts costs = CaseCosts(c);
    if (seed % 2 == 0) {
      std::mt19937 rng(seed);
      AddRandomProgressLimits(rng, c.spec, costs);
    }
    const PathSolution rows = solver.Solve(g, costs);
    const PathSolution edges = EdgeByEdgeResourcePath(g, costs);
    REQUIRE(rows.feasible == edges.feasible);
    if (!rows.feasible) continue;
    ++feasible;
    REQUIRE(rows.cost == edges.cost);  // the same sums: exactly equal
    REQUIRE(rows.runs == edges.runs);
  }
  CHECK(limited >= 600);
  CHECK(feasible * 4 >= limited);  // not a vacuous comparison
}

TEST_CASE("Progress branching: the two children of a split partition the paths",
          "[path][progress]") {
  PathSolver solver;
  int splits = 0;
  for (uint32_t seed = 14001; seed <= 14200; ++seed) {
    const RandomCase c = MakeRandomCase(seed, seed % 2 == 0, 10);
    INFO(Describe(seed, c.spec));
    const Fixture fixture(c.spec);
    const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
    EdgeCosts costs = CostsFromSlots(c.slot_costs);
    const PathSolution parent = solver.Solve(g, costs);
    if (!parent.feasible) continue;
    std::mt19937 rng(seed);
    const int t = Uniform(rng, c.spec.release + 1, c.spec.deadline - 1);
    const int k = Uniform(rng, 1, c.spec.segments);
    std::vector<ProgressRestriction> at_least = {{0, t, k, c.spec.segments}};
    std::vector<ProgressRestriction> at_most = {{0, t, 0, k - 1}};
    double best = kInf;
    for (const auto* rs : {&at_least, &at_most}) {
      ApplyProgressRestrictions(0, c.spec.segments, *rs, costs);
      const PathSolution child = solver.Solve(g, costs);
      if (!child.feasible) continue;
      CHECK(child.cost >= parent.cost - kTol);
      CHECK(ProgressAt(child, t) >= rs->front().lo);
      CHECK(ProgressAt(child, t) <= rs->front().hi);
      best = std::min(best, child.cost);
    }
    ApplyProgressRestrictions(0, c.spec.segments, {}, costs);
    CHECK(!costs.HasProgressLimits());
    REQUIRE(best == Approx(parent.cost).margin(kTol));  // one child keeps the optimum
    ++splits;
  }
  CHECK(splits >= 100);
}

TEST_CASE("Backward values agree with the forward DP", "[path][backward]") {
  PathSolver solver, restricted_solver;
  int cases = 0, feasible = 0;
  std::vector<double> backward, through;
  for (uint32_t seed = 15001; seed <= 15300; ++seed) {
    const RandomCase c = MakeRandomCase(seed, /*side_resources=*/false, 10);
    INFO(Describe(seed, c.spec));
    const Fixture fixture(c.spec);
    const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
    REQUIRE(PathValuesSupported(g));
    EdgeCosts costs = CaseCosts(c);
    std::mt19937 rng(seed);
    if (Chance(rng, 50)) AddRandomProgressLimits(rng, c.spec, costs);
    const PathSolution dp = solver.Solve(g, costs);
    BackwardValues(g, costs, backward);
    CheapestPathThroughChoices(g, costs, solver.forward_values(), backward, through);
    ++cases;
    const double source = backward[0];
    REQUIRE(dp.feasible == (source < kInf));
    if (!dp.feasible) continue;
    ++feasible;
    CHECK(source == Approx(dp.cost).margin(kTol));
    const int stride = g.num_modes() + 1;
    for (int t = g.release(); t < g.deadline(); ++t) {
      INFO("slot " << t);
      const double* row = through.data() + static_cast<size_t>(t - g.release()) * stride;
      // Every path makes exactly one choice in slot t: the best of them is the optimum.
      CHECK(*std::min_element(row, row + stride) == Approx(dp.cost).margin(kTol));
      // Each choice against the DP restricted to it (the other modes blocked in slot t;
      // waiting forbidden there for a mode, every mode blocked for "not training").
      for (int choice = 0; choice < stride; ++choice) {
        EdgeCosts only = costs;
        std::vector<std::vector<bool>> blocked(g.num_modes(), std::vector<bool>(costs.slots));
        for (int m = 0; m < g.num_modes(); ++m) {
          for (int s = 0; s < costs.slots; ++s) {
            blocked[m][s] = (!c.blocked.empty() && c.blocked[m][s]) || (s == t && m + 1 != choice);
          }
        }
        SetBlocked(only, blocked);
        if (choice > 0) {
          only.wait_forbidden.resize(costs.slots, 0);
          only.wait_forbidden[t] = 1;
        }
        const PathSolution through_choice = restricted_solver.Solve(g, only);
        INFO("choice " << choice);
        if (!through_choice.feasible) {
          CHECK(row[choice] == kInf);
        } else {
          CHECK(row[choice] == Approx(through_choice.cost).margin(1e-7));
        }
      }
    }
  }
  CHECK(feasible * 3 >= cases);
}

// The engine keeps one PathSolver per thread, not per job (evaluation.h's Workspaces), so a
// solve must not depend on what earlier solves, of other graphs, left in the workspace.
// One solver runs plain cases, cases with operators' limits and cases with restarts, some
// with progress limits, interleaved; each must return exactly what a new solver returns.
TEST_CASE("A reused solver returns what a new one returns", "[path]") {
  PathSolver shared;
  int feasible = 0, cases = 0;
  for (uint32_t seed = 17001; seed <= 17900; ++seed) {
    const int kind = static_cast<int>(seed % 3);  // plain, operators' limits, restarts
    const RandomCase c = MakeRandomCase(seed, /*side_resources=*/kind == 1,
                                        /*max_window=*/seed % 2 == 0 ? 16 : 9,
                                        /*restarts=*/kind == 2);
    INFO(Describe(seed, c.spec));
    const Fixture fixture(c.spec);
    const CheckpointGraph g = fixture.Graph(c.spec.allow_wait);
    EdgeCosts costs = CaseCosts(c);
    std::mt19937 rng(seed);
    if (kind != 2 && Chance(rng, 30)) AddRandomProgressLimits(rng, c.spec, costs);
    PathSolver fresh;
    const PathSolution expected = fresh.Solve(g, costs);
    const PathSolution got = shared.Solve(g, costs);
    ++cases;
    REQUIRE(got.feasible == expected.feasible);
    if (!got.feasible) continue;
    ++feasible;
    REQUIRE(got.cost == expected.cost);
    REQUIRE(got.runs == expected.runs);
  }
  CHECK(feasible * 4 >= cases);  // not a vacuous comparison
}

}  // namespace
}  // namespace ckptdp::internal
