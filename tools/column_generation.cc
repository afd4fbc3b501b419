// ckptdp-column-generation: the LP over all job plans, by column generation with CBC as the
// LP solver (docs/benchmarks.md, "The LP over all plans").
//
//   ckptdp-column-generation INSTANCE [--scenario S4] [--iterations 400] [--rounds 50]
//                            [--cbc cbc] [--dir DIR]
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
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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
};

// The master's LP optimum and its duals as Lagrangian multipliers: lambda_t is the dual of
// load_t (USD per kW of AIDC load), mu_t minus the dual of gpu_t (USD per GPU; a <= row of a
// minimisation has a dual <= 0). CBC's `-printingOptions all` solution file lists the rows
// first, as "index name activity dual".
struct MasterLp {
  double value = 0;
  WarmStart prices;
};

absl::StatusOr<MasterLp> SolveMasterLp(const Args& args, const MilpModel& model, int slots,
                                       const fs::path& dir) {
  const fs::path mps = dir / "master.mps", solution = dir / "master.sol";
  CKPTDP_RETURN_IF_ERROR(WriteFileAtomically(mps, ToMps(model)));
  fs::remove(solution);
  const std::string command = "'" + args.cbc + "' '" + mps.string() +
                              "' -initialSolve -printingOptions all -solu '" + solution.string() +
                              "' > '" + (dir / "cbc.log").string() + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError("cbc failed: " + command);
  }
  std::ifstream in(solution);
  std::string line;
  if (!std::getline(in, line) || line.rfind("Optimal", 0) != 0) {
    return absl::InternalError("cbc did not solve the master's LP: \"" + line + "\"");
  }
  MasterLp lp;
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
  }
  return lp;
}

int Fail(const absl::Status& status, int code) {
  std::cerr << "error: " << status.message() << "\n";
  return code;
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
  if (args.dir.empty()) fs::remove_all(dir);
  return 0;
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
  CLI11_PARSE(app, argc, argv);
  return ckptdp::RunColumnGeneration(args);
}
