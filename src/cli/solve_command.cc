// `ckptdp solve INSTANCE [--scenario S] [--out RESULT.json] [--csv SLOTS.csv]
//  [--restricted-master FILE.lp|FILE.mps] [--quiet]`
// A first SIGINT or SIGTERM stops the search; the best schedule so far is still checked,
// written and summarised (cli/interrupt.h).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"

#include "ckptdp/check.h"
#include "ckptdp/communicator.h"
#include "ckptdp/engine.h"
#include "ckptdp/export.h"
#include "ckptdp/plan_pool.h"
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
  std::string restricted_master;
  std::string restricted_master_start;
  bool quiet = false;
};

// The restricted master over the plans the solve met (ckptdp/plan_pool.h) as LP or (for a
// .mps name) MPS text, and our schedule as its MIP start; nothing, with a note, when the
// solve found no schedule: some job may then have no plan, and the model would say nothing.
struct MasterFiles {
  std::string model;
  std::string start;
};
absl::StatusOr<std::optional<MasterFiles>> RestrictedMaster(const LoadedInstance& in,
                                                            Scenario scenario, const PlanPool& pool,
                                                            const Result& result,
                                                            const SolveArgs& args) {
  if (result.schedule.jobs.empty()) {
    std::cerr << "ckptdp: no restricted master written: the solve found no schedule\n";
    return std::optional<MasterFiles>();
  }
  CKPTDP_ASSIGN_OR_RETURN(const MilpModel model,
                          BuildRestrictedMaster(in.instance, scenario, in.modes, pool.plans()));
  MasterFiles files;
  files.model = absl::EndsWith(args.restricted_master, ".mps") ? ToMps(model) : ToLp(model);
  if (!args.restricted_master_start.empty()) {
    CKPTDP_ASSIGN_OR_RETURN(files.start, RestrictedMasterStart(in.instance, model, result));
  }
  if (!args.quiet) {
    std::cerr << absl::StrFormat(
        "restricted master: %d plans of %d jobs, %d columns (%d binary), %d rows -> %s\n",
        pool.size(), pool.num_jobs(), static_cast<int>(model.columns.size()), model.NumIntegers(),
        static_cast<int>(model.rows.size()), args.restricted_master);
  }
  return std::optional<MasterFiles>(std::move(files));
}

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
  PlanPool pool;
  if (!args.restricted_master.empty()) options.plan_pool = &pool;
  // The modes the result is written with are the ones the solve uses: one copy, not two.
  absl::StatusOr<Result> result = SolveScenario(in.instance, in.modes, *scenario, options);
  if (!result.ok()) return ReportError(result.status());
  if (!comm.root()) return result->schedule.jobs.empty() ? kExitInfeasible : kExitSolved;

  // Everything written is built before anything is written: an error leaves no file behind.
  const std::string json = ResultToJson(in.instance, in.modes, *result);
  const std::string summary =
      args.quiet ? std::string() : HumanSummary(in.instance, in.modes, *result);
  std::optional<MasterFiles> master;
  if (!args.restricted_master.empty()) {
    absl::StatusOr<std::optional<MasterFiles>> files =
        RestrictedMaster(in, *scenario, pool, *result, args);
    if (!files.ok()) return ReportError(files.status());
    master = std::move(*files);
  }
  // Nothing below reads the modes, and the checker builds its own from the instance: let
  // these go first, so that the two copies never coexist (about 60 MB each on the 4096-job
  // week; docs/benchmarks.md, "Memory on the long weeks").
  std::vector<JobModes>().swap(in.modes);
  // The independent checker vets every result before anything is written: a schedule
  // that breaks a GPU, power or checkpoint rule is a bug, never an answer.
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
  if (master) {
    if (absl::Status s = WriteFileAtomically(args.restricted_master, master->model); !s.ok()) {
      return ReportError(s);
    }
    if (!args.restricted_master_start.empty()) {
      absl::Status s = WriteFileAtomically(args.restricted_master_start, master->start);
      if (!s.ok()) return ReportError(s);
    }
  }
  if (!args.quiet) std::cout << summary;
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
  CLI::Option* master =
      app->add_option("--restricted-master", args->restricted_master,
                      "Write the restricted master MILP over the job plans the solve met here (as "
                      "MPS for a name like master.mps, else CPLEX LP; docs/engine.md, \"The plan "
                      "pool and the restricted master\")");
  app->add_option("--restricted-master-start", args->restricted_master_start,
                  "With --restricted-master: write our schedule as the master's MIP start here "
                  "(cbc's -mipstart)")
      ->needs(master);
  app->add_flag("--quiet", args->quiet,
                "No log on stderr and no summary on stdout (--log-level 0 keeps the summary)");
  AddSolveOptionFlags(app, options);
  return {app, [args, options]() { return RunSolve(*args, *options); }};
}

}  // namespace ckptdp::cli
