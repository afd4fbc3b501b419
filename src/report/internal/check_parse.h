// The result JSON read into plain records, with every required key present and typed.
//
// Parsing is the only place the checker returns an error: a missing key or a key of the
// wrong type makes the result uncheckable. Values are not judged here.
// The records mirror the JSON objects of docs/result-format.md field for field, so they
// share a shape with each other and with the metrics the checker recomputes (on purpose).
#ifndef CKPTDP_REPORT_INTERNAL_CHECK_PARSE_H_
#define CKPTDP_REPORT_INTERNAL_CHECK_PARSE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/status.h"

namespace ckptdp::check_internal {

// What a scenario of Table III allows, as the checker reads it.
struct ScenarioRules {
  int number = 0;            // 1..6 for S1..S6
  bool battery = false;      // the BESS is dispatched (S5, S6)
  bool checkpoints = false;  // runs carry from_segment/to_segment (all but S3)
  bool fixed_mode = false;   // every run uses the job's baseline layout (S1, S2, S5)
  bool waiting = false;      // gaps between runs allowed (S3, S4, S6)
  bool graph = false;        // runs are train edges of the checkpoint-state graph (S2, S4, S6)
};
// "S1".."S6"; nullopt for anything else.
std::optional<ScenarioRules> RulesOf(std::string_view scenario);

struct RunRecord {
  int start_slot = 0;
  int end_slot = 0;  // exclusive
  std::optional<int> from_segment;
  std::optional<int> to_segment;
  ParallelLayout layout;
  int gpus = 0;
  double it_power_kw = 0;
  double throughput_flops = 0;
  double work_flops = 0;
  // Restart fields, present for jobs with overheads or an initial run.
  std::optional<double> overhead_minutes;
  std::optional<bool> continues_initial;
};

struct JobRecord {
  std::string name;
  int segments = 0;
  int release_slot = 0;
  int deadline_slot = 0;
  bool boundary_idle_allowed = false;
  double daily_compute_flops = 0;
  std::vector<RunRecord> runs;
};

struct SlotRecord {
  int slot = 0;
  double renewable_kw = 0;
  double price_usd_per_mwh = 0;
  double aidc_kw = 0;
  double train_it_kw = 0;
  int gpus = 0;
  double renewable_used_kw = 0;
  double grid_kw = 0;
  double curtailment_kw = 0;
  double charge_kw = 0;
  double discharge_kw = 0;
  double soc_kwh = 0;
  double export_kw = 0;  // grid contract; absent = 0
};

struct MetricsRecord {
  double cost_usd = 0;
  std::optional<double> cost_reduction_pct;  // null is allowed when S1 is not meaningful
  double grid_mwh = 0;
  double curtailment_mwh = 0;
  double bess_throughput_mwh = 0;
  double re_utilization_pct = 0;
  double green_share_pct = 0;
  double peak_power_kw = 0;
  int peak_gpus = 0;
  // The grid contract's metrics (absent without a contract).
  std::optional<double> peak_grid_import_kw, demand_charge_usd, export_mwh, export_revenue_usd,
      carbon_cost_usd, carbon_t, carbon_marginal_t;
};

struct SiteRecord {
  int step_minutes = 0;
  int slots = 0;
  int gpu_capacity = 0;
  double pue = 0;
  double base_load_kw = 0;
  double site_cap_kw = 0;
  double curtailment_usd_per_mwh = 0;
  double battery_wear_usd_per_mwh = 0;
  bool battery_enabled = false;
  Battery battery;
};

// The statuses of a search stopped early (a limit or an interrupt): the only ones besides
// "infeasible" whose result may have no incumbent.
inline bool MayLackIncumbent(const std::string& status) {
  return status == "time_limit" || status == "iteration_limit" || status == "node_limit" ||
         status == "interrupted";
}

struct ResultRecord {
  std::string format;
  std::string instance;
  std::string scenario;
  ScenarioRules rules;
  std::string status;  // optimal, feasible, infeasible, or one of MayLackIncumbent's
  std::optional<double> objective_usd;
  std::optional<double> lower_bound_usd;
  std::optional<double> gap;
  std::optional<std::string> diagnosis;
  // False for "infeasible" and for an early stop without an incumbent: then only the keys
  // above are read, and metrics, site, slots and jobs stay empty.
  bool has_schedule = false;
  MetricsRecord metrics;
  SiteRecord site;
  std::vector<SlotRecord> slots;
  std::vector<JobRecord> jobs;
};

absl::StatusOr<ResultRecord> ParseResultRecord(std::string_view json_text);

}  // namespace ckptdp::check_internal

#endif  // CKPTDP_REPORT_INTERNAL_CHECK_PARSE_H_
