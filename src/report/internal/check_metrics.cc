// Metric checks: Table IV's columns, the objective (IV-D) and its bound recomputed from
// the slot table, and cost_reduction_pct against an S1 cost computed from the instance.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "ckptdp/result.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {
namespace {

struct Totals {
  double cost_usd = 0;
  double grid_mwh = 0;
  double curtailment_mwh = 0;
  double bess_throughput_mwh = 0;
  double renewable_kwh = 0;
  double renewable_used_kwh = 0;
  double aidc_kwh = 0;
  double grid_kwh = 0;
  double peak_power_kw = 0;
  int peak_gpus = 0;
};

// Metrics are functions of the slot table; the table itself is checked against the model
// in check_slots.cc, so a wrong slot is named there and not again here.
Totals SumSlots(const Instance& instance, const std::vector<SlotRecord>& slots) {
  const double dt = instance.time.StepHours();
  const Costs& c = instance.costs;
  Totals out;
  for (size_t t = 0; t < slots.size(); ++t) {
    const SlotRecord& s = slots[t];
    const double price = instance.series.price_usd_per_mwh[t];
    out.cost_usd += dt / 1000.0 *
                    (price * s.grid_kw + c.curtailment_usd_per_mwh * s.curtailment_kw +
                     c.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw));
    out.grid_mwh += s.grid_kw * dt / 1000.0;
    out.curtailment_mwh += s.curtailment_kw * dt / 1000.0;
    out.bess_throughput_mwh += (s.charge_kw + s.discharge_kw) * dt / 1000.0;
    out.renewable_kwh += instance.RenewableKw(static_cast<int>(t)) * dt;
    out.renewable_used_kwh += s.renewable_used_kw * dt;
    out.aidc_kwh += s.aidc_kw * dt;
    out.grid_kwh += s.grid_kw * dt;
    out.peak_power_kw = t == 0 ? s.aidc_kw : std::max(out.peak_power_kw, s.aidc_kw);
    out.peak_gpus = std::max(out.peak_gpus, s.gpus);
  }
  return out;
}

void ExpectMetric(CheckReport& report, const char* key, double reported, double expected) {
  if (Near(reported, expected)) return;
  Flag(report, absl::StrCat("metrics.", key),
       absl::StrCat("is ", Num(reported), ", recomputed from the slots: ", Num(expected)));
}

void CheckObjective(const ResultRecord& result, double cost, CheckReport& report) {
  if (!result.objective_usd.has_value()) return;
  const double objective = *result.objective_usd;
  if (!Near(objective, cost)) {
    Flag(report, "objective_usd",
         absl::StrCat("is ", Num(objective), ", but the cost recomputed from the slots is ",
                      Num(cost), " (J, section IV-D)"));
  }
  if (!result.lower_bound_usd.has_value()) {
    if (result.gap.has_value()) {
      Flag(report, "gap", absl::StrCat("is ", Num(*result.gap), " without a lower bound"));
    }
    return;
  }
  const double bound = *result.lower_bound_usd;
  if (!AtMost(bound, objective)) {
    Flag(report, "lower_bound_usd",
         absl::StrCat("is ", Num(bound), ", above objective_usd ", Num(objective)));
  }
  const double gap = (objective - bound) / std::max(1.0, std::abs(objective));
  if (!result.gap.has_value()) {
    Flag(report, "gap", absl::StrCat("is null, expected ", Num(gap)));
  } else if (!Near(*result.gap, gap)) {
    Flag(report, "gap",
         absl::StrCat("is ", Num(*result.gap), ", expected ", Num(gap),
                      " = (objective - bound) / max(1, |objective|)"));
  }
}

void CheckCostReduction(const Instance& instance, const std::vector<JobModes>& modes,
                        const ResultRecord& result, CheckReport& report) {
  std::string why_not;
  const std::optional<double> baseline = BaselineCostUsd(instance, modes, &why_not);
  // A zero S1 cost makes the percentage undefined; writers may then report anything.
  if (!baseline.has_value() || std::abs(*baseline) < 1e-9) return;
  const double expected = 100.0 * (*baseline - result.metrics.cost_usd) / *baseline;
  const std::optional<double>& reported = result.metrics.cost_reduction_pct;
  if (!reported.has_value()) {
    Flag(report, "metrics.cost_reduction_pct",
         absl::StrCat("is null, but cost(S1) = ", Num(*baseline), " gives ", Num(expected)));
  } else if (!Near(*reported, expected)) {
    Flag(report, "metrics.cost_reduction_pct",
         absl::StrCat("is ", Num(*reported), ", expected ", Num(expected),
                      " = 100 (cost(S1) - cost) / cost(S1) with cost(S1) = ", Num(*baseline)));
  }
}

}  // namespace

void CheckMetrics(const Instance& instance, const std::vector<JobModes>& modes,
                  const ResultRecord& result, CheckReport& report) {
  // A slot table of the wrong length is already named; its sums would mean nothing.
  if (static_cast<int>(result.slots.size()) != instance.time.slots) return;
  Totals totals = SumSlots(instance, result.slots);
  if (HasGridContract(instance)) totals.cost_usd += CheckGridContract(instance, result, report);
  const MetricsRecord& m = result.metrics;
  ExpectMetric(report, "cost_usd", m.cost_usd, totals.cost_usd);
  ExpectMetric(report, "grid_mwh", m.grid_mwh, totals.grid_mwh);
  ExpectMetric(report, "curtailment_mwh", m.curtailment_mwh, totals.curtailment_mwh);
  ExpectMetric(report, "bess_throughput_mwh", m.bess_throughput_mwh, totals.bess_throughput_mwh);
  ExpectMetric(
      report, "re_utilization_pct", m.re_utilization_pct,
      totals.renewable_kwh > 0 ? 100.0 * totals.renewable_used_kwh / totals.renewable_kwh : 100.0);
  if (totals.aidc_kwh > 0) {
    ExpectMetric(report, "green_share_pct", m.green_share_pct,
                 100.0 * (totals.aidc_kwh - totals.grid_kwh) / totals.aidc_kwh);
  }
  ExpectMetric(report, "peak_power_kw", m.peak_power_kw, totals.peak_power_kw);
  if (m.peak_gpus != totals.peak_gpus) {
    Flag(report, "metrics.peak_gpus",
         absl::StrCat("is ", m.peak_gpus, ", recomputed from the slots: ", totals.peak_gpus));
  }
  CheckObjective(result, totals.cost_usd, report);
  // Under a grid contract the S1 reference is the engine's S1 under the same contract
  // (which an import cap can make infeasible); this check's S1 knows only energy prices.
  if (!HasGridContract(instance)) CheckCostReduction(instance, modes, result, report);
}

}  // namespace ckptdp::check_internal
