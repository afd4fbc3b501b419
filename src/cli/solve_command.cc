// `ckptdp solve INSTANCE [--scenario S] [--out RESULT.json] [--csv SLOTS.csv] [--quiet]`
// A first SIGINT or SIGTERM stops the search; the best schedule so far is still checked,
// written and summarised (cli/interrupt.h).
#include <iostream>
#include <memory>

#include "ckptdp/check.h"
#include "ckptdp/communicator.h"
#include "ckptdp/engine.h"
#include "ckptdp/report.h"
#include "ckptdp/result.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/load.h"
#include "cli/solve_options.h"

namespace ckptdp::cli {
namespace {

struct SolveArgs {
  std::string instance;
  std::string scenario = "S6";
  std::string out;
  std::string csv;
  bool quiet = false;
};

int RunSolve(const SolveArgs& args, const SolveOptions& base_options) {
  absl::StatusOr<Scenario> scenario = ParseScenario(args.scenario);
  if (!scenario.ok()) return ReportError(scenario.status());
  LoadedInstance in = LoadInstanceOrReport(args.instance, BuildModes::kYes);
  if (!in.ok()) return in.exit_code;

  // Under mpirun every rank solves together (docs/distributed.md); rank 0 logs, checks and
  // writes, the others only lend their cores.
  const Communicator& comm = Communicator::World();
  SolveOptions options = base_options;
  options.log = args.quiet || !comm.root() ? nullptr : &std::cerr;
  options.stop = InstallInterruptHandler();
  options.comm = &comm;
  absl::StatusOr<Result> result = SolveScenario(in.instance, *scenario, options);
  if (!result.ok()) return ReportError(result.status());
  if (!comm.root()) return result->schedule.jobs.empty() ? kExitInfeasible : kExitSolved;

  // The independent checker vets every result before anything is written: a schedule
  // that breaks a GPU, power or checkpoint rule is a bug, never an answer.
  const std::string json = ResultToJson(in.instance, in.modes, *result);
  absl::StatusOr<CheckReport> report = CheckResult(in.instance, json);
  if (!report.ok()) return ReportError(report.status());
  if (!report->ok()) {
    std::cerr << "ckptdp: internal error: the result failed its independent check\n"
              << report->ToText();
    return kExitInternal;
  }
  if (!args.out.empty()) {
    if (absl::Status s = WriteFileAtomically(args.out, json + "\n"); !s.ok()) {
      return ReportError(s);
    }
  }
  if (!args.csv.empty()) {
    if (absl::Status s = WriteFileAtomically(args.csv, SlotsCsv(in.instance, *result)); !s.ok()) {
      return ReportError(s);
    }
  }
  if (!args.quiet) std::cout << HumanSummary(in.instance, in.modes, *result);
  if (result->status == SolveStatus::kInterrupted) return InterruptedExitCode();
  const bool no_schedule = result->schedule.jobs.empty();
  return no_schedule ? kExitInfeasible : kExitSolved;
}

}  // namespace

Command AddSolveCommand(CLI::App& parent) {
  auto args = std::make_shared<SolveArgs>();
  auto options = std::make_shared<SolveOptions>();
  CLI::App* app = parent.add_subcommand("solve", "Solve one scenario (S1-S6) of an instance");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_option("--scenario", args->scenario, "S1..S6 (Table III of the paper)")
      ->capture_default_str();
  app->add_option("--out", args->out, "Write the result JSON here (atomically)");
  app->add_option("--csv", args->csv, "Write the per-slot table as CSV here (atomically)");
  app->add_flag("--quiet", args->quiet,
                "No log on stderr and no summary on stdout (--log-level 0 keeps the summary)");
  AddSolveOptionFlags(app, options);
  return {app, [args, options]() { return RunSolve(*args, *options); }};
}

}  // namespace ckptdp::cli
