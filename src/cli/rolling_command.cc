// `ckptdp rolling INSTANCE --actual ACTUAL.csv [--every N] [--scenario S] --out R.json`:
// plan on the forecast, execute against the actuals, re-plan (docs/operations.md).
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/check.h"
#include "ckptdp/report.h"
#include "ckptdp/rolling.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/load.h"
#include "cli/solve_options.h"
#include "nlohmann/json.hpp"

namespace ckptdp::cli {
namespace {

struct RollingArgs {
  std::string instance;
  std::string actual;
  std::string scenario = "S6";
  int every = 4;
  std::string out;
  bool cold = false;
  bool full_horizon = false;
  bool quiet = false;
};

// The `rolling` section of the result (docs/result-format.md).
nlohmann::ordered_json RollingJson(const RollingArgs& args, const Instance& forecast,
                                   const Series& actual, const RollingOutcome& o) {
  using Json = nlohmann::ordered_json;
  // Per slot: the day-ahead plan's load and both renewable series (tools/plot.py).
  std::vector<double> forecast_kw, actual_kw;
  for (int t = 0; t < forecast.time.slots; ++t) {
    forecast_kw.push_back(forecast.RenewableKw(t));
    actual_kw.push_back(actual.pv_kw[t] + actual.wind_kw[t]);
  }
  Json resolves = Json::array();
  double resolve_s = 0;
  for (const RollingSolve& s : o.resolves) {
    resolve_s += s.seconds;
    resolves.push_back({{"start_slot", s.start_slot},
                        {"end_slot", s.end_slot},
                        {"jobs", s.jobs},
                        {"seconds", s.seconds},
                        {"status", SolveStatusName(s.status)},
                        {"plan_cost_usd", s.plan_cost_usd},
                        {"kept_previous_plan", s.kept_previous}});
  }
  Json shortfalls = Json::array();
  for (const RollingShortfall& s : o.shortfalls) {
    shortfalls.push_back({{"job", s.job},
                          {"deadline_slot", s.deadline_slot},
                          {"segments_done", s.segments_done},
                          {"segments", s.segments},
                          {"segments_missing", s.segments - s.segments_done}});
  }
  return {{"actual_series", args.actual},
          {"every_slots", args.every},
          {"warm_start", !args.cold},
          {"full_horizon", args.full_horizon},
          {"realised_cost_usd", o.realised.objective_usd},
          {"day_ahead_plan_cost_usd", o.day_ahead.objective_usd},
          {"day_ahead_executed_cost_usd", o.day_ahead_executed_usd},
          {"perfect_foresight_cost_usd", o.perfect_foresight.objective_usd},
          {"perfect_foresight_bound_usd", o.perfect_foresight.lower_bound_usd},
          {"s1_actual_cost_usd", o.s1_actual_usd},
          {"cold_solve_seconds", o.day_ahead.solver.seconds},
          {"resolve_count", static_cast<int>(o.resolves.size())},
          {"resolve_seconds_total", resolve_s},
          {"resolves", std::move(resolves)},
          {"shortfalls", std::move(shortfalls)},
          {"notes", o.notes},
          {"day_ahead_aidc_kw", o.day_ahead.load.aidc_kw},
          {"forecast_renewable_kw", forecast_kw},
          {"actual_renewable_kw", actual_kw}};
}

int RunRollingCommand(const RollingArgs& args, const SolveOptions& base_options) {
  absl::StatusOr<Scenario> scenario = ParseScenario(args.scenario);
  if (!scenario.ok()) return ReportError(scenario.status());
  LoadedInstance in = LoadInstanceOrReport(args.instance, BuildModes::kYes);
  if (!in.ok()) return in.exit_code;
  absl::StatusOr<Series> actual = LoadSeriesCsv(args.actual, in.instance.time.slots, "--actual");
  if (!actual.ok()) return ReportError(actual.status());
  absl::StatusOr<Instance> actual_instance = WithActualSeries(in.instance, *actual);
  if (!actual_instance.ok()) return ReportError(actual_instance.status());

  RollingOptions options;
  options.scenario = *scenario;
  options.every_slots = args.every;
  options.warm_start = !args.cold;
  options.full_horizon = args.full_horizon;
  options.solve = base_options;
  options.solve.log = nullptr;  // dozens of solves: the summary below says what happened
  options.solve.stop = InstallInterruptHandler();
  absl::StatusOr<RollingOutcome> outcome = RunRolling(in.instance, *actual, options);
  if (absl::IsFailedPrecondition(outcome.status())) {
    // No day-ahead plan to start from: nothing was executed, and no file is written.
    std::cerr << "ckptdp: " << outcome.status().message() << "\n";
    return kExitInfeasible;
  }
  if (!outcome.ok()) return ReportError(outcome.status());

  nlohmann::ordered_json json =
      nlohmann::ordered_json::parse(ResultToJson(*actual_instance, in.modes, outcome->realised));
  json["rolling"] = RollingJson(args, in.instance, *actual, *outcome);
  const std::string text = json.dump(2);
  if (outcome->shortfalls.empty()) {
    absl::StatusOr<CheckReport> report = CheckResult(*actual_instance, text);
    if (!report.ok()) return ReportError(report.status());
    if (!report->ok()) {
      std::cerr << "ckptdp: internal error: the realised schedule failed its independent check\n"
                << report->ToText();
      return kExitInternal;
    }
  }
  if (!args.out.empty()) {
    if (absl::Status s = WriteFileAtomically(args.out, text + "\n"); !s.ok()) return ReportError(s);
  }
  for (const std::string& note : outcome->notes) std::cerr << "ckptdp: rolling: " << note << "\n";
  const RollingOutcome& o = *outcome;
  double resolve_s = 0;
  for (const RollingSolve& s : o.resolves) resolve_s += s.seconds;
  if (!args.quiet) {
    std::cout << absl::StrFormat(
        "rolling %s, %s, every %d slots: %d re-solves in %.2f s (cold solve %.2f s)\n"
        "  realised cost        %.4f USD\n"
        "  day-ahead plan       %.4f USD (on the forecast), executed unchanged %.4f USD\n"
        "  perfect foresight    %.4f USD, bound %.4f USD (realised %+.2f %% above the bound)\n"
        "  S1 on the actuals    %.4f USD\n",
        in.instance.name, ScenarioName(*scenario), args.every, static_cast<int>(o.resolves.size()),
        resolve_s, o.day_ahead.solver.seconds, o.realised.objective_usd, o.day_ahead.objective_usd,
        o.day_ahead_executed_usd, o.perfect_foresight.objective_usd,
        o.perfect_foresight.lower_bound_usd,
        100.0 * (o.realised.objective_usd - o.perfect_foresight.lower_bound_usd) /
            o.perfect_foresight.lower_bound_usd,
        o.s1_actual_usd);
  }
  if (!o.shortfalls.empty()) {
    std::cerr << "ckptdp: rolling: the remaining work could not finish:\n" << o.realised.diagnosis;
    return kExitInfeasible;
  }
  return kExitSolved;
}

}  // namespace

Command AddRollingCommand(CLI::App& parent) {
  auto args = std::make_shared<RollingArgs>();
  auto options = std::make_shared<SolveOptions>();
  CLI::App* app = parent.add_subcommand(
      "rolling",
      "Plan on the forecast, execute against the actual series, re-plan every N slots "
      "(--max-nodes defaults to 0 here: each solve is the root and its search)");
  app->add_option("instance", args->instance, "Instance JSON file (its series: the forecast)")
      ->required();
  app->add_option("--actual", args->actual, "Actual series CSV (same columns and slots)")
      ->required();
  app->add_option("--every", args->every, "Slots executed between re-solves (at least)")
      ->capture_default_str();
  app->add_option("--scenario", args->scenario,
                  "S4 or S6 (the scenarios that re-plan on the checkpoint graphs)")
      ->capture_default_str();
  app->add_option("--out", args->out, "Write the result JSON with its rolling section here");
  app->add_flag("--cold", args->cold, "Re-solve without the previous plan as a warm start");
  app->add_flag("--full-horizon", args->full_horizon,
                "Re-solve to the end of the horizon each time (default: to the end of the "
                "decision horizon, the first slot no unfinished job's window straddles)");
  app->add_flag("--quiet", args->quiet, "No summary on stdout");
  AddSolveOptionFlags(app, options);
  // Dozens of solves: without --max-nodes, each is the root and its search only. On the shipped
  // week the default 20000 nodes ran the cold solve for 600 s without improving the root's
  // plan or bound (docs/operations.md).
  const CLI::Option* max_nodes = app->get_option("--max-nodes");
  return {app, [args, options, max_nodes]() {
            if (max_nodes->count() == 0) options->max_nodes = 0;
            return RunRollingCommand(*args, *options);
          }};
}

}  // namespace ckptdp::cli
