// The deflected Polyak step's restart (multiplier_update.h): after the dual falls, and
// only while the incumbent is far above the best value, the next direction is the plain
// subgradient.
#include <catch2/catch.hpp>

#include <chrono>

#include "dispatch/internal/dual.h"
#include "dispatch/internal/multiplier_update.h"
#include "support/instance_modes.h"

namespace ckptdp::internal {
namespace {

const auto kFar = std::chrono::steady_clock::now() + std::chrono::hours(1);

// The multipliers after two steps from `start`, taken at the dual's subgradient there:
// values 10 then 5 (the dual fell), the second step aiming at `incumbent`.
Multipliers AfterFall(const PolyakStepOptions& options, const DualEvaluator& dual,
                      const Multipliers& start, double incumbent) {
  DeflectedPolyakStep step(options);
  Multipliers m = start;
  step.Observe(10.0);
  step.Step(dual, incumbent, m);
  step.Observe(5.0);
  m = start;
  step.Step(dual, incumbent, m);
  return m;
}

TEST_CASE("The deflected step restarts from the subgradient after a fall, only at a wide gap",
          "[dispatch]") {
  const testing::InstanceModes f = testing::LoadInstanceModes("small_3job_12slot.json");
  const ScenarioContext c = MakeContext(f.instance, f.modes, Scenario::kS4);
  Workspaces work;
  DualEvaluator dual(c, work, 1);
  Multipliers start{std::vector<double>(c.slots()), std::vector<double>(c.slots(), 0.5)};
  for (int t = 0; t < c.slots(); ++t) {
    start.lambda[t] = f.instance.series.price_usd_per_mwh[t] / 1000.0;
  }
  absl::StatusOr<DualEvaluator::Outcome> o = dual.Evaluate(start, {}, kFar);
  REQUIRE(o.ok());
  REQUIRE(*o == DualEvaluator::Outcome::kOk);
  REQUIRE(dual.norm_squared() > kZeroSubgradientNormSq);

  PolyakStepOptions plain;  // no deflection: every direction is the subgradient
  PolyakStepOptions deflected;
  deflected.deflection = 0.9;
  PolyakStepOptions restarting = deflected;
  restarting.restart_above_gap = 0.2;

  // Incumbent 100, best value 10: a gap of 90 % of the incumbent, above 20 %.
  const Multipliers wide_plain = AfterFall(plain, dual, start, 100.0);
  const Multipliers wide_deflected = AfterFall(deflected, dual, start, 100.0);
  const Multipliers wide_restarting = AfterFall(restarting, dual, start, 100.0);
  CHECK(wide_restarting.lambda == wide_plain.lambda);
  CHECK(wide_restarting.mu == wide_plain.mu);
  CHECK(wide_deflected.lambda != wide_plain.lambda);

  // Incumbent 12: a gap of 2 / 12 = 17 %, below 20 %: the deflection stays.
  const Multipliers narrow_deflected = AfterFall(deflected, dual, start, 12.0);
  const Multipliers narrow_restarting = AfterFall(restarting, dual, start, 12.0);
  CHECK(narrow_restarting.lambda == narrow_deflected.lambda);
  CHECK(narrow_restarting.mu == narrow_deflected.mu);
}

}  // namespace
}  // namespace ckptdp::internal
