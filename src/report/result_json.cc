// Result files: the JSON object, the per-slot CSV, the human summary and atomic writes.
// The formats are documented field by field in docs/result-format.md; the checker parses
// exactly the JSON written here, so a key is never renamed without updating both.
#include "ckptdp/report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ckptdp/workload.h"

namespace ckptdp {
namespace {

// Ordered so the file reads in the documented order (nlohmann::json would sort keys).
using Json = nlohmann::ordered_json;

// JSON has no NaN or infinity; a missing number (no incumbent, infinite bound) is null.
Json NumberOrNull(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// An infeasible solve, or a time limit hit before any schedule was found, has no incumbent:
// nothing per slot or per run is meaningful then.
bool HasIncumbent(const Result& result) {
  return result.status != SolveStatus::kInfeasible && !result.power.slots.empty();
}

template <typename T>
double At(const std::vector<T>& values, int index) {
  return index >= 0 && index < static_cast<int>(values.size()) ? static_cast<double>(values[index])
                                                               : NAN;
}

const Mode* ModeOf(const std::vector<JobModes>& modes, int job, const Run& run) {
  if (job >= static_cast<int>(modes.size())) return nullptr;
  const std::vector<Mode>& feasible = modes[job].feasible;
  if (run.mode < 0 || run.mode >= static_cast<int>(feasible.size())) return nullptr;
  return &feasible[run.mode];
}

// C_j; the modes carry it, and recomputing it is the same deterministic formula.
double DailyComputeFlops(const Instance& instance, const std::vector<JobModes>& modes, int job) {
  if (job < static_cast<int>(modes.size())) return modes[job].workload.compute_flops;
  return ComputeWorkload(instance.jobs[job], instance.model).compute_flops;
}

// Checkpoint runs deliver whole segments; S3 runs (no segments) carry their own work.
// A run continuing the job's initial run skips the part of its first segment already done.
double RunWorkFlops(const Run& run, const Job& job, double daily_compute_flops) {
  const int segments = job.segments;
  if (run.from_segment < 0 || segments <= 0) return run.work_flops;
  const double done =
      run.continues_initial && job.initial.has_value() ? job.initial->segment_fraction : 0.0;
  return (run.to_segment - run.from_segment - done) / segments * daily_compute_flops;
}

const std::vector<Run>& RunsOf(const Result& result, int job) {
  static const std::vector<Run> kNoRuns;
  if (!HasIncumbent(result) || job >= static_cast<int>(result.schedule.jobs.size())) {
    return kNoRuns;
  }
  return result.schedule.jobs[job];
}

Json MetricsJson(const Metrics& m, bool has_incumbent, bool grid_contract) {
  const auto value = [&](double v) { return has_incumbent ? NumberOrNull(v) : Json(nullptr); };
  Json json;
  json["cost_usd"] = value(m.cost_usd);
  json["cost_reduction_pct"] = value(m.cost_reduction_pct);
  json["grid_mwh"] = value(m.grid_mwh);
  json["curtailment_mwh"] = value(m.curtailment_mwh);
  json["bess_throughput_mwh"] = value(m.bess_throughput_mwh);
  json["re_utilization_pct"] = value(m.re_utilization_pct);
  json["green_share_pct"] = value(m.green_share_pct);
  json["peak_power_kw"] = value(m.peak_power_kw);
  json["peak_gpus"] = has_incumbent ? Json(m.peak_gpus) : Json(nullptr);
  if (grid_contract) {
    // The grid contract's keys (docs/result-format.md); carbon only with its series.
    json["peak_grid_import_kw"] = value(m.peak_grid_import_kw);
    json["demand_charge_usd"] = value(m.demand_charge_usd);
    json["export_mwh"] = value(m.export_mwh);
    json["export_revenue_usd"] = value(m.export_revenue_usd);
    json["carbon_cost_usd"] = value(m.carbon_cost_usd);
    json["carbon_t"] = m.carbon_t >= 0 ? value(m.carbon_t) : Json(nullptr);
    json["carbon_marginal_t"] =
        m.carbon_marginal_t >= 0 ? value(m.carbon_marginal_t) : Json(nullptr);
  }
  return json;
}

Json SiteJson(const Instance& instance, Scenario scenario) {
  const Site& site = instance.site;
  const Battery& b = instance.battery;
  Json json;
  json["step_minutes"] = instance.time.step_minutes;
  json["slots"] = instance.time.slots;
  json["gpu_capacity"] = site.gpu_capacity;
  json["pue"] = site.pue;
  json["base_load_kw"] = site.base_load_kw;
  json["site_cap_kw"] = site.site_power_cap_kw;
  json["curtailment_usd_per_mwh"] = instance.costs.curtailment_usd_per_mwh;
  json["battery_wear_usd_per_mwh"] = instance.costs.battery_wear_usd_per_mwh;
  json["battery_enabled"] = TraitsOf(scenario).battery;
  json["battery"] = {{"power_kw", b.power_kw},
                     {"energy_kwh", b.energy_kwh},
                     {"charge_efficiency", b.charge_efficiency},
                     {"discharge_efficiency", b.discharge_efficiency},
                     {"soc_min_kwh", b.soc_min_kwh},
                     {"soc_max_kwh", b.soc_max_kwh},
                     {"soc_initial_kwh", b.soc_initial_kwh}};
  return json;
}

Json SlotsJson(const Instance& instance, const Result& result) {
  Json slots = Json::array();
  if (!HasIncumbent(result)) return slots;
  for (int t = 0; t < instance.time.slots; ++t) {
    const PowerSlot s =
        t < static_cast<int>(result.power.slots.size()) ? result.power.slots[t] : PowerSlot{};
    Json row;
    row["slot"] = t;
    row["renewable_kw"] =
        NumberOrNull(At(instance.series.pv_kw, t) + At(instance.series.wind_kw, t));
    row["price_usd_per_mwh"] = NumberOrNull(At(instance.series.price_usd_per_mwh, t));
    row["aidc_kw"] = NumberOrNull(At(result.load.aidc_kw, t));
    row["train_it_kw"] = NumberOrNull(At(result.load.train_it_kw, t));
    const double gpus = At(result.load.gpus, t);
    row["gpus"] = std::isfinite(gpus) ? Json(static_cast<int>(gpus)) : Json(nullptr);
    row["renewable_used_kw"] = s.renewable_used_kw;
    row["grid_kw"] = s.grid_kw;
    row["curtailment_kw"] = s.curtailment_kw;
    row["charge_kw"] = s.charge_kw;
    row["discharge_kw"] = s.discharge_kw;
    row["soc_kwh"] = s.soc_kwh;
    if (HasGridContract(instance)) {
      row["export_kw"] = s.export_kw;
      row["import_cap_kw"] = NumberOrNull(instance.ImportCapKw(static_cast<int>(t)));
    }
    slots.push_back(std::move(row));
  }
  return slots;
}

Json RunJson(const Run& run, const Mode* mode, const Job& job, double daily_compute_flops) {
  Json json;
  json["start_slot"] = run.start_slot;
  json["end_slot"] = run.end_slot;
  // S3 has no checkpoints: its runs carry no segment keys at all (not -1, not null).
  if (run.from_segment >= 0) {
    json["from_segment"] = run.from_segment;
    json["to_segment"] = run.to_segment;
  }
  if (mode != nullptr) {
    json["p"] = mode->layout.p;
    json["q"] = mode->layout.q;
    json["d"] = mode->layout.d;
    json["gpus"] = mode->gpus;
    json["it_power_kw"] = mode->it_power_kw;
    json["throughput_flops"] = mode->throughput_flops;
  } else {  // an out-of-range mode index is a solver bug; keep the file parseable
    for (const char* key : {"p", "q", "d", "gpus", "it_power_kw", "throughput_flops"}) {
      json[key] = nullptr;
    }
  }
  json["work_flops"] = NumberOrNull(RunWorkFlops(run, job, daily_compute_flops));
  // Only jobs with restart overheads or an initial run carry these (docs/result-format.md).
  if (job.HasRestartModel() && run.from_segment >= 0) {
    json["overhead_minutes"] = run.overhead_minutes;
    json["continues_initial"] = run.continues_initial;
  }
  return json;
}

Json JobsJson(const Instance& instance, const std::vector<JobModes>& modes, const Result& result) {
  Json jobs = Json::array();
  for (int j = 0; j < static_cast<int>(instance.jobs.size()); ++j) {
    const Job& job = instance.jobs[j];
    const double daily = DailyComputeFlops(instance, modes, j);
    Json json;
    json["name"] = job.name;
    json["segments"] = job.segments;
    json["release_slot"] = job.release_slot;
    json["deadline_slot"] = job.deadline_slot;
    json["boundary_idle_allowed"] = job.boundary_idle_allowed;
    json["daily_compute_flops"] = NumberOrNull(daily);
    Json runs = Json::array();
    for (const Run& run : RunsOf(result, j)) {
      runs.push_back(RunJson(run, ModeOf(modes, j, run), job, daily));
    }
    json["runs"] = std::move(runs);
    jobs.push_back(std::move(json));
  }
  return jobs;
}

}  // namespace

std::string ResultToJson(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result) {
  const bool incumbent = HasIncumbent(result);
  Json json;
  json["format"] = "ckptdp-result-1";
  json["instance"] = instance.name;
  json["scenario"] = std::string(ScenarioName(result.scenario));
  json["scenario_description"] = std::string(ScenarioDescription(result.scenario));
  json["status"] = std::string(SolveStatusName(result.status));
  json["objective_usd"] = incumbent ? NumberOrNull(result.objective_usd) : Json(nullptr);
  // A time limit without an incumbent still proved a bound; infeasibility proves none.
  json["lower_bound_usd"] = result.status != SolveStatus::kInfeasible
                                ? NumberOrNull(result.lower_bound_usd)
                                : Json(nullptr);
  json["gap"] = incumbent ? NumberOrNull(result.gap) : Json(nullptr);
  if (result.status == SolveStatus::kInfeasible || result.schedule.jobs.empty()) {
    json["diagnosis"] = result.diagnosis;
  }
  json["metrics"] = MetricsJson(result.metrics, incumbent, HasGridContract(instance));
  json["solver"] = {{"seconds", result.solver.seconds},
                    {"iterations", result.solver.iterations},
                    {"nodes", result.solver.nodes},
                    {"threads", result.solver.threads}};
  if (const GapBreakdown& g = result.solver.gap_breakdown; g.available && incumbent) {
    json["solver"]["gap_breakdown"] = {{"root_bound_usd", g.root_bound_usd},
                                       {"job_paths_usd", g.job_paths_usd},
                                       {"idle_capacity_usd", g.idle_capacity_usd},
                                       {"power_side_usd", g.power_side_usd}};
  }
  if (incumbent) {
    const RestartCounts restarts = CountRestarts(modes, result.schedule);
    json["restarts"] = {{"resumes", restarts.resumes},
                        {"layout_changes", restarts.layout_changes},
                        {"overhead_minutes", restarts.overhead_minutes}};
  }
  json["site"] = SiteJson(instance, result.scenario);
  json["slots"] = SlotsJson(instance, result);
  json["jobs"] = JobsJson(instance, modes, result);
  return json.dump(2);
}

namespace {

// 6 decimals, like the instance series. A value that rounds to zero prints as 0.000000,
// never -0.000000 (a dispatch's -1e-13 is round-off, not a sign); a missing one is empty.
std::string CsvNumber(double value) {
  if (!std::isfinite(value)) return "";
  if (std::abs(value) < 5e-7) value = 0.0;
  return absl::StrFormat("%.6f", value);
}

}  // namespace

std::string SlotsCsv(const Instance& instance, const Result& result) {
  std::string csv =
      "slot,renewable_kw,price_usd_per_mwh,aidc_kw,train_it_kw,gpus,renewable_used_kw,grid_kw,"
      "curtailment_kw,charge_kw,discharge_kw,soc_kwh\n";
  if (!HasIncumbent(result)) return csv;
  for (int t = 0; t < instance.time.slots; ++t) {
    const PowerSlot s =
        t < static_cast<int>(result.power.slots.size()) ? result.power.slots[t] : PowerSlot{};
    const double gpus = At(result.load.gpus, t);
    const std::vector<std::string> cells = {
        absl::StrCat(t),
        CsvNumber(At(instance.series.pv_kw, t) + At(instance.series.wind_kw, t)),
        CsvNumber(At(instance.series.price_usd_per_mwh, t)),
        CsvNumber(At(result.load.aidc_kw, t)),
        CsvNumber(At(result.load.train_it_kw, t)),
        std::isfinite(gpus) ? absl::StrCat(static_cast<int>(gpus)) : "",
        CsvNumber(s.renewable_used_kw),
        CsvNumber(s.grid_kw),
        CsvNumber(s.curtailment_kw),
        CsvNumber(s.charge_kw),
        CsvNumber(s.discharge_kw),
        CsvNumber(s.soc_kwh)};
    absl::StrAppend(&csv, absl::StrJoin(cells, ","), "\n");
  }
  return csv;
}

namespace {

// "slots 3-5" (inclusive, as a reader counts) or "slot 3" for a one-slot run.
std::string SlotRange(const Run& run) {
  if (run.end_slot - run.start_slot <= 1) return absl::StrCat("slot ", run.start_slot);
  return absl::StrCat("slots ", run.start_slot, "-", run.end_slot - 1);
}

std::string RunLine(const Run& run, const Mode* mode) {
  std::string line = SlotRange(run);
  if (run.from_segment >= 0) {
    absl::StrAppend(&line, " seg ", run.from_segment, "->", run.to_segment);
  } else {
    absl::StrAppendFormat(&line, " work %.4g FLOP", run.work_flops);
  }
  if (mode != nullptr) {
    absl::StrAppendFormat(&line, " (%d,%d,%d) %d GPUs", mode->layout.p, mode->layout.q,
                          mode->layout.d, mode->gpus);
  } else {
    absl::StrAppend(&line, " (mode ", run.mode, " unknown)");
  }
  if (run.overhead_minutes > 0)
    absl::StrAppendFormat(&line, ", %g min restart", run.overhead_minutes);
  if (run.continues_initial) absl::StrAppend(&line, ", continues the initial run");
  return line;
}

}  // namespace

std::string HumanSummary(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result) {
  const bool incumbent = HasIncumbent(result);
  std::string out;
  absl::StrAppend(&out, "instance   ", instance.name, "\n");
  // StrFormat takes std::string_view; StrCat would not (Debian's Abseil has its own).
  absl::StrAppendFormat(&out, "scenario   %s (%s)\n", ScenarioName(result.scenario),
                        ScenarioDescription(result.scenario));
  absl::StrAppendFormat(&out, "status     %s  (%.2f s, %d iterations, %d nodes, %d threads)\n",
                        SolveStatusName(result.status), result.solver.seconds,
                        result.solver.iterations, result.solver.nodes, result.solver.threads);
  if (incumbent) {
    absl::StrAppendFormat(&out, "objective  %.2f USD  bound %.2f USD  gap %.4f%%\n",
                          result.objective_usd, result.lower_bound_usd, 100.0 * result.gap);
    if (const GapBreakdown& g = result.solver.gap_breakdown; g.available) {
      absl::StrAppendFormat(
          &out,
          "root gap   %.2f USD (Lagrangian bound) = job paths %.2f + idle priced GPUs %.2f + "
          "power side %.2f\n",
          result.objective_usd - g.root_bound_usd, g.job_paths_usd, g.idle_capacity_usd,
          g.power_side_usd);
    }
  } else if (result.status != SolveStatus::kInfeasible && std::isfinite(result.lower_bound_usd)) {
    absl::StrAppendFormat(&out, "objective  none (no schedule found)  bound %.2f USD\n",
                          result.lower_bound_usd);
  } else {
    absl::StrAppend(&out, "objective  none (no schedule found)\n");
  }
  if (result.status == SolveStatus::kInfeasible || !incumbent) {
    absl::StrAppend(&out, "diagnosis  ",
                    result.diagnosis.empty() ? "(none given)" : result.diagnosis, "\n");
  }
  if (incumbent) {
    const Metrics& m = result.metrics;
    absl::StrAppendFormat(&out,
                          "cost       %.2f USD  (reduction vs S1 %.2f %%)\n"
                          "grid       %.3f MWh   curtailment %.3f MWh   BESS throughput %.3f MWh\n"
                          "RE util.   %.2f %%   green share %.2f %%\n"
                          "peak       %.1f kW, %d GPUs\n",
                          m.cost_usd, m.cost_reduction_pct, m.grid_mwh, m.curtailment_mwh,
                          m.bess_throughput_mwh, m.re_utilization_pct, m.green_share_pct,
                          m.peak_power_kw, m.peak_gpus);
    if (m.grid_contract) {
      absl::StrAppendFormat(&out,
                            "grid       peak import %.1f kW   demand charge %.2f USD   "
                            "export %.3f MWh (%.2f USD)\n",
                            m.peak_grid_import_kw, m.demand_charge_usd, m.export_mwh,
                            m.export_revenue_usd);
      if (m.carbon_t >= 0) {
        absl::StrAppendFormat(&out, "carbon     %.3f t (average basis)", m.carbon_t);
        if (m.carbon_marginal_t >= 0) {
          absl::StrAppendFormat(&out, "   %.3f t (marginal basis)", m.carbon_marginal_t);
        }
        absl::StrAppendFormat(&out, "   carbon cost %.2f USD\n", m.carbon_cost_usd);
      }
    }
    bool restart_model = false;
    for (const Job& job : instance.jobs) restart_model |= job.HasRestartModel();
    if (restart_model) {
      const RestartCounts restarts = CountRestarts(modes, result.schedule);
      absl::StrAppendFormat(&out, "restarts   %d resumes, %d layout changes, %g overhead minutes\n",
                            restarts.resumes, restarts.layout_changes, restarts.overhead_minutes);
    }
  }
  for (int j = 0; j < static_cast<int>(instance.jobs.size()); ++j) {
    const Job& job = instance.jobs[j];
    absl::StrAppendFormat(&out, "job %s  window %d-%d, %d segments, %.4g FLOP\n", job.name,
                          job.release_slot, job.deadline_slot - 1, job.segments,
                          DailyComputeFlops(instance, modes, j));
    for (const Run& run : RunsOf(result, j)) {
      absl::StrAppend(&out, "  ", RunLine(run, ModeOf(modes, j, run)), "\n");
    }
  }
  return out;
}

namespace {

absl::Status WriteError(const std::filesystem::path& path, int error) {
  return absl::UnavailableError(
      absl::StrCat("cannot write ", path.string(), ": ", std::strerror(error)));
}

// Writes everything or fails with errno set; retries short writes and EINTR.
bool WriteAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t n = ::write(fd, contents.data(), contents.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  if (path.empty() || !path.has_filename()) return WriteError(path, EISDIR);
  // Same directory as the target, so the rename never crosses file systems.
  std::filesystem::path tmp = path;
  tmp += absl::StrCat(".tmp.", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return WriteError(path, errno);
  // fsync before rename: otherwise a crash can leave the new name on an empty file.
  bool ok = WriteAll(fd, contents) && ::fsync(fd) == 0;
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return WriteError(path, error);
  }
  return absl::OkStatus();
}

}  // namespace ckptdp
