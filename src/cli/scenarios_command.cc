// `ckptdp scenarios INSTANCE [--json]`: all six scenarios in a table shaped like Table IV.
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/communicator.h"
#include "ckptdp/engine.h"
#include "ckptdp/result.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/load.h"
#include "cli/progress.h"
#include "cli/solve_options.h"
#include "nlohmann/json.hpp"

namespace ckptdp::cli {
namespace {

struct ScenariosArgs {
  std::string instance;
  bool json = false;
  bool quiet = false;
};

// One scenario's part of the output: its JSON row and its table line.
nlohmann::json ScenarioEntry(Scenario s, const Result& r) {
  const Metrics& m = r.metrics;
  const bool has = !r.schedule.jobs.empty();
  nlohmann::json row = {{"scenario", ScenarioName(s)},
                        {"description", ScenarioDescription(s)},
                        {"status", SolveStatusName(r.status)},
                        {"objective_usd", has ? nlohmann::json(r.objective_usd) : nlohmann::json()},
                        {"lower_bound_usd", r.lower_bound_usd},
                        {"gap", has ? nlohmann::json(r.gap) : nlohmann::json()},
                        {"seconds", r.solver.seconds},
                        {"iterations", r.solver.iterations},
                        {"diagnosis", r.diagnosis},
                        {"metrics",
                         {{"cost_usd", m.cost_usd},
                          {"cost_reduction_pct", m.cost_reduction_pct},
                          {"grid_mwh", m.grid_mwh},
                          {"curtailment_mwh", m.curtailment_mwh},
                          {"bess_throughput_mwh", m.bess_throughput_mwh},
                          {"re_utilization_pct", m.re_utilization_pct},
                          {"green_share_pct", m.green_share_pct},
                          {"peak_power_kw", m.peak_power_kw},
                          {"peak_gpus", m.peak_gpus}}}};
  const std::string line =
      has ? absl::StrFormat(
                "%-4s %-20s %9.2f %8.2f %8.3f %8.3f %8.3f %8.2f %8.2f %8.1f %6d %-15s %7.4f%%\n",
                ScenarioName(s), ScenarioDescription(s), m.cost_usd, m.cost_reduction_pct,
                m.grid_mwh, m.curtailment_mwh, m.bess_throughput_mwh, m.re_utilization_pct,
                m.green_share_pct, m.peak_power_kw, m.peak_gpus, SolveStatusName(r.status),
                100.0 * r.gap)
          : absl::StrFormat("%-4s %-20s %s: %s\n", ScenarioName(s), ScenarioDescription(s),
                            SolveStatusName(r.status), r.diagnosis);
  return {{"has", has}, {"row", std::move(row)}, {"line", line}};
}

// Distributed: the scenarios were dealt out round robin (scenario i to rank i % ranks);
// rank 0 gets every rank's entries back in the order of the scenarios.
nlohmann::json GatherEntries(const Communicator& comm, const nlohmann::json& mine) {
  const std::vector<std::string> all = comm.Allgather(mine.dump());
  std::vector<nlohmann::json> parts;
  for (const std::string& text : all) parts.push_back(nlohmann::json::parse(text));
  nlohmann::json entries = nlohmann::json::array();
  const size_t ranks = all.size();
  for (size_t i = 0; i / ranks < parts[i % ranks].size(); ++i) {
    entries.push_back(std::move(parts[i % ranks][i / ranks]));
  }
  return entries;
}

int RunScenarios(const ScenariosArgs& args, const SolveOptions& base_options) {
  LoadedInstance in = LoadInstanceOrReport(args.instance, BuildModes::kNo);
  if (!in.ok()) return in.exit_code;
  SolveOptions options = base_options;
  options.log = nullptr;
  options.stop = InstallInterruptHandler();
  ProgressLines progress(options.log_level);
  // Under mpirun each rank solves every R-th scenario; rank 0 prints (docs/distributed.md).
  const Communicator& comm = Communicator::World();
  const std::vector<Scenario> scenarios = AllScenarios();
  nlohmann::json entries = nlohmann::json::array();
  for (size_t i = comm.rank(); i < scenarios.size(); i += comm.size()) {
    const Scenario s = scenarios[i];
    absl::StatusOr<Result> r = SolveScenario(in.instance, s, options);
    if (!r.ok()) return ReportError(r.status());
    // One line per scenario: each is a solve of its own, seconds to minutes long.
    progress.Print(
        absl::StrFormat("scenarios: %s %s in %.2f s (%.1f s in all)", ScenarioName(s),
                        SolveStatusName(r->status), r->solver.seconds, progress.Seconds()),
        /*last=*/true);
    entries.push_back(ScenarioEntry(s, *r));
    if (Interrupted()) break;  // the scenarios not yet solved are left out
  }
  if (comm.distributed()) {
    entries = GatherEntries(comm, entries);
    if (!comm.root()) return Interrupted() ? InterruptedExitCode() : kExitSolved;
  }
  if (!args.json) {
    std::cout << absl::StrFormat("%-4s %-20s %9s %8s %8s %8s %8s %8s %8s %8s %6s %-15s %8s\n", "",
                                 "mechanism", "cost", "red.", "grid", "curt.", "BESS", "RE util",
                                 "green", "peak", "peak", "status", "gap");
    std::cout << absl::StrFormat("%-4s %-20s %9s %8s %8s %8s %8s %8s %8s %8s %6s %-15s %8s\n", "",
                                 "", "(USD)", "(%)", "(MWh)", "(MWh)", "(MWh)", "(%)", "(%)",
                                 "(kW)", "GPUs", "", "");
  }
  bool all_solved = true;
  nlohmann::json rows = nlohmann::json::array();
  for (nlohmann::json& e : entries) {
    all_solved = all_solved && e["has"].get<bool>();
    if (args.json) {
      rows.push_back(std::move(e["row"]));
    } else {
      std::cout << e["line"].get<std::string>();
    }
  }
  if (args.json)
    std::cout << nlohmann::json{{"instance", in.instance.name}, {"scenarios", rows}}.dump(2)
              << "\n";
  if (Interrupted()) return InterruptedExitCode();
  return all_solved ? kExitSolved : kExitInfeasible;
}

}  // namespace

// Its flags are declared like sweep's (sweep_command.cc) on purpose: both take one instance
// and the solver options of the shared option table (solve_options.h) that fills them.
Command AddScenariosCommand(CLI::App& parent) {
  auto args = std::make_shared<ScenariosArgs>();
  auto options = std::make_shared<SolveOptions>();
  CLI::App* app = parent.add_subcommand(
      "scenarios", "Solve all six scenarios and print a table shaped like Table IV");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_flag("--json", args->json, "Print one JSON object instead of the table");
  AddSolveOptionFlags(app, options);
  return {app, [args, options]() { return RunScenarios(*args, *options); }};
}

}  // namespace ckptdp::cli
