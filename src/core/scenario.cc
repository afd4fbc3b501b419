// The six scenarios of Table III: their names, descriptions and what each one enables.
#include "ckptdp/scenario.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace ckptdp {
namespace {

struct ScenarioInfo {
  Scenario scenario;
  const char* name;
  const char* description;  // Table IV, "Main mechanism"
  ScenarioTraits traits;    // Table III: BESS, checkpoint, 3D modes (+ waiting)
};

// S3 has no checkpoints, so "waiting" there only means its divisible work may leave slots
// idle: the idealised benchmark reshapes the load freely. S2 records checkpoints along the
// S1 trajectory without waiting, which is why S1 and S2 coincide in Table IV.
// One scenario per row, as in Table III.
// clang-format off
constexpr std::array<ScenarioInfo, 6> kScenarios = {{
    {Scenario::kS1, "S1", "Fixed baseline",
     {.battery = false, .checkpoints = false, .variable_modes = false, .waiting = false}},
    {Scenario::kS2, "S2", "Checkpoint record",
     {.battery = false, .checkpoints = true, .variable_modes = false, .waiting = false}},
    {Scenario::kS3, "S3", "Idealized 3D only",
     {.battery = false, .checkpoints = false, .variable_modes = true, .waiting = true}},
    {Scenario::kS4, "S4", "Checkpoint+3D",
     {.battery = false, .checkpoints = true, .variable_modes = true, .waiting = true}},
    {Scenario::kS5, "S5", "Fixed+BESS",
     {.battery = true, .checkpoints = false, .variable_modes = false, .waiting = false}},
    {Scenario::kS6, "S6", "Checkpoint+3D+BESS",
     {.battery = true, .checkpoints = true, .variable_modes = true, .waiting = true}},
}};
// clang-format on

const ScenarioInfo& InfoOf(Scenario scenario) {
  const int index = static_cast<int>(scenario) - 1;
  // An out-of-range enum value can only come from a cast; fall back to S1 rather than UB.
  if (index < 0 || index >= static_cast<int>(kScenarios.size())) return kScenarios[0];
  return kScenarios[index];
}

}  // namespace

ScenarioTraits TraitsOf(Scenario scenario) { return InfoOf(scenario).traits; }

const char* ScenarioName(Scenario scenario) { return InfoOf(scenario).name; }

const char* ScenarioDescription(Scenario scenario) { return InfoOf(scenario).description; }

absl::StatusOr<Scenario> ParseScenario(std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == 'S' || digits.front() == 's')) {
    digits.remove_prefix(1);
  }
  for (const ScenarioInfo& info : kScenarios) {
    if (digits == std::string_view(info.name).substr(1)) return info.scenario;
  }
  // Debian's Abseil is built without the std::string_view alias, hence the std::string copies.
  std::vector<std::string> names;
  for (const ScenarioInfo& info : kScenarios) names.emplace_back(info.name);
  return absl::InvalidArgumentError(absl::StrCat("unknown scenario \"", std::string(text),
                                                 "\"; valid: ", absl::StrJoin(names, ", "),
                                                 " (or s1..s6, 1..6)"));
}

std::vector<Scenario> AllScenarios() {
  std::vector<Scenario> all;
  for (const ScenarioInfo& info : kScenarios) all.push_back(info.scenario);
  return all;
}

}  // namespace ckptdp
