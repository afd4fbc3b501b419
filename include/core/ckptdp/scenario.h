// The six scenarios of Table III: names, descriptions and what each one enables.
//
// Part of the core stage (below every other stage): dispatch, export, report and the cli all
// speak of scenarios, and none of them should need another to do so.
#ifndef CKPTDP_SCENARIO_H_
#define CKPTDP_SCENARIO_H_

#include <string_view>
#include <vector>

#include "ckptdp/status.h"

namespace ckptdp {

// The six scenarios of Table III.
enum class Scenario { kS1 = 1, kS2, kS3, kS4, kS5, kS6 };

struct ScenarioTraits {
  bool battery;         // BESS dispatched
  bool checkpoints;     // the checkpoint-state graph (S3 has none)
  bool variable_modes;  // any effective mode, not just the baseline
  bool waiting;         // checkpoint waiting allowed
};
ScenarioTraits TraitsOf(Scenario scenario);
const char* ScenarioName(Scenario scenario);                    // "S1" .. "S6"
const char* ScenarioDescription(Scenario scenario);             // "Fixed baseline", ...
absl::StatusOr<Scenario> ParseScenario(std::string_view text);  // "S4", "s4", "4"
std::vector<Scenario> AllScenarios();

}  // namespace ckptdp

#endif  // CKPTDP_SCENARIO_H_
