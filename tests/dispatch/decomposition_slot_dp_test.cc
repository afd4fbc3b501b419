// The decomposition's unit DP slot oracle (decomposition_slot_dp.h): forced on the small and
// paper instances (a pattern budget of 0), it gives the enumeration's values at any prices,
// with and without restrictions, and its choices attain them; its reduced-cost bounds are
// the enumeration's; its bound stays below CBC's optimum; and the rule uses it on generated
// fleets only where IT power is proportional to GPUs and its cells fit the budget. The DP
// itself agrees with brute force on random shapes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

#include "ckptdp/engine.h"
#include "ckptdp/export.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/battery_dp.h"
#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/solver_log.h"
#include "support/cbc.h"
#include "support/paths.h"
#include "support/root_lagrangian.h"

namespace ckptdp::internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

Instance Load(const std::string& path) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath(path));
  REQUIRE(in.ok());
  return *in;
}

// Both oracles of one context: the enumeration (default budget) and the unit DP (no
// pattern fits a budget of 0).
struct Oracles {
  std::optional<DecompositionBound> patterns, unit_dp;
};
Oracles BuildBoth(const ScenarioContext& c) {
  Oracles o;
  o.patterns = DecompositionBound::Build(c, DecompositionOptions{});
  DecompositionOptions forced;
  forced.max_pattern_entries = 0;
  o.unit_dp = DecompositionBound::Build(c, forced);
  REQUIRE(o.patterns.has_value());
  REQUIRE(o.unit_dp.has_value());
  CHECK(o.patterns->unit_dp_cells() == 0);
  CHECK(o.unit_dp->unit_dp_cells() > 0);
  return o;
}

// Random prices off the Lagrangian family, as in decomposition_test.cc.
DecompositionPrices RandomPrices(const DecompositionBound& d, const Instance& in,
                                 std::mt19937& rng) {
  std::vector<double> lambda(in.time.slots), mu(in.time.slots);
  for (int t = 0; t < in.time.slots; ++t) {
    lambda[t] = static_cast<double>(static_cast<int>(rng() % 2000) - 500) / 1e5;
    mu[t] = static_cast<double>(rng() % 1000) / 1e5;
  }
  DecompositionPrices pi = d.FromLagrangian(lambda, mu);
  for (auto& row : pi.job) {
    for (double& p : row) p += static_cast<double>(rng() % 1000) / 1e4;
  }
  for (double& rho : pi.battery)
    rho += static_cast<double>(static_cast<int>(rng() % 1000) - 500) / 1e5;
  return pi;
}

// The value of one pattern of slot t (choice per job, 0 idle; outside the window ignored)
// by the power side's own stage cost, +infinity if it breaks a limit.
double PatternValue(const ScenarioContext& c, const DecompositionPrices& pi, int t,
                    const std::vector<std::vector<int>>& slot_choice) {
  const Instance& in = *c.instance;
  int gpus = 0;
  double kw = in.site.base_load_kw, price = 0;
  for (int j = 0; j < c.num_jobs(); ++j) {
    if (t < in.jobs[j].release_slot || t >= in.jobs[j].deadline_slot) continue;
    const int choice = slot_choice[j][t - in.jobs[j].release_slot];
    if (choice == 0) continue;
    const int m = choice - 1, modes = c.jobs[j]->num_modes();
    gpus += c.jobs[j]->gpus(m);
    kw += in.site.pue * c.jobs[j]->it_power_kw(m);
    price += pi.job[j][static_cast<size_t>(t - in.jobs[j].release_slot) * modes + m];
  }
  if (gpus > in.site.gpu_capacity || kw > in.site.site_power_cap_kw + 1e-6) return kInf;
  if (pi.battery.empty()) return SlotCostUsd(c.power, t, kw) - price;
  double best = kInf;
  const ConvexPwl psi = PowerStageCost(c.power, t, kw, kw, 0.0, c.power.battery.power_kw);
  for (const PwlPoint& p : psi.points()) best = std::min(best, p.y - pi.battery[t] * p.x - price);
  return best;
}

const char* const kInstances[] = {
    "instances/paper_2048gpu.json",          "instances/small_2job_8slot.json",
    "instances/small_3job_12slot.json",      "instances/small_limits_10slot.json",
    "instances/paper_2048gpu_demand15.json", "instances/paper_2048gpu_green68.json",
};

TEST_CASE("unit DP: the enumeration's slot side and reduced-cost bounds at any prices",
          "[decomp]") {
  std::mt19937 rng(13);
  for (const char* file : kInstances) {
    INFO(file);
    const Instance in = Load(file);
    const std::vector<JobModes> modes = *BuildAllModes(in);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(ScenarioName(scenario));
      ScenarioContext c = MakeContext(in, modes, scenario);
      Oracles o = BuildBoth(c);
      CHECK(o.unit_dp->battery_power_kw() == o.patterns->battery_power_kw());
      for (int round = 0; round < 4; ++round) {
        INFO("round " << round);
        // Rounds 2 and 3 exclude random choices (a branch-and-bound node's fixing mask).
        std::vector<std::vector<char>> excluded;
        if (round >= 2) {
          excluded.resize(c.num_jobs());
          for (int j = 0; j < c.num_jobs(); ++j) {
            const Job& job = in.jobs[j];
            excluded[j].assign(static_cast<size_t>(job.deadline_slot - job.release_slot) *
                                   (c.jobs[j]->num_modes() + 1),
                               0);
            for (char& x : excluded[j]) x = rng() % 5 == 0 ? 1 : 0;
            // Keep idle open in every slot so that some schedule may be left.
            for (size_t i = 0; i < excluded[j].size(); i += c.jobs[j]->num_modes() + 1) {
              excluded[j][i] = 0;
            }
          }
        }
        o.patterns->Restrict({}, {}, excluded);
        o.unit_dp->Restrict({}, {}, excluded);
        DecompositionPrices pi = RandomPrices(*o.patterns, in, rng);
        if (!pi.contract.empty()) {
          REQUIRE(o.patterns->StartGreenPrice(pi));
          for (double& nu : pi.contract) nu += static_cast<double>(rng() % 100) / 1e5;
          o.patterns->ProjectContract(pi.contract);
        }
        DecompositionPoint a, b;
        const bool feasible = o.patterns->Evaluate(pi, a);
        REQUIRE(o.unit_dp->Evaluate(pi, b) == feasible);
        if (!feasible) continue;
        const double tol = 1e-9 * std::max(1.0, std::abs(a.slot_side));
        CHECK(b.job_side == a.job_side);
        CHECK(b.battery_side == a.battery_side);
        CHECK(b.slot_side == Approx(a.slot_side).margin(tol));
        // The unit DP's choices attain its value (they form a pattern within the limits).
        if (pi.contract.empty()) {
          double sum = 0;
          for (int t = 0; t < in.time.slots; ++t) sum += PatternValue(c, pi, t, b.slot_choice);
          CHECK(sum == Approx(b.slot_side).margin(tol));
        }
        // Reduced-cost bounds per (job, slot, choice), also used by the node fixing.
        const auto pa = o.patterns->ChoiceBounds(pi, true);
        const auto pb = o.unit_dp->ChoiceBounds(pi, true);
        REQUIRE(pa.has_value());
        REQUIRE(pb.has_value());
        const double bound_tol = 1e-9 * std::max(1.0, std::abs(a.value));
        for (int j = 0; j < c.num_jobs(); ++j) {
          REQUIRE((*pa)[j].size() == (*pb)[j].size());
          for (size_t i = 0; i < (*pa)[j].size(); ++i) {
            INFO("job " << j << " entry " << i);
            if ((*pa)[j][i] == kInf) {
              CHECK((*pb)[j][i] == kInf);
            } else {
              CHECK((*pb)[j][i] == Approx((*pa)[j][i]).margin(bound_tol));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("unit DP: its bound stays below CBC's optimum on the small instances", "[decomp]") {
  const std::string cbc = testing::CbcPath();
  if (cbc.empty()) FAIL("cbc is not on PATH: run tools/install-deps.sh (Debian's coinor-cbc)");
  const fs::path dir = fs::temp_directory_path() / ("ckptdp_unit_dp_" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const char* file : {"instances/small_2job_8slot.json", "instances/small_3job_12slot.json",
                           "instances/small_limits_10slot.json"}) {
    INFO(file);
    const Instance in = Load(file);
    const std::vector<JobModes> modes = *BuildAllModes(in);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(ScenarioName(scenario));
      absl::StatusOr<MilpModel> model = BuildMilp(in, scenario, modes);
      REQUIRE(model.ok());
      const MilpSolution best = testing::SolveWithCbc(cbc, *model, dir, "unit_dp");
      REQUIRE(best.optimal);
      const double tol = 1e-6 * std::max(1.0, std::abs(best.objective));
      ScenarioContext c = MakeContext(in, modes, scenario);
      Workspaces work;
      const absl::StatusOr<EngineOutcome> lagrangian = testing::RootLagrangian(c, work);
      REQUIRE(lagrangian.ok());
      Oracles o = BuildBoth(c);
      DecompositionOptions volume;
      volume.max_iterations = 1500;
      volume.gap = 0;  // as far as it goes
      for (auto* d : {&*o.patterns, &*o.unit_dp}) {
        const absl::StatusOr<std::optional<DecompositionOutcome>> run = RunVolumeAlgorithm(
            *d, d->FromLagrangian(lagrangian->multipliers.lambda, lagrangian->multipliers.mu),
            best.objective, volume, Clock::time_point::max());
        REQUIRE(run.ok());
        REQUIRE(run->has_value());
        INFO("bound " << (*run)->bound << ", CBC " << best.objective);
        CHECK((*run)->bound <= best.objective + tol);
      }
    }
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST_CASE("unit DP: the rule takes it on fleets where power is proportional to GPUs", "[decomp]") {
  // The shipped 8-job fleet: too many patterns, an affordable DP.
  Instance in = Load("instances/gen_8jobs_48h.json");
  {
    const std::vector<JobModes> modes = *BuildAllModes(in);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      ScenarioContext c = MakeContext(in, modes, scenario);
      std::optional<DecompositionBound> d = DecompositionBound::Build(c, DecompositionOptions{});
      REQUIRE(d.has_value());
      CHECK(d->unit_dp_cells() > 0);
      CHECK(d->unit_dp_cells() <= DecompositionOptions{}.max_unit_dp_cells);
      DecompositionOptions small;
      small.max_unit_dp_cells = d->unit_dp_cells() - 1;
      CHECK_FALSE(DecompositionBound::Build(c, small).has_value());
      small.max_unit_dp_cells = d->unit_dp_cells();
      CHECK(DecompositionBound::Build(c, small).has_value());
    }
  }
  // Communication power makes a mode's IT power more than proportional to its GPUs: the
  // load is no function of the GPU total, no unit DP.
  in.model.comm_power_kw_per_gpu = 0.05;
  const std::vector<JobModes> modes = *BuildAllModes(in);
  ScenarioContext c = MakeContext(in, modes, Scenario::kS4);
  CHECK_FALSE(DecompositionBound::Build(c, DecompositionOptions{}).has_value());
  // The paper case still enumerates its patterns.
  const Instance paper = Load("instances/paper_2048gpu.json");
  const std::vector<JobModes> paper_modes = *BuildAllModes(paper);
  ScenarioContext p = MakeContext(paper, paper_modes, Scenario::kS4);
  std::optional<DecompositionBound> d = DecompositionBound::Build(p, DecompositionOptions{});
  REQUIRE(d.has_value());
  CHECK(d->unit_dp_cells() == 0);
  CHECK(d->pattern_entries() == 20880);
}

// Every pattern of a shape by brute force: the minimum of level_value[g] - sum of its
// choices' prices over the patterns of g < levels units, and per choice the minimum over
// the patterns that have it.
double BruteForce(const UnitDpShape& shape, const std::vector<double>& table,
                  const std::vector<double>& level_value, std::vector<double>& with_choice) {
  const int n = shape.jobs();
  with_choice.assign(table.size(), kInf);
  double best = kInf;
  std::vector<int> pick(n, 0);  // index within each job's range
  while (true) {
    int units = 0;
    double value = 0;
    bool allowed = true;
    for (int k = 0; k < n; ++k) {
      const int i = shape.offset[k] + pick[k];
      units += shape.units[i];
      allowed = allowed && table[i] != -kInf;
      value -= table[i];
    }
    if (allowed && units < shape.levels) {
      value += level_value[units];
      best = std::min(best, value);
      for (int k = 0; k < n; ++k) {
        double& w = with_choice[shape.offset[k] + pick[k]];
        w = std::min(w, value);
      }
    }
    int k = 0;
    while (k < n && ++pick[k] == shape.offset[k + 1] - shape.offset[k]) pick[k++] = 0;
    if (k == n) break;
  }
  return best;
}

TEST_CASE("unit DP: random shapes against brute force (reach, units beyond the levels)",
          "[decomp]") {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> price(-5.0, 5.0);
  UnitPatternDp dp;  // one scratch for every shape, as a DecompositionBound keeps it
  for (int round = 0; round < 300; ++round) {
    UnitDpShape shape;
    const int n = std::uniform_int_distribution<int>(0, 5)(rng);
    shape.levels = std::uniform_int_distribution<int>(1, 14)(rng);
    shape.offset = {0};
    for (int k = 0; k < n; ++k) {
      const int choices = std::uniform_int_distribution<int>(1, 4)(rng);
      shape.units.push_back(0);  // idle
      for (int c = 1; c < choices; ++c) {
        // Up to past the levels: a choice that no level holds, and jobs whose units
        // together reach beyond the levels (the capacity binds) or not.
        shape.units.push_back(std::uniform_int_distribution<int>(1, shape.levels + 2)(rng));
      }
      shape.offset.push_back(static_cast<int>(shape.units.size()));
    }
    std::vector<double> table(shape.units.size());
    for (double& p : table) {
      p = std::uniform_int_distribution<int>(0, 5)(rng) == 0 ? -kInf : price(rng);
    }
    std::vector<double> level_value(shape.levels);
    for (double& v : level_value) v = 3.0 * price(rng);
    std::vector<double> expected;
    const double best = BruteForce(shape, table, level_value, expected);
    INFO("round " << round << ", jobs " << n << ", levels " << shape.levels);
    std::vector<int> choice(n, -1);
    const UnitDpMinimum m = dp.Minimise(shape, table, level_value, choice);
    if (best == kInf) {
      CHECK(m.value == kInf);
    } else {
      CHECK(m.value == Approx(best).margin(1e-9));
      // Its choices attain it at its level.
      int units = 0;
      double value = 0;
      for (int k = 0; k < n; ++k) {
        REQUIRE(choice[k] >= 0);
        const int i = shape.offset[k] + choice[k];
        REQUIRE(table[i] != -kInf);
        units += shape.units[i];
        value -= table[i];
      }
      CHECK(units == m.level);
      REQUIRE(units < shape.levels);
      CHECK(value + level_value[units] == Approx(m.value).margin(1e-9));
    }
    std::vector<double> with_choice;
    const double minimum = dp.ChoiceMinima(shape, table, level_value, with_choice);
    CHECK((minimum == kInf ? best == kInf : minimum == Approx(best).margin(1e-9)));
    REQUIRE(with_choice.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] == kInf) {
        CHECK(with_choice[i] == kInf);
      } else {
        CHECK(with_choice[i] == Approx(expected[i]).margin(1e-9));
      }
    }
  }
}

}  // namespace
}  // namespace ckptdp::internal
