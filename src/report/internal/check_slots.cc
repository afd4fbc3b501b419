// Slot checks: the load decoded from the runs (IV-B), the green-power bus (IV-C) and the
// battery state recursion, slot by slot.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {
namespace {

void CheckLoad(const Instance& instance, const SlotRecord& s, const RecomputedLoad& load, int t,
               CheckReport& report) {
  const std::string where = SlotPath(t);
  if (s.gpus != load.gpus[t]) {
    Flag(report, where,
         absl::StrCat("gpus is ", s.gpus, ", but the runs covering the slot use ", load.gpus[t]));
  }
  if (load.gpus[t] > instance.site.gpu_capacity) {
    Flag(report, where,
         absl::StrCat("the runs use ", load.gpus[t], " GPUs, more than gpu_capacity ",
                      instance.site.gpu_capacity));
  }
  ExpectNear(report, where, "train_it_kw", s.train_it_kw, load.train_it_kw[t],
             "sum of it_power_kw of the runs covering the slot");
  const double aidc = instance.site.base_load_kw + instance.site.pue * load.train_it_kw[t];
  ExpectNear(report, where, "aidc_kw", s.aidc_kw, aidc, "base_load_kw + pue * train_it_kw");
  if (!AtMost(aidc, instance.site.site_power_cap_kw)) {
    Flag(report, where,
         absl::StrCat("AIDC load ", Num(aidc), " kW exceeds site_power_cap_kw ",
                      Num(instance.site.site_power_cap_kw)));
  }
}

void CheckBus(const Instance& instance, const SlotRecord& s, int t, CheckReport& report) {
  const std::string where = SlotPath(t);
  const double renewable = instance.RenewableKw(t);
  ExpectNear(report, where, "renewable_kw", s.renewable_kw, renewable, "pv_kw + wind_kw");
  ExpectNear(report, where, "price_usd_per_mwh", s.price_usd_per_mwh,
             instance.series.price_usd_per_mwh[t], "the instance's price series");
  const auto non_negative = [&](const char* field, double value) {
    if (!AtMost(0.0, value)) Flag(report, where, absl::StrCat(field, " is negative: ", Num(value)));
  };
  non_negative("renewable_used_kw", s.renewable_used_kw);
  non_negative("curtailment_kw", s.curtailment_kw);
  non_negative("grid_kw", s.grid_kw);
  non_negative("export_kw", s.export_kw);
  const double split = s.renewable_used_kw + s.curtailment_kw + s.export_kw;
  if (!Near(split, renewable)) {
    Flag(report, where,
         absl::StrCat("renewable_used_kw + curtailment_kw + export_kw = ", Num(split),
                      ", but renewable is ", Num(renewable)));
  }
  const double supply = s.renewable_used_kw + s.grid_kw + s.discharge_kw;
  const double demand = s.aidc_kw + s.charge_kw;
  if (!Near(supply, demand)) {
    Flag(report, where,
         absl::StrCat("power balance broken: renewable_used + grid + discharge = ", Num(supply),
                      " kW, aidc + charge = ", Num(demand), " kW"));
  }
}

void CheckBattery(const Instance& instance, const ResultRecord& result, bool used,
                  CheckReport& report) {
  const Battery& b = instance.battery;
  const double dt = instance.time.StepHours();
  const int slots = static_cast<int>(std::min<size_t>(result.slots.size(), instance.time.slots));
  double soc_prev = b.soc_initial_kwh;
  for (int t = 0; t < slots; ++t) {
    const SlotRecord& s = result.slots[t];
    const std::string where = SlotPath(t);
    if (!used) {
      // No battery in this scenario: nothing flows, and the state is either left at its
      // initial value or written as 0.
      if (!Near(s.charge_kw, 0.0) || !Near(s.discharge_kw, 0.0)) {
        Flag(report, where,
             absl::StrCat("charge_kw ", Num(s.charge_kw), " / discharge_kw ", Num(s.discharge_kw),
                          ", but scenario ", result.scenario, " does not use the battery"));
      }
      if (!Near(s.soc_kwh, b.soc_initial_kwh) && !Near(s.soc_kwh, 0.0)) {
        Flag(report, where,
             absl::StrCat("soc_kwh is ", Num(s.soc_kwh),
                          ", but the unused battery "
                          "stays at soc_initial_kwh ",
                          Num(b.soc_initial_kwh)));
      }
      continue;
    }
    const auto within_power = [&](const char* field, double value) {
      if (!AtMost(0.0, value) || !AtMost(value, b.power_kw)) {
        Flag(report, where,
             absl::StrCat(field, " ", Num(value), " is outside [0, power_kw ", Num(b.power_kw),
                          "]"));
      }
    };
    within_power("charge_kw", s.charge_kw);
    within_power("discharge_kw", s.discharge_kw);
    if (!Near(s.charge_kw, 0.0) && !Near(s.discharge_kw, 0.0)) {
      Flag(report, where,
           absl::StrCat("charges (", Num(s.charge_kw), " kW) and discharges (", Num(s.discharge_kw),
                        " kW) in the same slot"));
    }
    const double soc = soc_prev + b.charge_efficiency * s.charge_kw * dt -
                       s.discharge_kw * dt / b.discharge_efficiency;
    ExpectNear(report, where, "soc_kwh", s.soc_kwh, soc,
               "previous soc + charge_efficiency * charge * dt - discharge * dt / "
               "discharge_efficiency");
    if (!AtMost(b.soc_min_kwh, s.soc_kwh) || !AtMost(s.soc_kwh, b.soc_max_kwh)) {
      Flag(report, where,
           absl::StrCat("soc_kwh ", Num(s.soc_kwh), " is outside [soc_min_kwh ", Num(b.soc_min_kwh),
                        ", soc_max_kwh ", Num(b.soc_max_kwh), "]"));
    }
    // Continue from the reported state: a wrong flow is named in its own slot rather than
    // shifting the state of every later slot.
    soc_prev = s.soc_kwh;
  }
  if (used && slots > 0 && !Near(result.slots[slots - 1].soc_kwh, b.soc_initial_kwh)) {
    Flag(report, SlotPath(slots - 1),
         absl::StrCat("final soc_kwh ", Num(result.slots[slots - 1].soc_kwh),
                      " differs from soc_initial_kwh ", Num(b.soc_initial_kwh), " (E_T = E_0)"));
  }
}

}  // namespace

void CheckSlots(const Instance& instance, const ResultRecord& result, const RecomputedLoad& load,
                CheckReport& report) {
  const int slots = instance.time.slots;
  if (static_cast<int>(result.slots.size()) != slots) {
    Flag(report, "slots",
         absl::StrCat("has ", result.slots.size(), " entries, the instance has ", slots, " slots"));
  }
  const int n = std::min(static_cast<int>(result.slots.size()), slots);
  for (int t = 0; t < n; ++t) {
    const SlotRecord& s = result.slots[t];
    if (s.slot != t) {
      Flag(report, SlotPath(t), absl::StrCat("slot is ", s.slot, ", expected ", t));
    }
    CheckLoad(instance, s, load, t, report);
    CheckBus(instance, s, t, report);
  }
  CheckBattery(instance, result, result.rules.battery && result.site.battery_enabled, report);
}

}  // namespace ckptdp::check_internal
