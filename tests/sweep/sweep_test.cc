// Parameter sweeps: how values are applied, and that a sweep is ordered, repeatable and
// survives points that have no schedule.
#include <catch2/catch.hpp>

#include <atomic>

#include "ckptdp/sweep.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

const Instance& Paper() {
  static const Instance instance = [] {
    absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/paper_2048gpu.json"));
    REQUIRE(in.ok());
    return *in;
  }();
  return instance;
}

// Few iterations: these tests are about the sweep, not the engine's optimality.
SolveOptions Quick() {
  SolveOptions o;
  o.max_iterations = 20;
  o.stall_iterations = 10;
  o.max_nodes = 0;
  o.diagnose_capacity = false;
  return o;
}

TEST_CASE("Sweep parameters change exactly their fields", "[sweep]") {
  const Instance& base = Paper();

  absl::StatusOr<Instance> k = ApplySweepParameter(base, "segments", 6);
  REQUIRE(k.ok());
  for (const Job& job : k->jobs) CHECK(job.segments == 6);
  CHECK_FALSE(ApplySweepParameter(base, "segments", 2.5).ok());
  CHECK_FALSE(ApplySweepParameter(base, "segments", 0).ok());

  absl::StatusOr<Instance> cap = ApplySweepParameter(base, "gpu-capacity", 1280);
  REQUIRE(cap.ok());
  CHECK(cap->site.gpu_capacity == 1280);
  CHECK(cap->jobs[0].segments == base.jobs[0].segments);

  absl::StatusOr<Instance> re = ApplySweepParameter(base, "renewable-ratio", 1.5);
  REQUIRE(re.ok());
  CHECK(RenewableEnergyMwh(*re) == Approx(1.5 * RenewableEnergyMwh(base)));
  CHECK(re->series.price_usd_per_mwh == base.series.price_usd_per_mwh);

  absl::StatusOr<Instance> energy = ApplySweepParameter(base, "renewable-energy-ratio", 1.0);
  REQUIRE(energy.ok());
  absl::StatusOr<double> aidc = BaselineAidcEnergyMwh(base);
  REQUIRE(aidc.ok());
  CHECK(*aidc == Approx(24.36));  // 1015 kW for 24 h (Table IV, S1)
  CHECK(RenewableEnergyMwh(*energy) == Approx(*aidc));

  absl::StatusOr<Instance> bat = ApplySweepParameter(base, "battery-energy", 1600);
  REQUIRE(bat.ok());
  CHECK(bat->battery.energy_kwh == 1600);
  CHECK(bat->battery.soc_min_kwh == Approx(2 * base.battery.soc_min_kwh));
  CHECK(bat->battery.soc_max_kwh == Approx(2 * base.battery.soc_max_kwh));
  CHECK(bat->battery.soc_initial_kwh == Approx(2 * base.battery.soc_initial_kwh));
  CHECK(bat->battery.power_kw == base.battery.power_kw);
}

TEST_CASE("An unknown sweep parameter is rejected with the valid names", "[sweep]") {
  absl::StatusOr<std::vector<SweepPoint>> r =
      RunSweep(Paper(), Scenario::kS4, "pue", {1.0}, Quick());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("gpu-capacity") &&
                                                    Catch::Contains("renewable-ratio") &&
                                                    Catch::Contains("battery-energy"));
}

TEST_CASE("Sweep results are in input order and identical between runs", "[sweep]") {
  const std::vector<double> values = {1.25, 0.75, 1.0};
  std::atomic<int> calls = 0;
  int last_done = 0;
  const SweepProgress progress = [&](int done, int total) {
    ++calls;
    CHECK(total == 3);
    CHECK(done == last_done + 1);
    last_done = done;
  };
  absl::StatusOr<std::vector<SweepPoint>> a =
      RunSweep(Paper(), Scenario::kS4, "renewable-ratio", values, Quick(), progress);
  absl::StatusOr<std::vector<SweepPoint>> b =
      RunSweep(Paper(), Scenario::kS4, "renewable-ratio", values, Quick());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(calls == 3);
  REQUIRE(a->size() == 3);
  for (size_t i = 0; i < values.size(); ++i) {
    CHECK((*a)[i].value == values[i]);
    REQUIRE((*a)[i].result.ok());
    REQUIRE((*b)[i].result.ok());
    CHECK((*a)[i].result->objective_usd == (*b)[i].result->objective_usd);
    CHECK((*a)[i].result->schedule == (*b)[i].result->schedule);
  }
  // More renewable energy never costs more here (the price is unchanged, curtailment small).
  CHECK((*a)[0].result->objective_usd < (*a)[2].result->objective_usd);
  CHECK((*a)[2].result->objective_usd < (*a)[1].result->objective_usd);
}

TEST_CASE("Points without a schedule are recorded and do not abort the sweep", "[sweep]") {
  // 768 GPUs fit each baseline but not both jobs' work (Fig. 12(b)); 512 is below LLM-B's
  // 768-GPU baseline mode, which no solve accepts.
  absl::StatusOr<std::vector<SweepPoint>> r =
      RunSweep(Paper(), Scenario::kS4, "gpu-capacity", {768, 512, 2048}, Quick());
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  REQUIRE((*r)[0].result.ok());
  // Proven infeasible (the capacity proof runs before any Lagrangian iteration).
  CHECK((*r)[0].result->status == SolveStatus::kInfeasible);
  CHECK((*r)[0].result->schedule.jobs.empty());
  CHECK_FALSE((*r)[0].result->diagnosis.empty());
  CHECK_FALSE((*r)[1].result.ok());
  REQUIRE((*r)[2].result.ok());
  CHECK_FALSE((*r)[2].result->schedule.jobs.empty());
}

}  // namespace
}  // namespace ckptdp
