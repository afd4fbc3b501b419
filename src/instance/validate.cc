// ValidateInstance: every range and cross-field rule of an instance, written once and
// applied both to parsed files and to instances built in code (sweeps, the generator).
// Numeric ranges come from the tables in internal/fields.h; the rules that involve two
// fields are here.
#include "instance/internal/validate.h"

#include <cstdint>
#include <string>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ckptdp/instance.h"
#include "instance/internal/fields.h"
#include "instance/internal/grid_contract.h"
#include "instance/internal/messages.h"

namespace ckptdp {
namespace instance_internal {
namespace {

// "must be <= time.slots (24), got 30" and friends, for rules between two fields.
absl::Status OrderError(std::string_view path, std::string_view relation,
                        std::string_view other_name, double other, double got) {
  return PathError(path, Cat("must be ", relation, " ", other_name, " (", FormatNumber(other),
                             "), got ", FormatNumber(got)));
}

}  // namespace

absl::Status ValidateSeriesColumn(const Series& series, const std::vector<double>& values,
                                  std::string_view column, int slots, const Bounds& bounds) {
  if (values.size() != static_cast<std::size_t>(slots)) {
    return PathError(JoinPath("series", column),
                     Cat("must have ", slots, " values (time.slots), got ", values.size()));
  }
  for (std::size_t t = 0; t < values.size(); ++t) {
    if (bounds.Contains(values[t])) continue;
    // A CSV user looks for the slot in the file, not an array index.
    std::string path =
        series.csv_path.empty()
            ? IndexPath(JoinPath("series", column), t)
            : Cat("series.csv: ", Printable(series.csv_path, 300), " slot ", t, ": ", column);
    return PathError(
        path, Cat("must be a number in ", FormatBounds(bounds), ", got ", FormatNumber(values[t])));
  }
  return absl::OkStatus();
}

std::string_view ActivationScheduleName(ActivationSchedule schedule) {
  switch (schedule) {
    case ActivationSchedule::kOneFOneB:
      return "1f1b";
    case ActivationSchedule::kGPipe:
      return "gpipe";
  }
  return "";
}

absl::Status ValidateName(std::string_view path, std::string_view name, bool allow_empty) {
  if (name.empty() && !allow_empty) return PathError(path, "must not be empty");
  if (name.size() > kMaxNameBytes) {
    return PathError(path, Cat("must be at most ", kMaxNameBytes, " bytes, got ", name.size()));
  }
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return PathError(path,
                       absl::StrFormat("must not contain control characters, got 0x%02x", byte));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSite(const Site& site) {
  CKPTDP_RETURN_IF_ERROR(CheckFields(site, "site", kSiteFields));
  // The facility must have room for some training power on top of its base load.
  if (!(site.site_power_cap_kw > site.base_load_kw)) {
    return OrderError("site.site_power_cap_kw", ">", "site.base_load_kw", site.base_load_kw,
                      site.site_power_cap_kw);
  }
  return absl::OkStatus();
}

absl::Status ValidateTime(const TimeGrid& time) { return CheckFields(time, "time", kTimeFields); }

absl::Status ValidateSeries(const Series& series, int slots) {
  CKPTDP_RETURN_IF_ERROR(
      ValidateSeriesColumn(series, series.pv_kw, "pv_kw", slots, kPowerSeriesBounds));
  CKPTDP_RETURN_IF_ERROR(
      ValidateSeriesColumn(series, series.wind_kw, "wind_kw", slots, kPowerSeriesBounds));
  return ValidateSeriesColumn(series, series.price_usd_per_mwh, "price_usd_per_mwh", slots,
                              kPriceSeriesBounds);
}

absl::Status ValidateCosts(const Costs& costs) { return CheckFields(costs, "costs", kCostsFields); }

absl::Status ValidateBattery(const Battery& b) {
  CKPTDP_RETURN_IF_ERROR(CheckFields(b, "battery", kBatteryFields));
  if (!(b.soc_max_kwh <= b.energy_kwh)) {
    return OrderError("battery.soc_max_kwh", "<=", "battery.energy_kwh", b.energy_kwh,
                      b.soc_max_kwh);
  }
  if (!(b.soc_min_kwh <= b.soc_max_kwh)) {
    return OrderError("battery.soc_min_kwh", "<=", "battery.soc_max_kwh", b.soc_max_kwh,
                      b.soc_min_kwh);
  }
  if (!(b.soc_min_kwh <= b.soc_initial_kwh && b.soc_initial_kwh <= b.soc_max_kwh)) {
    return PathError(
        "battery.soc_initial_kwh",
        Cat("must be in [soc_min_kwh, soc_max_kwh] = [", FormatNumber(b.soc_min_kwh), ", ",
            FormatNumber(b.soc_max_kwh), "], got ", FormatNumber(b.soc_initial_kwh)));
  }
  return absl::OkStatus();
}

absl::Status ValidateModel(const ModelCoefficients& model) {
  CKPTDP_RETURN_IF_ERROR(CheckFields(model, "model", kModelFields));
  if (ActivationScheduleName(model.activation_schedule).empty()) {
    return PathError("model.activation_schedule",
                     Cat("must be \"1f1b\" or \"gpipe\", got enum value ",
                         static_cast<int>(model.activation_schedule)));
  }
  if (model.kernel_efficiency.has_value() &&
      !kKernelEfficiencyBounds.Contains(*model.kernel_efficiency)) {
    return PathError("model.kernel_efficiency",
                     Cat("must be a number in ", FormatBounds(kKernelEfficiencyBounds),
                         " or null, got ", FormatNumber(*model.kernel_efficiency)));
  }
  return absl::OkStatus();
}

namespace {

// The restart-overhead fields (resume_minutes and reshard_minutes are range-checked with the
// other job fields): the initial run's layout and fraction, and what they cannot be combined
// with.
absl::Status ValidateRestartFields(const Job& job, std::string_view path) {
  if (job.initial.has_value()) {
    const std::string initial_path = JoinPath(path, "initial");
    CKPTDP_RETURN_IF_ERROR(CheckFields(*job.initial, initial_path, kInitialRunFields));
    const std::string mode_path = JoinPath(initial_path, "mode");
    CKPTDP_RETURN_IF_ERROR(CheckFields(job.initial->mode, mode_path, kLayoutFields));
    const ParallelLayout& a = job.initial->mode;
    const int64_t gpus = int64_t{a.p} * a.q * a.d;
    if (gpus > kMaxGpus) {
      return PathError(mode_path, Cat("p*q*d must be at most ", kMaxGpus, ", got ", gpus));
    }
    if (job.release_slot != 0) {
      return PathError(initial_path, Cat("a job running at slot 0 must have release_slot 0, got ",
                                         job.release_slot));
    }
  }
  // The path DP tracks either the operators' limits or the restart state, not both yet.
  if (job.HasRestartModel() && (job.min_run_slots > 1 || job.max_pauses >= 0)) {
    return PathError(path,
                     "resume_minutes, reshard_minutes and initial cannot be combined with "
                     "min_run_slots > 1 or max_pauses >= 0 (not supported)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateJob(const Job& job, std::string_view path, const TimeGrid& time) {
  CKPTDP_RETURN_IF_ERROR(ValidateName(JoinPath(path, "name"), job.name, false));
  CKPTDP_RETURN_IF_ERROR(CheckFields(job, path, kJobFields));
  if (job.deadline_slot > time.slots) {
    return OrderError(JoinPath(path, "deadline_slot"), "<=", "time.slots", time.slots,
                      job.deadline_slot);
  }
  if (job.release_slot >= job.deadline_slot) {
    return OrderError(JoinPath(path, "release_slot"), "<", "deadline_slot", job.deadline_slot,
                      job.release_slot);
  }
  if (job.max_segments_per_run > job.segments) {
    return OrderError(JoinPath(path, "max_segments_per_run"), "<=", "segments", job.segments,
                      job.max_segments_per_run);
  }
  const std::string baseline_path = JoinPath(path, "baseline");
  CKPTDP_RETURN_IF_ERROR(CheckFields(job.baseline, baseline_path, kLayoutFields));
  // Only an overflow guard for ParallelLayout::Gpus(); whether the layout fits the site
  // (divisibility, memory, capacity) is the modes stage's question.
  const int64_t gpus = int64_t{job.baseline.p} * job.baseline.q * job.baseline.d;
  if (gpus > kMaxGpus) {
    return PathError(baseline_path, Cat("p*q*d must be at most ", kMaxGpus, ", got ", gpus));
  }
  return ValidateRestartFields(job, path);
}

absl::Status ValidateJobList(const std::vector<Job>& jobs) {
  if (jobs.empty() || jobs.size() > static_cast<std::size_t>(kMaxJobs)) {
    return PathError("jobs", Cat("must contain 1 to ", kMaxJobs, " jobs, got ", jobs.size()));
  }
  std::unordered_map<std::string_view, std::size_t> first_index;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto [it, inserted] = first_index.emplace(jobs[i].name, i);
    if (!inserted) {
      return PathError(JoinPath(IndexPath("jobs", i), "name"),
                       Cat("duplicate job name \"", Printable(jobs[i].name), "\" (also jobs[",
                           it->second, "])"));
    }
  }
  return absl::OkStatus();
}

}  // namespace instance_internal

absl::Status ValidateInstance(const Instance& instance) {
  using namespace instance_internal;  // NOLINT(build/namespaces): the section validators
  CKPTDP_RETURN_IF_ERROR(ValidateName("name", instance.name, /*allow_empty=*/true));
  CKPTDP_RETURN_IF_ERROR(ValidateSite(instance.site));
  CKPTDP_RETURN_IF_ERROR(ValidateTime(instance.time));
  CKPTDP_RETURN_IF_ERROR(ValidateSeries(instance.series, instance.time.slots));
  CKPTDP_RETURN_IF_ERROR(ValidateGridContract(instance.grid, instance.series, instance.time.slots));
  CKPTDP_RETURN_IF_ERROR(ValidateCosts(instance.costs));
  CKPTDP_RETURN_IF_ERROR(ValidateBattery(instance.battery));
  if (const std::optional<double>& e_t = instance.battery_soc_final_kwh;
      e_t.has_value() &&
      !(instance.battery.soc_min_kwh <= *e_t && *e_t <= instance.battery.soc_max_kwh)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "battery_soc_final_kwh (set in code): must be in [soc_min_kwh, "
        "soc_max_kwh] = [",
        instance.battery.soc_min_kwh, ", ", instance.battery.soc_max_kwh, "], got ", *e_t));
  }
  CKPTDP_RETURN_IF_ERROR(ValidateModel(instance.model));
  for (std::size_t i = 0; i < instance.jobs.size(); ++i) {
    CKPTDP_RETURN_IF_ERROR(ValidateJob(instance.jobs[i], IndexPath("jobs", i), instance.time));
  }
  return ValidateJobList(instance.jobs);
}

}  // namespace ckptdp
