// `ckptdp milp-result INSTANCE --scenario S --solution CBC.sol [--out RESULT.json]`: reads a
// CBC solution of `ckptdp export`'s model back into a result and checks it independently.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ckptdp/check.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/report.h"
#include "ckptdp/result.h"
#include "cli/commands.h"
#include "cli/load.h"

namespace ckptdp::cli {
namespace {

struct MilpResultArgs {
  std::string instance;
  std::string scenario = "S6";
  bool scenario_given = false;  // --scenario on the command line, not the default
  std::string solution;
  std::string out;
};

// OK if the solution text reads back as `scenario`'s model and passes the checker.
absl::Status ReadBackAndCheck(const LoadedInstance& in, Scenario scenario,
                              const std::string& text) {
  CKPTDP_ASSIGN_OR_RETURN(const MilpModel model, BuildMilp(in.instance, scenario, in.modes));
  CKPTDP_ASSIGN_OR_RETURN(const MilpSolution solution, ReadCbcSolution(text, model));
  CKPTDP_ASSIGN_OR_RETURN(Result result,
                          SolutionToResult(in.instance, scenario, in.modes, model, solution));
  CKPTDP_ASSIGN_OR_RETURN(const CheckReport report,
                          CheckResult(in.instance, ResultToJson(in.instance, in.modes, result)));
  if (!report.ok()) return absl::InvalidArgumentError("the result breaks the model");
  return absl::OkStatus();
}

// A solution of one scenario's model read as another's (S6 by default) breaks rules that
// have nothing to do with the solution: an S4 solution has no battery columns, so S6 sees
// a battery whose state of charge never moves. When --scenario was left out, this names
// the scenarios whose model the solution does fit, or says that the default was used.
std::string ScenarioHint(const LoadedInstance& in, Scenario tried, const std::string& text) {
  std::vector<std::string> fits;
  for (Scenario s : AllScenarios()) {
    if (s != tried && ReadBackAndCheck(in, s, text).ok()) fits.push_back(ScenarioName(s));
  }
  if (!fits.empty()) {
    return absl::StrFormat(
        "hint: --scenario was not given, so the solution was read as %s; read as %s it passes "
        "the checker: the solution may be from another scenario; pass --scenario %s\n",
        ScenarioName(tried), absl::StrJoin(fits, " or "),
        fits.size() == 1 ? fits[0] : absl::StrJoin(fits, "|"));
  }
  return absl::StrFormat(
      "hint: --scenario was not given, so the solution was read as %s; if it comes from "
      "another scenario's model, pass --scenario\n",
      ScenarioName(tried));
}

int RunMilpResult(const MilpResultArgs& args) {
  LoadedMilp loaded = LoadMilpOrReport(args.instance, args.scenario);
  if (!loaded.ok()) return loaded.exit_code;
  const LoadedInstance& in = loaded.in;
  const Scenario scenario = loaded.scenario;
  const MilpModel& model = loaded.model;
  absl::StatusOr<std::string> text = ReadTextFile(args.solution);
  if (!text.ok()) return ReportError(text.status());
  absl::StatusOr<MilpSolution> solution = ReadCbcSolution(*text, model);
  if (!solution.ok()) {
    const int exit_code = ReportError(solution.status());
    if (!args.scenario_given) std::cerr << ScenarioHint(in, scenario, *text);
    return exit_code;
  }
  std::cout << "solver: " << solution->status_line << "\n";
  absl::StatusOr<Result> result =
      SolutionToResult(in.instance, scenario, in.modes, model, *solution);
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
  if (!report->ok() && !args.scenario_given) std::cout << ScenarioHint(in, scenario, *text);
  return report->ok() ? kExitSolved : kExitInfeasible;
}

}  // namespace

Command AddMilpResultCommand(CLI::App& parent) {
  auto args = std::make_shared<MilpResultArgs>();
  CLI::App* app = parent.add_subcommand(
      "milp-result",
      "Read a CBC solution of `ckptdp export`'s model back into a result and check it");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  CLI::Option* scenario =
      app->add_option("--scenario", args->scenario, "S1..S6, as exported")->capture_default_str();
  app->add_option("--solution", args->solution, "CBC solution file (cbc ... -solve -solu FILE)")
      ->required();
  app->add_option("--out", args->out, "Write the result JSON here (atomically)");
  return {app, [args, scenario]() {
            args->scenario_given = scenario->count() > 0;
            return RunMilpResult(*args);
          }};
}

}  // namespace ckptdp::cli
