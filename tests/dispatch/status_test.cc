// The stopping statuses (docs/engine.md, "Stopping"): the status names the limit that ended
// the search, `infeasible` means proven, and a stop request ends a solve as `interrupted`.
// Each result also passes the independent checker. And the log (docs/engine.md, "The log").
#include <atomic>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "ckptdp/check.h"
#include "ckptdp/engine.h"
#include "ckptdp/report.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

Instance Paper(int gpu_capacity = 0) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/paper_2048gpu.json"));
  REQUIRE(in.ok());
  if (gpu_capacity > 0) in->site.gpu_capacity = gpu_capacity;
  return *in;
}

// Solves and runs the checker on the result file the CLI would write.
Result SolveAndCheck(const Instance& in, Scenario scenario, const SolveOptions& options) {
  absl::StatusOr<Result> r = SolveScenario(in, scenario, options);
  REQUIRE(r.ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
  REQUIRE(modes.ok());
  absl::StatusOr<CheckReport> report = CheckResult(in, ResultToJson(in, *modes, *r));
  REQUIRE(report.ok());
  INFO(report->ToText());
  CHECK(report->ok());
  return *r;
}

TEST_CASE("A node budget that runs out is reported as node_limit", "[status]") {
  SolveOptions options;
  options.max_nodes = 40;
  options.decomposition_iterations = 0;  // it would prove paper S4 at the root
  const Result r = SolveAndCheck(Paper(), Scenario::kS4, options);
  CHECK(r.status == SolveStatus::kNodeLimit);
  CHECK(r.solver.nodes == 40);
  CHECK(r.gap > options.gap);
  CHECK(std::string(SolveStatusName(r.status)) == "node_limit");
}

TEST_CASE("Spent Lagrangian iterations are reported as iteration_limit", "[status]") {
  SolveOptions options;
  options.max_nodes = 0;
  options.max_iterations = 5;
  options.neighbourhood_stall_rounds = 0;
  options.decomposition_iterations = 0;  // it would prove paper S4 at the root
  const Result r = SolveAndCheck(Paper(), Scenario::kS4, options);
  CHECK(r.status == SolveStatus::kIterationLimit);
  CHECK(r.solver.iterations == 5);
  CHECK_FALSE(r.schedule.jobs.empty());
}

TEST_CASE("Without a schedule or a proof the status is a limit, never infeasible", "[status]") {
  // 1464 GPUs: schedules exist (1280 GPUs already have one), but five root iterations
  // without branch and bound find none, and nothing proves infeasibility (below 1280 GPUs
  // the capacity proof would: infeasibility_test.cc). The status names the iteration limit.
  SolveOptions options;
  options.diagnose_capacity = false;
  options.max_nodes = 0;
  options.max_iterations = 5;
  options.decomposition_iterations = 0;
  const Result r = SolveAndCheck(Paper(1464), Scenario::kS4, options);
  CHECK(r.schedule.jobs.empty());
  CHECK(r.status == SolveStatus::kIterationLimit);  // not time_limit: no clock ran out
  CHECK(StoppedEarly(r.status));
}

TEST_CASE("A stop request ends the solve as interrupted with the schedule so far", "[status]") {
  std::atomic<bool> stop{true};  // set before the start: the search stops at once
  SolveOptions options;
  options.stop = &stop;
  const Result r = SolveAndCheck(Paper(), Scenario::kS6, options);
  CHECK(r.status == SolveStatus::kInterrupted);
  CHECK(r.solver.iterations == 0);
  CHECK(r.solver.nodes == 0);

  // A stop token that stays false changes nothing.
  std::atomic<bool> never{false};
  SolveOptions quick;
  quick.max_nodes = 0;
  SolveOptions quick_with_token = quick;
  quick_with_token.stop = &never;
  const Result a = SolveAndCheck(Paper(), Scenario::kS4, quick);
  const Result b = SolveAndCheck(Paper(), Scenario::kS4, quick_with_token);
  CHECK(a.objective_usd == b.objective_usd);
  CHECK(a.lower_bound_usd == b.lower_bound_usd);
  CHECK(a.status == b.status);
}

int Lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST_CASE("The log shows news, throttles the rest and follows --log-level", "[status][log]") {
  SolveOptions options;
  options.max_nodes = 0;
  std::ostringstream every, normal, quiet;
  options.log = &every;
  options.log_level = 2;
  const Result r = SolveAndCheck(Paper(), Scenario::kS4, options);
  options.log = &normal;
  options.log_level = 1;
  SolveAndCheck(Paper(), Scenario::kS4, options);
  options.log = &quiet;
  options.log_level = 0;
  SolveAndCheck(Paper(), Scenario::kS4, options);

  INFO("level 2:\n" << every.str() << "\nlevel 1:\n" << normal.str());
  // Level 2: a row per iteration, with the header every 20 rows.
  CHECK(Lines(every.str()) >= r.solver.iterations + r.solver.iterations / 20);
  // Level 1: the root takes well under a second here, so only news is shown: a handful
  // of new incumbents and bounds that halve the gap, not one row per iteration.
  CHECK(Lines(normal.str()) >= 2);
  CHECK(Lines(normal.str()) <= 20);
  CHECK(normal.str().find("phase") != std::string::npos);
  CHECK(normal.str().find("* root") != std::string::npos);
  CHECK(quiet.str().empty());
}

}  // namespace
}  // namespace ckptdp
