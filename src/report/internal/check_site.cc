// Header and site checks: the result must describe the instance it claims to solve.
#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {
namespace {

void ExpectInt(CheckReport& report, const char* key, int reported, int expected) {
  if (reported == expected) return;
  Flag(report, absl::StrCat("site.", key),
       absl::StrCat("is ", reported, ", the instance has ", expected));
}

void ExpectReal(CheckReport& report, const char* key, double reported, double expected) {
  if (Near(reported, expected)) return;
  Flag(report, absl::StrCat("site.", key),
       absl::StrCat("is ", Num(reported), ", the instance has ", Num(expected)));
}

}  // namespace

void CheckHeader(const Instance& instance, const ResultRecord& result, CheckReport& report) {
  if (result.format != "ckptdp-result-1") {
    Flag(report, "format", absl::StrCat("is \"", result.format, "\", expected ckptdp-result-1"));
  }
  if (result.instance != instance.name) {
    Flag(report, "instance",
         absl::StrCat("is \"", result.instance, "\", the instance is \"", instance.name, "\""));
  }
  if (result.status == "infeasible") {
    if (!result.diagnosis.has_value() || result.diagnosis->empty()) {
      Flag(report, "diagnosis", "an infeasible result must say which job cannot finish and why");
    }
    if (result.objective_usd.has_value()) {
      Flag(report, "objective_usd", "must be null when the status is infeasible");
    }
    return;
  }
  // A search stopped early may have no incumbent; optimal and feasible always have one.
  if (!result.objective_usd.has_value() && !MayLackIncumbent(result.status)) {
    Flag(report, "objective_usd",
         absl::StrCat("is null, but status ", result.status, " needs an incumbent"));
  }
  if (result.status == "optimal" && !result.lower_bound_usd.has_value()) {
    Flag(report, "lower_bound_usd", "is null, but an optimal result needs a lower bound");
  }
}

void CheckSite(const Instance& instance, const ResultRecord& result, CheckReport& report) {
  const SiteRecord& s = result.site;
  ExpectInt(report, "step_minutes", s.step_minutes, instance.time.step_minutes);
  ExpectInt(report, "slots", s.slots, instance.time.slots);
  ExpectInt(report, "gpu_capacity", s.gpu_capacity, instance.site.gpu_capacity);
  ExpectReal(report, "pue", s.pue, instance.site.pue);
  ExpectReal(report, "base_load_kw", s.base_load_kw, instance.site.base_load_kw);
  ExpectReal(report, "site_cap_kw", s.site_cap_kw, instance.site.site_power_cap_kw);
  ExpectReal(report, "curtailment_usd_per_mwh", s.curtailment_usd_per_mwh,
             instance.costs.curtailment_usd_per_mwh);
  ExpectReal(report, "battery_wear_usd_per_mwh", s.battery_wear_usd_per_mwh,
             instance.costs.battery_wear_usd_per_mwh);
  if (s.battery_enabled != result.rules.battery) {
    Flag(report, "site.battery_enabled",
         absl::StrCat("is ", s.battery_enabled ? "true" : "false", ", but scenario ",
                      result.scenario, result.rules.battery ? " dispatches" : " has no",
                      " battery"));
  }
  const Battery& b = instance.battery;
  ExpectReal(report, "battery.power_kw", s.battery.power_kw, b.power_kw);
  ExpectReal(report, "battery.energy_kwh", s.battery.energy_kwh, b.energy_kwh);
  ExpectReal(report, "battery.charge_efficiency", s.battery.charge_efficiency, b.charge_efficiency);
  ExpectReal(report, "battery.discharge_efficiency", s.battery.discharge_efficiency,
             b.discharge_efficiency);
  ExpectReal(report, "battery.soc_min_kwh", s.battery.soc_min_kwh, b.soc_min_kwh);
  ExpectReal(report, "battery.soc_max_kwh", s.battery.soc_max_kwh, b.soc_max_kwh);
  ExpectReal(report, "battery.soc_initial_kwh", s.battery.soc_initial_kwh, b.soc_initial_kwh);
}

}  // namespace ckptdp::check_internal
