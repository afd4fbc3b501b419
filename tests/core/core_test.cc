// The core stage: scenario names and traits (Table III) and the gap rule.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/scenario.h"
#include "ckptdp/status.h"

namespace ckptdp {
namespace {

TEST_CASE("ParseScenario round-trips names and rejects unknown ones", "[core]") {
  const std::vector<Scenario> all = AllScenarios();
  REQUIRE(all.size() == 6);
  for (int i = 0; i < 6; ++i) {
    const Scenario s = all[i];
    const std::string name(ScenarioName(s));
    CHECK(name == "S" + std::to_string(i + 1));
    CHECK(ParseScenario(name).value() == s);
    CHECK(ParseScenario("s" + std::to_string(i + 1)).value() == s);
    CHECK(ParseScenario(std::to_string(i + 1)).value() == s);
    CHECK_FALSE(std::string(ScenarioDescription(s)).empty());
  }
  for (const char* bad : {"S7", "s0", "7", "", "S", "S11", " S1", "S1 ", "x4"}) {
    INFO(bad);
    const auto parsed = ParseScenario(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(parsed.status().message()), Catch::Contains("S1, S2, S3, S4, S5, S6"));
  }
}

TEST_CASE("Scenario traits follow Table III", "[core]") {
  const auto traits = [](Scenario s) {
    const ScenarioTraits t = TraitsOf(s);
    return std::vector<bool>{t.battery, t.checkpoints, t.variable_modes, t.waiting};
  };
  CHECK(traits(Scenario::kS1) == std::vector<bool>{false, false, false, false});
  CHECK(traits(Scenario::kS2) == std::vector<bool>{false, true, false, false});
  CHECK(traits(Scenario::kS3) == std::vector<bool>{false, false, true, true});
  CHECK(traits(Scenario::kS4) == std::vector<bool>{false, true, true, true});
  CHECK(traits(Scenario::kS5) == std::vector<bool>{true, false, false, false});
  CHECK(traits(Scenario::kS6) == std::vector<bool>{true, true, true, true});
  CHECK(std::string(ScenarioDescription(Scenario::kS1)) == "Fixed baseline");
  CHECK(std::string(ScenarioDescription(Scenario::kS2)) == "Checkpoint record");
  CHECK(std::string(ScenarioDescription(Scenario::kS3)) == "Idealized 3D only");
  CHECK(std::string(ScenarioDescription(Scenario::kS5)) == "Fixed+BESS");
}

TEST_CASE("RelativeGap divides by max(1, |incumbent|)", "[core]") {
  CHECK(RelativeGap(200, 190) == Approx(0.05));
  CHECK(RelativeGap(-200, -210) == Approx(0.05));
  CHECK(RelativeGap(0.5, 0.0) == Approx(0.5));  // small objectives: absolute gap
  CHECK(RelativeGap(100, 100) == 0.0);
}

TEST_CASE("SolveStatusName gives the names of docs/result-format.md", "[core]") {
  CHECK(std::string(SolveStatusName(SolveStatus::kOptimal)) == "optimal");
  CHECK(std::string(SolveStatusName(SolveStatus::kFeasible)) == "feasible");
  CHECK(std::string(SolveStatusName(SolveStatus::kInfeasible)) == "infeasible");
  CHECK(std::string(SolveStatusName(SolveStatus::kTimeLimit)) == "time_limit");
}

}  // namespace
}  // namespace ckptdp
