#include "dispatch/internal/battery_dp.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ckptdp::internal {
namespace {

// Inverse of EnergyChange.
double NetPower(const BatteryModel& m, double de) {
  return de >= 0 ? de / (m.charge_efficiency * m.step_hours)
                 : de * m.discharge_efficiency / m.step_hours;
}

// h(dE) = c(b(dE)) + wear, as the convex envelope of the mapped breakpoints. Each branch
// maps c linearly, so its vertices are images of c's vertices plus b = 0; the envelope of
// those points is exactly the envelope of h. Sets *convexified if the kink at 0 was not
// convex (the envelope lies strictly below h there).
ConvexPwl EnergyStageCost(const BatteryModel& m, const ConvexPwl& c_full, bool* convexified) {
  const ConvexPwl c = c_full.Restricted(-m.power_kw, m.power_kw);
  if (c.empty()) return {};
  std::vector<PwlPoint> points;
  points.reserve(c.points().size() + 1);
  auto add = [&](double b, double y) {
    points.push_back({EnergyChange(m, b), y + m.wear_usd_per_kwh * std::abs(b) * m.step_hours});
  };
  for (const PwlPoint& p : c.points()) add(p.x, p.y);
  const bool both_sides = c.lo() < 0 && c.hi() > 0;
  double cost_at_zero = 0;
  if (both_sides) {
    cost_at_zero = c.Eval(0);
    add(0, cost_at_zero);
  }
  ConvexPwl h = ConvexPwl::LowerHull(std::move(points));
  if (both_sides && cost_at_zero - h.Eval(0) > 1e-9 * std::max(1.0, std::abs(cost_at_zero))) {
    *convexified = true;
  }
  return h;
}

}  // namespace

double EnergyChange(const BatteryModel& m, double b) {
  return b >= 0 ? m.charge_efficiency * m.step_hours * b
                : b * m.step_hours / m.discharge_efficiency;
}

BatteryModel BatteryModel::FromInputs(const PowerInputs& inputs) {
  const Battery& b = inputs.battery;
  return {.step_hours = inputs.step_hours,
          .power_kw = b.power_kw,
          .charge_efficiency = b.charge_efficiency,
          .discharge_efficiency = b.discharge_efficiency,
          .soc_min_kwh = b.soc_min_kwh,
          .soc_max_kwh = b.soc_max_kwh,
          .soc_initial_kwh = b.soc_initial_kwh,
          .wear_usd_per_kwh = inputs.costs.battery_wear_usd_per_mwh / 1000.0,
          .soc_final_kwh = inputs.soc_final_kwh};
}

absl::Status ValidateBatteryModel(const BatteryModel& m) {
  for (double v :
       {m.step_hours, m.power_kw, m.charge_efficiency, m.discharge_efficiency, m.soc_min_kwh,
        m.soc_max_kwh, m.soc_initial_kwh, m.FinalSoc(), m.wear_usd_per_kwh}) {
    if (!std::isfinite(v)) return absl::InvalidArgumentError("battery: parameters must be finite");
  }
  if (m.step_hours <= 0) return absl::InvalidArgumentError("battery: step_hours must be > 0");
  if (m.power_kw < 0) return absl::InvalidArgumentError("battery: power_kw must be >= 0");
  if (m.charge_efficiency <= 0 || m.charge_efficiency > 1 || m.discharge_efficiency <= 0 ||
      m.discharge_efficiency > 1) {
    return absl::InvalidArgumentError("battery: efficiencies must be in (0, 1]");
  }
  if (m.wear_usd_per_kwh < 0) return absl::InvalidArgumentError("battery: wear cost must be >= 0");
  if (!(m.soc_min_kwh <= m.soc_initial_kwh && m.soc_initial_kwh <= m.soc_max_kwh)) {
    return absl::InvalidArgumentError(
        absl::StrCat("battery: need soc_min <= soc_initial <= soc_max, got ", m.soc_min_kwh, " / ",
                     m.soc_initial_kwh, " / ", m.soc_max_kwh));
  }
  if (!(m.soc_min_kwh <= m.FinalSoc() && m.FinalSoc() <= m.soc_max_kwh)) {
    return absl::InvalidArgumentError(
        absl::StrCat("battery: need soc_min <= soc_final <= soc_max, got ", m.soc_min_kwh, " / ",
                     m.FinalSoc(), " / ", m.soc_max_kwh));
  }
  return absl::OkStatus();
}

absl::StatusOr<BatteryDpResult> SolveBatteryDp(const BatteryModel& model,
                                               std::span<const ConvexPwl> stage_cost_by_net_kw) {
  CKPTDP_RETURN_IF_ERROR(ValidateBatteryModel(model));
  const int T = static_cast<int>(stage_cost_by_net_kw.size());
  BatteryDpResult result;
  result.net_kw.assign(T, 0.0);
  result.soc_kwh.assign(T, model.soc_initial_kwh);
  if (T == 0) return result;

  std::vector<ConvexPwl> stage(T);  // stage[t-1] = h_t, the cost of slot t by dE
  for (int t = 0; t < T; ++t) {
    stage[t] = EnergyStageCost(model, stage_cost_by_net_kw[t], &result.convexified);
    if (stage[t].empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("battery: slot ", t, " has no finite stage cost with |b| <= P"));
    }
  }

  // value[t] = V_t for t = 1..T (V_0 is only needed at E_0: the forward pass's first step).
  std::vector<ConvexPwl> value(T + 1);
  value[T] = ConvexPwl::Single(model.FinalSoc(), 0.0);
  for (int t = T; t >= 2; --t) {
    // V_{t-1}(E) = min_u V_t(u) + h_t(u - E) = (V_t □ h_t(-.))(E).
    value[t - 1] = ConvexPwl::InfConvolution(value[t], stage[t - 1].Mirrored())
                       .Restricted(model.soc_min_kwh, model.soc_max_kwh);
    if (value[t - 1].empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("battery: no feasible SoC at the end of slot ", t - 2));
    }
  }

  double soc = model.soc_initial_kwh;
  for (int t = 1; t <= T; ++t) {
    const std::optional<ShiftedArgmin> step = MinimizeShiftedSum(value[t], stage[t - 1], soc);
    if (!step.has_value()) {
      return absl::FailedPreconditionError("battery: no feasible SoC trajectory");
    }
    if (t == 1) result.value_usd = step->value;
    const ConvexPwl& c = stage_cost_by_net_kw[t - 1];
    const double b = NetPower(model, step->y - soc);
    // Rounding may put b a hair outside the stage's domain; the domain is exact.
    result.net_kw[t - 1] =
        std::clamp(b, std::max(c.lo(), -model.power_kw), std::min(c.hi(), model.power_kw));
    soc = t == T ? model.FinalSoc() : std::clamp(step->y, model.soc_min_kwh, model.soc_max_kwh);
    result.soc_kwh[t - 1] = soc;
  }
  return result;
}

}  // namespace ckptdp::internal
