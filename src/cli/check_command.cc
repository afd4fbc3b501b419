// `ckptdp check INSTANCE RESULT.json`: verifies a result independently of the solver.
#include <iostream>
#include <memory>

#include "ckptdp/check.h"
#include "cli/commands.h"
#include "cli/load.h"

namespace ckptdp::cli {

Command AddCheckCommand(CLI::App& parent) {
  struct Args {
    std::string instance, result;
  };
  auto args = std::make_shared<Args>();
  CLI::App* app = parent.add_subcommand(
      "check", "Verify a result against its instance; exit 0 if valid, 1 if it breaks a rule");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_option("result", args->result, "Result JSON file (ckptdp solve --out)")->required();
  return {app, [args]() -> int {
            LoadedInstance in = LoadInstanceOrReport(args->instance, BuildModes::kNo);
            if (!in.ok()) return in.exit_code;
            absl::StatusOr<CheckReport> report = CheckResultFile(in.instance, args->result);
            if (!report.ok()) return ReportError(report.status());
            std::cout << report->ToText();
            return report->ok() ? kExitSolved : kExitInfeasible;
          }};
}

}  // namespace ckptdp::cli
