// Result: a solved scenario, its metrics (Table IV) and its file formats.
//
// The JSON and CSV formats are documented in docs/result-format.md. Output files are
// written atomically (temporary file, then rename) so a failure never leaves a partial file.
#ifndef CKPTDP_RESULT_H_
#define CKPTDP_RESULT_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/power.h"
#include "ckptdp/schedule.h"
#include "ckptdp/status.h"

namespace ckptdp {

// The six scenarios of Table III.
enum class Scenario { kS1 = 1, kS2, kS3, kS4, kS5, kS6 };

struct ScenarioTraits {
  bool battery;         // BESS dispatched
  bool checkpoints;     // the checkpoint-state graph (S3 has none)
  bool variable_modes;  // any effective mode, not just the baseline
  bool waiting;         // checkpoint waiting allowed
};
ScenarioTraits TraitsOf(Scenario scenario);
const char* ScenarioName(Scenario scenario);                    // "S1" .. "S6"
const char* ScenarioDescription(Scenario scenario);             // "Fixed baseline", ...
absl::StatusOr<Scenario> ParseScenario(std::string_view text);  // "S4", "s4", "4"
std::vector<Scenario> AllScenarios();

// Table IV's columns, defined exactly in docs/result-format.md.
struct Metrics {
  double cost_usd = 0;            // grid + curtailment + battery wear
  double cost_reduction_pct = 0;  // 100 (cost(S1) - cost) / cost(S1)
  double grid_mwh = 0;
  double curtailment_mwh = 0;
  double bess_throughput_mwh = 0;  // charge + discharge energy at the battery terminals
  double re_utilization_pct = 0;   // 100 renewable used / renewable available
  double green_share_pct = 0;      // 100 renewable used / AIDC energy
  double peak_power_kw = 0;        // max AIDC load
  int peak_gpus = 0;
};
Metrics ComputeMetrics(const Instance& instance, const PowerDispatch& power, const SlotLoad& load,
                       double reference_cost_usd);

// Where the gap between the incumbent and the Lagrangian root bound sits, at the root's
// best multipliers (lambda, mu). The three parts are non-negative and add up to
// incumbent - root bound (weak duality, term by term):
//   job_paths_usd      sum over jobs of what the job's path costs at the prices above its
//                      cheapest path there: the price of choosing one path per job;
//   idle_capacity_usd  sum over slots of mu_t times the GPUs left idle in slot t;
//   power_side_usd     what serving the incumbent's load costs above the power side's
//                      optimum at lambda (grid, curtailment and battery).
// docs/engine.md explains how to read it.
struct GapBreakdown {
  bool available = false;  // flexible scenarios with an incumbent and multipliers
  double root_bound_usd = 0;
  double job_paths_usd = 0;
  double idle_capacity_usd = 0;
  double power_side_usd = 0;
};

struct SolverStats {
  double seconds = 0;
  int iterations = 0;
  int nodes = 0;  // branch-and-bound nodes after the Lagrangian root
  int threads = 1;
  GapBreakdown gap_breakdown;
};

struct Result {
  Scenario scenario = Scenario::kS1;
  SolveStatus status = SolveStatus::kFeasible;
  double objective_usd = 0;
  double lower_bound_usd = 0;
  double gap = 0;  // (objective - bound) / max(1, |objective|)
  Metrics metrics;
  SlotLoad load;
  PowerDispatch power;
  Schedule schedule;
  SolverStats solver;
  std::string diagnosis;  // why, when infeasible
};

// Relative gap as reported everywhere: (incumbent - bound) / max(1, |incumbent|).
double RelativeGap(double incumbent, double bound);

// One JSON object as documented in docs/result-format.md.
std::string ResultToJson(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result);
// Per-slot table: slot,renewable_kw,price_usd_per_mwh,aidc_kw,grid_kw,curtailment_kw,...
std::string SlotsCsv(const Instance& instance, const Result& result);
// A short human summary (scenario, status, objective, bound, gap, metrics, runs per job).
std::string HumanSummary(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result);

// Writes `contents` to `path` through a temporary file in the same directory and a rename.
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace ckptdp

#endif  // CKPTDP_RESULT_H_
