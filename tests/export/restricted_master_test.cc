// Tests of the restricted master (BuildRestrictedMaster in ckptdp/export.h) over a solve's
// plan pool (ckptdp/plan_pool.h). Structure: one binary per plan, one pick row per job, the
// plan's runs in the slot rows. Reference: CBC solves the restricted master of every shipped
// small instance; its optimum lies between the engine's bound and incumbent (the pool holds
// the engine's schedule), its solution decodes into a schedule the checker passes, and the
// master over the engine's schedule alone costs exactly the engine's objective.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/plan_pool.h"
#include "support/cbc.h"
#include "support/instance_modes.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;

struct Solved {
  Result result;
  PlanPool pool;
};

Solved SolveWithPool(const Instance& in, Scenario scenario) {
  Solved s;
  SolveOptions options;
  options.plan_pool = &s.pool;
  absl::StatusOr<Result> result = SolveScenario(in, scenario, options);
  REQUIRE(result.ok());
  REQUIRE(result->status != SolveStatus::kInfeasible);
  s.result = *result;
  return s;
}

MilpModel Master(const Instance& in, Scenario scenario, const std::vector<JobModes>& modes,
                 const PlanPool::Plans& plans) {
  absl::StatusOr<MilpModel> model = BuildRestrictedMaster(in, scenario, modes, plans);
  INFO((model.ok() ? "" : std::string(model.status().message())));
  REQUIRE(model.ok());
  return *model;
}

const MilpRow* FindRow(const MilpModel& model, const std::string& name) {
  const auto it = std::find_if(model.rows.begin(), model.rows.end(),
                               [&](const MilpRow& r) { return r.name == name; });
  return it == model.rows.end() ? nullptr : &*it;
}

double Coefficient(const MilpRow& row, int column) {
  for (size_t i = 0; i < row.columns.size(); ++i) {
    if (row.columns[i] == column) return row.values[i];
  }
  return 0;
}

bool Near(double a, double b, double tol = 1e-6) {
  return std::abs(a - b) <= tol * std::max({1.0, std::abs(a), std::abs(b)});
}

TEST_CASE("restricted master: a binary per plan, one pick per job, the runs in the slot rows",
          "[export]") {
  const auto [in, modes] = testing::LoadInstanceModes("small_2job_8slot.json");
  const Solved s = SolveWithPool(in, Scenario::kS4);
  const MilpModel model = Master(in, Scenario::kS4, modes, s.pool.plans());
  CHECK(model.plans == s.pool.plans());
  int plan_columns = 0;
  for (const MilpColumn& column : model.columns) {
    if (column.role.kind != ColumnKind::kPlan) continue;
    ++plan_columns;
    CHECK(column.integer);
    CHECK(column.name ==
          "z_j" + std::to_string(column.role.job) + "_p" + std::to_string(column.role.plan));
  }
  CHECK(plan_columns == s.pool.size());
  for (int j = 0; j < static_cast<int>(in.jobs.size()); ++j) {
    const MilpRow* pick = FindRow(model, "pick_j" + std::to_string(j));
    REQUIRE(pick != nullptr);
    CHECK(pick->sense == RowSense::kEqual);
    CHECK(pick->rhs == 1.0);
    CHECK(pick->columns.size() == s.pool.plans()[j].size());
  }
  // Job 0's first plan holds its GPUs in exactly the slots its runs cover.
  const std::vector<Run>& plan = s.pool.plans()[0][0];
  const int column = model.FindColumn("z_j0_p0");
  REQUIRE(column >= 0);
  for (int t = 0; t < in.time.slots; ++t) {
    int gpus = 0;
    for (const Run& run : plan) {
      if (run.start_slot <= t && t < run.end_slot) gpus += modes[0].feasible[run.mode].gpus;
    }
    const MilpRow* row = FindRow(model, "gpu_t" + std::to_string(t));
    INFO("slot " << t);
    // A slot that no plan covers has no GPU row (BuildMilp's rule).
    CHECK((row == nullptr ? 0 : Coefficient(*row, column)) == gpus);
  }
}

TEST_CASE("restricted master: plans it cannot use are refused with the job and the reason",
          "[export]") {
  const auto [in, modes] = testing::LoadInstanceModes("small_2job_8slot.json");
  const Solved s = SolveWithPool(in, Scenario::kS4);
  const auto refused = [&](PlanPool::Plans plans, const std::string& words) {
    absl::StatusOr<MilpModel> model = BuildRestrictedMaster(in, Scenario::kS4, modes, plans);
    REQUIRE_FALSE(model.ok());
    INFO(model.status().message());
    CHECK(model.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(model.status().message()).find(words) != std::string::npos);
  };
  PlanPool::Plans plans = s.pool.plans();
  plans.pop_back();
  refused(plans, "plans for 1 jobs, but the instance has 2");
  plans = s.pool.plans();
  plans[1].clear();
  refused(plans, "job " + in.jobs[1].name + " has no plan");
  plans = s.pool.plans();
  plans[0][0][0].mode = static_cast<int>(modes[0].feasible.size());
  refused(plans, "plan 0 of job " + in.jobs[0].name + " has a run in mode");
  plans = s.pool.plans();
  plans[1][0].back().end_slot = in.time.slots + 1;
  refused(plans, "the horizon 8 slots");
}

TEST_CASE("restricted master: the MIP start is our schedule and its power dispatch", "[export]") {
  const auto [in, modes] = testing::LoadInstanceModes("small_3job_12slot.json");
  const Solved s = SolveWithPool(in, Scenario::kS6);
  const MilpModel model = Master(in, Scenario::kS6, modes, s.pool.plans());
  absl::StatusOr<std::string> start = RestrictedMasterStart(in, model, s.result);
  REQUIRE(start.ok());
  std::istringstream lines(*start);
  std::string header;
  std::getline(lines, header);
  CHECK(header == "Stopped on iterations - objective value 0");
  // One line per column, in order, with the value our schedule gives it; the start is a
  // feasible point of the model that costs our objective.
  std::vector<double> x;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    size_t index = 0;
    std::string name;
    double value = 0;
    fields >> index >> name >> value;
    REQUIRE(index == x.size());
    REQUIRE(index < model.columns.size());
    CHECK(name == model.columns[index].name);
    x.push_back(value);
  }
  REQUIRE(x.size() == model.columns.size());
  double cost = 0;
  int plans_on = 0;
  for (size_t c = 0; c < x.size(); ++c) {
    const MilpColumn& column = model.columns[c];
    INFO(column.name << " = " << x[c]);
    CHECK(x[c] >= column.lower - 1e-9);
    CHECK(x[c] <= column.upper + 1e-9);
    if (column.integer) CHECK((x[c] == 0 || x[c] == 1));
    if (column.role.kind == ColumnKind::kPlan && x[c] == 1) {
      ++plans_on;
      CHECK(model.plans[column.role.job][column.role.plan] ==
            s.result.schedule.jobs[column.role.job]);
    }
    cost += column.objective * x[c];
  }
  CHECK(plans_on == static_cast<int>(in.jobs.size()));
  CHECK(Near(cost, s.result.objective_usd));
  for (const MilpRow& row : model.rows) {
    double activity = 0;
    for (size_t i = 0; i < row.columns.size(); ++i) activity += row.values[i] * x[row.columns[i]];
    const double tol = 1e-6 * std::max(1.0, std::abs(row.rhs));
    INFO(row.name << ": " << activity << " against " << row.rhs);
    if (row.sense != RowSense::kGreaterEqual) CHECK(activity <= row.rhs + tol);
    if (row.sense != RowSense::kLessEqual) CHECK(activity >= row.rhs - tol);
  }

  // A schedule whose plan the master does not hold has no start.
  Result other = s.result;
  other.schedule.jobs[2].back().end_slot += 1;
  absl::StatusOr<std::string> refused = RestrictedMasterStart(in, model, other);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()).find("job 2's plan") != std::string::npos);
}

TEST_CASE(
    "restricted master: CBC's optimum over the pool lies between the engine's bound and "
    "incumbent, and decodes into a checked schedule",
    "[export]") {
  const std::string cbc = testing::CbcPath();
  if (cbc.empty()) FAIL("cbc is not on PATH: run tools/install-deps.sh (Debian's coinor-cbc)");
  const fs::path dir =
      fs::temp_directory_path() / ("ckptdp_restricted_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const char* file : {"small_2job_8slot.json", "small_3job_12slot.json"}) {
    const auto [in, modes] = testing::LoadInstanceModes(file);
    for (Scenario scenario : {Scenario::kS3, Scenario::kS4, Scenario::kS6}) {
      const std::string tag = in.name + "_" + std::string(ScenarioName(scenario));
      INFO(tag);
      const Solved s = SolveWithPool(in, scenario);
      const MilpModel model = Master(in, scenario, modes, s.pool.plans());
      const MilpSolution best = testing::SolveWithCbc(cbc, model, dir, tag);
      INFO("CBC: " << best.status_line << "; ours: objective " << s.result.objective_usd
                   << ", bound " << s.result.lower_bound_usd);
      REQUIRE(best.optimal);
      const double tol = 1e-6 * std::max(1.0, std::abs(best.objective));
      CHECK(best.objective <= s.result.objective_usd + tol);    // the pool holds our schedule
      CHECK(s.result.lower_bound_usd <= best.objective + tol);  // a restriction of the MILP

      testing::CheckDecodedSolution(in, scenario, modes, model, best);

      // Over our schedule's plans alone, the master's optimum is our schedule's cost.
      PlanPool ours;
      ours.AddSchedule(s.result.schedule);
      const MilpModel alone = Master(in, scenario, modes, ours.plans());
      const MilpSolution pinned = testing::SolveWithCbc(cbc, alone, dir, tag + "_alone");
      REQUIRE(pinned.optimal);
      CHECK(Near(pinned.objective, s.result.objective_usd));
    }
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace
}  // namespace ckptdp
