// The schedule rescue (schedule_rescue.h): on the paper case at 1400 GPUs (S4) the root's
// repairs find no schedule, while a copy with fewer GPUs gives one that keeps the 1400
// GPUs' limits; a proven-infeasible capacity gives none.
#include "dispatch/internal/schedule_rescue.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "ckptdp/engine.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/evaluation.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

Instance PaperAt(int gpus) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/paper_2048gpu.json"));
  REQUIRE(in.ok());
  in->site.gpu_capacity = gpus;
  return *in;
}

internal::Deadline InSeconds(int s) {
  return internal::Deadline(std::chrono::steady_clock::now() + std::chrono::seconds(s));
}

TEST_CASE("A copy with fewer GPUs gives the paper case at 1400 GPUs a schedule", "[rescue]") {
  const Instance in = PaperAt(1400);
  SolveOptions root_only;
  root_only.max_nodes = 0;
  root_only.diagnose_capacity = false;
  root_only.threads = 1;
  const std::optional<internal::RescuedSchedule> rescued =
      internal::ScheduleWithFewerGpus(in, Scenario::kS4, root_only, InSeconds(60));
  REQUIRE(rescued.has_value());
  CHECK(rescued->gpu_capacity < 1400);
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
  REQUIRE(modes.ok());
  const internal::ScenarioContext context = internal::MakeContext(in, *modes, Scenario::kS4);
  absl::StatusOr<internal::Evaluated> e = internal::Evaluate(context, rescued->schedule);
  REQUIRE(e.ok());
  CHECK(e->feasible);  // the copy's schedule keeps the instance's own limits

  // The default solve uses it: a schedule, proven optimal, where it ended with none.
  SolveOptions defaults;
  defaults.threads = 1;
  defaults.diagnose_capacity = false;
  const absl::StatusOr<Result> r = SolveScenario(in, Scenario::kS4, defaults);
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->schedule.jobs.empty());
  CHECK(r->status == SolveStatus::kOptimal);
  CHECK(r->objective_usd <= e->cost_usd + 1e-9);
}

TEST_CASE("No copy with fewer GPUs rescues a proven-infeasible capacity", "[rescue]") {
  SolveOptions options;
  options.threads = 1;
  CHECK_FALSE(internal::ScheduleWithFewerGpus(PaperAt(1024), Scenario::kS4, options, InSeconds(60))
                  .has_value());
}

}  // namespace
}  // namespace ckptdp
