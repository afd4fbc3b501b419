// Result: what a solved scenario is -- its schedule, load, power dispatch and metrics (Table IV).
//
// The `result` stage sits between the graph and the stages that make or read results:
// dispatch fills a Result, export decodes a MILP solution into one, report writes it out
// (ckptdp/report.h). The power dispatch record lives here, and the dispatch stage computes
// it (ckptdp/power.h), so that report and export need not link the solver.
#ifndef CKPTDP_RESULT_H_
#define CKPTDP_RESULT_H_

#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/scenario.h"
#include "ckptdp/schedule.h"
#include "ckptdp/status.h"

namespace ckptdp {

// One slot of a power dispatch (all kW averaged over the slot, SoC at the slot's end).
struct PowerSlot {
  double aidc_kw = 0;
  double renewable_used_kw = 0;
  double curtailment_kw = 0;
  double grid_kw = 0;
  double charge_kw = 0;
  double discharge_kw = 0;
  double soc_kwh = 0;
  double export_kw = 0;  // renewable power sold to the grid (grid contract)
};

struct PowerDispatch {
  std::vector<PowerSlot> slots;
  double grid_cost_usd = 0;
  double curtailment_cost_usd = 0;
  double battery_cost_usd = 0;
  // Grid contract terms (0 in the paper's model).
  double carbon_cost_usd = 0;
  double demand_charge_usd = 0;
  double export_revenue_usd = 0;
  double TotalCostUsd() const {
    const double energy = grid_cost_usd + curtailment_cost_usd + battery_cost_usd;
    if (carbon_cost_usd == 0 && demand_charge_usd == 0 && export_revenue_usd == 0) return energy;
    return energy + carbon_cost_usd + demand_charge_usd - export_revenue_usd;
  }
};

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
  // The grid contract's metrics, written only when the instance has a contract term
  // (HasGridContract); cost_usd then includes carbon and demand charge, minus exports.
  bool grid_contract = false;
  double peak_grid_import_kw = 0;
  double demand_charge_usd = 0;
  double export_mwh = 0;
  double export_revenue_usd = 0;
  double carbon_cost_usd = 0;
  double carbon_t = -1;           // average basis (carbon_g_per_kwh); -1 = no series
  double carbon_marginal_t = -1;  // marginal basis (carbon_marginal_g_per_kwh); -1 = none
};
// Whether the instance uses any term of the grid contract (site keys or series columns).
bool HasGridContract(const Instance& instance);
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
  // The root's multipliers at its best bound, per slot (flexible scenarios; else empty):
  // lambda in USD per kW of AIDC load, mu in USD per GPU. A warm start for a later solve.
  std::vector<double> lambda_usd_per_kw = {};
  std::vector<double> mu_usd_per_gpu = {};
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

}  // namespace ckptdp

#endif  // CKPTDP_RESULT_H_
