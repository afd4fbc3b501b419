// `ckptdp sweep INSTANCE --param NAME --values V1,V2,... [--json] [--out FILE]`:
// one scenario solved for several values of one parameter, in parallel (Fig. 12).
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ckptdp/communicator.h"
#include "ckptdp/report.h"
#include "ckptdp/sweep.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/load.h"
#include "cli/progress.h"
#include "cli/solve_options.h"
#include "nlohmann/json.hpp"

namespace ckptdp::cli {
namespace {

struct SweepArgs {
  std::string instance;
  std::string scenario = "S6";
  std::string param;
  std::vector<double> values;
  bool json = false;
  std::string out;
};

bool HasSchedule(const SweepPoint& p) { return p.result.ok() && !p.result->schedule.jobs.empty(); }

std::string StatusText(const SweepPoint& p) {
  return p.result.ok() ? std::string(SolveStatusName(p.result->status)) : "error";
}

nlohmann::ordered_json PointJson(const SweepPoint& p) {
  const nlohmann::ordered_json null;
  const bool has = HasSchedule(p);
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  const Metrics m = has ? p.result->metrics : Metrics{};
  auto metric = [&](const char* key, double v) {
    metrics[key] = has ? nlohmann::ordered_json(v) : null;
  };
  metric("cost_usd", m.cost_usd);
  metric("cost_reduction_pct", m.cost_reduction_pct);
  metric("grid_mwh", m.grid_mwh);
  metric("curtailment_mwh", m.curtailment_mwh);
  metric("bess_throughput_mwh", m.bess_throughput_mwh);
  metric("re_utilization_pct", m.re_utilization_pct);
  metric("green_share_pct", m.green_share_pct);
  metric("peak_power_kw", m.peak_power_kw);
  metrics["peak_gpus"] = has ? nlohmann::ordered_json(m.peak_gpus) : null;
  if (has && m.grid_contract) {
    metric("peak_grid_import_kw", m.peak_grid_import_kw);
    metric("demand_charge_usd", m.demand_charge_usd);
    metric("carbon_cost_usd", m.carbon_cost_usd);
    if (m.carbon_t >= 0) metric("carbon_t", m.carbon_t);
  }
  metrics["resumes"] = has ? nlohmann::ordered_json(p.restarts.resumes) : null;
  metrics["layout_changes"] = has ? nlohmann::ordered_json(p.restarts.layout_changes) : null;

  const bool bound_known = p.result.ok() && p.result->status != SolveStatus::kInfeasible &&
                           std::isfinite(p.result->lower_bound_usd);
  return {
      {"value", p.value},
      {"status", StatusText(p)},
      {"objective_usd", has ? nlohmann::ordered_json(p.result->objective_usd) : null},
      {"lower_bound_usd", bound_known ? nlohmann::ordered_json(p.result->lower_bound_usd) : null},
      {"gap", has ? nlohmann::ordered_json(p.result->gap) : null},
      {"seconds", p.result.ok() ? nlohmann::ordered_json(p.result->solver.seconds) : null},
      {"metrics", std::move(metrics)},
      {"diagnosis",
       p.result.ok() ? p.result->diagnosis : std::string(p.result.status().message())}};
}

// The table is printed from the points' JSON (PointJson), which is also what the ranks of a
// distributed sweep send to rank 0: one source for both outputs.
void PrintTable(const std::string& param, const nlohmann::ordered_json& rows) {
  std::cout << absl::StrFormat("%12s %-15s %9s %9s %11s %9s %8s %8s\n", param, "status", "cost",
                               "reduction", "curtailment", "green", "gap", "time");
  std::cout << absl::StrFormat("%12s %-15s %9s %9s %11s %9s %8s %8s\n", "", "", "(USD)", "(%)",
                               "(MWh)", "share (%)", "(%)", "(s)");
  const auto has_schedule = [](const nlohmann::ordered_json& p) {
    return !p["objective_usd"].is_null();
  };
  for (const nlohmann::ordered_json& p : rows) {
    const double value = p["value"].get<double>();
    const std::string status = p["status"].get<std::string>();
    if (!has_schedule(p)) {
      std::cout << absl::StrFormat(
          "%12g %-15s %9s %9s %11s %9s %8s %8s\n", value, status, "-", "-", "-", "-", "-",
          p["seconds"].is_null() ? "-" : absl::StrFormat("%.2f", p["seconds"].get<double>()));
      continue;
    }
    const nlohmann::ordered_json& m = p["metrics"];
    std::cout << absl::StrFormat("%12g %-15s %9.2f %9.2f %11.3f %9.2f %8.4f %8.2f", value, status,
                                 m["cost_usd"].get<double>(), m["cost_reduction_pct"].get<double>(),
                                 m["curtailment_mwh"].get<double>(),
                                 m["green_share_pct"].get<double>(), 100.0 * p["gap"].get<double>(),
                                 p["seconds"].get<double>());
    // The grid contract's peak and emissions (written only under a contract), for the
    // cost-versus-emissions curve.
    if (m.contains("peak_grid_import_kw")) {
      std::cout << absl::StrFormat("  peak import %.1f kW", m["peak_grid_import_kw"].get<double>());
    }
    if (m.contains("carbon_t") && m["carbon_t"].is_number()) {
      std::cout << absl::StrFormat("  carbon %.4f t", m["carbon_t"].get<double>());
    }
    // Restart overheads (issue 14): how often the schedule resumes and changes layout, which
    // is what the resume-minutes sweep is about (the JSON carries them for every sweep).
    if (param == "resume-minutes") {
      std::cout << absl::StrFormat("  resumes %d  layout changes %d", m["resumes"].get<int>(),
                                   m["layout_changes"].get<int>());
    }
    std::cout << "\n";
  }
  // Why a point has no schedule, below the table so that the columns stay aligned.
  for (const nlohmann::ordered_json& p : rows) {
    if (has_schedule(p)) continue;
    std::cout << absl::StrFormat("%s = %g: %s\n", param, p["value"].get<double>(),
                                 p["diagnosis"].get<std::string>());
  }
}

// Distributed: every rank's rows (the points i with i % ranks == rank, in order) on rank 0,
// back in the order of the values. Doubles survive the JSON text exactly (shortest
// round-trip form), so the output is the same as a single process's.
nlohmann::ordered_json GatherRows(const Communicator& comm, const nlohmann::ordered_json& mine,
                                  size_t total) {
  const std::vector<std::string> all = comm.Allgather(mine.dump());
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<nlohmann::ordered_json> parts;
  for (const std::string& text : all) parts.push_back(nlohmann::ordered_json::parse(text));
  const size_t ranks = all.size();
  for (size_t i = 0; i < total; ++i) rows.push_back(std::move(parts[i % ranks][i / ranks]));
  return rows;
}

int RunSweepCommand(const SweepArgs& args, const SolveOptions& base_options) {
  SolveOptions options = base_options;
  absl::StatusOr<Scenario> scenario = ParseScenario(args.scenario);
  if (!scenario.ok()) return ReportError(scenario.status());
  if (absl::Status s = CheckSweepParameter(args.param); !s.ok()) return ReportError(s);
  LoadedInstance in = LoadInstanceOrReport(args.instance, BuildModes::kNo);
  if (!in.ok()) return in.exit_code;
  // A value that does not fit the parameter is a usage error, found before any solve.
  for (double v : args.values) {
    absl::StatusOr<Instance> applied = ApplySweepParameter(in.instance, args.param, v);
    if (!applied.ok()) return ReportError(applied.status());
  }

  // A single updating line on a terminal; in a pipe or a log file, throttled lines.
  const bool terminal = options.log_level > 0 && isatty(STDERR_FILENO) != 0;
  ProgressLines lines(options.log_level);
  const SweepProgress progress = [&](int done, int total) {
    const std::string text =
        absl::StrFormat("sweep: %d/%d points done (%.1f s)", done, total, lines.Seconds());
    if (terminal) {
      std::cerr << "\r" << text << std::flush;
    } else {
      lines.Print(text, done == total);
    }
  };
  // Under mpirun the points are dealt out round robin; each rank solves its own in parallel
  // and rank 0 prints them all (docs/distributed.md).
  const Communicator& comm = Communicator::World();
  std::vector<double> values;
  for (size_t i = comm.rank(); i < args.values.size(); i += comm.size()) {
    values.push_back(args.values[i]);
  }
  const bool report = comm.root();
  if (terminal && report) progress(0, static_cast<int>(values.size()));
  options.stop = InstallInterruptHandler();
  absl::StatusOr<std::vector<SweepPoint>> points = RunSweep(
      in.instance, *scenario, args.param, values, options, report ? progress : SweepProgress());
  if (terminal && report) std::cerr << "\n";
  if (!points.ok()) return ReportError(points.status());

  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const SweepPoint& p : *points) rows.push_back(PointJson(p));
  if (comm.distributed()) {
    rows = GatherRows(comm, rows, args.values.size());
    if (!report) return Interrupted() ? InterruptedExitCode() : kExitSolved;
  }
  const nlohmann::ordered_json doc = {{"instance", in.instance.name},
                                      {"scenario", ScenarioName(*scenario)},
                                      {"param", args.param},
                                      {"points", std::move(rows)}};
  if (!args.out.empty()) {
    if (absl::Status s = WriteFileAtomically(args.out, doc.dump(2) + "\n"); !s.ok()) {
      return ReportError(s);
    }
  }
  if (args.json) {
    std::cout << doc.dump(2) << "\n";
  } else {
    PrintTable(args.param, doc["points"]);
  }
  if (Interrupted()) return InterruptedExitCode();
  return kExitSolved;  // infeasible points are results of the sweep, not failures
}

}  // namespace

Command AddSweepCommand(CLI::App& parent) {
  auto args = std::make_shared<SweepArgs>();
  auto options = std::make_shared<SolveOptions>();
  CLI::App* app = parent.add_subcommand(
      "sweep", "Solve one scenario for several values of one parameter, in parallel (Fig. 12)");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_option("--scenario", args->scenario, "S1..S6 (Table III of the paper)")
      ->capture_default_str();
  app->add_option("--param", args->param,
                  "Parameter to vary: " + absl::StrJoin(SweepParameterNames(), ", ") +
                      " (docs/reproduction.md)")
      ->required();
  app->add_option("--values", args->values, "Comma-separated values, e.g. 768,1024,1280")
      ->required()
      ->delimiter(',');
  app->add_flag("--json", args->json, "Print one JSON object instead of the table");
  app->add_option("--out", args->out, "Write the sweep JSON here (atomically)");
  AddSolveOptionFlags(app, options);
  return {app, [args, options]() { return RunSweepCommand(*args, *options); }};
}

}  // namespace ckptdp::cli
