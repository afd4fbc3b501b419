// The result JSON read field by field for the independent checker. The Parse* functions
// below share one shape on purpose (duplicates lists them): one line per documented field,
// so that each line can be held against docs/result-format.md, and a field's type and its
// error message stay explicit rather than hidden in a table-driven reader.
#include "report/internal/check_parse.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace ckptdp::check_internal {
namespace {

using nlohmann::json;

// Typed access to the keys of one JSON object; every error names the key's full path.
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(&object), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  bool Has(const std::string& key) const { return object_->contains(std::string(key)); }

  absl::StatusOr<const json*> Get(const std::string& key) const {
    const auto it = object_->find(std::string(key));
    if (it == object_->end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(PathOf(key), ": missing required key \"", key, "\""));
    }
    return &*it;
  }

  absl::StatusOr<double> Number(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (!value->is_number()) return TypeError(key, "a number");
    return value->get<double>();
  }

  absl::StatusOr<std::optional<double>> NullableNumber(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (value->is_null()) return std::optional<double>();
    if (!value->is_number()) return TypeError(key, "a number or null");
    return std::optional<double>(value->get<double>());
  }

  // Integers written as 3.0 are accepted: JSON does not distinguish them.
  absl::StatusOr<int> Int(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const double value, Number(key));
    if (value != std::floor(value) || std::abs(value) > std::numeric_limits<int>::max()) {
      return TypeError(key, "an integer");
    }
    return static_cast<int>(value);
  }

  absl::StatusOr<std::optional<int>> OptionalInt(const std::string& key) const {
    if (!Has(key)) return std::optional<int>();
    CKPTDP_ASSIGN_OR_RETURN(const int value, Int(key));
    return std::optional<int>(value);
  }

  absl::StatusOr<bool> Bool(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (!value->is_boolean()) return TypeError(key, "true or false");
    return value->get<bool>();
  }

  absl::StatusOr<std::string> String(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (!value->is_string()) return TypeError(key, "a string");
    return value->get<std::string>();
  }

  absl::StatusOr<Fields> Object(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (!value->is_object()) return TypeError(key, "an object");
    return Fields(*value, PathOf(key));
  }

  // The elements of an array of objects, each with its indexed path ("jobs[1]").
  absl::StatusOr<std::vector<Fields>> ObjectArray(const std::string& key) const {
    CKPTDP_ASSIGN_OR_RETURN(const json* value, Get(key));
    if (!value->is_array()) return TypeError(key, "an array");
    std::vector<Fields> out;
    for (size_t i = 0; i < value->size(); ++i) {
      const std::string element = absl::StrCat(PathOf(key), "[", i, "]");
      if (!(*value)[i].is_object()) {
        return absl::InvalidArgumentError(absl::StrCat(element, ": must be an object"));
      }
      out.emplace_back((*value)[i], element);
    }
    return out;
  }

 private:
  std::string PathOf(const std::string& key) const {
    return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key);
  }
  absl::Status TypeError(const std::string& key, const char* expected) const {
    return absl::InvalidArgumentError(absl::StrCat(PathOf(key), ": must be ", expected));
  }

  const json* object_;
  std::string path_;
};

absl::StatusOr<RunRecord> ParseRun(const Fields& f, bool checkpoints) {
  RunRecord run;
  CKPTDP_ASSIGN_OR_RETURN(run.start_slot, f.Int("start_slot"));
  CKPTDP_ASSIGN_OR_RETURN(run.end_slot, f.Int("end_slot"));
  if (checkpoints) {
    CKPTDP_ASSIGN_OR_RETURN(run.from_segment, f.Int("from_segment"));
    CKPTDP_ASSIGN_OR_RETURN(run.to_segment, f.Int("to_segment"));
  } else {
    // S3 runs must not carry segments; their presence is a violation, not a parse error.
    CKPTDP_ASSIGN_OR_RETURN(run.from_segment, f.OptionalInt("from_segment"));
    CKPTDP_ASSIGN_OR_RETURN(run.to_segment, f.OptionalInt("to_segment"));
  }
  CKPTDP_ASSIGN_OR_RETURN(run.layout.p, f.Int("p"));
  CKPTDP_ASSIGN_OR_RETURN(run.layout.q, f.Int("q"));
  CKPTDP_ASSIGN_OR_RETURN(run.layout.d, f.Int("d"));
  CKPTDP_ASSIGN_OR_RETURN(run.gpus, f.Int("gpus"));
  CKPTDP_ASSIGN_OR_RETURN(run.it_power_kw, f.Number("it_power_kw"));
  CKPTDP_ASSIGN_OR_RETURN(run.throughput_flops, f.Number("throughput_flops"));
  CKPTDP_ASSIGN_OR_RETURN(run.work_flops, f.Number("work_flops"));
  if (f.Has("overhead_minutes")) {
    CKPTDP_ASSIGN_OR_RETURN(run.overhead_minutes, f.Number("overhead_minutes"));
  }
  if (f.Has("continues_initial")) {
    CKPTDP_ASSIGN_OR_RETURN(run.continues_initial, f.Bool("continues_initial"));
  }
  return run;
}

absl::StatusOr<JobRecord> ParseJob(const Fields& f, bool checkpoints) {
  JobRecord job;
  CKPTDP_ASSIGN_OR_RETURN(job.name, f.String("name"));
  CKPTDP_ASSIGN_OR_RETURN(job.segments, f.Int("segments"));
  CKPTDP_ASSIGN_OR_RETURN(job.release_slot, f.Int("release_slot"));
  CKPTDP_ASSIGN_OR_RETURN(job.deadline_slot, f.Int("deadline_slot"));
  CKPTDP_ASSIGN_OR_RETURN(job.boundary_idle_allowed, f.Bool("boundary_idle_allowed"));
  CKPTDP_ASSIGN_OR_RETURN(job.daily_compute_flops, f.Number("daily_compute_flops"));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<Fields> runs, f.ObjectArray("runs"));
  for (const Fields& run : runs) {
    CKPTDP_ASSIGN_OR_RETURN(RunRecord record, ParseRun(run, checkpoints));
    job.runs.push_back(record);
  }
  return job;
}

absl::StatusOr<SlotRecord> ParseSlot(const Fields& f) {
  SlotRecord s;
  CKPTDP_ASSIGN_OR_RETURN(s.slot, f.Int("slot"));
  CKPTDP_ASSIGN_OR_RETURN(s.renewable_kw, f.Number("renewable_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.price_usd_per_mwh, f.Number("price_usd_per_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.aidc_kw, f.Number("aidc_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.train_it_kw, f.Number("train_it_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.gpus, f.Int("gpus"));
  CKPTDP_ASSIGN_OR_RETURN(s.renewable_used_kw, f.Number("renewable_used_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.grid_kw, f.Number("grid_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.curtailment_kw, f.Number("curtailment_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.charge_kw, f.Number("charge_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.discharge_kw, f.Number("discharge_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.soc_kwh, f.Number("soc_kwh"));
  if (f.Has("export_kw")) {
    CKPTDP_ASSIGN_OR_RETURN(s.export_kw, f.Number("export_kw"));
  }
  return s;
}

absl::StatusOr<MetricsRecord> ParseMetrics(const Fields& f) {
  MetricsRecord m;
  CKPTDP_ASSIGN_OR_RETURN(m.cost_usd, f.Number("cost_usd"));
  CKPTDP_ASSIGN_OR_RETURN(m.cost_reduction_pct, f.NullableNumber("cost_reduction_pct"));
  CKPTDP_ASSIGN_OR_RETURN(m.grid_mwh, f.Number("grid_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(m.curtailment_mwh, f.Number("curtailment_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(m.bess_throughput_mwh, f.Number("bess_throughput_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(m.re_utilization_pct, f.Number("re_utilization_pct"));
  CKPTDP_ASSIGN_OR_RETURN(m.green_share_pct, f.Number("green_share_pct"));
  CKPTDP_ASSIGN_OR_RETURN(m.peak_power_kw, f.Number("peak_power_kw"));
  CKPTDP_ASSIGN_OR_RETURN(m.peak_gpus, f.Int("peak_gpus"));
  const std::pair<const char*, std::optional<double>*> contract[] = {
      {"peak_grid_import_kw", &m.peak_grid_import_kw},
      {"demand_charge_usd", &m.demand_charge_usd},
      {"export_mwh", &m.export_mwh},
      {"export_revenue_usd", &m.export_revenue_usd},
      {"carbon_cost_usd", &m.carbon_cost_usd},
      {"carbon_t", &m.carbon_t},
      {"carbon_marginal_t", &m.carbon_marginal_t}};
  for (const auto& [key, out] : contract) {
    if (f.Has(key)) {
      CKPTDP_ASSIGN_OR_RETURN(*out, f.NullableNumber(key));
    }
  }
  return m;
}

absl::StatusOr<SiteRecord> ParseSite(const Fields& f) {
  SiteRecord s;
  CKPTDP_ASSIGN_OR_RETURN(s.step_minutes, f.Int("step_minutes"));
  CKPTDP_ASSIGN_OR_RETURN(s.slots, f.Int("slots"));
  CKPTDP_ASSIGN_OR_RETURN(s.gpu_capacity, f.Int("gpu_capacity"));
  CKPTDP_ASSIGN_OR_RETURN(s.pue, f.Number("pue"));
  CKPTDP_ASSIGN_OR_RETURN(s.base_load_kw, f.Number("base_load_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.site_cap_kw, f.Number("site_cap_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.curtailment_usd_per_mwh, f.Number("curtailment_usd_per_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery_wear_usd_per_mwh, f.Number("battery_wear_usd_per_mwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery_enabled, f.Bool("battery_enabled"));
  CKPTDP_ASSIGN_OR_RETURN(const Fields b, f.Object("battery"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.power_kw, b.Number("power_kw"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.energy_kwh, b.Number("energy_kwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.charge_efficiency, b.Number("charge_efficiency"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.discharge_efficiency, b.Number("discharge_efficiency"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.soc_min_kwh, b.Number("soc_min_kwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.soc_max_kwh, b.Number("soc_max_kwh"));
  CKPTDP_ASSIGN_OR_RETURN(s.battery.soc_initial_kwh, b.Number("soc_initial_kwh"));
  return s;
}

// The solver block is informational; it is read only to confirm it is well formed.
absl::Status ParseSolver(const Fields& f) {
  CKPTDP_ASSIGN_OR_RETURN(const Fields solver, f.Object("solver"));
  CKPTDP_RETURN_IF_ERROR(solver.Number("seconds").status());
  CKPTDP_RETURN_IF_ERROR(solver.Int("iterations").status());
  CKPTDP_RETURN_IF_ERROR(solver.Int("threads").status());
  return absl::OkStatus();
}

}  // namespace

std::optional<ScenarioRules> RulesOf(std::string_view scenario) {
  //                     n  battery checkpoints fixed  waiting graph
  if (scenario == "S1") return ScenarioRules{1, false, true, true, false, false};
  if (scenario == "S2") return ScenarioRules{2, false, true, true, false, true};
  if (scenario == "S3") return ScenarioRules{3, false, false, false, true, false};
  if (scenario == "S4") return ScenarioRules{4, false, true, false, true, true};
  if (scenario == "S5") return ScenarioRules{5, true, true, true, false, false};
  if (scenario == "S6") return ScenarioRules{6, true, true, false, true, true};
  return std::nullopt;
}

absl::StatusOr<ResultRecord> ParseResultRecord(std::string_view json_text) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("result is not valid JSON: ", e.what()));
  }
  if (!root.is_object()) return absl::InvalidArgumentError("result: must be a JSON object");
  const Fields top(root, "");

  ResultRecord r;
  CKPTDP_ASSIGN_OR_RETURN(r.format, top.String("format"));
  CKPTDP_ASSIGN_OR_RETURN(r.instance, top.String("instance"));
  CKPTDP_ASSIGN_OR_RETURN(r.scenario, top.String("scenario"));
  const std::optional<ScenarioRules> rules = RulesOf(r.scenario);
  if (!rules.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("scenario: \"", r.scenario, "\" is not one of S1..S6"));
  }
  r.rules = *rules;
  CKPTDP_ASSIGN_OR_RETURN(r.status, top.String("status"));
  if (r.status != "optimal" && r.status != "feasible" && r.status != "infeasible" &&
      !MayLackIncumbent(r.status)) {
    return absl::InvalidArgumentError(
        absl::StrCat("status: \"", r.status,
                     "\" is not one of optimal, feasible, infeasible, time_limit, "
                     "iteration_limit, node_limit, interrupted"));
  }
  CKPTDP_ASSIGN_OR_RETURN(r.objective_usd, top.NullableNumber("objective_usd"));
  CKPTDP_ASSIGN_OR_RETURN(r.lower_bound_usd, top.NullableNumber("lower_bound_usd"));
  CKPTDP_ASSIGN_OR_RETURN(r.gap, top.NullableNumber("gap"));
  if (r.status == "infeasible" || top.Has("diagnosis")) {
    CKPTDP_ASSIGN_OR_RETURN(r.diagnosis, top.String("diagnosis"));
  }

  r.has_schedule =
      r.status != "infeasible" && !(MayLackIncumbent(r.status) && !r.objective_usd.has_value());
  if (!r.has_schedule) return r;

  CKPTDP_ASSIGN_OR_RETURN(const Fields metrics, top.Object("metrics"));
  CKPTDP_ASSIGN_OR_RETURN(r.metrics, ParseMetrics(metrics));
  CKPTDP_RETURN_IF_ERROR(ParseSolver(top));
  CKPTDP_ASSIGN_OR_RETURN(const Fields site, top.Object("site"));
  CKPTDP_ASSIGN_OR_RETURN(r.site, ParseSite(site));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<Fields> slots, top.ObjectArray("slots"));
  for (const Fields& slot : slots) {
    CKPTDP_ASSIGN_OR_RETURN(SlotRecord record, ParseSlot(slot));
    r.slots.push_back(record);
  }
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<Fields> jobs, top.ObjectArray("jobs"));
  for (const Fields& job : jobs) {
    CKPTDP_ASSIGN_OR_RETURN(JobRecord record, ParseJob(job, r.rules.checkpoints));
    r.jobs.push_back(std::move(record));
  }
  return r;
}

}  // namespace ckptdp::check_internal
