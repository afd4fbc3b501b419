// Parameter sweeps (Fig. 12): apply one value to a copy of the instance, solve, collect.
#include "ckptdp/sweep.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tbb/parallel_for.h"

namespace ckptdp {
namespace {

absl::StatusOr<int> AsPositiveInt(std::string_view param, double value) {
  if (value != std::round(value) || value < 1 || value > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %g is not a positive integer", std::string(param), value));
  }
  return static_cast<int>(value);
}

void ScaleRenewables(Instance& instance, double factor) {
  for (double& kw : instance.series.pv_kw) kw *= factor;
  for (double& kw : instance.series.wind_kw) kw *= factor;
}

absl::Status ApplyInPlace(Instance& in, std::string_view param, double value) {
  if (param == "segments") {
    CKPTDP_ASSIGN_OR_RETURN(const int k, AsPositiveInt(param, value));
    for (Job& job : in.jobs) {
      job.segments = k;
      // Validation rejects a cap above K, and a cap of K means the same as no cap.
      job.max_segments_per_run = std::min(job.max_segments_per_run, k);
    }
  } else if (param == "gpu-capacity") {
    CKPTDP_ASSIGN_OR_RETURN(in.site.gpu_capacity, AsPositiveInt(param, value));
  } else if (param == "renewable-ratio") {
    if (value < 0) return absl::InvalidArgumentError("renewable-ratio: must be >= 0");
    ScaleRenewables(in, value);
  } else if (param == "renewable-energy-ratio") {
    if (value < 0) return absl::InvalidArgumentError("renewable-energy-ratio: must be >= 0");
    const double renewable_mwh = RenewableEnergyMwh(in);
    if (!(renewable_mwh > 0)) {
      return absl::InvalidArgumentError(
          "renewable-energy-ratio: the instance has no renewable energy to scale");
    }
    CKPTDP_ASSIGN_OR_RETURN(const double aidc_mwh, BaselineAidcEnergyMwh(in));
    ScaleRenewables(in, value * aidc_mwh / renewable_mwh);
  } else if (param == "resume-minutes") {
    // Every job's restart overhead after a pause (docs/model.md, "Restarts").
    if (!(value >= 0)) return absl::InvalidArgumentError("resume-minutes: must be >= 0");
    for (Job& job : in.jobs) job.resume_minutes = value;
  } else if (param == "battery-energy") {
    if (!(value > 0)) return absl::InvalidArgumentError("battery-energy: must be > 0 kWh");
    // Keeping the SoC window a fixed share of the capacity makes the value the only change.
    Battery& b = in.battery;
    const double factor = value / b.energy_kwh;
    b.energy_kwh = value;
    b.soc_min_kwh *= factor;
    b.soc_max_kwh *= factor;
    b.soc_initial_kwh *= factor;
  } else if (param == "demand-charge") {
    if (value < 0) return absl::InvalidArgumentError("demand-charge: must be >= 0 USD/kW");
    in.grid.demand_charge_usd_per_kw = value;
  } else if (param == "carbon-price") {
    if (value < 0) return absl::InvalidArgumentError("carbon-price: must be >= 0 USD/t");
    if (in.series.carbon_g_per_kwh.empty()) {
      return absl::InvalidArgumentError(
          "carbon-price: the instance has no carbon_g_per_kwh series to price");
    }
    in.grid.carbon_price_usd_per_t = value;
  } else {
    return CheckSweepParameter(param);
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& SweepParameterNames() {
  static const std::vector<std::string> names = {
      "segments",       "gpu-capacity",  "renewable-ratio", "renewable-energy-ratio",
      "battery-energy", "demand-charge", "carbon-price",    "resume-minutes"};
  return names;
}

absl::Status CheckSweepParameter(std::string_view param) {
  const std::vector<std::string>& names = SweepParameterNames();
  if (std::find(names.begin(), names.end(), param) != names.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "unknown sweep parameter '%s' (valid: %s)", std::string(param), absl::StrJoin(names, ", ")));
}

absl::StatusOr<Instance> ApplySweepParameter(const Instance& instance, std::string_view param,
                                             double value) {
  CKPTDP_RETURN_IF_ERROR(CheckSweepParameter(param));
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %g is not a finite number", std::string(param), value));
  }
  Instance copy = instance;
  CKPTDP_RETURN_IF_ERROR(ApplyInPlace(copy, param, value));
  if (absl::Status s = ValidateInstance(copy); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s = %g makes the instance invalid: %s",
                                                      std::string(param), value, s.message()));
  }
  return copy;
}

double RenewableEnergyMwh(const Instance& instance) {
  double kw = 0;
  for (int t = 0; t < instance.time.slots; ++t) kw += instance.RenewableKw(t);
  return kw * instance.time.StepHours() / 1000.0;
}

absl::StatusOr<double> BaselineAidcEnergyMwh(const Instance& instance) {
  SolveOptions options;
  options.threads = 1;
  options.diagnose_capacity = false;
  CKPTDP_ASSIGN_OR_RETURN(const Result s1, SolveScenario(instance, Scenario::kS1, options));
  if (s1.schedule.jobs.empty()) {
    return absl::FailedPreconditionError("the fixed baseline (S1) has no schedule: " +
                                         s1.diagnosis);
  }
  double kw = 0;
  for (double aidc : s1.load.aidc_kw) kw += aidc;
  return kw * instance.time.StepHours() / 1000.0;
}

absl::StatusOr<std::vector<SweepPoint>> RunSweep(const Instance& instance, Scenario scenario,
                                                 std::string_view param,
                                                 const std::vector<double>& values,
                                                 const SolveOptions& options,
                                                 const SweepProgress& progress) {
  CKPTDP_RETURN_IF_ERROR(CheckSweepParameter(param));
  CKPTDP_RETURN_IF_ERROR(ValidateSolveOptions(options));
  SolveOptions point_options = options;
  point_options.threads = 1;  // the parallelism is across points; see sweep.h
  point_options.log = nullptr;

  std::vector<SweepPoint> points(values.size());
  std::mutex progress_mutex;
  int done = 0;
  const int total = static_cast<int>(values.size());
  // grainsize 1: points differ widely in cost (an infeasible one runs the capacity search).
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, values.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) {
          points[i].value = values[i];
          absl::StatusOr<Instance> modified = ApplySweepParameter(instance, param, values[i]);
          points[i].result = modified.ok() ? SolveScenario(*modified, scenario, point_options)
                                           : absl::StatusOr<Result>(modified.status());
          if (points[i].result.ok() && !points[i].result->schedule.jobs.empty()) {
            // The modes only say which layout each job runs in at slot 0; they built once
            // already for the solve, so this cannot fail.
            absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*modified);
            if (modes.ok()) points[i].restarts = CountRestarts(*modes, points[i].result->schedule);
          }
          std::lock_guard<std::mutex> lock(progress_mutex);
          ++done;
          if (progress) progress(done, total);
        }
      });
  return points;
}

}  // namespace ckptdp
