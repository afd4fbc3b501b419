// ckptdp-column-generation: the LP over all job plans, by column generation with CBC as the
// LP solver (docs/benchmarks.md, "The LP over all plans").
//
//   ckptdp-column-generation INSTANCE [--scenario S4] [--iterations 400] [--rounds 50]
//                            [--cbc cbc] [--dir DIR] [--dive [--dive-fix 1] [--dive-rounds 5]
//                            [--dive-backtracks 100] [--dive-milp-split 8]
//                            [--dive-milp-seconds 60]]
//
// The root Lagrangian's bound is a lower bound on the LP relaxation of the path formulation,
// equal to it only where the multiplier method converges. This diagnostic computes the LP
// itself. It seeds a plan pool (ckptdp/plan_pool.h) with an S4 root of --iterations
// iterations (no search, no branching), then per round: CBC solves the restricted master's
// LP (BuildRestrictedMaster); its duals of the load and GPU rows become Lagrangian
// multipliers; one Lagrangian evaluation at them prices every job, and its plans join the
// pool. The master's LP is an upper bound on the LP over all plans, the Lagrangian value a
// lower bound; when a round adds no plan, the master's LP is the LP over all plans.
// S4 only: with a battery (S6) the engine's power side is exact, so its Lagrangian is not
// the master's LP dual.
//
// Prints a line per round and a last line "converged: LP over all plans V USD" (or "no
// convergence in N rounds: ..."). Exits 0 when it ran, 2 on bad input, 3 if CBC fails or weak
// duality is broken (the Lagrangian above the master's LP: a bug).
//
// --dive (a primal heuristic of branch and price, "price and dive"; docs/benchmarks.md,
// "Price and dive on the 128-job weeks"): from the LP over all plans, fix the --dive-fix
// split jobs whose largest plan weight is highest to that plan, price the others again (at
// most --dive-rounds rounds), and repeat until the master's LP picks one plan per job. That
// LP's value is then the exact cost of the schedule those plans make (S4's power side is a
// linear program). Slack columns (AddOverflow) keep the dive's masters feasible; a step
// whose LP still uses them after the pricing is undone (at most --dive-backtracks times).
// Once the LP splits --dive-milp-split jobs or fewer, CBC's branch and cut chooses the
// plans of the jobs not fixed yet (--dive-milp-seconds). The engine then evaluates the
// schedule again, as the first incumbent of a one-iteration solve: exit 3 if it returns
// more than the master's value. Prints a line per dive step and "dive: schedule V USD", or
// why the dive found none.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "ckptdp/engine.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/plan_pool.h"
#include "ckptdp/report.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;

struct Args {
  std::string instance;
  std::string scenario = "S4";
  int iterations = 400;
  int rounds = 50;
  std::string cbc = "cbc";
  std::string dir;
  bool dive = false;
  int dive_fix = 1;
  int dive_rounds = 5;
  int dive_backtracks = 100;
  int dive_milp_split = 8;
  double dive_milp_seconds = 60;
};

// The master's LP optimum and its duals as Lagrangian multipliers: lambda_t is the dual of
// load_t (USD per kW of AIDC load), mu_t minus the dual of gpu_t (USD per GPU; a <= row of a
// minimisation has a dual <= 0). CBC's `-printingOptions all` solution file lists the rows
// first, as "index name activity dual".
struct MasterLp {
  double value = 0;
  WarmStart prices;
  // The z_j<j>_p<p> columns' values: per job, per plan of the master.
  std::vector<std::vector<double>> plan_values;
  std::string status;   // CBC's status line
  double overflow = 0;  // the sum of the ovg_t and ovl_t columns (AddOverflow)
};

// A dive's master stays feasible whatever it fixes: a column per slot lets the GPUs exceed
// the site's (ovg_t<t>, per GPU) and one sheds AIDC load (ovl_t<t>, per kW, so
// the power cap cannot make it infeasible either), each at a price far above any slot's
// energy cost. Their duals then steer the pricing away from the overflowing slots, as
// Farkas pricing would; a dive's schedule must use none of them.
constexpr double kOverflowUsd = 10;
void AddOverflow(MilpModel& model) {
  const size_t rows = model.rows.size();
  for (size_t r = 0; r < rows; ++r) {
    MilpRow& row = model.rows[r];
    const bool gpu = row.name.rfind("gpu_t", 0) == 0, load = row.name.rfind("load_t", 0) == 0;
    if (!gpu && !load) continue;
    MilpColumn column;
    column.name = (gpu ? "ovg_t" : "ovl_t") + row.name.substr(gpu ? 5 : 6);
    column.objective = kOverflowUsd;
    // gpu_t: sum GPUs - over <= capacity. load_t: aidc - IT power + over = base load.
    row.columns.push_back(static_cast<int>(model.columns.size()));
    row.values.push_back(gpu ? -1.0 : 1.0);
    model.columns.push_back(std::move(column));
  }
}

// With milp_seconds > 0, CBC's branch and cut on the master instead, for at most that long:
// its best point (the plan values are then 0 or 1, and the duals mean nothing).
absl::StatusOr<MasterLp> SolveMasterLp(const Args& args, const MilpModel& model, int slots,
                                       const fs::path& dir, double milp_seconds = 0) {
  MasterLp lp;
  lp.plan_values.resize(model.plans.size());
  for (size_t j = 0; j < model.plans.size(); ++j) {
    lp.plan_values[j].assign(model.plans[j].size(), 0.0);
  }
  const fs::path mps = dir / "master.mps", solution = dir / "master.sol";
  CKPTDP_RETURN_IF_ERROR(WriteFileAtomically(mps, ToMps(model)));
  fs::remove(solution);
  const std::string solve =
      milp_seconds > 0 ? absl::StrFormat("-sec %g -solve", milp_seconds) : "-initialSolve";
  const std::string command = "'" + args.cbc + "' '" + mps.string() + "' " + solve +
                              " -printingOptions all -solu '" + solution.string() + "' > '" +
                              (dir / "cbc.log").string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError("cbc failed: " + command);
  }
  std::ifstream in(solution);
  std::string line;
  const bool read = static_cast<bool>(std::getline(in, line));
  const bool stopped_with_point = milp_seconds > 0 && line.rfind("Stopped", 0) == 0 &&
                                  line.find("no integer") == std::string::npos;
  if (!read || (line.rfind("Optimal", 0) != 0 && !stopped_with_point)) {
    // Infeasible is an answer (a dive fixed too much), anything else a failure.
    const std::string message = "cbc did not solve the master's LP: \"" + line + "\"";
    return line.rfind("Infeasible", 0) == 0 ? absl::FailedPreconditionError(message)
                                            : absl::InternalError(message);
  }
  lp.status = line;
  lp.value = std::strtod(line.substr(line.rfind(' ') + 1).c_str(), nullptr);
  lp.prices.lambda_usd_per_kw.assign(slots, 0.0);
  lp.prices.mu_usd_per_gpu.assign(slots, 0.0);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string index, name;
    double activity = 0, dual = 0;
    if (!(fields >> index >> name >> activity >> dual)) continue;
    if (name.rfind("load_t", 0) == 0) lp.prices.lambda_usd_per_kw[std::stoi(name.substr(6))] = dual;
    if (name.rfind("gpu_t", 0) == 0) lp.prices.mu_usd_per_gpu[std::stoi(name.substr(5))] = -dual;
    int job = -1, plan = -1;
    if (name.rfind("ovg_t", 0) == 0 || name.rfind("ovl_t", 0) == 0) lp.overflow += activity;
    if (std::sscanf(name.c_str(), "z_j%d_p%d", &job, &plan) == 2 && job >= 0 &&
        job < static_cast<int>(lp.plan_values.size()) && plan >= 0 &&
        plan < static_cast<int>(lp.plan_values[job].size())) {
      lp.plan_values[job][plan] = activity;
    }
  }
  return lp;
}

int Fail(const absl::Status& status, int code) {
  std::cerr << "error: " << status.message() << "\n";
  return code;
}

// The master's plans: each fixed job's fixed plan, each other job's pool plans but its
// forbidden ones.
std::vector<std::vector<std::vector<Run>>> MasterPlans(
    const PlanPool& pool, const std::vector<std::optional<std::vector<Run>>>& fixed,
    const std::vector<std::vector<std::vector<Run>>>& forbidden) {
  std::vector<std::vector<std::vector<Run>>> plans(pool.num_jobs());
  for (int j = 0; j < pool.num_jobs(); ++j) {
    if (fixed[j]) {
      plans[j] = {*fixed[j]};
      continue;
    }
    for (const std::vector<Run>& plan : pool.plans()[j]) {
      if (std::find(forbidden[j].begin(), forbidden[j].end(), plan) == forbidden[j].end()) {
        plans[j].push_back(plan);
      }
    }
  }
  return plans;
}

// Job j's plan of largest weight in the master's solution (ties: the first).
const std::vector<Run>& HeaviestPlan(const std::vector<std::vector<std::vector<Run>>>& plans,
                                     const MasterLp& master, int j) {
  const std::vector<double>& z = master.plan_values[j];
  return plans[j][std::max_element(z.begin(), z.end()) - z.begin()];
}

// The schedule of a master solution that picks one plan per job, checked against the engine's
// exact evaluation of it (offered as the first incumbent of a one-iteration solve).
int ReportSchedule(const Instance& instance, Scenario scenario, const SolveOptions& options,
                   const std::vector<std::vector<std::vector<Run>>>& plans,
                   const MasterLp& master) {
  Schedule schedule;
  for (size_t j = 0; j < plans.size(); ++j) {
    schedule.jobs.push_back(HeaviestPlan(plans, master, static_cast<int>(j)));
  }
  WarmStart warm;
  warm.incumbent = &schedule;
  absl::StatusOr<Result> result = SolveScenario(instance, scenario, options, warm);
  if (!result.ok()) return Fail(result.status(), 3);
  std::cout << absl::StrFormat("dive: schedule %.4f USD; the engine, from it, %.4f USD\n",
                               master.value, result->objective_usd);
  if (result->objective_usd > master.value + 1e-6 * std::max(1.0, std::abs(master.value))) {
    std::cerr << "error: the engine prices the dive's schedule above the master's value\n";
    return 3;
  }
  return 0;
}

// One dive step's master: column generation over the jobs not fixed yet, at most
// --dive-rounds pricing rounds. `infeasible`: no LP, or one that still needs the slack;
// `why` says which.
struct DiveMaster {
  MasterLp lp;
  std::vector<std::vector<std::vector<Run>>> plans;
  std::optional<MilpModel> model;  // the master of `plans`, slack included (CBC's finish)
  int rounds = 0;
  int64_t new_plans = 0;
  bool infeasible = false;
  std::string why;
};

absl::StatusOr<DiveMaster> PriceDiveMaster(
    const Args& args, const Instance& instance, Scenario scenario,
    const std::vector<JobModes>& modes, PlanPool& pool, const SolveOptions& options,
    const fs::path& dir, const std::vector<std::optional<std::vector<Run>>>& fixed,
    const std::vector<std::vector<std::vector<Run>>>& forbidden) {
  const int jobs = pool.num_jobs();
  DiveMaster m;
  for (;;) {
    m.plans = MasterPlans(pool, fixed, forbidden);
    absl::StatusOr<MilpModel> model = BuildRestrictedMaster(instance, scenario, modes, m.plans);
    if (!model.ok()) {
      m.infeasible = true;
      m.why = "a job has every plan forbidden";
      return m;
    }
    AddOverflow(*model);
    absl::StatusOr<MasterLp> solved = SolveMasterLp(args, *model, instance.time.slots, dir);
    if (absl::IsFailedPrecondition(solved.status())) {
      m.infeasible = true;
      m.why = "the master has no LP solution";
      return m;
    }
    m.model = *std::move(model);
    if (!solved.ok()) return solved.status();
    m.lp = *std::move(solved);
    if (m.rounds == args.dive_rounds) break;
    ++m.rounds;
    std::vector<size_t> before(jobs);
    for (int j = 0; j < jobs; ++j) before[j] = pool.plans()[j].size();
    CKPTDP_RETURN_IF_ERROR(SolveScenario(instance, scenario, options, m.lp.prices).status());
    int64_t added = 0;
    for (int j = 0; j < jobs; ++j) {
      if (!fixed[j]) added += static_cast<int64_t>(pool.plans()[j].size() - before[j]);
    }
    m.new_plans += added;
    if (added == 0) break;
  }
  // Still overflowing after the pricing: the fixed plans leave the others no room.
  m.infeasible = m.lp.overflow > 1e-6;
  if (m.infeasible) m.why = "the master's LP needs the slack";
  return m;
}

// Price and dive (see the header comment). `options` prices once per call of SolveScenario.
int Dive(const Args& args, const Instance& instance, Scenario scenario,
         const std::vector<JobModes>& modes, PlanPool& pool, const SolveOptions& options,
         const fs::path& dir) {
  const int jobs = pool.num_jobs();
  std::vector<std::optional<std::vector<Run>>> fixed(jobs);
  std::vector<std::vector<std::vector<Run>>> forbidden(jobs);
  std::vector<int> last_fixed;  // the jobs the previous step fixed
  int backtracks = 0;
  for (int step = 1;; ++step) {
    absl::StatusOr<DiveMaster> master =
        PriceDiveMaster(args, instance, scenario, modes, pool, options, dir, fixed, forbidden);
    if (!master.ok()) return Fail(master.status(), 3);
    const MasterLp& lp = master->lp;
    const std::vector<std::vector<std::vector<Run>>>& plans = master->plans;
    if (master->infeasible) {
      // Backtrack: undo the last step; if it fixed several jobs, fix the first of them alone,
      // else forbid the plan it chose for that job.
      if (last_fixed.empty() || ++backtracks > args.dive_backtracks) {
        std::cout << absl::StrFormat("dive step %d: %s; no schedule\n", step, master->why);
        return 0;
      }
      std::cout << absl::StrFormat("dive step %d: %s; backtrack %d undoes %d fixed jobs\n", step,
                                   master->why, backtracks, last_fixed.size());
      if (last_fixed.size() == 1) {
        forbidden[last_fixed[0]].push_back(*fixed[last_fixed[0]]);
        fixed[last_fixed[0]].reset();
        last_fixed.clear();
      } else {
        for (size_t k = 1; k < last_fixed.size(); ++k) fixed[last_fixed[k]].reset();
        last_fixed.resize(1);
      }
      continue;
    }
    std::vector<std::pair<double, int>> split;  // (largest plan weight, job)
    for (int j = 0; j < jobs; ++j) {
      const std::vector<double>& z = lp.plan_values[j];
      const double top = *std::max_element(z.begin(), z.end());
      if (top < 1 - 1e-6) split.emplace_back(top, j);
    }
    const int fixed_count = static_cast<int>(
        std::count_if(fixed.begin(), fixed.end(), [](const auto& f) { return f.has_value(); }));
    std::cout << absl::StrFormat(
        "dive step %d: master LP %.4f USD after %d pricing rounds (%d new plans), %d jobs "
        "fixed, %d split\n",
        step, lp.value, master->rounds, master->new_plans, fixed_count, split.size());
    if (split.empty()) return ReportSchedule(instance, scenario, options, plans, lp);
    if (static_cast<int>(split.size()) <= args.dive_milp_split) {
      // CBC's branch and cut finishes: the jobs not fixed yet choose among all their plans.
      absl::StatusOr<MasterLp> milp =
          SolveMasterLp(args, *master->model, instance.time.slots, dir, args.dive_milp_seconds);
      if (milp.ok() && milp->overflow <= 1e-6) {
        return ReportSchedule(instance, scenario, options, plans, *milp);
      }
      if (!milp.ok() && !absl::IsFailedPrecondition(milp.status())) {
        return Fail(milp.status(), 3);
      }
      std::cout << absl::StrFormat(
          "dive step %d: CBC found no schedule on this master (%s)\n", step,
          milp.ok() ? absl::StrFormat("it overflows by %g; CBC: %s", milp->overflow, milp->status)
                    : std::string(milp.status().message()));
      return 0;
    }
    // Fix the most decided split jobs to their heaviest plan (ties: the lower job index).
    std::sort(split.begin(), split.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    last_fixed.clear();
    for (int k = 0; k < std::min<int>(args.dive_fix, split.size()); ++k) {
      const int j = split[k].second;
      fixed[j] = HeaviestPlan(plans, lp, j);
      last_fixed.push_back(j);
    }
  }
}

int RunColumnGeneration(const Args& args) {
  absl::StatusOr<Scenario> scenario = ParseScenario(args.scenario);
  if (!scenario.ok()) return Fail(scenario.status(), 2);
  if (*scenario != Scenario::kS4) {
    std::cerr << "error: --scenario: only S4 (with a battery the Lagrangian's power side is "
                 "exact, so it is not the master's LP dual)\n";
    return 2;
  }
  absl::StatusOr<Instance> instance = LoadInstance(args.instance);
  if (!instance.ok()) return Fail(instance.status(), 2);
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*instance);
  if (!modes.ok()) return Fail(modes.status(), 2);
  const fs::path dir =
      args.dir.empty() ? fs::temp_directory_path() / ("ckptdp_colgen_" + std::to_string(getpid()))
                       : fs::path(args.dir);
  fs::create_directories(dir);

  PlanPool pool;
  SolveOptions options;  // the root alone, its bound pushed for --iterations
  options.max_iterations = args.iterations;
  options.stall_iterations = std::max(1, args.iterations);
  options.max_nodes = 0;
  options.decomposition_iterations = 0;
  options.neighbourhood_stall_rounds = 0;
  options.threads = 1;
  options.plan_pool = &pool;
  absl::StatusOr<Result> root = SolveScenario(*instance, *scenario, options);
  if (!root.ok()) return Fail(root.status(), 2);
  if (root->schedule.jobs.empty()) {
    std::cerr << "error: the root found no schedule, so some job may have no plan\n";
    return 2;
  }
  std::cout << absl::StrFormat("root: %d iterations, Lagrangian bound %.4f USD, %d plans\n",
                               root->solver.iterations, root->lower_bound_usd, pool.size());

  options.max_iterations = 1;  // one evaluation at the master's duals: the pricing
  double best_lagrangian = root->lower_bound_usd, master_lp = NAN;
  bool converged = false;
  for (int round = 1; round <= args.rounds && !converged; ++round) {
    absl::StatusOr<MilpModel> model =
        BuildRestrictedMaster(*instance, *scenario, *modes, pool.plans());
    if (!model.ok()) return Fail(model.status(), 3);
    absl::StatusOr<MasterLp> lp = SolveMasterLp(args, *model, instance->time.slots, dir);
    if (!lp.ok()) return Fail(lp.status(), 3);
    master_lp = lp->value;
    const int64_t before = pool.size();
    absl::StatusOr<Result> priced = SolveScenario(*instance, *scenario, options, lp->prices);
    if (!priced.ok()) return Fail(priced.status(), 3);
    const double lagrangian = priced->lower_bound_usd;
    if (lagrangian > master_lp + 1e-6 * std::max(1.0, std::abs(master_lp))) {
      std::cerr << absl::StrFormat(
          "error: the Lagrangian at the master's duals, %.6f USD, exceeds the master's LP, "
          "%.6f USD: weak duality is broken\n",
          lagrangian, master_lp);
      return 3;
    }
    best_lagrangian = std::max(best_lagrangian, lagrangian);
    converged = pool.size() == before;
    std::cout << absl::StrFormat(
        "round %d: master LP %.4f USD, Lagrangian at its duals %.4f (best %.4f), %d new plans\n",
        round, master_lp, lagrangian, best_lagrangian, pool.size() - before);
  }
  if (converged) {
    std::cout << absl::StrFormat(
        "converged: LP over all plans %.4f USD; root bound %.4f (%.3f %% "
        "below)\n",
        master_lp, root->lower_bound_usd, 100 * (master_lp - root->lower_bound_usd) / master_lp);
  } else {
    std::cout << absl::StrFormat(
        "no convergence in %d rounds: the LP over all plans lies in [%.4f, %.4f] USD\n",
        args.rounds, best_lagrangian, master_lp);
  }
  const int code = args.dive ? Dive(args, *instance, *scenario, *modes, pool, options, dir) : 0;
  if (args.dir.empty()) fs::remove_all(dir);
  return code;
}

}  // namespace
}  // namespace ckptdp

int main(int argc, char** argv) {
  ckptdp::Args args;
  CLI::App app{"The LP over all job plans by column generation, CBC as the LP solver"};
  app.add_option("instance", args.instance, "Instance JSON file")->required();
  app.add_option("--scenario", args.scenario, "S4 only")->capture_default_str();
  app.add_option("--iterations", args.iterations, "Lagrangian iterations of the seeding root")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--rounds", args.rounds, "Column-generation rounds at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--cbc", args.cbc, "The cbc executable")->capture_default_str();
  app.add_option("--dir", args.dir, "Keep the master and CBC's files here");
  app.add_flag("--dive", args.dive, "Then price and dive to a schedule");
  app.add_option("--dive-fix", args.dive_fix, "Jobs fixed per dive step")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--dive-rounds", args.dive_rounds, "Pricing rounds per dive step at most")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--dive-backtracks", args.dive_backtracks,
                 "Infeasible dive steps undone at most before the dive gives up")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--dive-milp-split", args.dive_milp_split,
                 "Once the LP splits this many jobs or fewer, CBC's branch and cut finishes")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--dive-milp-seconds", args.dive_milp_seconds, "CBC's time for that")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return ckptdp::RunColumnGeneration(args);
}
