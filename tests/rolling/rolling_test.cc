// Rolling re-optimisation: the carried-over state (progress, free-from slot, SoC, committed
// train edges), the sub-problem's exactness, the realised result and its determinism.
#include <catch2/catch.hpp>

#include "ckptdp/check.h"
#include "ckptdp/power.h"
#include "ckptdp/report.h"
#include "ckptdp/rolling.h"
#include "rolling/internal/sub_problem.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

using rolling_internal::JobState;

const Instance& Week() {
  static const Instance instance = [] {
    absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/paper_week.json"));
    REQUIRE(in.ok());
    return *in;
  }();
  return instance;
}

const Series& WeekActual() {
  static const Series series = [] {
    absl::StatusOr<Series> s =
        LoadSeriesCsv(testing::SourcePath("instances/paper_week_actual.csv"), 168, "--actual");
    REQUIRE(s.ok());
    return *s;
  }();
  return series;
}

// The first `days` days of the week: small enough for a test, two days so that a re-solve
// meets the decision horizon and the battery carries over midnight.
Instance FirstDays(const Instance& week, int days) {
  Instance in = week;
  in.time.slots = 24 * days;
  for (std::vector<double>* v :
       {&in.series.pv_kw, &in.series.wind_kw, &in.series.price_usd_per_mwh}) {
    v->resize(in.time.slots);
  }
  in.jobs.resize(2 * days);
  return in;
}

Series FirstSlots(const Series& s, int slots) {
  Series out = s;
  out.pv_kw.resize(slots);
  out.wind_kw.resize(slots);
  out.price_usd_per_mwh.resize(slots);
  return out;
}

RollingOptions Quick(int threads) {
  RollingOptions o;
  o.every_slots = 4;
  o.solve.max_iterations = 60;
  o.solve.stall_iterations = 20;
  o.solve.max_nodes = 0;
  o.solve.decomposition_iterations = 50;
  o.solve.diagnose_capacity = false;
  o.solve.threads = threads;
  return o;
}

TEST_CASE("Rolling: a battery DP can end at a SoC other than E_0", "[rolling]") {
  const Instance day = FirstDays(Week(), 1);
  std::vector<double> load(24, 1000.0);
  for (double final_kwh : {100.0, 400.0, 750.0}) {
    Instance in = day;
    in.battery_soc_final_kwh = final_kwh;
    absl::StatusOr<PowerDispatch> d =
        DispatchFixedLoad(PowerInputs::FromInstance(in, /*use_battery=*/true), load);
    REQUIRE(d.ok());
    CHECK(d->slots.back().soc_kwh == Approx(final_kwh));
  }
  Instance bad = day;
  bad.battery_soc_final_kwh = 10.0;  // below soc_min_kwh 80
  const absl::Status s = ValidateInstance(bad);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()), Catch::Contains("battery_soc_final_kwh"));
}

TEST_CASE("Rolling: instances whose state cannot be carried exactly are refused", "[rolling]") {
  Instance in = FirstDays(Week(), 1);
  in.model.kernel_efficiency.reset();
  absl::StatusOr<RollingOutcome> r = RunRolling(in, FirstSlots(WeekActual(), 24), Quick(1));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("model.kernel_efficiency"));

  in = FirstDays(Week(), 1);
  in.jobs[1].daily_ratio *= 1.0001;  // iterations no longer a multiple of the segments
  r = RunRolling(in, FirstSlots(WeekActual(), 24), Quick(1));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("jobs[1].daily_ratio"));

  in = FirstDays(Week(), 1);
  RollingOptions o = Quick(1);
  o.every_slots = 0;
  r = RunRolling(in, FirstSlots(WeekActual(), 24), o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("--every"));

  // Restart overheads and the grid contract carry state that re-solves do not keep yet.
  in = FirstDays(Week(), 1);
  in.jobs[0].resume_minutes = 15;
  r = RunRolling(in, FirstSlots(WeekActual(), 24), Quick(1));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("jobs[0].resume_minutes"));

  in = FirstDays(Week(), 1);
  in.grid.demand_charge_usd_per_kw = 15;
  r = RunRolling(in, FirstSlots(WeekActual(), 24), Quick(1));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("site: rolling"));
}

TEST_CASE("Rolling: an edge in progress is committed whole and re-planned from its end",
          "[rolling]") {
  const Instance in = FirstDays(Week(), 1);
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
  REQUIRE(modes.ok());
  std::vector<CheckpointGraph> graphs;
  for (int j = 0; j < 2; ++j) graphs.emplace_back(in, j, (*modes)[j], GraphOptions{});
  // Job 0: the baseline from 0 to 24 in one edge (12 segments of exactly 2 slots each);
  // job 1: one edge from slot 3 to 24 in its baseline.
  const int base0 = (*modes)[0].baseline, base1 = (*modes)[1].baseline;
  Schedule plan;
  plan.jobs = {{Run{0, 24, 0, 12, base0, 0}}, {Run{0, 24, 0, 12, base1, 0}}};
  Schedule cut = plan;
  // The baseline's checkpoints fall on even slots: slot 5 is cut at 6 (segment 3).
  const int next = rolling_internal::CommitUpTo(cut, graphs, 5);
  CHECK(next == 6);
  REQUIRE(cut.jobs[0].size() == 2);
  CHECK(cut.jobs[0][0] == Run{0, 6, 0, 3, base0, 0});
  CHECK(cut.jobs[0][1] == Run{6, 24, 3, 12, base0, 0});
  const std::vector<JobState> states = rolling_internal::StatesAt(in, cut, next);
  CHECK(states[0].done_segments == 3);
  CHECK(states[0].free_from == 6);

  // A sub-problem from slot 6: remaining segments, release at the free-from slot, the SoC.
  absl::StatusOr<rolling_internal::SubProblem> sub = rolling_internal::BuildSubProblem(
      in, *modes, states, next, 24, 321.0, in.battery.soc_initial_kwh, in.series);
  REQUIRE(sub.ok());
  REQUIRE(sub->instance.jobs.size() == 2);
  CHECK(sub->instance.time.slots == 18);
  CHECK(sub->instance.jobs[0].segments == 9);
  CHECK(sub->instance.jobs[0].release_slot == 0);
  CHECK(sub->instance.jobs[0].deadline_slot == 18);
  CHECK(sub->instance.battery.soc_initial_kwh == 321.0);
  CHECK(*sub->instance.battery_soc_final_kwh == in.battery.soc_initial_kwh);
  CHECK(sub->instance.series.pv_kw[0] == in.series.pv_kw[6]);
  // The previous plan, carried into the sub-problem and back, is the plan again.
  const Schedule seed = rolling_internal::ToSubSchedule(*sub, states, cut);
  CHECK(seed.jobs[0][0] == Run{0, 18, 0, 9, base0, 0});
  CHECK(rolling_internal::MergeSubSchedule(*sub, states, cut, seed) == cut);
  // The carried seed is feasible in the sub-problem: its evaluation matches the plan's load.
  absl::StatusOr<std::vector<JobModes>> sub_modes = BuildAllModes(sub->instance);
  REQUIRE(sub_modes.ok());
  const SlotLoad whole = AggregateLoad(in, *modes, cut);
  const SlotLoad rest = AggregateLoad(sub->instance, *sub_modes, seed);
  for (int t = 0; t < 18; ++t) CHECK(rest.aidc_kw[t] == Approx(whole.aidc_kw[t + 6]));
}

TEST_CASE("Rolling: an edge with no checkpoint on a slot boundary is committed to its end",
          "[rolling]") {
  const Instance in = FirstDays(Week(), 1);
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
  REQUIRE(modes.ok());
  std::vector<CheckpointGraph> graphs;
  for (int j = 0; j < 2; ++j) graphs.emplace_back(in, j, (*modes)[j], GraphOptions{});
  // Find a graph mode of job 0 whose one-segment edge and two-segment edge do not add up.
  int mode = -1, two = 0;
  for (int m = 0; m < graphs[0].num_modes() && mode < 0; ++m) {
    if (2 * graphs[0].duration(m, 1) != graphs[0].duration(m, 2) && graphs[0].duration(m, 2) >= 2) {
      mode = graphs[0].feasible_index(m);
      two = graphs[0].duration(m, 2);
    }
  }
  REQUIRE(mode >= 0);
  Schedule plan;
  plan.jobs = {{Run{0, two, 0, 2, mode, 0}}, {}};
  const int next = rolling_internal::CommitUpTo(plan, graphs, 1);
  CHECK(next == two);
  CHECK(plan.jobs[0].size() == 1);
}

TEST_CASE("Rolling: two days, every 4 slots: complete, checked, the same with 1 or 2 threads",
          "[rolling]") {
  const Instance in = FirstDays(Week(), 2);
  const Series actual = FirstSlots(WeekActual(), 48);
  absl::StatusOr<RollingOutcome> one = RunRolling(in, actual, Quick(1));
  absl::StatusOr<RollingOutcome> two = RunRolling(in, actual, Quick(2));
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  CHECK(one->shortfalls.empty());
  CHECK(one->realised.status == SolveStatus::kFeasible);
  CHECK(one->resolves.size() >= 2);
  CHECK(one->realised.schedule == two->realised.schedule);
  CHECK(one->realised.objective_usd == two->realised.objective_usd);
  REQUIRE(one->resolves.size() == two->resolves.size());
  for (std::size_t i = 0; i < one->resolves.size(); ++i) {
    CHECK(one->resolves[i].start_slot == two->resolves[i].start_slot);
    CHECK(one->resolves[i].plan_cost_usd == two->resolves[i].plan_cost_usd);
  }
  // The realised result: cost = sum of its slots' costs, the battery back at E_0, the bound
  // is the perfect-foresight bound, and the independent checker accepts it on the actuals.
  const Result& r = one->realised;
  CHECK(r.power.slots.size() == 48u);
  CHECK(r.power.slots.back().soc_kwh == Approx(in.battery.soc_initial_kwh));
  CHECK(r.lower_bound_usd <= r.objective_usd);
  CHECK(one->perfect_foresight.lower_bound_usd <= r.objective_usd + 1e-6);
  CHECK(one->s1_actual_usd > r.objective_usd);
  absl::StatusOr<Instance> actual_instance = WithActualSeries(in, actual);
  REQUIRE(actual_instance.ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*actual_instance);
  REQUIRE(modes.ok());
  absl::StatusOr<CheckReport> report =
      CheckResult(*actual_instance, ResultToJson(*actual_instance, *modes, r));
  REQUIRE(report.ok());
  INFO(report->ToText());
  CHECK(report->ok());
  // Against the forecast instead the same file fails: the renewables differ.
  absl::StatusOr<CheckReport> wrong = CheckResult(in, ResultToJson(in, *modes, r));
  REQUIRE(wrong.ok());
  CHECK_FALSE(wrong->ok());
}

TEST_CASE("Rolling: an actual series of the wrong length names the flag", "[rolling]") {
  absl::StatusOr<Series> s =
      LoadSeriesCsv(testing::SourcePath("instances/paper_week_actual.csv"), 24, "--actual");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.status().message()), Catch::StartsWith("--actual: "));
}

}  // namespace
}  // namespace ckptdp
