// `ckptdp export INSTANCE --scenario S --format lp|mps -o FILE [--fix RESULT.json]`: writes
// the exact MILP of section IV for one scenario, for an external MILP solver.
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/report.h"
#include "cli/commands.h"
#include "cli/load.h"

namespace ckptdp::cli {
namespace {

struct ExportArgs {
  std::string instance;
  std::string scenario = "S6";
  std::string format = "lp";
  std::string out;
  std::string fix;
  bool quiet = false;
};

int RunExport(const ExportArgs& args) {
  LoadedMilp loaded = LoadMilpOrReport(args.instance, args.scenario);
  if (!loaded.ok()) return loaded.exit_code;
  const LoadedInstance& in = loaded.in;
  MilpModel& model = loaded.model;  // FixSchedule may tighten it
  if (!args.fix.empty()) {
    absl::StatusOr<std::string> json = ReadTextFile(args.fix);
    if (!json.ok()) return ReportError(json.status());
    absl::StatusOr<Schedule> schedule = ScheduleFromResultJson(*json, in.instance, in.modes);
    if (!schedule.ok()) return ReportError(schedule.status());
    if (absl::Status s = FixSchedule(model, in.instance, in.modes, *schedule); !s.ok()) {
      return ReportError(s);
    }
  }
  const std::string text = args.format == "mps" ? ToMps(model) : ToLp(model);
  if (absl::Status s = WriteFileAtomically(args.out, text); !s.ok()) return ReportError(s);
  if (!args.quiet) {
    std::cout << absl::StrFormat("%s: %d columns (%d binary), %d rows, %d nonzeros -> %s\n",
                                 model.name, static_cast<int>(model.columns.size()),
                                 model.NumIntegers(), static_cast<int>(model.rows.size()),
                                 model.NumNonzeros(), args.out);
  }
  return kExitSolved;
}

}  // namespace

Command AddExportCommand(CLI::App& parent) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* app = parent.add_subcommand(
      "export", "Write the scenario's exact MILP (section IV) in CPLEX-LP or free MPS format");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_option("--scenario", args->scenario,
                  "S1..S6 (S1 is written as S2; S5 as S2 with the battery)")
      ->capture_default_str();
  app->add_option("--format", args->format, "lp (CPLEX LP) or mps (free MPS)")
      ->check(CLI::IsMember({"lp", "mps"}))
      ->capture_default_str();
  app->add_option("-o,--out", args->out, "Output model file (written atomically)")->required();
  app->add_option("--fix", args->fix,
                  "Result JSON whose schedule is fixed in the model (the power side stays free)");
  app->add_flag("--quiet", args->quiet, "Print nothing on success");
  return {app, [args]() { return RunExport(*args); }};
}

}  // namespace ckptdp::cli
