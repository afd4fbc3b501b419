// `ckptdp milp-result INSTANCE --scenario S --solution CBC.sol [--out RESULT.json]`: reads a
// CBC solution of `ckptdp export`'s model back into a result and checks it independently.
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/check.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/report.h"
#include "cli/commands.h"
#include "cli/load.h"

namespace ckptdp::cli {
namespace {

struct MilpResultArgs {
  std::string instance;
  std::string scenario = "S6";
  std::string solution;
  std::string out;
};

int RunMilpResult(const MilpResultArgs& args) {
  absl::StatusOr<Scenario> scenario = ParseScenario(args.scenario);
  if (!scenario.ok()) return ReportError(scenario.status());
  LoadedInstance in = LoadInstanceOrReport(args.instance, BuildModes::kYes);
  if (!in.ok()) return in.exit_code;
  // The model is rebuilt from the instance: the solution's names are matched against it.
  absl::StatusOr<MilpModel> model = BuildMilp(in.instance, *scenario, in.modes);
  if (!model.ok()) return ReportError(model.status());
  absl::StatusOr<std::string> text = ReadTextFile(args.solution);
  if (!text.ok()) return ReportError(text.status());
  absl::StatusOr<MilpSolution> solution = ReadCbcSolution(*text, *model);
  if (!solution.ok()) return ReportError(solution.status());
  std::cout << "solver: " << solution->status_line << "\n";
  absl::StatusOr<Result> result =
      SolutionToResult(in.instance, *scenario, in.modes, *model, *solution);
  if (!result.ok()) return ReportError(result.status());

  const std::string json = ResultToJson(in.instance, in.modes, *result);
  if (!args.out.empty()) {
    if (absl::Status s = WriteFileAtomically(args.out, json); !s.ok()) return ReportError(s);
  }
  absl::StatusOr<CheckReport> report = CheckResult(in.instance, json);
  if (!report.ok()) return ReportError(report.status());
  std::cout << absl::StrFormat("objective_usd %.6f (solver reported %.6f)\n", result->objective_usd,
                               solution->objective)
            << report->ToText();
  return report->ok() ? kExitSolved : kExitInfeasible;
}

}  // namespace

Command AddMilpResultCommand(CLI::App& parent) {
  auto args = std::make_shared<MilpResultArgs>();
  CLI::App* app = parent.add_subcommand(
      "milp-result",
      "Read a CBC solution of `ckptdp export`'s model back into a result and check it");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_option("--scenario", args->scenario, "S1..S6, as exported")->capture_default_str();
  app->add_option("--solution", args->solution, "CBC solution file (cbc ... -solve -solu FILE)")
      ->required();
  app->add_option("--out", args->out, "Write the result JSON here (atomically)");
  return {app, [args]() { return RunMilpResult(*args); }};
}

}  // namespace ckptdp::cli
